"""The command line, driven as a user would: subprocess, real files, exit status and output."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import chunker

GUIDE = "# Guide\n\nIntro text.\n\n## Install\n\n" + "Run the installer and wait. " * 60 + "\n\n## Use\n\nDone.\n"


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chunk_inspector", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.fixture
def guide(tmp_path: Path) -> Path:
    path = tmp_path / "guide.md"
    path.write_bytes(GUIDE.encode())
    return path


def test_writes_a_chunk_set_json_to_stdout(guide: Path) -> None:
    """`python -m chunk_inspector FILE` prints JSON that ChunkSet.from_json reads back."""
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


# Directory mode ---------------------------------------------------------------------------------------------------

PAGES = {
    "index.md": "# Home\n\nWelcome to the docs.\n",
    "guide/install.md": GUIDE,
    "guide/usage.markdown": "# Usage\n\n| a | b |\n|---|---|\n" + "| cell | value |\n" * 80,
    "guide/deep/faq.MD": "# FAQ\n\n## Why?\n\nBecause.\n\n## How?\n\n```sh\nchunker docs -o out\n```\n",
    "notes.txt": "not markdown, not read\n",
    ".hidden/secret.md": "# skipped: hidden folder\n",
}
LATIN1 = "guide/latin1.md"
BINARY = "zz_image.md"


def make_tree(root: Path, *, bad: bool = True) -> Path:
    """A nested tree of Markdown files; with ``bad``, one non-UTF-8 and one binary file among them."""
    for rel, text in PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    if bad:
        (root / LATIN1).write_bytes("# Caf\u00e9\n\nd\u00e9j\u00e0 vu\n".encode("latin-1"))
        (root / BINARY).write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    return root


GOOD = ["guide/deep/faq.MD", "guide/install.md", "guide/usage.markdown", "index.md"]  # sorted relative paths


def read_tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def summary_line(stderr: str) -> str:
    (line,) = [line for line in stderr.splitlines() if line.startswith("summary: ")]
    return line


def test_directory_writes_one_json_per_document_mirroring_the_tree(tmp_path: Path) -> None:
    """`chunker DIR -o OUT` writes OUT/<relative path>.json per document, each a chunk set named by its path."""
    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    result = cli(src, "-o", out, "--target", "64", "--hard-cap", "128")
    assert result.returncode == 0, result.stderr
    assert sorted(read_tree(out)) == sorted([f"{rel}.json" for rel in GOOD] + ["chunks.jsonl"])
    for rel in GOOD:
        chunks = chunker.ChunkSet.from_json((out / f"{rel}.json").read_text(encoding="utf-8"))
        expected = chunker.chunk_markdown(PAGES[rel], name=rel, target=64, hard_cap=128)
        assert chunks == expected
        assert chunks.document["name"] == rel and chunks[0].breadcrumb[0] == rel


def test_directory_chunks_jsonl_holds_every_chunk_in_path_order(tmp_path: Path) -> None:
    """OUT/chunks.jsonl is every document's to_jsonl(), in sorted path order, each record naming its document."""
    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    result = cli(src, "-o", out, "--target", "64", "--hard-cap", "128")
    assert result.returncode == 0, result.stderr
    expected = "".join(chunker.chunk_markdown(PAGES[rel], name=rel, target=64, hard_cap=128).to_jsonl() for rel in GOOD)
    assert (out / "chunks.jsonl").read_text(encoding="utf-8") == expected
    documents = [json.loads(line)["document"] for line in expected.splitlines()]
    assert documents == sorted(documents) and set(documents) == set(GOOD)


