"""The command line, driven as a user would: subprocess, real files, exit status and output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import chunker

GUIDE = "# Guide\n\nIntro text.\n\n## Install\n\n" + "Run the installer and wait. " * 60 + "\n\n## Use\n\nDone.\n"


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chunker", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.fixture
def guide(tmp_path: Path) -> Path:
    path = tmp_path / "guide.md"
    path.write_bytes(GUIDE.encode())
    return path


def test_writes_a_chunk_set_json_to_stdout(guide: Path) -> None:
    """`python -m chunker FILE` prints JSON that ChunkSet.from_json reads back."""
    result = cli(guide, "--target", "64", "--hard-cap", "128")
    assert result.returncode == 0, result.stderr
    chunks = chunker.ChunkSet.from_json(result.stdout)
    assert chunks.document["name"] == "guide.md"
    assert chunks.config["hard_cap"] == 128
    assert max(c.token_count for c in chunks) <= 128
    assert chunks == chunker.chunk_markdown(GUIDE, name="guide.md", target=64, hard_cap=128)


def test_jsonl_to_a_file_with_a_summary_on_stderr(guide: Path, tmp_path: Path) -> None:
    """--format jsonl -o OUT writes one chunk per line and says what it wrote."""
    out = tmp_path / "out.jsonl"
    result = cli(guide, "--format", "jsonl", "-o", out, "--hard-cap", "64", "--target", "32")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) > 2 and all(r["document"] == "guide.md" for r in records)
    assert f"{len(records)} chunks" in result.stderr


def test_tree_prints_headings_with_own_and_subtree_counts(guide: Path) -> None:
    """`chunker tree FILE` shows each heading with its own and subtree token counts."""
    result = cli("tree", guide, "--hard-cap", "100")
    assert result.returncode == 0, result.stderr
    doc = chunker.parse(GUIDE, name="guide.md")
    install = doc.sections[0].children[0]
    assert f"## Install  own {install.own_tokens} · subtree {install.tokens}" in result.stdout
    assert "[over cap]" in result.stdout.splitlines()[1]  # the whole guide is over 100


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["missing.md"], "missing.md: no such file"),
        ("dir", ["adir"], "is a directory"),
        ("latin1", ["latin1.md"], "is not UTF-8 text: byte 0xe9 at offset 4"),
        ("binary", ["blob.md"], "looks like a binary file"),
        ("ok", ["ok.md", "--target", "900", "--hard-cap", "100"], r"hard_cap \(100\) must be at least target \(900\)"),
        ("ok", ["ok.md", "--hard-cap", "3", "--target", "2"], "below the smallest workable size"),
        ("ok", ["ok.md", "--tokenizer", "nope"], "unknown tokenizer 'nope'"),
    ],
)
def test_bad_input_ends_with_one_clear_line_and_status_2(
    tmp_path: Path, setup: str | None, args: list[str], message: str
) -> None:
    """Bad paths, non-UTF-8 or binary files and bad limits: a message, exit 2, no traceback."""
    if setup == "dir":
        (tmp_path / "adir").mkdir()
    elif setup == "latin1":
        (tmp_path / "latin1.md").write_bytes("caf\u00e9 au lait".encode("latin-1").replace(b"caf", b"cafe"))
    elif setup == "binary":
        (tmp_path / "blob.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    elif setup == "ok":
        (tmp_path / "ok.md").write_text("# ok\n")
    result = cli(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ")
    assert __import__("re").search(message, result.stderr), result.stderr


def test_crlf_and_bom_files_keep_exact_spans(tmp_path: Path) -> None:
    """Line endings are kept as written; a UTF-8 BOM is dropped before offsets are counted."""
    text = "# T\r\n\r\nbody line\r\n"
    path = tmp_path / "crlf.md"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    result = cli(path)
    assert result.returncode == 0, result.stderr
    (only,) = chunker.ChunkSet.from_json(result.stdout)
    assert only.markdown == "# T\r\n\r\nbody line"
    assert only.char_span == (0, len(text) - 2)
