"""The README's quickstarts run as written, from a folder holding sample_docs/ (as a fresh clone is)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import chunker
from tests.readme_snippets import ROOT, doc_blocks, readme_blocks

SAMPLES = ROOT / "sample_docs"


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with a copy of sample_docs/, made the current directory."""
    shutil.copytree(SAMPLES, tmp_path / "sample_docs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_python_quickstart_runs_as_written(clone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (snippet,) = readme_blocks("## Python quickstart")
    namespace: dict[str, Any] = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    text = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")
    doc = chunker.parse(text, name="poetry_cli.md")
    assert namespace["chunks"] == chunker.chunk(doc, target=256, hard_cap=512)
    written = chunker.ChunkSet.from_json((clone / "poetry_cli.json").read_text(encoding="utf-8"))
    assert written == chunker.chunk(doc, target=256, hard_cap=512)
    out = capsys.readouterr().out
    first = chunker.chunk(doc)[0]
    assert out.startswith(f"{first.id} {first.token_count} poetry_cli.md › ")
    assert namespace["chunks"][1].contextualize() in out


def commands() -> list[list[str]]:
    """The CLI quickstart's commands, comments dropped."""
    (block,) = readme_blocks("## Command line quickstart", language="sh")
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_the_cli_quickstart_uses_the_chunker_command() -> None:
    assert commands() and all(argv[0] == "chunker" for argv in commands())


def test_the_cli_quickstart_runs_as_written(clone: Path) -> None:
    """Each command through `python -m chunk_inspector` (what `chunker` runs), this checkout's code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outputs = []
    for argv in commands():
        done = subprocess.run(
            [sys.executable, "-m", "chunk_inspector", *argv[1:]],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, (argv, done.stderr[-2000:])
        outputs.append(done.stdout)
    document = chunker.parse((SAMPLES / "poetry_cli.md").read_text(encoding="utf-8"), name="poetry_cli.md")
    assert (clone / "poetry_cli.json").read_text(encoding="utf-8") == chunker.chunk(document).to_json()
    jsonl = next(out for argv, out in zip(commands(), outputs, strict=True) if "jsonl" in argv)
    assert jsonl == chunker.chunk(document, target=256, hard_cap=512).to_jsonl()
    assert "[over cap]" in next(out for argv, out in zip(commands(), outputs, strict=True) if argv[1] == "tree")
    records = [json.loads(line) for line in (clone / "out" / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {"poetry_cli.md", "jest_changelog.md"} <= {r["document"] for r in records}
    assert (clone / "out" / "poetry_cli.md.json").is_file()
    assert "recall@budget" in outputs[-1]


def test_doc_blocks_reads_any_doc_by_its_heading() -> None:
    assert doc_blocks("README.md", "## Python quickstart") == readme_blocks("## Python quickstart")
    assert len(doc_blocks(ROOT / "docs" / "pipelines.md", "## LangChain")) == 1
    assert doc_blocks("README.md", "## No such heading") == []
