"""Which settings should I use for my retriever? Recall over target × hard cap, the peers at each cap.

For each Markdown question set (``markdown``: the 163 questions of ``../shared/corpus/retrieval``;
``more``: the 589 of ``benchmarks/questions``; ``pooled``: both, every document of both indexed
together) and each retriever (``bm25``; ``dense``: all-MiniLM-L6-v2), the engine's default strategy is
evaluated at every target of :data:`TARGETS` up to each hard cap of ``--caps``, indexing
``contextualize()`` (the breadcrumb line and the markdown: what the engine gives an embedder, and what
the evaluation indexes by default) and, at its default target, its bare ``markdown``; and each installed
peer at each cap (target half the cap where it has one, as in ``benchmarks/retrieval.py``; a peer is
indexed as its pipeline embeds: LlamaIndex with its metadata in front). Reported:

- the grid: recall within the 1,024-token budget, one row per target, one column per hard cap, the
  engine's defaults marked, then the engine's markdown alone, then one row per peer;
- the engine at its defaults against each peer at the same hard cap: the mean paired difference in
  recall within the budget ± its standard error (n questions), "leads" beyond two standard errors;
- per kind of question, the engine at its defaults against the peer it trails most (or leads least).

Usage: .venv-peers/bin/python benchmarks/retrieval_grid.py [--write docs/BENCHMARKS.md]
       [--sets markdown,more,pooled] [--retrievers bm25,dense] [--caps 256,512,1024]
(``make bench-retrieval-grid``.)
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import chunker  # noqa: E402
from benchmarks.engine import write_section  # noqa: E402
from benchmarks.peers import engine_revision  # noqa: E402
from benchmarks.retrieval import paired_lead  # noqa: E402
from chunk_inspector.evaluate.metrics import BUDGET, Contender, Evaluation, Index, K, evaluate  # noqa: E402
from chunk_inspector.evaluate.questions import QuestionSet, load_question_set  # noqa: E402
from chunk_inspector.evaluate.retrievers import Retriever, get_retriever  # noqa: E402
from chunk_inspector.peers.chunkers import available_peers, peer_version  # noqa: E402

REAL = ROOT.parent / "shared" / "corpus" / "real"
SETS = {
    "markdown": ROOT.parent / "shared" / "corpus" / "retrieval" / "markdown" / "questions.jsonl",
    "more": ROOT / "benchmarks" / "questions" / "markdown_more.jsonl",
}
ALL_SETS = [*SETS, "pooled"]
TARGETS = (128, 256, 384, 512, 768, 1024)


def question_set(name: str) -> QuestionSet:
    """One set, or ``pooled``: both sets as one, their documents indexed together."""
    if name != "pooled":
        return load_question_set(SETS[name], REAL)
    parts = [load_question_set(SETS[n], REAL) for n in SETS]
    documents = {doc: text for part in parts for doc, text in part.documents.items()}
    questions = tuple(q for part in parts for q in part.questions)
    assert len({q.id for q in questions}) == len(questions), "question ids are unique across the sets"
    return QuestionSet("pooled", questions, documents)


def engine_at(target: int, cap: int, index: Index = "context") -> Contender:
    return Contender.engine(chunker.ChunkOptions(target, cap), index)


def run(
    questions: QuestionSet, retriever: Retriever, caps: list[int], peers: list[str]
) -> tuple[dict[tuple[int, int], Evaluation], dict[tuple[str, int], Evaluation]]:
    parsed = {doc: chunker.parse(text, name=doc) for doc, text in questions.documents.items()}
    engine: dict[tuple[int, int], Evaluation] = {}
    others: dict[tuple[str, int], Evaluation] = {}
    for cap in caps:
        bare = evaluate(questions, engine_at(*defaults_at(cap), "markdown"), retriever, parsed=parsed)
        others["engine, markdown alone", cap] = bare
        for target in (t for t in TARGETS if t <= cap):
            started = time.perf_counter()
            engine[target, cap] = evaluate(questions, engine_at(target, cap), retriever, parsed=parsed)
            recall = engine[target, cap].mean()["recall@budget"]
            print(
                f"  {questions.name} {retriever.name} engine {target}/{cap}: {recall:.3f} "
                f"({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
            )
        for peer in peers:
            started = time.perf_counter()
            others[peer, cap] = evaluate(questions, Contender.of_peer(peer, cap, cap // 2), retriever)
            recall = others[peer, cap].mean()["recall@budget"]
            print(
                f"  {questions.name} {retriever.name} {peer} {cap}: {recall:.3f} "
                f"({time.perf_counter() - started:.0f} s)",
                file=sys.stderr,
            )
    return engine, others


def grid_rows(
    engine: dict[tuple[int, int], Evaluation], others: dict[tuple[str, int], Evaluation], caps: list[int]
) -> list[str]:
    default = (chunker.DEFAULT_TARGET, chunker.DEFAULT_HARD_CAP)
    rows = ["| chunker | " + " | ".join(f"cap {cap}" for cap in caps) + " |", "|---|" + "---:|" * len(caps)]
    for target in TARGETS:
        cells = []
        for cap in caps:
            ev = engine.get((target, cap))
            mark = " (defaults)" if (target, cap) == default else ""
            cells.append("" if ev is None else f"{ev.mean()['recall@budget']:.3f}{mark}")
        if any(cells):
            rows.append(f"| engine, target {target} | " + " | ".join(cells) + " |")
    for peer in sorted({p for p, _ in others}, key=lambda p: (not p.startswith("engine"), p)):
        label = f"{peer} (default target)" if peer.startswith("engine") else others[peer, caps[0]].contender.label
        cells = [f"{others[peer, cap].mean()['recall@budget']:.3f}" for cap in caps]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return rows


def defaults_at(cap: int) -> tuple[int, int]:
    """The engine's defaults at this hard cap: the default target, or the cap when that is smaller."""
    return min(chunker.DEFAULT_TARGET, cap), cap