def test_directory_summary_counts_documents_chunks_tokens_warnings_and_failures(tmp_path: Path) -> None:
    """The closing summary line gives the totals of what was written."""
    src, out = make_tree(tmp_path / "docs"), tmp_path / "out"
    result = cli(src, "-o", out, "--target", "64", "--hard-cap", "128")
    sets = [chunker.chunk_markdown(PAGES[rel], name=rel, target=64, hard_cap=128) for rel in GOOD]
    chunks = sum(len(s) for s in sets)
    tokens = sum(s.document["token_count"] for s in sets)
    warnings = sum(1 for s in sets for c in s if c.flags)
    assert warnings > 0  # the cut table is flagged
    assert summary_line(result.stderr) == (
        f"summary: 4 documents, {chunks:,} chunks, {tokens:,} tokens, {warnings:,} warnings (chunks with flags), "
        f"2 failures; written to {out}"
    )


def test_unreadable_files_are_reported_skipped_and_give_status_1(tmp_path: Path) -> None:
    """A non-UTF-8 and a binary file are each reported with path and reason; the others are still written."""
    src, out = make_tree(tmp_path / "docs"), tmp_path / "out"
    result = cli(src, "-o", out)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped: ")]
    assert skipped == [
        f"skipped: {src / LATIN1} is not UTF-8 text: byte 0xe9 at offset 5 (line 1); "
        "convert it first, e.g. `iconv -f latin1 -t utf-8`",
        f"skipped: {src / BINARY} looks like a binary file (it contains NUL bytes), not Markdown text",
    ]
    assert sorted(read_tree(out)) == sorted([f"{rel}.json" for rel in GOOD] + ["chunks.jsonl"])


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_file_without_read_permission_is_reported_and_skipped(tmp_path: Path) -> None:
    """A file the user may not read is skipped with the reason; the run goes on."""
    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    locked = src / "locked.md"
    locked.write_text("# locked\n")
    locked.chmod(0)
    result = cli(src, "-o", out)
    assert result.returncode == 1
    assert f"skipped: {locked}: cannot read: Permission denied" in result.stderr


def test_two_jobs_write_byte_identical_outputs_to_one(tmp_path: Path) -> None:
    """--jobs 2 gives the same files, byte for byte, and the same report as --jobs 1."""
    src = make_tree(tmp_path / "docs")
    runs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        result = cli(src, "-o", out, "--jobs", jobs, "--target", "48", "--hard-cap", "96", "--layers")
        assert result.returncode == 1, result.stderr
        report = [line for line in result.stderr.splitlines() if not line.split(" ")[0][0].isdigit()]
        runs[jobs] = (read_tree(out), [line.replace(str(out), "OUT") for line in report])
    assert runs["1"] == runs["2"]
    assert len(runs["1"][0]) == len(GOOD) + 4  # the documents, chunks.jsonl and three layer files


def test_directory_layers_are_written_under_out_layers(tmp_path: Path) -> None:
    """--layers adds layers/documents.jsonl, sections.jsonl, chunks.jsonl: every record's parent is in its document."""
    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    result = cli(src, "-o", out, "--layers", "--target", "64", "--hard-cap", "128")
    assert result.returncode == 0, result.stderr
    layers = {
        key: [json.loads(line) for line in (out / "layers" / f"{key}.jsonl").read_text(encoding="utf-8").splitlines()]
        for key in ("documents", "sections", "chunks")
    }
    assert [r["document"] for r in layers["documents"]] == GOOD
    assert all(r["parent_id"] is None for r in layers["documents"])
    ids = {(r["document"], r["id"]) for records in layers.values() for r in records}
    for record in layers["sections"] + layers["chunks"]:
        assert (record["document"], record["parent_id"]) in ids
    all_chunks = (out / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    assert [(r["document"], r["id"]) for r in layers["chunks"]] == [
        (json.loads(line)["document"], json.loads(line)["id"]) for line in all_chunks
    ]


def test_progress_is_plain_lines_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    """Without a terminal the progress is one plain line per tenth of the work, ending at 100%."""
    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    result = cli(src, "-o", out)
    lines = result.stderr.splitlines()
    assert lines[:-1] == [f"{n}/4 docs ({n * 25}%)" for n in range(1, 5)]
    assert "\r" not in result.stderr


def test_progress_bar_redraws_in_place_on_a_terminal(tmp_path: Path) -> None:
    """On a terminal the bar is redrawn on one line with carriage returns and ends with the full count."""
    import pty

    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "chunk_inspector", str(src), "-o", str(out)],
            stderr=follower,
            stdout=subprocess.PIPE,
            timeout=120,
        )
        os.close(follower)
        follower = -1
        seen = b""
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not data:
                break
            seen += data
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    text = seen.decode()
    assert proc.returncode == 0
    assert "\r\x1b[K[" + "#" * 24 + "] 4/4 docs" in text
    assert "summary: 4 documents" in text


