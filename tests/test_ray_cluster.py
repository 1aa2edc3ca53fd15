"""A real two-node Ray cluster on this machine (tests/ray_cluster.py): `--ray ADDRESS`, the docs' job, a lost worker.

A head node and a worker node, each its own `ray start`, are started once for the module (about 25 s
on two cores) and stopped at its end. The commands run as docs/pipelines.md ("On a Ray cluster")
writes them, as separate processes with the cluster's environment (its token).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chunk_inspector.cli.commands import main
from tests.readme_snippets import doc_blocks

pytest.importorskip("ray", reason="the [ray] extra is not installed")
pytest.importorskip("ray.dashboard.optional_deps", reason="the [ray-cluster] extra (ray[default]) is not installed")
pq = pytest.importorskip("pyarrow.parquet")

from chunk_inspector.pipelines.ray_data import ROW_FIELDS, ChunkRows  # noqa: E402
from tests.ray_cluster import RAY, LocalCluster, Node, process_title, session  # noqa: E402

pytestmark = pytest.mark.ray_cluster

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_docs"
SECTION = "## On a Ray cluster"


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(head_cpus=1) as started:
        started.add_worker(cpus=1)
        yield started
        # Nothing of the cluster outlives it (checked here, after the tests, on every run).
    assert started.leftovers() == [] and not started.root.exists()


@pytest.fixture
def worker(cluster: LocalCluster) -> Node:
    """A live worker node of the cluster (a new one if a test killed the last)."""
    alive = [node for node in cluster.nodes[1:] if node.process.poll() is None]
    return alive[-1] if alive else cluster.add_worker(cpus=1)


def _corpus(folder: Path, copies: int = 1, bad: bool = True) -> Path:
    """The samples (``copies`` times, in folders of their own), and with ``bad`` an empty, a binary and a
    non-UTF-8 file."""
    for n in range(copies):
        shutil.copytree(SAMPLES, folder / f"copy{n}", ignore=shutil.ignore_patterns("*.jsonl", "README.md", "licenses"))
    if bad:
        (folder / "empty.md").write_text("", encoding="utf-8")
        (folder / "binary.md").write_bytes(b"# Title\x00\x01")
        (folder / "latin1.md").write_bytes("# Café\n".encode("latin-1"))
    return folder


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (by relative path) and its bytes, Parquet aside."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "chunks.parquet"
    }


def _block(containing: str) -> str:
    """The shell block of the docs' cluster section that holds ``containing``."""
    (block,) = [b for b in doc_blocks("docs/pipelines.md", SECTION, "sh") if containing in b]
    return block


def _report(err: str, out: str) -> list[str]:
    """The summary and `skipped:` lines of a run's stderr, its output folder named OUT."""
    return [line.replace(out, "OUT") for line in err.splitlines() if line.startswith(("summary:", "skipped:"))]