def lead_rows(
    engine: dict[tuple[int, int], Evaluation], others: dict[tuple[str, int], Evaluation], caps: list[int]
) -> list[str]:
    rows = [
        "| hard cap | engine | its R@1024 | peer | its R@1024 | lead | ± s.e. | verdict |",
        "|---:|---|---:|---|---:|---:|---:|---|",
    ]
    for cap in caps:
        ours = engine[defaults_at(cap)]
        for (name, at), theirs in sorted(others.items()):
            if at != cap or name.startswith("engine"):
                continue
            lead, se = paired_lead(ours, theirs)
            verdict = "**leads**" if lead > 2 * se else "trails" if lead < -2 * se else "within noise"
            rows.append(
                f"| {cap} | {ours.contender.label} | {ours.mean()['recall@budget']:.3f} | {theirs.contender.label} | "
                f"{theirs.mean()['recall@budget']:.3f} | {lead:+.3f} | {se:.3f} | {verdict} |"
            )
    return rows


def kind_rows(
    questions: QuestionSet,
    engine: dict[tuple[int, int], Evaluation],
    others: dict[tuple[str, int], Evaluation],
    caps: list[int],
) -> list[str]:
    kinds = questions.kinds()
    counts = {k: sum(q.kind == k for q in questions.questions) for k in kinds}
    rows = ["| hard cap | " + " | ".join(f"{k} ({counts[k]})" for k in kinds) + " |", "|---:|" + "---|" * len(kinds)]
    for cap in caps:
        ours = engine[defaults_at(cap)]
        peers = [ev for (name, at), ev in others.items() if at == cap and not name.startswith("engine")]
        if not peers:
            continue
        cells = []
        for kind in kinds:
            worst, se, who = min(((*paired_lead(ours, p, kind), p.contender.label) for p in peers), key=lambda t: t[0])
            mark = " ⚠" if worst < -2 * se else ""
            cells.append(f"{worst:+.3f} ± {se:.3f} ({who}){mark}")
        rows.append(f"| {cap} | " + " | ".join(cells) + " |")
    return rows


def section_key(retrievers: list[str], sets: list[str]) -> str:
    """The BENCHMARKS block a run writes: one per retriever list, and per set list unless it is every set,
    so that a run on one set does not overwrite a run on another."""
    key = "retrieval-grid-" + "-".join(retrievers)
    return key if sets == ALL_SETS else key + "-" + "-".join(sets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", type=Path, help="write the results into this Markdown file")
    parser.add_argument("--sets", default=",".join(ALL_SETS))
    parser.add_argument("--retrievers", default="bm25,dense")
    parser.add_argument("--caps", default="256,512,1024")
    ns = parser.parse_args()
    if not REAL.is_dir():
        print(f"skipped: {REAL} is absent (the documents live in ../shared)", file=sys.stderr)
        return 0
    caps = [int(c) for c in ns.caps.split(",")]
    peers = available_peers()
    retrievers = [
        r for r in ns.retrievers.split(",") if r != "dense" or importlib.util.find_spec("sentence_transformers")
    ]
    started = time.perf_counter()
    out = [
        f"Measured at engine {engine_revision()}, {platform.python_implementation()} {platform.python_version()}, "
        f"k={K}, budget={BUDGET} tokens (cl100k_base), the engine's default strategy "
        f"({chunker.DEFAULT_STRATEGY}) indexing contextualize(); peers at target half the cap where they have one: "
        + (", ".join(f"{p} {peer_version(p)}" for p in peers) or "none installed")
        + ".",
        "",
    ]
    for retriever_name in retrievers:
        retriever = get_retriever(retriever_name)
        for set_name in ns.sets.split(","):
            questions = question_set(set_name)
            engine, others = run(questions, retriever, caps, peers)
            out += [
                f"#### {set_name} ({len(questions.questions)} questions, {len(questions.documents)} documents), "
                f"{retriever_name}: recall within the budget",
                "",
                *grid_rows(engine, others, caps),
                "",
                "The engine at its defaults (target 384, or the cap when smaller) against each peer at the same "
                "hard cap, paired per question:",
                "",
                *lead_rows(engine, others, caps),
                "",
                "Per kind, the engine at its defaults against the peer it trails most (or leads least): mean "
                "paired difference ± s.e.; ⚠ where it trails by more than two standard errors:",
                "",
                *kind_rows(questions, engine, others, caps),
                "",
            ]
    out.append(
        f"Took {time.perf_counter() - started:.0f} s. Command: `.venv-peers/bin/python benchmarks/retrieval_grid.py "
        f"--write docs/BENCHMARKS.md --sets {ns.sets} --retrievers {ns.retrievers} --caps {ns.caps}` "
        "(`make bench-retrieval-grid`)."
    )
    text = "\n".join(out)
    print(text)
    if ns.write is not None:
        write_section(ns.write, section_key(retrievers, ns.sets.split(",")), text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
