"""What keeping each text's embedding saves a dense evaluation after a slider move.

On the bundled question set (``sample_docs/questions.jsonl``, every document indexed together), the engine's
chunks are evaluated with the bundled MiniLM at a walk of settings, as a user moving the sliders makes them
(the hard cap a stop down and up, then the target), by two retrievers taking turns setting by setting: one that
keeps every text's embedding (the default, ``cache_bytes`` 64 MiB) and one that keeps none (``cache_bytes=0``:
each setting's chunks embedded afresh, as before). Each setting's time is the evaluation's wall time (chunking
from the parsed documents, embedding, ranking, scoring); both must give the same scores.

    .venv/bin/python benchmarks/dense_moves.py [--write docs/BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["HF_HUB_OFFLINE"] = "1"

import chunker  # noqa: E402
from benchmarks.engine import publish  # noqa: E402
from chunk_inspector.evaluate.dense import DenseRetriever, load_model  # noqa: E402
from chunk_inspector.evaluate.metrics import Contender, evaluate  # noqa: E402
from chunk_inspector.evaluate.questions import load_question_set  # noqa: E402

SET = ROOT / "sample_docs" / "questions.jsonl"
WALK = [(384, 1024), (384, 768), (384, 1024), (384, 1536), (256, 1536), (256, 1024), (512, 1024)]  # (target, cap)
HEADING = "\n## Evaluation with a dense model: a slider move, each text's embedding kept\n\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the table into this Markdown file")
    args = parser.parse_args()
    questions = load_question_set(SET)
    parsed = {name: chunker.parse(text, name=name) for name, text in questions.documents.items()}
    keeping, afresh = DenseRetriever(), DenseRetriever(cache_bytes=0)
    load_model().encode(["warm-up"])  # loaded once, before either is timed (they share the model)
    rows: list[str] = []
    for target, hard_cap in WALK:
        contender = Contender.engine(replace(chunker.ChunkOptions(), target=target, hard_cap=hard_cap))
        times, scores = [], []
        for retriever in (afresh, keeping):
            start = time.perf_counter()
            result = evaluate(questions, contender, retriever, parsed=parsed)
            times.append(time.perf_counter() - start)
            scores.append(result.mean())
        if scores[0] != scores[1]:
            raise SystemExit(f"the scores differ at {target}/{hard_cap}: {scores[0]} != {scores[1]}")
        rows.append(
            f"| {target} / {hard_cap} | {len(result.chunks):,} | {times[0]:.1f} | {times[1]:.1f} "
            f"| {times[0] / times[1]:.1f}× | {scores[1]['recall@budget']:.3f} |"
        )
        print(rows[-1], flush=True)
    command = "`.venv/bin/python benchmarks/dense_moves.py --write docs/BENCHMARKS.md`"
    lines = [
        f"Command: {command}. {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{len(questions.questions)} questions over {len(questions.documents)} documents. The settings in the order "
        "a user's slider moves make them; each row's two evaluations ran one after the other, in the same "
        "process, and gave equal scores (the benchmark stops otherwise); the model was loaded before. Afresh: a "
        "retriever that keeps no embedding (`cache_bytes=0`), as every evaluation was before; kept: the default, "
        "which embeds only the texts it has not met. The first row is the first setting: both embed every chunk.",
        "",
        "| target / hard cap | chunks | afresh, s | kept, s | faster | recall in budget |",
        "|---|---:|---:|---:|---:|---:|",
        *rows,
    ]
    publish(lines, args.write, "dense-moves", HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
