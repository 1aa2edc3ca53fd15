"""Retrieval quality (docs/evaluation.md): the engine against the peer chunkers on the shared question sets.

For each question set (``markdown``: 163 questions over 25 documents of ``../shared/corpus/real``;
``chroma``: Chroma's 472 questions over 5 plain-text corpora) and each retriever (``bm25``;
``dense``: all-MiniLM-L6-v2 when the ``[dense]`` extra is installed), every document of the set
is chunked and all chunks are indexed together. Rows: the engine at its default settings (384/1024,
indexing its ``markdown``, and ``contextualize()``), the engine at 128/256, 256/512 and 512/1024
(its default strategy indexing ``markdown``, and ``contextualize()``; each other strategy indexing
``markdown``), and each installed peer at the same hard cap (configured as in
``benchmarks/peers.py``).
Columns: chunk count, recall / precision / IoU at k=5 and within the 1,024-token budget,
precision Ω, and for the dense model the share of chunks longer than its input (truncated).

The lead of the engine's default strategy (both indexed texts, each target) over the best peer at each hard
cap is given with its noise: the standard error of the per-question difference in recall (paired, n questions);
"within noise" means less than two standard errors.

Usage: .venv-peers/bin/python benchmarks/retrieval.py [--write docs/BENCHMARKS.md]
       [--sets markdown,chroma] [--retrievers bm25,dense] [--caps 256,512,1024]
(``make bench-retrieval`` sets up .venv-peers with the peers and the dense extra and runs this.)
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import inspect
import math
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import chunker  # noqa: E402
from benchmarks.engine import write_section  # noqa: E402
from benchmarks.peers import engine_revision  # noqa: E402
from chunk_inspector.evaluate.metrics import BUDGET, Contender, Evaluation, K, evaluate  # noqa: E402
from chunk_inspector.evaluate.questions import QuestionSet, load_question_set  # noqa: E402
from chunk_inspector.evaluate.retrievers import Retriever, get_retriever  # noqa: E402
from chunk_inspector.peers.chunkers import available_peers, peer_version  # noqa: E402

RETRIEVAL = ROOT.parent / "shared" / "corpus" / "retrieval"
SETS = {
    "markdown": (RETRIEVAL / "markdown" / "questions.jsonl", ROOT.parent / "shared" / "corpus" / "real"),
    "chroma": (RETRIEVAL / "chroma" / "questions_df.csv", None),
}
# Chroma's published recall on its set (text-embedding-3-large, 5 chunks retrieved, in %), from the results
# table of https://research.trychroma.com/evaluating-chunking (an image there; these three figures are the
# ones summaries of the report repeat), for orientation only: another retriever, other tokens.
CHROMA_PUBLISHED = [
    ("RecursiveCharacterTextSplitter, 800 tokens, overlap 400", "85.4"),
    ("RecursiveCharacterTextSplitter, 400 tokens, overlap 0", "89.5"),
    ("RecursiveCharacterTextSplitter, 200 tokens, overlap 0", "88.1"),
]


def strategies() -> list[str | None]:
    """The packing strategies ``chunker.chunk`` offers (None: it has no ``strategy`` option)."""
    parameter = inspect.signature(chunker.chunk).parameters.get("strategy")
    if parameter is None:
        return [None]
    default = parameter.default
    return [default, *(s for s in chunker.STRATEGIES if s != default)]


def default_limits() -> tuple[int, int]:
    """The engine's default target and hard cap (read off ``chunker.chunk``, so a baseline engine gives its own)."""
    parameters = inspect.signature(chunker.chunk).parameters
    return parameters["target"].default, parameters["hard_cap"].default