def _chunk_task_nodes(cluster: LocalCluster) -> set[str]:
    """The ids of the nodes that ran a task of `--ray`'s chunking, from Ray's state API (its events come in
    from each worker about once a second)."""
    deadline = time.monotonic() + 30
    nodes: set[str] = set()
    while len(nodes) < 2 and time.monotonic() < deadline:
        listed = subprocess.run(
            [RAY, "list", "tasks", "--address", cluster.dashboard_url, "--format", "json", "--limit", "10000"],
            env=cluster.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        tasks: list[dict[str, Any]] = json.loads(listed.stdout[listed.stdout.index("[") :])
        nodes = {t["node_id"] for t in tasks if "_ChunkDocuments" in t["name"] and t["node_id"]}
        time.sleep(1)
    return nodes


def test_the_docs_chunker_command_writes_what_jobs_1_writes(
    cluster: LocalCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`chunker docs -o out --ray HEAD_NODE:6379` as the docs write it, against the head: the files of `--jobs 1`,
    byte for byte, the same summary and `skipped:` lines, and Ray's own record shows chunking tasks on both nodes."""
    _corpus(tmp_path / "docs")
    monkeypatch.chdir(tmp_path)
    assert main(["docs", "-o", "jobs", "--jobs", "1"]) == 1
    jobs_err = capsys.readouterr().err
    command = shlex.split(_block("chunker ").replace("HEAD_NODE:6379", cluster.address))
    assert command[:4] == ["chunker", "docs", "-o", "out"]
    ran = subprocess.run(command, cwd=tmp_path, env=cluster.env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 1, ran.stderr  # the two bad files
    assert _tree(tmp_path / "out") == _tree(tmp_path / "jobs")
    assert len(_tree(tmp_path / "jobs")) == 1 + 6 + 1  # chunks.jsonl, the six samples, empty.md
    assert _report(ran.stderr, "out") == _report(jobs_err, "jobs")
    assert pq.read_table(tmp_path / "out" / "chunks.parquet").num_rows > 0
    assert len(_chunk_task_nodes(cluster)) == 2


def test_the_docs_job_runs_on_the_cluster(cluster: LocalCluster, tmp_path: Path) -> None:
    """The docs' `cat > chunk_job.py` and `ray job submit`, run by a shell as written, with the job server's address
    and local folders for the buckets: the Parquet rows are ChunkRows' rows of each file, every file there."""
    docs = _corpus(tmp_path / "docs", bad=False)
    script = (
        _block("ray job submit")
        .replace("http://HEAD_NODE:8265", cluster.dashboard_url)
        .replace("s3://my-bucket/docs/", str(docs))
        .replace("s3://my-bucket/chunks/", str(tmp_path / "chunks"))
    )
    (tmp_path / "job").mkdir()
    ran = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path / "job",
        env=cluster.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "succeeded" in ran.stdout + ran.stderr
    rows = pq.read_table(tmp_path / "chunks").to_pylist()
    files = sorted(str(p) for p in docs.rglob("*.md"))
    assert sorted({r["document"] for r in rows}) == files
    assert all(r["error"] is None for r in rows)
    chunk_rows = ChunkRows(target=512, hard_cap=1024)
    expected = [r for path in files for r in chunk_rows({"path": path, "bytes": Path(path).read_bytes()})]

    def key(row: dict[str, Any]) -> tuple[str, int]:
        return row["document"], row["index"]

    assert [{k: r[k] for k in ROW_FIELDS} for r in sorted(rows, key=key)] == sorted(expected, key=key)


def test_losing_the_worker_node_mid_run_loses_no_document(cluster: LocalCluster, worker: Node, tmp_path: Path) -> None:
    """The worker node is killed (every process of it, SIGKILL) while it chunks a document: the run still ends
    with exit status 0 and the files of `--jobs 1`, byte for byte (the lost tasks ran again on the head)."""
    docs = _corpus(tmp_path / "docs", copies=6, bad=False)
    assert main([str(docs), "-o", str(tmp_path / "jobs"), "--jobs", "1", "-q"]) == 0
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chunk_inspector",
            str(docs),
            "-o",
            str(tmp_path / "ray"),
            "--ray",
            cluster.address,
            "-q",
        ],
        env=cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        chunking = _wait_for_chunking(worker, run)
        cluster.kill(worker)
        err = run.communicate(timeout=300)[1]
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert chunking, f"the run ended before the worker node chunked anything:\n{err}"
    assert run.returncode == 0, err
    assert "skipped" not in err
    assert _tree(tmp_path / "ray") == _tree(tmp_path / "jobs")


def _wait_for_chunking(node: Node, run: subprocess.Popen[str], timeout: float = 180.0) -> list[str]:
    """Wait until a process of ``node`` runs a chunking task (Ray shows the task in the worker's title); returns
    those titles, or nothing if ``run`` ended first."""
    deadline = time.monotonic() + timeout
    while run.poll() is None and time.monotonic() < deadline:
        titles = [t for t in map(process_title, session(node.process.pid)) if "_ChunkDocuments" in t]
        if titles:
            return titles
        time.sleep(0.01)
    return []
