"""Ray Data (pipelines.ray_data, cli.ray_run): the callable, `chunker DIR -o OUT --ray`, error rows, the snippet.

Ray runs in local mode, started once for the module (two CPUs, no dashboard).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chunker
from chunk_inspector.cli.commands import main
from chunk_inspector.cli.corpus import find_markdown, run_corpus
from tests.readme_snippets import doc_blocks

ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
pq = pytest.importorskip("pyarrow.parquet")

from chunk_inspector.cli import ray_run  # noqa: E402
from chunk_inspector.cli.ray_run import run_ray  # noqa: E402
from chunk_inspector.pipelines.ray_data import ROW_FIELDS, ChunkRows, error_row, schema  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_docs"


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The samples, a nested copy, an empty file, a binary file and a non-UTF-8 file."""
    root = tmp_path / "docs"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.jsonl", "README.md"))
    (root / "nested").mkdir()
    shutil.copy(SAMPLES / "poetry_cli.md", root / "nested" / "again.md")
    (root / "empty.md").write_text("", encoding="utf-8")
    (root / "binary.md").write_bytes(b"# Title\x00\x01")
    (root / "latin1.md").write_bytes("# Café\n".encode("latin-1"))
    return root


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class TestChunkRows:
    def test_row_fields_are_document_then_chunk_fields(self) -> None:
        """Every Chunk.to_dict() field, in its order, between the document name and our two columns."""
        chunk = chunker.chunk_markdown("# A\n\ntext\n")[0]
        assert ("document", *chunk.to_dict(), "document_tokens", "error") == ROW_FIELDS
        assert schema().names == list(ROW_FIELDS)

    def test_a_row_gives_one_row_per_chunk_in_order(self) -> None:
        """A row with path and text gives the chunk set's records, named by `name` (else the path)."""
        text = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")
        rows = ChunkRows(target=256, hard_cap=512)({"path": "/x/poetry_cli.md", "name": "poetry_cli.md", "text": text})
        chunks = chunker.chunk_markdown(text, name="poetry_cli.md", target=256, hard_cap=512)
        assert [{k: v for k, v in r.items() if k not in ("document_tokens", "error")} for r in rows] == [
            json.loads(line) for line in chunks.to_jsonl().splitlines()
        ]
        assert {r["document_tokens"] for r in rows} == {chunks.document["token_count"]}
        assert ChunkRows()({"path": "p.md", "text": "# A\n"})[0]["document"] == "p.md"

    def test_bad_bytes_become_an_error_row(self) -> None:
        """Binary or non-UTF-8 bytes give one row with the reason and nulls elsewhere; nothing raises."""
        (row,) = ChunkRows()({"path": "b.md", "bytes": b"a\x00b"})
        assert row["document"] == "b.md" and "binary" in row["error"]
        assert all(row[key] is None for key in ROW_FIELDS if key not in ("document", "error"))
        (row,) = ChunkRows()({"path": "l.md", "bytes": "Café".encode("latin-1")})
        assert "not UTF-8" in row["error"]
        (row,) = ChunkRows()({"path": "n.md"})
        assert "no 'text'" in row["error"]
        assert ChunkRows()({"path": "r.md", "error": "cannot read"}) == [error_row("r.md", "cannot read")]

    def test_bad_options_raise_on_the_driver(self) -> None:
        with pytest.raises(chunker.ConfigError):
            ChunkRows(target=600, hard_cap=512)
        with pytest.raises(chunker.ConfigError, match=r"unknown option chunk_overlap=: give overlap="):
            ChunkRows(chunk_overlap=50)  # the frameworks' name for it: refused naming ours

    def test_flat_map_and_map_batches_give_the_same_rows(self) -> None:
        """The same callable works row by row (flat_map) and on batches (map_batches, arrow or numpy)."""
        items = [
            {"path": name, "text": (SAMPLES / name).read_text(encoding="utf-8")}
            for name in ("poetry_cli.md", "rust_blog_post.md")
            if (SAMPLES / name).exists()
        ] + [{"path": "bad.md", "bytes": b"\x00"}]
        rows = ChunkRows(target=256, hard_cap=512)
        ds = ray.data.from_items(items)
        by_row = ds.flat_map(rows).take_all()
        by_arrow = ds.map_batches(rows, batch_format="pyarrow").take_all()
        by_numpy = ds.map_batches(rows).take_all()
        expected = [r for item in items for r in rows(item)]

        def norm(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [{k: _plain(r.get(k)) for k in ROW_FIELDS} for r in found]

        assert sorted(map(json.dumps, norm(by_row))) == sorted(map(json.dumps, norm(expected)))
        assert sorted(map(json.dumps, norm(by_arrow))) == sorted(map(json.dumps, norm(expected)))
        assert sorted(map(json.dumps, norm(by_numpy))) == sorted(map(json.dumps, norm(expected)))


def _plain(value: Any) -> Any:
    """numpy arrays and scalars (as Ray hands them back) as plain lists and numbers."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (by relative path) and its bytes, Parquet aside."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "chunks.parquet"
    }


class TestRayCli:
    def test_the_same_files_and_bytes_as_jobs_1(self, corpus: Path, tmp_path: Path) -> None:
        """`--ray` writes the files of `--jobs 1`, byte for byte (a JSON per document, chunks.jsonl, the layers),
        skips the same two bad files, and adds chunks.parquet."""
        assert main([str(corpus), "-o", str(tmp_path / "jobs"), "--jobs", "1", "--layers", "-q"]) == 1
        assert main([str(corpus), "-o", str(tmp_path / "ray"), "--ray", "--layers", "-q"]) == 1
        jobs, ray_files = _tree(tmp_path / "jobs"), _tree(tmp_path / "ray")
        assert ray_files == jobs
        assert "empty.md.json" in jobs and "layers/sections.jsonl" in jobs and "binary.md.json" not in jobs
        assert not list((tmp_path / "ray").glob(".*"))  # no temporary file left behind

    def test_parquet_holds_the_chunk_rows_then_an_error_row_in_place_of_each_skipped_document(
        self, corpus: Path, tmp_path: Path
    ) -> None:
        assert main([str(corpus), "-o", str(tmp_path / "ray"), "--ray", "-q"]) == 1
        expected = _jsonl(tmp_path / "ray" / "chunks.jsonl")
        table = pq.read_table(tmp_path / "ray" / "chunks.parquet")
        assert table.schema.equals(schema())
        rows = table.to_pylist()
        good = [r for r in rows if r["error"] is None]
        assert [{k: v for k, v in r.items() if k not in ("document_tokens", "error")} for r in good] == expected
        errors = {r["document"]: r["error"] for r in rows if r["error"] is not None}
        assert sorted(errors) == ["binary.md", "latin1.md"]
        assert "binary" in errors["binary.md"] and "not UTF-8" in errors["latin1.md"]
        documents = list(dict.fromkeys(r["document"] for r in rows))  # in order of first row
        assert documents == [p.as_posix() for p in find_markdown(corpus) if p.name != "empty.md"]

    def test_summary_and_skipped_lines_are_those_of_jobs_1(
        self, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The summary line and the `skipped:` lines are `--jobs 1`'s, the two bad files counted as failures."""
        main([str(corpus), "-o", str(tmp_path / "jobs"), "--jobs", "1"])
        jobs_err = capsys.readouterr().err
        main([str(corpus), "-o", str(tmp_path / "ray"), "--ray"])
        ray_err = capsys.readouterr().err

        def report(err: str, out: str) -> list[str]:
            return [
                line.replace(str(tmp_path / out), "OUT")
                for line in err.splitlines()
                if line.startswith(("summary:", "skipped:"))
            ]

        assert report(ray_err, "ray") == report(jobs_err, "jobs")
        assert "2 failures" in report(ray_err, "ray")[-1]

    def test_run_ray_reuses_a_running_ray(self, corpus: Path, tmp_path: Path) -> None:
        """Ray started by the caller stays up after run_ray (it shuts down only a Ray it started)."""
        summary = run_ray(corpus, tmp_path / "out", chunker.ChunkOptions(512, 1024))
        assert ray.is_initialized()
        assert summary.files == len(list(corpus.rglob("*.md"))) and len(summary.failures) == 2

    def test_a_file_that_cannot_be_read_is_skipped_in_its_place(self, corpus: Path, tmp_path: Path) -> None:
        """A file gone (or unreadable) when the driver reads it is skipped with its reason; the others are chunked."""
        files = [Path("gone.md"), Path("poetry_cli.md")]
        summary = run_ray(corpus, tmp_path / "out", chunker.ChunkOptions(512, 1024), files=files)
        rows = pq.read_table(tmp_path / "out" / "chunks.parquet").to_pylist()
        assert rows[0]["document"] == "gone.md" and "no such file" in rows[0]["error"]
        assert {r["document"] for r in rows[1:]} == {"poetry_cli.md"} and summary.documents == 1
        assert summary.failures == [rows[0]["error"]]
        assert {r["document"] for r in _jsonl(tmp_path / "out" / "chunks.jsonl")} == {"poetry_cli.md"}

    def test_ray_refuses_a_single_file(self, tmp_path: Path) -> None:
        assert main([str(SAMPLES / "poetry_cli.md"), "--ray"]) == 2


class _CrashOnPoison(ray_run._ChunkDocuments):
    """The cluster's work, but the worker process dies on poison.md, every time (a task that cannot complete)."""

    def row(self, item: Any) -> dict[str, Any]:
        if item["name"] == "poison.md":
            os._exit(1)
        return super().row(item)


def test_a_document_whose_task_keeps_crashing_is_skipped_with_its_reason(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its task runs 1 + TASK_RETRIES times in the dataset and as many on its own, then the document is skipped
    with the reason (not retried forever, as Ray Data would); every other document is written as by --jobs 1.
    One retry here, not the 3 of a real run: each crash costs a new worker process."""
    options = chunker.ChunkOptions(512, 1024)
    run_corpus(corpus, tmp_path / "jobs", options, jobs=1)
    (corpus / "poison.md").write_text("# Poison\n\nIt takes its worker down.\n", encoding="utf-8")
    monkeypatch.setattr(ray_run, "_ChunkDocuments", _CrashOnPoison)
    monkeypatch.setattr(ray_run, "TASK_RETRIES", 1)
    summary = run_ray(corpus, tmp_path / "ray", options)
    assert _tree(tmp_path / "ray") == _tree(tmp_path / "jobs")
    (poisoned,) = [f for f in summary.failures if "poison.md" in f]
    assert poisoned.startswith(f"{corpus / 'poison.md'}: not chunked: its Ray task failed 2 times (WorkerCrashedError")
    assert len(summary.failures) == 3 and summary.documents == len(find_markdown(corpus)) - 3
    rows = pq.read_table(tmp_path / "ray" / "chunks.parquet").to_pylist()
    assert [r["error"] for r in rows if r["document"] == "poison.md"] == [poisoned]


def test_missing_ray_names_the_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without Ray, `--ray` is a usage error naming `pip install 'chunk-inspector[ray]'`, not a traceback."""
    from chunk_inspector.cli.ray_run import _ray
    from chunk_inspector.pipelines.extras import MissingExtraError

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'chunk-inspector\[ray\]'"):
        _ray()


def test_readme_snippet_runs_as_written(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The README's Ray Data snippet, run from a folder holding sample_docs/, writes the chunks it says."""
    (snippet,) = doc_blocks("docs/pipelines.md", "## Ray Data")
    monkeypatch.chdir(tmp_path)
    shutil.copytree(SAMPLES, tmp_path / "sample_docs")
    namespace: dict[str, Any] = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    table = pq.read_table(tmp_path / "chunks")
    assert table.num_rows > 0 and set(ROW_FIELDS) <= set(table.column_names)
    assert namespace["rows"][0]["breadcrumb"] == ["guide.md", "Guide"]


def test_an_unreachable_address_is_a_usage_error_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ray.init would retry a wrong address for minutes: it is checked first, and the message says what to do."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    code = main([str(tmp_path / "in"), "-o", str(tmp_path / "out"), "--ray", "127.0.0.1:1", "-q"])
    assert code == 2
    assert "cannot reach a Ray cluster at 127.0.0.1:1" in capsys.readouterr().err
    assert not (tmp_path / "out" / "chunks.parquet").exists()