def contenders(cap: int, peers: list[str], all_strategies: bool = True) -> list[Contender]:
    """The engine, then the peers, all at this hard cap.

    At the engine's default hard cap, its default settings come first (default target and strategy,
    indexing markdown and contextualize()). Then the engine at target half the cap: its default
    strategy indexing markdown and contextualize(), each other strategy indexing markdown (unless
    ``all_strategies`` is False)."""
    default_target, default_cap = default_limits()
    out: list[Contender] = []
    if cap == default_cap and default_target != cap // 2:
        for index in ("markdown", "context"):
            contender = Contender.engine(chunker.ChunkOptions(default_target, cap), index)
            suffix = " + breadcrumb" if index == "context" else ""
            out.append(dataclasses.replace(contender, label=f"engine {default_target}/{cap} (defaults){suffix}"))
    for n, strategy in enumerate(strategies() if all_strategies else strategies()[:1]):
        options = {} if strategy is None else {"strategy": strategy}
        for index in ("markdown", "context") if n == 0 else ("markdown",):
            contender = Contender.engine(chunker.ChunkOptions(cap // 2, cap, **options), index)
            if strategy is not None:
                suffix = " + breadcrumb" if index == "context" else ""
                label = f"engine {cap // 2}/{cap} {strategy}{suffix}"
                contender = dataclasses.replace(contender, label=label)
            out.append(contender)
    out += [Contender.of_peer(name, cap, cap // 2) for name in peers]
    return out


def default_strategy_rows(evaluations: list[Evaluation]) -> list[Evaluation]:
    """The engine's rows under its default strategy (default settings and target half the cap, both indexings)."""
    default = strategies()[0]
    return [ev for ev in evaluations if ev.contender.peer is None and ev.contender.options.strategy == default]


def paired_lead(ours: Evaluation, theirs: Evaluation, kind: str | None = None) -> tuple[float, float]:
    """Mean and standard error of the per-question difference in recall within the budget (of one kind)."""
    diffs = [
        a.at_budget.recall - b.at_budget.recall
        for a, b in zip(ours.results, theirs.results, strict=True)
        if kind is None or a.question.kind == kind
    ]
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    return mean, se


def run_set(
    name: str, questions: QuestionSet, retriever: Retriever, caps: list[int], peers: list[str], all_strategies: bool
) -> tuple[list[str], dict[int, list[Evaluation]]]:
    parsed = {doc: chunker.parse(text, name=doc) for doc, text in questions.documents.items()}
    share = getattr(retriever, "truncated_share", None)
    rows: list[str] = []
    done: dict[int, list[Evaluation]] = {}
    header = "| chunker | chunks | R@5 | P@5 | IoU@5 | R@1024 | P@1024 | IoU@1024 | PΩ |"
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    if share is not None:
        header += " truncated |"
        rule += "---:|"
    rows += [header, rule]
    for cap in caps:
        done[cap] = []
        for contender in contenders(cap, peers, all_strategies):
            started = time.perf_counter()
            ev = evaluate(questions, contender, retriever, parsed=parsed)
            done[cap].append(ev)
            m = ev.mean()
            cells = [
                ev.contender.label if ev.contender.peer is None else f"{ev.contender.label} {cap}",
                str(len(ev.chunks)),
                *(f"{m[key]:.3f}" for key in ("recall@k", "precision@k", "iou@k")),
                *(f"{m[key]:.3f}" for key in ("recall@budget", "precision@budget", "iou@budget")),
                f"{m['precision_omega']:.3f}",
            ]
            if share is not None:
                cells.append(f"{share([c.text for c in ev.chunks]):.1%}")
            rows.append("| " + " | ".join(cells) + " |")
            print(f"  {name} {retriever.name} {rows[-1]}  ({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return rows, done


def lead_rows(done: dict[int, list[Evaluation]]) -> list[str]:
    """The engine's default strategy (markdown, then contextualize()) against the best peer at each cap."""
    rows = [
        "| hard cap | engine (default strategy) | R@1024 | best peer | its R@1024 | lead | ± s.e. | verdict |",
        "|---:|---|---:|---|---:|---:|---:|---|",
    ]
    for cap, evaluations in done.items():
        peers = [ev for ev in evaluations if ev.contender.peer is not None]
        if not peers:
            continue
        best = max(peers, key=lambda ev: ev.mean()["recall@budget"])
        for ours in default_strategy_rows(evaluations):
            lead, se = paired_lead(ours, best)
            verdict = "within noise" if abs(lead) < 2 * se else "**leads**" if lead > 0 else "trails"
            rows.append(
                f"| {cap} | {ours.contender.label} | {ours.mean()['recall@budget']:.3f} | {best.contender.label} | "
                f"{best.mean()['recall@budget']:.3f} | {lead:+.3f} | {se:.3f} | {verdict} |"
            )
    return rows


def kind_deficit_rows(questions: QuestionSet, done: dict[int, list[Evaluation]]) -> list[str]:
    """Per kind, the engine's default rows against the peer it trails most (paired, that kind's questions)."""
    kinds = questions.kinds()
    rows = [
        "| hard cap | engine (default strategy) | " + " | ".join(kinds) + " |",
        "|---:|---|" + "---|" * len(kinds),
    ]
    for cap, evaluations in done.items():
        peers = [ev for ev in evaluations if ev.contender.peer is not None]
        if not peers:
            continue
        for ours in default_strategy_rows(evaluations):
            cells = []
            for kind in kinds:
                worst, se, who = min(
                    ((*paired_lead(ours, p, kind), p.contender.label) for p in peers), key=lambda t: t[0]
                )
                mark = " ⚠" if worst < -2 * se else ""
                cells.append(f"{worst:+.3f} ± {se:.3f} ({who}){mark}")
            rows.append(f"| {cap} | {ours.contender.label} | " + " | ".join(cells) + " |")
    return rows


def kind_rows(questions: QuestionSet, done: dict[int, list[Evaluation]]) -> list[str]:
    kinds = questions.kinds()
    counts = {k: sum(q.kind == k for q in questions.questions) for k in kinds}
    rows = [
        "| chunker | " + " | ".join(f"{k} ({counts[k]})" for k in kinds) + " |",
        "|---|" + "---:|" * len(kinds),
    ]
    for cap, evaluations in done.items():
        for ev in evaluations:
            label = ev.contender.label if ev.contender.peer is None else f"{ev.contender.label} {cap}"
            by_kind = ev.by_kind()
            rows.append(f"| {label} | " + " | ".join(f"{by_kind[k]['recall@budget']:.3f}" for k in kinds) + " |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", type=Path, help="write the results into this Markdown file")
    parser.add_argument("--sets", default="markdown,chroma")
    parser.add_argument("--retrievers", default="bm25,dense")
    parser.add_argument("--caps", default="256,512,1024")
    parser.add_argument(
        "--default-strategy-only", action="store_true", help="leave out the other strategies' rows (dense is slow)"
    )
    ns = parser.parse_args()
    if not RETRIEVAL.is_dir():
        print(f"skipped: {RETRIEVAL} is absent (the question sets live in ../shared)", file=sys.stderr)
        return 0
    caps = [int(c) for c in ns.caps.split(",")]
    peers = available_peers()
    retrievers = [
        r for r in ns.retrievers.split(",") if r != "dense" or importlib.util.find_spec("sentence_transformers")
    ]
    started = time.perf_counter()
    out = [
        f"Measured at engine {engine_revision()}, {platform.python_implementation()} {platform.python_version()}, "
        f"k={K}, budget={BUDGET} tokens (cl100k_base). Peers: "
        + (", ".join(f"{p} {peer_version(p)}" for p in peers) or "none installed")
        + ". Retrievers: "
        + ", ".join(retrievers)
        + ".",
        "",
    ]
    for set_name in ns.sets.split(","):
        path, root = SETS[set_name]
        questions = load_question_set(path, root)
        for retriever_name in retrievers:
            retriever = get_retriever(retriever_name)
            rows, done = run_set(set_name, questions, retriever, caps, peers, not ns.default_strategy_only)
            out += [f"#### {set_name} set ({len(questions.questions)} questions), {retriever_name}", "", *rows, ""]
            out += ["The engine's default strategy against the best peer, recall within the budget (paired):", ""]
            out += [*lead_rows(done), ""]
            if questions.kinds():
                out += ["Recall within the budget per kind of question:", "", *kind_rows(questions, done), ""]
                out += [
                    "Per kind, the engine's default rows against the peer they trail most (or lead least): mean "
                    "paired difference ± s.e.; ⚠ where it trails by more than two standard errors:",
                    "",
                    *kind_deficit_rows(questions, done),
                    "",
                ]
    out += [
        "Chroma's published recall on its set, for orientation only (text-embedding-3-large, k=5; %; the "
        "report's table is an image, these are the figures its summaries repeat):",
        "",
        "| chunker (Chroma's report) | recall@5 |",
        "|---|---:|",
        *(f"| {name} | {recall} |" for name, recall in CHROMA_PUBLISHED),
        "",
        f"Took {time.perf_counter() - started:.0f} s. Command: `.venv-peers/bin/python benchmarks/retrieval.py "
        f"--write docs/BENCHMARKS.md --sets {ns.sets} --retrievers {ns.retrievers} --caps {ns.caps}"
        + (" --default-strategy-only" if ns.default_strategy_only else "")
        + "` "
        "(or `make bench-retrieval`).",
    ]
    text = "\n".join(out)
    print(text)
    if ns.write is not None:
        sets_key = "" if ns.sets == parser.get_default("sets") else "-" + ns.sets.replace(",", "-")
        caps_key = "" if ns.caps == parser.get_default("caps") else "-" + ns.caps.replace(",", "-")
        write_section(ns.write, "retrieval-" + "-".join(retrievers) + sets_key + caps_key, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
