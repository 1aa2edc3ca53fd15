"""The retrieval goal at the defaults: does the engine lead every peer beyond two paired standard errors?

One retriever (``--retriever``, default ``dense``: the bundled all-MiniLM-L6-v2), one question set
(``--set``, default ``pooled``: the 163 Markdown questions and the 589 of ``benchmarks/questions``,
every document indexed together; see ``benchmarks/retrieval_grid.py``), one hard cap (``--cap``,
default the engine's). The engine at its defaults, indexing each of ``--index`` (its ``markdown``,
``contextualize()``), against each installed peer at the same cap (target half the cap, as the
grid's), and the two indexings against each other, paired per question: the mean difference in
recall within the 1,024-token budget ± its standard error, "leads" beyond two, and each kind of
question on which the engine trails beyond two. A cheaper check than the grid when only the defaults
are asked about (MiniLM on CPU embeds every chunk of 111 documents once per row: about 2-4 minutes a
row on two cores).

Usage: .venv-peers/bin/python benchmarks/retrieval_lead.py [--retriever dense|bm25] [--set pooled]
       [--cap 1024] [--target N] [--index markdown,context] [--peers llamaindex,langchain,...]
Prints one line per row as it goes (results in docs/BENCHMARKS.md, written by hand from its output).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import chunker  # noqa: E402
from benchmarks.retrieval import paired_lead  # noqa: E402
from benchmarks.retrieval_grid import defaults_at, engine_at, question_set  # noqa: E402
from chunk_inspector.evaluate.metrics import Contender, Evaluation, Index, evaluate  # noqa: E402
from chunk_inspector.evaluate.retrievers import get_retriever  # noqa: E402
from chunk_inspector.peers.chunkers import available_peers  # noqa: E402


def verdict(lead: float, se: float) -> str:
    return "leads" if lead > 2 * se else "trails" if lead < -2 * se else "within noise"


def compare(ours: dict[Index, Evaluation], theirs: Evaluation, kinds: list[str]) -> str:
    """One peer's line: its recall, then the engine's lead under each indexing, and the kinds it trails on."""
    line = f"{theirs.contender.label}: {theirs.mean()['recall@budget']:.3f}"
    for index, evaluation in ours.items():
        lead, se = paired_lead(evaluation, theirs)
        line += f" | engine {index} lead {lead:+.3f} ± {se:.3f} {verdict(lead, se)}"
        for kind in kinds:
            kind_lead, kind_se = paired_lead(evaluation, theirs, kind)
            if kind_lead < -2 * kind_se:
                line += f" [trails on {kind}: {kind_lead:+.3f} ± {kind_se:.3f}]"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--retriever", default="dense")
    parser.add_argument("--set", default="pooled")
    parser.add_argument("--cap", type=int, default=chunker.DEFAULT_HARD_CAP)
    parser.add_argument("--target", type=int, help="the engine's target (default: its default at the cap)")
    parser.add_argument("--index", default="markdown,context")
    parser.add_argument("--peers", default=",".join(available_peers()))
    args = parser.parse_args()
    retriever = get_retriever(args.retriever)
    questions = question_set(args.set)
    parsed = {doc: chunker.parse(text, name=doc) for doc, text in questions.documents.items()}
    target, cap = defaults_at(args.cap)
    target = args.target or target
    started = time.perf_counter()
    ours: dict[Index, Evaluation] = {}
    for index in args.index.split(","):
        assert index in ("markdown", "context"), index
        ours[index] = evaluate(questions, engine_at(target, cap, index), retriever, parsed=parsed)
        print(f"engine {target}/{cap} {index}: {ours[index].mean()['recall@budget']:.3f}", flush=True)
    if len(ours) == 2:
        (first, a), (second, b) = ours.items()
        lead, se = paired_lead(a, b)
        print(f"engine {first} against engine {second}: {lead:+.3f} ± {se:.3f} {verdict(lead, se)}", flush=True)
    for peer in filter(None, args.peers.split(",")):
        theirs = evaluate(questions, Contender.of_peer(peer, cap, cap // 2), retriever)
        print(compare(ours, theirs, list(questions.kinds())), f"({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