@pytest.mark.skipif(os.name != "posix", reason="process groups and SIGINT as a terminal sends them")
def test_ctrl_c_stops_a_parallel_run_at_once_with_status_130(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group) ends the run and its workers without finishing the queued work."""
    import signal
    import time

    src = tmp_path / "docs"
    src.mkdir()
    body = "".join(f"## Part {i}\n\n" + "Words of a long document. " * 400 + "\n\n" for i in range(200))
    for n in range(6):
        (src / f"big{n}.md").write_text(f"# Big {n}\n\n{body}", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "chunk_inspector", str(src), "-o", str(tmp_path / "out"), "--jobs", "2"],
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as from an interactive shell
    )
    time.sleep(1.5)  # started, far from done (several seconds of work)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    for _ in range(100):  # the workers are gone too
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("worker processes outlived the interrupted run")


def test_quiet_leaves_only_the_skipped_files_on_stderr(tmp_path: Path) -> None:
    """--quiet drops the progress and the summary; failures are still reported and set the status."""
    src, out = make_tree(tmp_path / "docs"), tmp_path / "out"
    result = cli(src, "-o", out, "--quiet")
    assert result.returncode == 1
    assert [line.split(" ")[0] for line in result.stderr.splitlines()] == ["skipped:", "skipped:"]


def test_output_folder_inside_the_input_is_not_walked(tmp_path: Path) -> None:
    """Writing OUT inside DIR does not pick up earlier outputs; a second run gives the same files."""
    src = make_tree(tmp_path / "docs", bad=False)
    (src / "out" / "old").mkdir(parents=True)
    (src / "out" / "old" / "stale.md").write_text("# an old output folder holding Markdown\n")
    first = cli(src, "-o", src / "out")
    assert first.returncode == 0, first.stderr
    assert "summary: 4 documents" in first.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["docs"], r"docs is a directory: give -o OUT"),
        (["docs", "-o", "out", "--format", "jsonl"], r"--format is for a single file"),
        (["empty", "-o", "out"], r"no Markdown files \(\.md, \.markdown\) under empty"),
        (["docs", "-o", "out", "--tokenizer", "nope"], r"unknown tokenizer 'nope'"),
        (["docs", "-o", "out", "--hard-cap", "10", "--target", "5"], r"below the smallest workable size"),
        (["docs", "-o", "docs/index.md"], r"-o docs/index.md is a file"),
        (["docs", "-o", "out", "--jobs", "-1"], r"expected a number of processes"),
        (["docs/index.md", "--layers"], r"--layers writes three files: give -o FOLDER"),
    ],
)
def test_directory_usage_errors_end_with_status_2_and_write_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """Mistakes in the command are caught before any work: one clear line, exit 2, no output folder."""
    make_tree(tmp_path / "docs", bad=False)
    (tmp_path / "empty").mkdir()
    result = cli(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert __import__("re").search(message, result.stderr), result.stderr
    assert not (tmp_path / "out").exists()


def test_file_layers_are_three_jsonl_files_in_the_output_folder(guide: Path, tmp_path: Path) -> None:
    """`chunker FILE --layers -o FOLDER` writes documents.jsonl, sections.jsonl and chunks.jsonl from layers_jsonl()."""
    out = tmp_path / "layers"
    result = cli(guide, "--layers", "-o", out, "--target", "64", "--hard-cap", "128")
    assert result.returncode == 0, result.stderr
    expected = chunker.chunk_markdown(GUIDE, name="guide.md", target=64, hard_cap=128).layers_jsonl()
    assert {key: (out / f"{key}.jsonl").read_text(encoding="utf-8") for key in expected} == expected
    assert sorted(p.name for p in out.iterdir()) == ["chunks.jsonl", "documents.jsonl", "sections.jsonl"]


def test_hf_tokenizer_json_path_is_used_and_recorded(guide: Path, tmp_path: Path) -> None:
    """--tokenizer path/to/tokenizer.json counts with that file and names it hf:PATH in the JSON."""
    from tests.test_tokens import make_hf_tokenizer

    path = make_hf_tokenizer(tmp_path / "tokenizer.json")
    result = cli(guide, "--tokenizer", path, "--target", "64", "--hard-cap", "128")
    assert result.returncode == 0, result.stderr
    chunks = chunker.ChunkSet.from_json(result.stdout)
    assert chunks.config["tokenizer"] == chunks.document["tokenizer"] == f"hf:{path}"
    assert chunks == chunker.chunk_markdown(GUIDE, name="guide.md", tokenizer=str(path), target=64, hard_cap=128)


def test_hf_tokenizer_in_a_directory_run_with_two_jobs(tmp_path: Path) -> None:
    """Each worker process loads the tokenizer.json; the outputs match a one-process run."""
    from tests.test_tokens import make_hf_tokenizer

    src, path = make_tree(tmp_path / "docs", bad=False), make_hf_tokenizer(tmp_path / "tokenizer.json")
    trees = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        result = cli(src, "-o", out, "--jobs", jobs, "--tokenizer", path, "--target", "64", "--hard-cap", "128")
        assert result.returncode == 0, result.stderr
        assert "huggingface/tokenizers" not in result.stderr  # no fork warning
        trees.append(read_tree(out))
    assert trees[0] == trees[1]
    first = chunker.ChunkSet.from_json(trees[0]["index.md.json"].decode())
    assert first.config["tokenizer"] == f"hf:{path}"


def test_missing_tokenizer_json_is_a_usage_error_naming_the_path(guide: Path, tmp_path: Path) -> None:
    """A --tokenizer path that does not exist ends with status 2 and a message naming it and the fix."""
    result = cli(guide, "--tokenizer", tmp_path / "nope" / "tokenizer.json")
    assert result.returncode == 2
    assert result.stderr.startswith("error: cannot read the Hugging Face tokenizer file ")
    assert "nope/tokenizer.json" in result.stderr and "To fix" in result.stderr


# Issue-4 engine options, passed straight through ------------------------------------------------------------------

_ENGINE_OPTIONS = {"overlap", "min_tokens", "breadcrumb_in_budget"}
requires_engine_options = pytest.mark.skipif(
    not set(inspect.signature(chunker.chunk).parameters) >= _ENGINE_OPTIONS,
    reason="chunker.chunk does not take overlap / min_tokens / breadcrumb_in_budget yet",
)


@requires_engine_options
@pytest.mark.parametrize(
    ("flags", "options"),
    [
        (["--overlap", "16"], {"overlap": 16}),
        (["--min-tokens", "40"], {"min_tokens": 40}),
        (["--breadcrumb-in-budget"], {"breadcrumb_in_budget": True}),
        (
            ["--overlap", "8", "--min-tokens", "20", "--breadcrumb-in-budget"],
            {"overlap": 8, "min_tokens": 20, "breadcrumb_in_budget": True},
        ),
    ],
)
def test_engine_option_flags_reach_chunk_and_are_recorded(
    guide: Path, flags: list[str], options: dict[str, object]
) -> None:
    """--overlap, --min-tokens and --breadcrumb-in-budget give exactly what chunker.chunk gives with those options."""
    result = cli(guide, "--target", "64", "--hard-cap", "128", *flags)
    assert result.returncode == 0, result.stderr
    chunks = chunker.ChunkSet.from_json(result.stdout)
    assert chunks == chunker.chunk_markdown(GUIDE, name="guide.md", target=64, hard_cap=128, **options)
    assert {key: chunks.config[key] for key in options} == options


@requires_engine_options
def test_overlap_flag_in_a_directory_run_sets_overlap_spans(tmp_path: Path) -> None:
    """A directory run passes --overlap to every document: consecutive chunks of a long section share text."""
    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    result = cli(src, "-o", out, "--overlap", "16", "--target", "64", "--hard-cap", "128", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    chunks = chunker.ChunkSet.from_json((out / "guide/install.md.json").read_text(encoding="utf-8"))
    assert chunks.config["overlap"] == 16
    assert any(c.overlap_span is not None for c in chunks)


@requires_engine_options
@pytest.mark.parametrize("flags", [["--overlap", "-1"], ["--min-tokens", "-3"], ["--overlap", "5000"]])
def test_bad_engine_option_values_are_usage_errors_before_any_work(tmp_path: Path, flags: list[str]) -> None:
    """A bad option value (below its least, or the engine's ConfigError) ends a directory run at once with status 2."""
    src, out = make_tree(tmp_path / "docs", bad=False), tmp_path / "out"
    result = cli(src, "-o", out, *flags)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and any(name in result.stderr for name in ("overlap", "min-tokens"))
    assert not out.exists()


def test_the_written_line_counts_one_chunk_as_one(tmp_path: Path) -> None:
    path, out = tmp_path / "note.md", tmp_path / "note.json"
    path.write_text("# Note\n\nOne short paragraph.\n", encoding="utf-8")
    result = cli(path, "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == f"1 chunk from {path} written to {out}"
    assert len(json.loads(out.read_text(encoding="utf-8"))["chunks"]) == 1


def test_a_file_over_max_size_is_skipped_named_as_the_walk_found_it(tmp_path: Path) -> None:
    """`skipped: PATH reason` names the file as DIR was given (docs/docs/guide.md), like every other skip line; an
    over-size file was named by its resolved absolute path."""
    (tmp_path / "docs" / "docs").mkdir(parents=True)
    (tmp_path / "docs" / "docs" / "guide.md").write_text("# Guide\n\n" + "word " * 400 + "\n", encoding="utf-8")
    (tmp_path / "docs" / "small.md").write_text("# Small\n", encoding="utf-8")
    done = cli("docs", "-o", "out", "--max-size", "0.001", "-q", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["skipped: docs/docs/guide.md is 2,010 bytes, over the limit of 1,048 bytes"]


def test_a_mistyped_command_is_named_not_read_as_a_missing_file(tmp_path: Path) -> None:
    """`chunker evl set.jsonl` said 'unrecognized arguments: set.jsonl' (evl taken for a file); it now names the
    command meant. A name that exists, or reads as a file name, is still a file."""
    (tmp_path / "set.jsonl").write_text("", encoding="utf-8")
    done = cli("evl", "set.jsonl", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        "error: 'evl' is no file or folder, nor a command: did you mean `chunker eval`?\n",
    )
    assert cli("gide.md", cwd=tmp_path).stderr == "error: gide.md: no such file\n"
    (tmp_path / "tre").write_text("# A file named like a command's typo\n", encoding="utf-8")
    done = cli("tre", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["document"]["name"] == "tre"


@pytest.mark.parametrize("where", ["input", "output", "folder output"])
def test_a_name_too_long_for_the_file_system_is_a_usage_error(tmp_path: Path, where: str) -> None:
    """A name over 255 bytes: looking it up raised OSError, reported as a bug of ours (exit 3)."""
    long, guide = "g" * 300, tmp_path / "guide.md"
    guide.write_text("# Guide\n\nText.\n", encoding="utf-8")
    args = {
        "input": [tmp_path / f"{long}.md"],
        "output": [guide, "-o", tmp_path / f"{long}.json"],
        "folder output": [tmp_path, "-o", tmp_path / long],
    }[where]
    result = cli(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: ") and "the name is too long for the file system" in result.stderr
    assert "internal error" not in result.stderr and len(result.stderr.splitlines()) == 1
