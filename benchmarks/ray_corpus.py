"""The shared corpus through `--jobs 1`, `--jobs 2` and `--ray` (a local Ray): throughput and start-up cost.

Times ``python -m chunk_inspector CORPUS -o OUT --quiet`` with ``--jobs 1``, ``--jobs 2`` and ``--ray``
as a user runs it (a new process: imports, and for ``--ray`` starting and stopping a local
Ray on this machine's cores), the three interleaved round by round so that drift in the
machine's load hits them alike; each figure is the best of ``--repeat`` rounds. Start-up is
the same command on a folder holding one one-line file. Throughput is the corpus's MB and
documents per wall-clock second, whole command; "after start-up" takes the start-up time
off. The chunk rows of ``--ray`` are checked against ``--jobs 1``'s records, field for field
and in order.

Usage: python benchmarks/ray_corpus.py [--write docs/BENCHMARKS.md] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus_cli import timed  # noqa: E402
from benchmarks.engine import publish  # noqa: E402
from chunk_inspector.cli.corpus import find_markdown  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "real"
RUNS = {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "ray": ["--ray"]}
LABELS = {"jobs1": "`--jobs 1`", "jobs2": "`--jobs 2`", "ray": "`--ray` (local Ray, every core)"}


def same_rows(jobs_out: Path, ray_out: Path) -> bool:
    """The chunk rows of --ray, less its two added columns, are --jobs 1's chunks.jsonl records in order."""
    expected = (jobs_out / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in (ray_out / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    found = [{k: v for k, v in r.items() if k not in ("document_tokens", "error")} for r in rows if r["error"] is None]
    return found == [json.loads(line) for line in expected]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the results table into this Markdown file")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"the shared corpus is not at {CORPUS}; nothing to measure", file=sys.stderr)
        return 1
    import ray

    files = find_markdown(CORPUS)
    megabytes = sum((CORPUS / rel).stat().st_size for rel in files) / 1e6
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tiny = work / "tiny"
        tiny.mkdir()
        (tiny / "tiny.md").write_text("# Tiny\n\nOne line.\n", encoding="utf-8")
        runs: dict[str, list[tuple[float, float]]] = {key: [] for key in RUNS}
        startup: dict[str, list[tuple[float, float]]] = {key: [] for key in RUNS}
        for _ in range(args.repeat):
            for key, flags in RUNS.items():
                runs[key].append(timed([str(CORPUS), "-o", str(work / key), *flags, "--quiet"]))
                startup[key].append(timed([str(tiny), "-o", str(work / f"tiny-{key}"), *flags, "--quiet"]))
        identical = same_rows(work / "jobs1", work / "ray")
    load_after = os.getloadavg()[0]

    best = {key: min(times) for key, times in runs.items()}
    first = {key: min(times) for key, times in startup.items()}
    t1 = best["jobs1"][0]
    lines = [
        f"Corpus: {len(files)} documents, {megabytes:.2f} MB (`../shared/corpus/real`), 512/1024, cl100k_base; "
        f"best of {args.repeat} interleaved rounds; wall-clock of the whole command.",
        "",
        "| run | seconds | vs --jobs 1 | MB/s | docs/s | start-up s (one-line file) | MB/s after start-up | CPU s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key in RUNS:
        wall, cpu = best[key]
        start = first[key][0]
        after = f"{megabytes / (wall - start):.2f}" if wall > start else "-"
        lines.append(
            f"| {LABELS[key]} | {wall:.2f} | {t1 / wall:.2f}× | {megabytes / wall:.2f} | {len(files) / wall:.1f} "
            f"| {start:.2f} | {after} | {cpu:.2f} |"
        )
    lines += [
        "",
        f"Chunk rows of `--ray` against `--jobs 1`'s records: {'identical, in order' if identical else 'DIFFER'}.",
        "CPU s counts the command and the processes it waited for (for `--ray`, what Ray's own processes "
        "report back to it: a rough figure).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other work "
        f"(load average {load_before:.2f} before, {load_after:.2f} after), Python {platform.python_version()}, "
        f"Ray {ray.__version__}.",
    ]
    publish(lines, args.write, "ray-corpus")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
