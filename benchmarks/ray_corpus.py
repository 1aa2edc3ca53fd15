"""The shared corpus through `--jobs 1`, `--jobs 2`, `--ray` (a local Ray) and `--ray ADDRESS` (a two-node cluster).

Times ``python -m chunk_inspector CORPUS -o OUT --quiet`` with ``--jobs 1``, ``--jobs 2``, ``--ray`` and
``--ray ADDRESS`` as a user runs it (a new process: imports, and for ``--ray`` starting and stopping
a local Ray on this machine's cores; for ``--ray ADDRESS`` connecting to the cluster), the four
interleaved round by round so that drift in the machine's load hits them alike; each figure is the
best of ``--repeat`` rounds. The cluster (tests/ray_cluster.py) is a head node and a worker node of
one CPU each, each its own ``ray start`` on this machine, started once before the rounds (that
start-up is shown apart: a cluster is started once for many runs) and stopped after them; its idle
processes run through every round. Start-up per command is the same command on a folder holding one
one-line file. Throughput is the corpus's MB and documents per wall-clock second, whole command;
"after start-up" takes the start-up time off. The outputs of both ``--ray`` runs are checked against
``--jobs 1``'s, byte for byte (``chunks.parquet`` aside, which only ``--ray`` writes).

Usage: python benchmarks/ray_corpus.py [--write docs/BENCHMARKS.md] [--repeat 3]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.engine import publish  # noqa: E402
from chunk_inspector.cli.corpus import find_markdown  # noqa: E402
from tests.ray_cluster import LocalCluster  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "real"
RUNS = {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "ray": ["--ray"], "cluster": []}
LABELS = {
    "jobs1": "`--jobs 1`",
    "jobs2": "`--jobs 2`",
    "ray": "`--ray` (local Ray, every core)",
    "cluster": "`--ray ADDRESS` (two-node cluster, 1 + 1 CPU)",
}


def timed(args: list[str], env: Mapping[str, str] | None = None) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system, the command and the processes it waited for) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "chunk_inspector", *args], check=False, cwd=ROOT, env=env, stdout=subprocess.DEVNULL
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def same_files(jobs_out: Path, ray_out: Path) -> bool:
    """Every file of ``jobs_out`` is in ``ray_out`` with the same bytes, and ``ray_out`` adds only chunks.parquet."""
    files_a = sorted(p.relative_to(jobs_out) for p in jobs_out.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(ray_out) for p in ray_out.rglob("*") if p.is_file() and p.name != "chunks.parquet")
    return files_a == files_b and all(filecmp.cmp(jobs_out / f, ray_out / f, shallow=False) for f in files_a)


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
    runs: dict[str, list[tuple[float, float]]] = {key: [] for key in RUNS}
    startup: dict[str, list[tuple[float, float]]] = {key: [] for key in RUNS}
    cluster_cpu: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, LocalCluster(head_cpus=1, dashboard=False) as cluster:
        cluster.add_worker(cpus=1)
        work = Path(tmp)
        tiny = work / "tiny"
        tiny.mkdir()
        (tiny / "tiny.md").write_text("# Tiny\n\nOne line.\n", encoding="utf-8")
        for _ in range(args.repeat):
            for key, flags in RUNS.items():
                env = cluster.env if key == "cluster" else None
                flags = flags or ["--ray", cluster.address]
                cpu = cluster.cpu_seconds()
                runs[key].append(timed([str(CORPUS), "-o", str(work / key), *flags, "--quiet"], env))
                if key == "cluster":
                    cluster_cpu.append(cluster.cpu_seconds() - cpu)
                startup[key].append(timed([str(tiny), "-o", str(work / f"tiny-{key}"), *flags, "--quiet"], env))
        identical = {key: same_files(work / "jobs1", work / key) for key in ("jobs2", "ray", "cluster")}
        cluster_start = dict(cluster.startup_s)
    load_after = os.getloadavg()[0]

    best = {key: min(times) for key, times in runs.items()}
    first = {key: min(times) for key, times in startup.items()}
    t1 = best["jobs1"][0]
    head, worker = cluster_start["head"], cluster_start["worker1"]
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
        cpu_text = f"{cpu:.2f}"
        if key == "cluster":  # the command's own, then the cluster's in the same round
            cpu_text += f" + {cluster_cpu[runs[key].index(best[key])]:.2f}"
        lines.append(
            f"| {LABELS[key]} | {wall:.2f} | {t1 / wall:.2f}× | {megabytes / wall:.2f} | {len(files) / wall:.1f} "
            f"| {start:.2f} | {after} | {cpu_text} |"
        )
    # The command's own CPU beyond its start-up (least of the rounds): for --jobs 1 the chunking itself, for
    # --ray ADDRESS what the driver does per document (read it, receive its rows, write its files and Parquet rows).
    own = {key: min(c for _, c in runs[key]) - min(c for _, c in startup[key]) for key in ("jobs1", "cluster")}
    same = ", ".join(f"{LABELS[key]} {'identical' if ok else 'DIFFER'}" for key, ok in identical.items())
    lines += [
        "",
        f"Starting the cluster, once before the rounds (not in any row): head node {head:.1f} s, worker node "
        f"{worker:.1f} s (each `ray start` until the head has the node), {head + worker:.1f} s in all.",
        f"Output files against `--jobs 1`'s, byte for byte: {same}.",
        f"The command's own CPU beyond its start-up (corpus run less one-line run, least of the rounds): "
        f"`--jobs 1` {own['jobs1']:.2f} s (the chunking), `--ray ADDRESS` {own['cluster']:.2f} s (the driver alone: "
        "reading the files, receiving the rows, writing the files and the Parquet rows).",
        "CPU s counts the command and the processes it waited for (for `--ray`, what Ray's own processes "
        "report back to it: a rough figure); for `--ray ADDRESS`, the command + what the cluster's processes "
        "used meanwhile (from /proc, rough: it counts their idle work too).",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other work "
        f"(load average {load_before:.2f} before, {load_after:.2f} after), Python {platform.python_version()}, "
        f"Ray {ray.__version__}.",
    ]
    publish(lines, args.write, "ray-corpus")
    return 0 if all(identical.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
