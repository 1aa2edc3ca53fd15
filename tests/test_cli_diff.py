"""`chunker diff OLD NEW`, driven as a user would: subprocess, real files, exit status and output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import chunker
from tests.test_cli import cli

REVISIONS = Path(__file__).resolve().parent.parent / "benchmarks" / "revisions"
# A real edit (FastAPI's README, one commit): six lines changed of 498.
OLD = REVISIONS / "fastapi" / "README" / "03-480f928599.md"
NEW = REVISIONS / "fastapi" / "README" / "04-221e59b0d1.md"
LIMITS = ("--target", "128", "--hard-cap", "256")


def chunk_set(path: Path, *options: str) -> chunker.ChunkSet:
    """The chunk set `chunker FILE` writes for ``path``."""
    result = cli(path, *options)
    assert result.returncode == 0, result.stderr
    return chunker.ChunkSet.from_json(result.stdout)


def test_diff_of_two_files_agrees_with_the_chunk_sets_hashes() -> None:
    """The ids `chunker diff --format json` lists are those the two revisions' own chunk sets (written by
    `chunker FILE`) give by their content_sha256: kept and added partition NEW, removed is OLD's unmatched."""
    old, new = chunk_set(OLD, *LIMITS), chunk_set(NEW, *LIMITS)
    result = cli("diff", OLD, NEW, "--format", "json", *LIMITS)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    (doc,) = data["documents"]
    old_hashes = {c.content_sha256 for c in old}
    new_hashes = {c.content_sha256 for c in new}
    assert doc["kept"] == [c.id for c in new if c.content_sha256 in old_hashes]
    assert doc["added"] == [c.id for c in new if c.content_sha256 not in old_hashes]
    assert doc["removed"] == [c.id for c in old if c.content_sha256 not in new_hashes]
    assert doc["added"] and doc["removed"] and len(doc["kept"]) > 10, "a small edit of a long document"
    reembed = sum(c.token_count for c in new if c.content_sha256 not in old_hashes)
    assert doc["tokens"] == {
        "new": sum(c.token_count for c in new),
        "reembed": reembed,
        "share": round(reembed / sum(c.token_count for c in new), 6),
    }
    assert doc["counts"] == {"kept": len(doc["kept"]), "added": len(doc["added"]), "removed": len(doc["removed"])}
    assert (doc["status"], data["total"]["counts"], data["skipped"]) == ("changed", doc["counts"], [])


def test_the_chunking_options_reach_both_revisions() -> None:
    """Other limits give other chunks: the table's counts follow --hard-cap and match the JSON's."""
    small = json.loads(cli("diff", OLD, NEW, "--format", "json", *LIMITS).stdout)["total"]["counts"]
    large = json.loads(cli("diff", OLD, NEW, "--format", "json").stdout)["total"]["counts"]
    assert small["kept"] + small["added"] == len(chunk_set(NEW, *LIMITS))
    assert large["kept"] + large["added"] == len(chunk_set(NEW)) < small["kept"] + small["added"]
    table = cli("diff", OLD, NEW, *LIMITS)
    assert table.returncode == 0, table.stderr
    header, row, _, last = table.stdout.splitlines()
    assert header.split()[:5] == ["document", "status", "kept", "added", "removed"]
    assert row.split()[:5] == [NEW.name, "changed", str(small["kept"]), str(small["added"]), str(small["removed"])]
    assert last.split()[3:6] == [str(small["kept"]), str(small["added"]), str(small["removed"])]


def test_two_folders_match_documents_by_path_and_skip_what_cannot_be_read(tmp_path: Path) -> None:
    """Documents are matched by relative path: one only in OLD is all removed, one only in NEW all added, an
    unchanged one all kept; a file that is not UTF-8 is skipped with its reason, the rest compared, exit 1."""
    old, new = tmp_path / "old", tmp_path / "new"
    for root, revision in ((old, OLD), (new, NEW)):
        (root / "docs").mkdir(parents=True)
        shutil.copy(revision, root / "docs" / "readme.md")
        (root / "same.md").write_text("# Same\n\nNothing changed here.\n", encoding="utf-8")
    gone = "# Gone\n\n" + "Deleted in the new revision. " * 80 + "\n"
    (old / "gone.md").write_text(gone, encoding="utf-8")
    (new / "fresh.md").write_text("# Fresh\n\nWritten for the new revision.\n", encoding="utf-8")
    (new / "broken.md").write_bytes(b"# Broken\n\n\xff\xfe\x00 not UTF-8\n")
    result = cli("diff", old, new, "--format", "json", "--quiet", *LIMITS)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    by_name = {d["document"]: d for d in data["documents"]}
    assert list(by_name) == ["docs/readme.md", "fresh.md", "gone.md", "same.md"]
    assert {name: d["status"] for name, d in by_name.items()} == {
        "docs/readme.md": "changed",
        "fresh.md": "added",
        "gone.md": "removed",
        "same.md": "unchanged",
    }
    assert by_name["fresh.md"]["added"] == ["c1"] and by_name["fresh.md"]["tokens"]["share"] == 1.0
    gone_ids = [c.id for c in chunker.chunk_markdown(gone, name="gone.md", target=128, hard_cap=256)]
    assert by_name["gone.md"]["removed"] == gone_ids and len(gone_ids) > 1
    assert by_name["gone.md"]["tokens"] == {"new": 0, "reembed": 0, "share": None}
    assert by_name["same.md"]["kept"] == ["c1"] and by_name["same.md"]["tokens"]["reembed"] == 0
    single = json.loads(cli("diff", OLD, NEW, "--format", "json", *LIMITS).stdout)["documents"][0]
    for key in ("kept", "added", "removed"):  # the same document compared as two files
        assert by_name["docs/readme.md"][key] == single[key]
    assert len(data["skipped"]) == 1 and "broken.md" in data["skipped"][0]
    assert "skipped: " in result.stderr and "broken.md" in result.stderr
    counts = data["total"]["counts"]
    assert counts["added"] == sum(len(d["added"]) for d in data["documents"])
    table = cli("diff", old, new, "--quiet", *LIMITS)
    assert table.returncode == 1
    assert [line.split()[:2] for line in table.stdout.splitlines()[1:5]] == [
        ["docs/readme.md", "changed"],
        ["fresh.md", "added"],
        ["gone.md", "removed"],
        ["same.md", "unchanged"],
    ]


def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (tmp_path / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    cases = [
        (("diff", OLD), "required: NEW"),
        (("diff", folder, NEW), "two Markdown files or two folders"),
        (("diff", OLD, tmp_path / "missing.md"), "no such file or folder"),
        (("diff", folder, folder), "no Markdown files"),
        (("diff", OLD, tmp_path / "binary.md"), "binary"),
        (("diff", OLD, NEW, "--target", "900", "--hard-cap", "100"), "target"),
        (("diff", OLD, NEW, "--tokenizer", "no-such-encoding"), "no-such-encoding"),
    ]
    for args, message in cases:
        result = cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stdout == "" and result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
        assert message in result.stderr, (args, result.stderr)


def test_a_link_that_leaves_a_folder_is_not_read(tmp_path: Path) -> None:
    """A document of NEW that is a link to a file outside NEW is skipped with its reason, never read."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nNot to be read through the link.\n", encoding="utf-8")
    (old / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    (new / "a.md").symlink_to(secret)
    result = cli("diff", old, new, "--format", "json", "--quiet")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["documents"] == [] and len(data["skipped"]) == 1 and "a.md" in data["skipped"][0]
    assert "Secret" not in result.stdout + result.stderr
