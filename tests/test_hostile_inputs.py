"""Hostile and careless input to the CLI, the question-set readers and directory runs (docs/SECURITY.md).

Each case was once seen to read a file it should not, hang, lose documents, clobber a file or end in a
traceback. Run as root, as CI does: file permissions cannot stand in for these checks.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunker
from chunk_inspector.cli.commands import main
from chunk_inspector.evaluate.questions import QuestionSetError, load_question_set, read_question_set
from chunk_inspector.files import AtomicFile, FileRefused, read_bytes, under_root

SECRET = "TOPSECRET-do-not-print"
DOC = "# Guide\n\nThe answer is forty-two.\n\n## More\n\nOther words here.\n"
AT = DOC.index("forty-two")


def cli(*args: str | Path, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chunk_inspector", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


def record(document: str, **changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "q1",
        "document": document,
        "question": "What is the answer?",
        "kind": "prose",
        "references": [{"content": "forty-two", "start_index": AT, "end_index": AT + 9}],
    }
    return base | changes


def write_set(folder: Path, *records: dict[str, object], name: str = "set.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A question set's root with one good document, and a secret file beside (outside) it."""
    folder = tmp_path / "root"
    folder.mkdir()
    (folder / "guide.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "secret.md").write_text(f"{SECRET}\n" * 3, encoding="utf-8")
    return folder


def one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


# -- question sets: nothing read outside the root -------------------------------------------------


@pytest.mark.parametrize(
    "document",
    ["../secret.md", "../../../../../../etc/passwd", "sub/../../secret.md", "/etc/passwd", "SECRET_ABS"],
)
def test_a_document_outside_the_root_is_refused_unread(
    root: Path, document: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`..`, an absolute path: refused naming the question, exit 2, and nothing of the file is printed."""
    if document == "SECRET_ABS":
        document = str(root.parent / "secret.md")
    path = write_set(root, record(document, references=[{"content": "nothing", "start_index": 0, "end_index": 7}]))
    assert main(["eval", str(path), "-q"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert ("question 'q1' (line 1)" in line and "not read" in line) or "absolute path" in line
    assert SECRET not in line and "root:x:" not in line


def test_a_link_that_leaves_the_root_is_refused(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / "inside.md").symlink_to(root.parent / "secret.md")
    path = write_set(root, record("inside.md", references=[{"content": "TOP", "start_index": 0, "end_index": 3}]))
    assert main(["eval", str(path), "-q"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "resolves outside the root folder" in line and SECRET not in line


def test_a_chroma_corpus_id_with_dotdot_is_refused(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refs = json.dumps([{"content": "TOP", "start_index": 0, "end_index": 3}]).replace('"', '""')
    (root / "questions_df.csv").write_text(f'question,references,corpus_id\nWhat?,"{refs}",../secret\n', "utf-8")
    assert main(["eval", str(root / "questions_df.csv"), "--root", str(root), "-q"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "'../secret.md' resolves outside" in line and SECRET not in line


@pytest.mark.parametrize("alias", ["./guide.md", "sub/../guide.md", "guide.md/", "link.md"])
def test_one_document_under_a_second_name_is_refused(root: Path, alias: str) -> None:
    """A set naming one file two ways (a few kilobytes naming an 18 MB document forty ways once held 6 GB and ran
    for minutes, each name read, kept and chunked as a document of its own, and counted as forty documents): the
    second name is refused in one line naming both, by the CLI as by the app (which takes each name as given)."""
    (root / "sub").mkdir()
    (root / "link.md").symlink_to(root / "guide.md")
    second = record(alias, id="q2")
    path = write_set(root, record("guide.md"), second)
    with pytest.raises(QuestionSetError, match=r"question 'q2' \(line 2\).*'guide\.md' under another name"):
        load_question_set(path)
    with pytest.raises(QuestionSetError, match="not among the documents given"):
        read_question_set(path.read_bytes(), "jsonl", {"guide.md": DOC})
    assert len(load_question_set(write_set(root, record("guide.md"), record("guide.md", id="q2"))).documents) == 1


def test_a_mismatch_names_where_the_texts_part_but_quotes_no_document_text(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (root / "private.md").write_text(f"{SECRET} and more", encoding="utf-8")
    bad = record("private.md", references=[{"content": "guessing!!", "start_index": 0, "end_index": 10}])
    assert main(["eval", str(write_set(root, bad)), "-q"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "they part at character 0" in line and "TOPSECRET" not in line


# -- special files and sizes ---------------------------------------------------------------------


def test_a_fifo_named_by_a_set_is_refused_without_hanging(root: Path) -> None:
    os.mkfifo(root / "pipe.md")
    path = write_set(root, record("pipe.md"))
    result = cli("eval", path, "-q", timeout=60)
    assert result.returncode == 2
    assert "named pipe (FIFO), not a regular file" in one_error_line(result.stderr)


def test_a_link_to_dev_zero_is_refused_not_read(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Once killed by the kernel at 24 GB: a device is refused before a byte is read."""
    (root / "zero.md").symlink_to("/dev/zero")
    with pytest.raises(FileRefused, match="is a device, not a regular file"):
        read_bytes(root / "zero.md")
    path = write_set(root, record("zero.md"))
    assert main(["eval", str(path), "-q"]) == 2
    assert "'zero.md' resolves outside the root folder" in one_error_line(capsys.readouterr().err)
    path = write_set(root, record("dev/zero"))
    assert main(["eval", str(path), "--root", "/", "-q"]) == 2  # even with the device inside the root
    assert "a device" in one_error_line(capsys.readouterr().err)


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"# Big\n\n" + b"word " * 400_000)  # 2 MB
    result = cli(big, "--max-size", "1")
    assert result.returncode == 2
    assert "over the limit of 1.0 MiB" in one_error_line(result.stderr)
    with pytest.raises(FileRefused, match="over the limit"):
        read_bytes(big, max_bytes=1000)


def test_single_file_special_files_are_one_line_errors(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    assert "named pipe" in one_error_line(cli(tmp_path / "pipe.md").stderr)
    assert "a device" in one_error_line(cli("/dev/zero").stderr)
    assert "a device" in one_error_line(cli("tree", "/dev/null").stderr)


# -- malformed sets: one line, never a traceback ----------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[" * 50_000, "line 1: not JSON (nested too deeply)"),
        (
            json.dumps(record("guide.md")).replace(f'"start_index": {AT}', '"start_index": ' + "9" * 5000),
            "line 1: not JSON (Exceeds the limit (4300 digits) for integer string conversion",
        ),
        (json.dumps(record("gu\x00ide.md")), "is not a file name"),
        (json.dumps(record("guide.md", id=[[[]]])), "'id' must be a non-empty string or a whole number"),
        (json.dumps(record("guide.md", kind={"a": 1})), "unknown kind {'a': 1}"),
        (json.dumps(record("guide.md", question="x" * 10_000, id="y" * 10_000)), "question 'yyyy"),
    ],
)
def test_malformed_lines_are_one_line_errors(
    root: Path, line: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = root / "set.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert main(["eval", str(path), "-q"]) in (0, 2)
    err = capsys.readouterr().err
    if err:
        shown = one_error_line(err)
        assert message in shown and len(shown) < 600


def test_a_csv_field_longer_than_the_csv_modules_default_limit_reads(root: Path) -> None:
    """Chroma's CSV with a reference over 131,072 characters: read and checked like any other."""
    long = "word " * 40_000
    (root / "long.md").write_text(f"# Long\n\n{long}\n", encoding="utf-8")
    refs = json.dumps([{"content": long, "start_index": 8, "end_index": 8 + len(long)}]).replace('"', '""')
    (root / "questions_df.csv").write_text(f'question,references,corpus_id\nWhat?,"{refs}",long\n', "utf-8")
    questions = load_question_set(root / "questions_df.csv", root)
    assert questions.questions[0].references[0].end - questions.questions[0].references[0].start == len(long)


def test_a_bom_is_dropped_the_same_way_by_the_cli_and_the_app(root: Path) -> None:
    data = b"\xef\xbb\xbf" + (json.dumps(record("guide.md")) + "\n").encode()
    (root / "bom.jsonl").write_bytes(data)
    from_disk = load_question_set(root / "bom.jsonl")
    in_app = read_question_set(data, "jsonl", {"guide.md": DOC}, name="bom.jsonl")
    assert from_disk.questions == in_app.questions and len(in_app.questions) == 1


HOSTILE_SETS = [
    b"",
    b"\xef\xbb\xbf",
    b"\xff\xfe{}",
    b"{}\n",
    b"[]\n",
    b"null\n",
    b'{"id": 1}\n',
    b"[" * 5000,
    json.dumps(record("guide.md")).encode() + b"\n" + json.dumps(record("guide.md")).encode(),
    json.dumps(record("other.md")).encode(),
    json.dumps(record("guide.md", references=[])).encode(),
    json.dumps(record("guide.md", references=[{"content": "x", "start_index": -1, "end_index": 1}])).encode(),
    json.dumps(record("guide.md", references=[{"content": "x", "start_index": 1.5, "end_index": 2}])).encode(),
    json.dumps(record("guide.md", references=[{"content": 5, "start_index": 1, "end_index": 2}])).encode(),
    json.dumps(record("guide.md")).encode(),
]


@pytest.mark.parametrize("data", HOSTILE_SETS)
def test_the_cli_and_the_app_accept_and_refuse_the_same_sets(root: Path, data: bytes) -> None:
    (root / "set.jsonl").write_bytes(data)
    outcomes = []
    for read in (
        lambda: load_question_set(root / "set.jsonl"),
        lambda: read_question_set(data, "jsonl", {"guide.md": DOC}, name="set.jsonl"),
    ):
        try:
            outcomes.append(("ok", read().questions))
        except QuestionSetError:
            outcomes.append(("refused", None))
    assert outcomes[0] == outcomes[1]


# -- directory runs: nothing lost, nothing clobbered ---------------------------------------------------


def make_docs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("a.md", "m.md", "z.md"):
        (folder / name).write_text(f"# {name}\n\nSome text of {name}.\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_special_files_bad_names_and_links_out_are_skipped_and_the_rest_written(tmp_path: Path, jobs: str) -> None:
    """A FIFO, a device, links to /dev/zero and out of the folder, a name that is not UTF-8: each skipped with
    its reason, exit 1, every other document written; no run hangs, no empty or temporary file is left."""
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    os.mkfifo(src / "pipe.md")
    (src / "zero.md").symlink_to("/dev/zero")
    if os.geteuid() == 0:  # a device inside the folder itself (mknod needs root, which CI has)
        os.mknod(src / "dev.md", 0o600 | __import__("stat").S_IFCHR, os.makedev(1, 5))
    (src / "leak.md").symlink_to(tmp_path / "outside.md")
    (tmp_path / "outside.md").write_text(SECRET, encoding="utf-8")
    (src / "inside.md").symlink_to(src / "a.md")  # a link that stays inside is read
    bad = os.fsencode(src) + b"/bad\xff.md"
    with open(bad, "wb") as handle:
        handle.write(b"# Bad name\n")
    result = cli(src, "-o", out, "--jobs", jobs, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    skipped = "\n".join(line for line in result.stderr.splitlines() if line.startswith("skipped: "))
    assert "bad\\xff.md: its name is not valid UTF-8" in skipped
    assert "pipe.md is a named pipe (FIFO)" in skipped
    assert "'zero.md' resolves outside the root folder" in skipped
    assert "'leak.md' resolves outside the root folder" in skipped
    assert os.geteuid() != 0 or "dev.md is a device, not a regular file" in skipped
    assert SECRET not in result.stderr
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == ["a.md.json", "chunks.jsonl", "inside.md.json", "m.md.json", "z.md.json"]
    assert all((out / name).stat().st_size > 0 for name in written)
    documents = [json.loads(line)["document"] for line in (out / "chunks.jsonl").read_text("utf-8").splitlines()]
    assert documents == ["a.md", "inside.md", "m.md", "z.md"]
    failures = 5 if os.geteuid() == 0 else 4
    assert "summary: 4 documents" in result.stderr and f"{failures} failures" in result.stderr


def test_a_file_over_the_limit_is_skipped_in_a_directory_run(tmp_path: Path) -> None:
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    (src / "big.md").write_bytes(b"# Big\n\n" + b"word " * 300_000)
    result = cli(src, "-o", out, "--max-size", "1")
    assert result.returncode == 1
    assert "big.md is 1.4 MiB, over the limit of 1.0 MiB" in result.stderr
    assert (out / "a.md.json").is_file() and not (out / "big.md.json").exists()


def test_an_output_that_is_the_input_is_refused_and_the_input_kept(tmp_path: Path) -> None:
    """`chunker FILE -o FILE` once replaced the Markdown source with JSON, exit 0."""
    src = make_docs(tmp_path / "docs")
    before = (src / "a.md").read_bytes()
    result = cli(src / "a.md", "-o", src / "a.md")
    assert result.returncode == 2
    assert "would overwrite the input" in one_error_line(result.stderr)
    (tmp_path / "link.json").symlink_to(src / "a.md")
    assert cli(src / "a.md", "-o", tmp_path / "link.json").returncode == 2
    assert cli(src / "documents.jsonl", "--layers", "-o", src).returncode == 2  # no such input: refused
    (src / "documents.jsonl").write_text("# Not JSON at all\n", encoding="utf-8")
    assert "would overwrite the input" in one_error_line(cli(src / "documents.jsonl", "--layers", "-o", src).stderr)
    assert "is the input folder" in one_error_line(cli(src, "-o", src).stderr)
    assert (src / "a.md").read_bytes() == before


def test_an_output_that_is_a_device_a_pipe_or_a_link_is_written_through_not_replaced(tmp_path: Path) -> None:
    """`chunker guide.md -o /dev/null`, run as root, once renamed a regular file over /dev/null (and `-o
    /dev/stdout` over the link /dev/stdout): the output is written to a device or a pipe as a redirection
    would, and a link to a file writes that file, the link kept. A device node made here stands for /dev/null."""
    src = make_docs(tmp_path / "docs")
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (the tests run as root in CI)")
    assert cli(src / "a.md", "-o", null).returncode == 0
    assert stat.S_ISCHR(null.lstat().st_mode)

    pipe, got = tmp_path / "pipe", []
    os.mkfifo(pipe)
    reader = threading.Thread(target=lambda: got.append(pipe.read_text(encoding="utf-8")), daemon=True)
    reader.start()
    assert cli(src / "a.md", "-o", pipe).returncode == 0
    reader.join(10)
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert got and chunker.ChunkSet.from_json(got[0]).document["name"] == "a.md"

    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("old", encoding="utf-8")
    link.symlink_to(real)
    assert cli(src / "a.md", "-o", link).returncode == 0
    assert link.is_symlink() and chunker.ChunkSet.from_json(real.read_text(encoding="utf-8"))


def test_an_output_that_is_a_dangling_link_makes_its_target_as_a_redirection_would(tmp_path: Path) -> None:
    """`chunker FILE -o LINK`, LINK a link to a file not there yet, once put a regular file in the link's place:
    it makes the link's target, as a shell's `>` does, and keeps the link; a link into a folder that does not
    exist is one error line, the link kept and nothing written."""
    src = make_docs(tmp_path / "docs")
    link, target = tmp_path / "link.json", tmp_path / "out" / "chunks.json"
    (tmp_path / "out").mkdir()
    link.symlink_to(Path("out") / "chunks.json")
    assert cli(src / "a.md", "-o", link).returncode == 0
    assert link.is_symlink() and chunker.ChunkSet.from_json(target.read_text(encoding="utf-8"))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["chunks.json"]

    nowhere = tmp_path / "nowhere.json"
    nowhere.symlink_to(tmp_path / "missing" / "chunks.json")
    result = cli(src / "a.md", "-o", nowhere)
    assert result.returncode == 2
    assert one_error_line(result.stderr).endswith("missing/chunks.json, in a folder that does not exist")
    assert nowhere.is_symlink() and not (tmp_path / "missing").exists()


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "chunks.jsonl"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt), AtomicFile(target) as out:
        out.write("half of the new")
        raise KeyboardInterrupt
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunks.jsonl"]
    with AtomicFile(tmp_path / "new.json") as out:
        out.write("{}")
    assert (tmp_path / "new.json").read_text() == "{}" and (tmp_path / "new.json").stat().st_mode & 0o777 != 0o600


def test_jobs_beyond_the_cores_are_lowered_with_a_note(tmp_path: Path) -> None:
    """`--jobs 1000` once started 40 processes on 2 cores."""
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    result = cli(src, "-o", out, "--jobs", "1000")
    assert result.returncode == 0
    cores = len(os.sched_getaffinity(0))
    assert f"--jobs 1000: using {min(cores, 3)} (no more processes than cores and documents)" in result.stderr


def test_a_single_file_whose_name_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    bad = os.fsencode(tmp_path) + b"/bad\xff.md"
    with open(bad, "wb") as handle:
        handle.write(b"# Bad\n")
    result = subprocess.run([sys.executable, "-m", "chunk_inspector", bad], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "bad\\xff.md: its name is not valid UTF-8" in one_error_line(result.stderr)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_names_with_control_characters_are_skipped_in_a_directory_run_with_one_line_each(
    tmp_path: Path, jobs: str
) -> None:
    """A file named with a line break or a terminal escape was skipped with the question sets' wording ("'a\\nb.md'
    is not a file name (empty, or it holds a control character)"): it is one line naming the file escaped and
    what to do, worded as the name that is not UTF-8 is; every other document is written."""
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    (src / "new\nline.md").write_text(DOC, encoding="utf-8")
    (src / "red\x1b[31m.md").write_text(DOC, encoding="utf-8")
    result = cli(src, "-o", out, "--jobs", jobs)
    assert result.returncode == 1, result.stderr
    assert "\x1b" not in result.stderr and "Traceback" not in result.stderr
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped: ")]
    assert skipped == [
        "skipped: new\\nline.md: its name holds a control character (rename the file to chunk it)",
        "skipped: red\\x1b[31m.md: its name holds a control character (rename the file to chunk it)",
    ]
    assert sorted(p.name for p in out.iterdir()) == ["a.md.json", "chunks.jsonl", "m.md.json", "z.md.json"]


def test_a_single_file_named_with_a_control_character_is_refused_as_in_a_directory_run(tmp_path: Path) -> None:
    """`chunker FILE` chunked a file its directory run skips, and echoed its name raw (a terminal escape ran):
    it is refused in the same words, escaped, and nothing is written. A control character in a folder above
    it does not name the document: that file is chunked, its name escaped in what is said."""
    bad = tmp_path / "red\x1b[31m.md"
    bad.write_text(DOC, encoding="utf-8")
    result = cli(bad, "-o", tmp_path / "out.json")
    assert result.returncode == 2
    assert one_error_line(result.stderr).endswith(
        "red\\x1b[31m.md: its name holds a control character (rename the file to chunk it)"
    )
    assert not (tmp_path / "out.json").exists()
    folder = tmp_path / "tab\tfolder"
    folder.mkdir()
    (folder / "guide.md").write_text(DOC, encoding="utf-8")
    result = cli(folder / "guide.md", "-o", folder / "out\x1b[31m.json")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stderr and "\t" not in result.stderr
    assert "tab\\tfolder/guide.md written to " in result.stderr and "out\\x1b[31m.json" in result.stderr
    assert (folder / "out\x1b[31m.json").is_file()


def test_utf16_files_are_named_as_such_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "wide.md").write_bytes("# Wide text\n\nHello.\n".encode("utf-16"))
    line = one_error_line(cli(tmp_path / "wide.md").stderr)
    assert "is UTF-16 text, not UTF-8: convert it first, e.g. `iconv -f UTF-16 -t UTF-8`" in line


def test_usage_errors_and_our_own_bugs_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    assert main([str(tmp_path / "a.md"), "--target", "lots"]) == 2
    assert "argument --target: expected a whole number of tokens" in one_error_line(capsys.readouterr().err)
    assert main([str(tmp_path / "a.md"), "--nope"]) == 2
    assert "unrecognized arguments: --nope" in one_error_line(capsys.readouterr().err)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setattr(chunker, "parse", broken)
    assert main([str(tmp_path / "a.md")]) == 3
    line = one_error_line(capsys.readouterr().err)
    assert "internal error: RuntimeError: a bug\\nover two lines" in line


# -- fuzzing -------------------------------------------------------------------------------------------


def test_under_root_never_lets_a_name_out(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()

    @given(st.text(max_size=40))
    @settings(max_examples=300, deadline=None)
    def check(name: str) -> None:
        try:
            found = under_root(root, name)
        except FileRefused:
            return
        assert found == root.resolve() or root.resolve() in found.parents

    check()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
records = st.fixed_dictionaries(
    {},
    optional={
        "id": json_values,
        "document": st.sampled_from(["guide.md", "../guide.md", "", "x"]) | json_values,
        "question": st.text(max_size=20) | json_values,
        "kind": st.sampled_from(["prose", "table", None]) | json_values,
        "references": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "content": st.sampled_from(["forty-two", ""]) | json_values,
                    "start_index": st.integers(-5, 80) | json_values,
                    "end_index": st.integers(-5, 80) | json_values,
                },
            ),
            max_size=3,
        )
        | json_values,
    },
)


@given(data=st.binary(max_size=300) | st.lists(records, max_size=3).map(lambda rs: _lines(rs)))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_readers_raise_only_their_own_error_on_any_input(data: bytes) -> None:
    """Arbitrary bytes, and arbitrary JSON structures shaped like questions, in both formats."""
    for fmt in ("jsonl", "csv"):
        with contextlib.suppress(QuestionSetError):
            read_question_set(data, fmt, {"guide.md": DOC})  # type: ignore[arg-type]


def _lines(rs: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rs).encode()


FLAGS = ["--target", "--hard-cap", "--overlap", "--min-tokens", "--strategy", "--format", "-o", "--max-size", "-j"]
SWITCHES = ["--layers", "--breadcrumb-in-budget", "--no-repeat-table-header", "--include-front-matter", "-q"]
values = st.sampled_from(
    ["0", "-1", "1", "64", "512", "1e400", "inf", "nan", "99999999999999", "json", "optimal", ""]
) | st.text(alphabet=st.characters(blacklist_characters="/\\", blacklist_categories=("Cs",)), max_size=8)
words = st.one_of(
    st.sampled_from(["doc.md", "docs", "missing.md", "set.jsonl", "tree", "eval"]),
    st.sampled_from(SWITCHES),
    st.tuples(st.sampled_from(FLAGS), values).map(list),
)


@given(argv=st.lists(words, max_size=6))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_cli_ends_with_a_status_and_never_a_traceback_whatever_the_arguments(
    argv: list[object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Arbitrary arguments (flags, values, paths, sub-commands in any order) in a folder with a document,
    a directory and a question set: exit 0, 1 or 2, and at most one line of error."""
    monkeypatch.chdir(tmp_path)
    if not (tmp_path / "doc.md").exists():
        (tmp_path / "doc.md").write_text(DOC, encoding="utf-8")
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "a.md").write_text(DOC, encoding="utf-8")
        (tmp_path / "guide.md").write_text(DOC, encoding="utf-8")
        write_set(tmp_path, record("guide.md"))
    flat = [str(w) for item in argv for w in (item if isinstance(item, list) else [item])]
    status = main(flat)
    err = capsys.readouterr().err
    assert status in (0, 1, 2), (flat, err)
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) <= 1


@given(value=json_values | st.text(max_size=30))
@settings(max_examples=300, deadline=None)
def test_reading_chunk_sets_and_documents_back_raises_only_our_error(value: object) -> None:
    """`ChunkSet.from_json` and `Document.from_json` on any JSON (or text): a ChunkerError, never another."""
    text = value if isinstance(value, str) else json.dumps(value)
    shaped = json.dumps({"schema": "chunk-set", "version": 1, "document": value, "config": {}, "chunks": [value]})
    for cls in (chunker.ChunkSet, chunker.Document):
        for data in (text, shaped):
            with contextlib.suppress(chunker.ChunkerError):
                cls.from_json(data)


# -- found by an attacker's pass (2026-11-26): each once hung, crashed or wrote where it should not ------------


def billion_laughs(levels: int) -> str:
    """Front matter of a few hundred bytes whose YAML aliases name 2 · 3^(levels - 1) values."""
    lines = ["---", "l0: &l0 [lol, lol]"]
    lines += [f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}, *l{i - 1}]" for i in range(1, levels)]
    return "\n".join([*lines, "---", "# Title", "", "The text after it."]) + "\n"


@pytest.mark.parametrize(
    "text", [billion_laughs(30), "---\na: &a [*a]\n---\n# Title\n\nThe text after it.\n"], ids=["bomb", "loop"]
)
def test_front_matter_whose_aliases_name_too_much_stays_markdown(text: str, tmp_path: Path) -> None:
    """834 bytes of YAML aliases once took 3 GB and never finished (CLI, directory run, app upload); a list
    that holds itself refused the whole document. Now such lines are not front matter: they stay Markdown."""
    path = tmp_path / "bomb.md"
    path.write_text(text, encoding="utf-8")
    result = cli(path, "-o", tmp_path / "bomb.json", timeout=60)
    assert result.returncode == 0, result.stderr
    chunk_set = chunker.ChunkSet.from_json((tmp_path / "bomb.json").read_text(encoding="utf-8"))
    assert chunk_set.document["front_matter"] is None
    assert "".join(c.markdown for c in chunk_set).count("*l") == text.count("*l")  # the lines kept, as Markdown
    assert chunker.parse("---\ntitle: T\nlist: &x [1, 2]\nagain: *x\n---\n# T\n").front_matter == {
        "title": "T",
        "list": [1, 2],
        "again": [1, 2],
    }


def panicking_tokenizer(folder: Path) -> Path:
    """A tokenizer.json whose pre-tokenizer's regex backtracks until the regex library gives up (a Rust
    panic, which Python sees as a BaseException) on 'aaa…ab'."""
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated", "invert": False},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
    }
    path = folder / "evil_tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def test_a_tokenizer_that_panics_is_one_line_and_a_directory_run_keeps_the_other_documents(tmp_path: Path) -> None:
    """It once ended in a Python traceback, and a directory run lost every document."""
    tokenizer = panicking_tokenizer(tmp_path)
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    (src / "aab.md").write_text("# T\n\n" + "a" * 60 + "b\n", encoding="utf-8")
    single = cli(src / "aab.md", "--tokenizer", tokenizer)
    assert single.returncode == 2 and "Traceback" not in single.stderr
    errors = [line for line in single.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "evil_tokenizer.json' failed on this text" in errors[0], single.stderr
    run = cli(src, "-o", out, "--tokenizer", tokenizer)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "skipped: " + str(src / "aab.md") + ": the tokenizer" in run.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a.md.json", "chunks.jsonl", "m.md.json", "z.md.json"]


def test_a_tokenizer_path_to_a_fifo_or_a_device_is_refused_unread(tmp_path: Path) -> None:
    """`--tokenizer fifo.json` once hung; `hf:/dev/zero` read until memory ran out."""
    (tmp_path / "doc.md").write_text(DOC, encoding="utf-8")
    os.mkfifo(tmp_path / "fifo.json")
    for tokenizer in (tmp_path / "fifo.json", "hf:/dev/zero"):
        result = cli(tmp_path / "doc.md", "--tokenizer", tokenizer, timeout=30)
        assert result.returncode == 2
        assert "is not a regular file (a pipe, a device?): not read" in one_error_line(result.stderr)
    with pytest.raises(chunker.TokenizerError, match="is a directory"):
        chunker.get_tokenizer(f"hf:{tmp_path}")


def test_what_a_document_or_a_set_names_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    """A heading, a file name or a set's kind once printed terminal escapes raw (a window title, a cleared screen)."""
    from chunk_inspector.cli.commands import format_tree
    from chunk_inspector.cli.progress import Progress
    from chunk_inspector.files import printable

    escape = "\x1b]0;PWNED\x07\x1b[2J\u009b31m\u202e"
    tree = format_tree(chunker.parse(f"# Title {escape}\n\ntext\n", name=f"doc{escape}.md"))
    assert not any(c in tree for c in "\x1b\x07\u009b\u202e")
    assert "Title \\x1b]0;PWNED\\x07\\x1b[2J\\x9b31m\\u202e" in tree

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    Progress(1, screen).advance(f"name{escape}.md")
    drawn = screen.getvalue().removeprefix("\r\x1b[K")  # the bar's own redraw, then nothing raw
    assert "\x1b" not in drawn and drawn.endswith(printable(f"{escape}.md"))
    log = io.StringIO()
    Progress(1, log, enabled=False).message(f"skipped: name{escape}.md: a reason")
    assert log.getvalue() == f"skipped: {printable(f'name{escape}.md')}: a reason\n"


def test_a_chroma_corpora_folder_that_links_out_is_refused(tmp_path: Path) -> None:
    """A set beside a `corpora` link to `/` once read any .md file on the machine."""
    (tmp_path / "outside.md").write_text(SECRET, encoding="utf-8")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "corpora").symlink_to("/")
    reference = json.dumps([{"content": "TOPSECRET", "start_index": 0, "end_index": 9}])
    corpus_id = str(tmp_path / "outside").lstrip("/")
    csv_text = f'question,references,corpus_id\nwhat?,"{reference.replace(chr(34), chr(34) * 2)}",{corpus_id}\n'
    (bundle / "questions_df.csv").write_text(csv_text, encoding="utf-8")
    with pytest.raises(QuestionSetError, match="'corpora' resolves outside the root folder"):
        load_question_set(bundle / "questions_df.csv")
    result = cli("eval", bundle / "questions_df.csv", "-q")
    assert result.returncode == 2 and SECRET not in result.stdout + result.stderr


def test_a_folder_that_cannot_be_read_is_a_failure_not_a_silence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unreadable folder once vanished from a directory run (exit 0); an unreadable root was "no Markdown
    files". Root reads every folder, so the denial is made by os.scandir, which os.walk calls."""
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    (src / "locked").mkdir()
    (src / "locked" / "x.md").write_text("# X\n\nx\n", encoding="utf-8")
    scandir = os.scandir

    def denied(path: object = ".") -> object:
        if os.fspath(path).endswith("locked"):  # type: ignore[call-overload]
            raise PermissionError(13, "Permission denied", os.fspath(path))  # type: ignore[call-overload]
        return scandir(path)  # type: ignore[call-overload]

    monkeypatch.setattr(os, "scandir", denied)
    assert main([str(src), "-o", str(out), "-q"]) == 1
    assert "locked: cannot read the folder (Permission denied): its files were not chunked" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["a.md.json", "chunks.jsonl", "m.md.json", "z.md.json"]
    assert main([str(src / "locked"), "-o", str(tmp_path / "out2")]) == 2
    assert "cannot read the folder" in one_error_line(capsys.readouterr().err)


def running_with(argument: str, wait: float = 10.0) -> list[int]:
    """The processes (Linux's /proc) whose command line holds ``argument``, once ``wait`` seconds have
    passed or none is left (a worker forked by a run has the run's command line)."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError):
                if entry.name.isdigit() and argument.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_sigterm_stops_a_directory_run_cleanly(tmp_path: Path) -> None:
    """SIGTERM (`timeout`, `kill`, `docker stop`) once left a partial `.chunks.jsonl.*.tmp` behind."""
    src, out = tmp_path / "docs", tmp_path / "out"
    src.mkdir()
    for n in range(40):
        (src / f"d{n:02}.md").write_text("".join(f"## S{i}\n\n{'word ' * 80}\n\n" for i in range(800)), "utf-8")
    run = subprocess.Popen(
        [sys.executable, "-m", "chunk_inspector", str(src), "-o", str(out), "-q", "--jobs", "2"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while run.poll() is None and not (out / "d00.md.json").exists():
            time.sleep(0.05)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 143 and "Traceback" not in err, err
    assert not running_with(str(src)), "a worker outlived the run"
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    assert not (out / "chunks.jsonl").exists()  # written only by a run that ends
    assert all(json.loads(p.read_text("utf-8"))["chunks"] for p in out.glob("*.md.json"))  # each one whole


def test_a_folder_named_as_a_file_of_the_run_is_a_failure_and_the_rest_written(tmp_path: Path) -> None:
    """A folder `chunks.jsonl/` in the input once made the run end with no chunks.jsonl and no summary."""
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    (src / "chunks.jsonl").mkdir()
    (src / "chunks.jsonl" / "b.md").write_text("# B\n\nb\n", encoding="utf-8")
    result = cli(src, "-o", out)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "chunks.jsonl/b.md: its JSON would go to" in result.stderr and "summary: 3 documents" in result.stderr
    documents = [json.loads(line)["document"] for line in (out / "chunks.jsonl").read_text("utf-8").splitlines()]
    assert documents == ["a.md", "m.md", "z.md"]


def test_a_folder_named_as_a_file_of_the_run_in_another_case_is_a_failure_too(tmp_path: Path) -> None:
    """On macOS or Windows `CHUNKS.JSONL/` is the folder `chunks.jsonl/`: the run would end unable to write
    chunks.jsonl. It is refused in any letter case, as in the file system's own."""
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    (src / "CHUNKS.JSONL").mkdir()
    (src / "CHUNKS.JSONL" / "b.md").write_text("# B\n\nb\n", encoding="utf-8")
    result = cli(src, "-o", out)
    assert result.returncode == 1 and "CHUNKS.JSONL/b.md: its JSON would go to" in result.stderr
    assert "summary: 3 documents" in result.stderr and not (out / "CHUNKS.JSONL").exists()


def test_two_documents_whose_json_is_one_file_on_the_output_are_a_failure_not_a_loss(tmp_path: Path) -> None:
    """`Guide.md` and `guide.md` (or the NFC and NFD spellings of `café.md`) are two files on Linux and one on a
    macOS or Windows output folder: the second JSON once replaced the first, exit 0, one document silently gone.
    A link in the output (out/b -> out/a) makes two names one file here in the same way."""
    src, out = tmp_path / "docs", tmp_path / "out"
    for folder in ("a", "b"):
        (src / folder).mkdir(parents=True)
        (src / folder / "x.md").write_text(f"# {folder}\n\nText of {folder}.\n", encoding="utf-8")
    (out / "a").mkdir(parents=True)
    (out / "b").symlink_to(out / "a")
    result = cli(src, "-o", out)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "b/x.md: its JSON would go to" in result.stderr and "the file a/x.md's JSON was written to" in result.stderr
    assert chunker.ChunkSet.from_json((out / "a" / "x.md.json").read_text("utf-8")).document["name"] == "a/x.md"
    assert "summary: 1 document," in result.stderr


def _remove_nested(top: Path) -> None:
    """Remove ``top``'s chain of folders named ``d`` and their files, deepest first, by descriptor (pytest's own
    clean-up recurses once per level and gives up on a tree thousands deep)."""
    folders = [os.open(top, os.O_RDONLY | os.O_DIRECTORY)]
    with contextlib.suppress(FileNotFoundError):
        while True:
            folders.append(os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=folders[-1]))
    for parent, child in reversed(list(itertools.pairwise(folders))):
        for name in os.listdir(child):
            if name != "d":
                os.unlink(name, dir_fd=child)
        os.close(child)
        os.rmdir("d", dir_fd=parent)
    os.close(folders[0])


def test_a_tree_nested_thousands_deep_is_walked_and_its_files_written_or_skipped(tmp_path: Path) -> None:
    """A folder nested 1,200 deep (an unpacked archive) once ended the whole run with "nested too deeply", nothing
    written (os.walk and Path.mkdir recurse once per level), and its walk resolved each folder's path (2,500 deep:
    97 s). A document deeper than the system's longest path is skipped with the reason; every other one written."""
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"

    def write(name: str, folder: int) -> None:
        file = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        os.write(file, f"# {name}\n\nText.\n".encode())
        os.close(file)

    folder = os.open(src, os.O_RDONLY | os.O_DIRECTORY)  # by descriptor: the deepest paths are too long to name
    try:
        for depth in range(1, 2501):
            os.mkdir("d", dir_fd=folder)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
            if depth in (1200, 2500):
                write("mid.md" if depth == 1200 else "deep.md", folder)
        os.close(folder)
        result = cli(src, "-o", out, "-q")
        assert result.returncode == 1 and "Traceback" not in result.stderr and "nested too deeply" not in result.stderr
        assert (out / "a.md.json").exists() and (out / Path(*["d"] * 1200) / "mid.md.json").exists()
        assert result.stderr.count("skipped: ") == 1 and "File name too long" in result.stderr
    finally:
        _remove_nested(src)
        if out.exists():
            _remove_nested(out)


def test_a_link_to_a_special_file_is_named_as_listed(tmp_path: Path) -> None:
    src, out = make_docs(tmp_path / "docs"), tmp_path / "out"
    os.mkfifo(src / "pipe.md")
    (src / "link.md").symlink_to(src / "pipe.md")
    result = cli(src, "-o", out)
    assert f"skipped: {src / 'link.md'} → {src / 'pipe.md'} is a named pipe (FIFO)" in result.stderr


@pytest.mark.parametrize("field", ["id", "question"])
def test_a_lone_surrogate_in_an_id_or_a_question_is_refused_by_the_one_reader(root: Path, field: str) -> None:
    """JSON's "\\ud800" is a lone surrogate in Python: such an id or question once broke the Evaluate page's
    table (pyarrow cannot encode it). The reader the CLI and the app share refuses it in one line."""
    bad = record("guide.md", **{field: "\ud800 odd"})
    with pytest.raises(QuestionSetError, match=f"the {field} is not valid Unicode"):
        read_question_set(json.dumps(bad) + "\n", "jsonl", {"guide.md": DOC}, "set.jsonl")
    with pytest.raises(QuestionSetError, match=f"the {field} is not valid Unicode"):
        load_question_set(write_set(root, bad))


# -- found by an attacker's pass over the JSON readers (2026-11-27) --------------------------------------------


def chunk_set_json(**changes: object) -> dict[str, object]:
    """A good chunk-set JSON (two sections, two chunks), its first chunk changed by ``changes``."""
    chunks = chunker.chunk_markdown("# A\n\nhello world\n\n## B\n\ntext more\n", name="a.md", target=16, hard_cap=16)
    data = chunks.to_dict()
    first = data["chunks"][0]
    first.update(changes)
    if changes:
        del first["content_sha256"]
    return data


def _outline_with_a_twin(data: dict[str, object]) -> dict[str, object]:
    outline = data["outline"]
    assert isinstance(outline, list)
    outline.append(outline[1] | {"parent_id": outline[1]["id"]})  # a second "s1" under the first
    return data


@pytest.mark.parametrize(
    "data",
    [
        chunk_set_json(index=float("inf")),  # the literal 1e400: OverflowError
        chunk_set_json(token_count=float("inf")),
        chunk_set_json(char_span=[float("inf"), 1]),
        chunk_set_json(markdown=5),  # read, then layers() and contextualize() raised TypeError
        chunk_set_json(added_prefix=None),
        chunk_set_json(breadcrumb="abc"),
        chunk_set_json(char_span=[9, 2]),
        chunk_set_json(char_span=[0, 10**12]),  # 600 bytes that made layers() allocate terabytes
        chunk_set_json() | {"outline": [5]},  # AttributeError
        _outline_with_a_twin(chunk_set_json()),  # hierarchy() never returned
    ],
    ids=[
        "inf-index", "inf-tokens", "inf-span", "int-markdown", "null-prefix", "str-breadcrumb", "reversed-span",
        "span-past-markdown", "outline-item", "outline-twin",
    ],
)  # fmt: skip
def test_a_malformed_chunk_set_json_is_refused_where_it_is_read(data: dict[str, object]) -> None:
    """Each once passed from_json, or raised another error, and then hung, crashed or filled memory later."""
    text = json.dumps(data).replace("Infinity", "1e400")
    with pytest.raises(chunker.ChunkerError):
        chunker.ChunkSet.from_json(text).layers()


SOURCE = "# A\n\nhello world\n\n## B\n\ntext more\n"


def document_json(change: str, value: object) -> str:
    """A good document JSON with one field changed: ``doc.KEY``, ``section.KEY`` (# A) or ``block.KEY`` (its
    paragraph)."""
    data = chunker.parse(SOURCE, name="a.md").to_dict()
    where, key = change.split(".")
    section = data["tree"]["children"][0]
    {"doc": data, "section": section, "block": section["blocks"][0]}[where][key] = value
    return json.dumps(data).replace("Infinity", "1e400")


@pytest.mark.parametrize(
    ("change", "value"),
    [
        ("block.tokens", float("inf")),  # OverflowError
        ("doc.token_count", float("inf")),
        ("block.join_tokens", -(10**12)),  # read, then chunking raised IndexError
        ("block.char_span", [0, 10**9]),  # past the text
        ("block.byte_span", [0, 10**9]),
        ("block.line_span", [9, 9]),
        ("block.char_span", [0, 3]),  # overlaps the heading before it
        ("doc.text", ""),  # spans past the text: chunking raised IndexError
        ("section.title", 5),  # AttributeError when chunked
        ("doc.name", None),  # TypeError when chunked
        ("section.level", 10**9),  # `chunker tree` built a line of a billion '#'
        ("block.level", 3),  # a paragraph with a heading's level
    ],
)
def test_a_malformed_document_json_is_refused_where_it_is_read(change: str, value: object) -> None:
    """Each once passed Document.from_json, or raised another error, then crashed or filled memory later."""
    with pytest.raises(chunker.ChunkerError):
        chunker.Document.from_json(document_json(change, value))


def test_a_document_json_read_back_chunks_as_the_parsed_document() -> None:
    doc = chunker.parse(SOURCE, name="a.md")
    again = chunker.Document.from_json(doc.to_json())
    options = chunker.ChunkOptions(16, 16)
    assert chunker.chunk_with(again, options) == chunker.chunk_with(doc, options)


def test_a_hard_cap_of_billions_costs_what_the_document_costs(tmp_path: Path) -> None:
    """`--hard-cap 999999999999` ("no cap, just the target") on a 60-byte file once ran out of memory (a 4 GB
    limit) or never ended (`chunker eval`): the optimal packer tabled a size cost for every count up to the cap."""
    (tmp_path / "doc.md").write_text(DOC, encoding="utf-8")
    started = time.monotonic()
    result = cli(tmp_path / "doc.md", "--hard-cap", "999999999999", timeout=60)
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 30
    assert chunker.ChunkSet.from_json(result.stdout).config["hard_cap"] == 999999999999


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["-k", "0"], "argument -k: expected a whole number of chunks, 1 or more, got '0'"),
        (["--budget", "-100"], "argument --budget: expected a whole number of tokens, 1 or more, got '-100'"),
        (["--overlap", "-1"], "argument --overlap: expected a whole number of tokens, 0 or more, got '-1'"),
        (["-k", "x" * 50], "argument -k: expected a whole number of chunks, 1 or more, got '" + "x" * 28 + "…"),
        (["-k", "-" + "9" * 20], "argument -k: expected a whole number of chunks, 1 or more, got '-9999"),
    ],
)
def test_eval_refuses_counts_below_their_least(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], said: str
) -> None:
    """``-k 0`` retrieved nothing and ``--budget -100`` reported a recall of 1.000: both are usage errors now. A
    long value is quoted cut short, the cut marked (it was cut to 20 characters without a mark)."""
    (tmp_path / "a.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "set.jsonl").write_text(
        json.dumps({"id": "q1", "question": "What?", "document": "a.md", "answer": "Hello"}) + "\n", encoding="utf-8"
    )
    assert main(["eval", str(tmp_path / "set.jsonl"), "-q", *flags]) == 2
    assert said in one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["-k", "9" * 20], "argument -k: '99999999999999999999' is too large: at most 999,999,999,999"),
        (["-k", "1" + "0" * 12], "argument -k: '1000000000000' is too large: at most 999,999,999,999"),
        (["--target", "9" * 5000], "argument --target: '" + "9" * 28 + "… is too large: at most 999,999,999,999"),
        (["--hard-cap", "+" + "9" * 20], "argument --hard-cap: '+99999999999999999999' is too large: at most"),
        (["--overlap", "9" * 20], "argument --overlap: '99999999999999999999' is too large: at most 999,999,999,999"),
        (["--min-tokens", "9" * 20], "argument --min-tokens: '99999999999999999999' is too large: at most"),
        (["--budget", "9" * 20], "argument --budget: '99999999999999999999' is too large: at most 999,999,999,999"),
        (["--max-size", "9" * 20], "argument --max-size: '99999999999999999999' is too large: at most 1,048,576 MiB"),
        (["--max-size", "inf"], "argument --max-size: 'inf' is too large: at most 1,048,576 MiB"),
    ],
)
def test_a_number_too_large_is_said_to_be_too_large(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], said: str
) -> None:
    """``-k 99999999999999999999`` was refused as not "a whole number of chunks, 1 or more", which it is: each
    whole-number option, and --max-size, says a number over its most is too large and what the most is."""
    (tmp_path / "set.jsonl").write_text("", encoding="utf-8")
    assert main(["eval", str(tmp_path / "set.jsonl"), "-q", *flags]) == 2
    assert said in one_error_line(capsys.readouterr().err)
    assert main([str(tmp_path / "a.md"), "--jobs", "9" * 20]) == 2
    assert "argument -j/--jobs: '99999999999999999999' is too large: at most 999,999,999,999" in one_error_line(
        capsys.readouterr().err
    )


@pytest.mark.parametrize("line", ["<a " * 20_000, "1. " * 20_000 + "x"])
def test_a_line_whose_words_count_more_together_costs_what_its_text_costs(line: str) -> None:
    """One line of `<a <a <a ...` (a word of one token alone, two after a space) took 70 s a MB, and the time grew
    with the hard cap: each piece was recounted once per word taken off its end, from twice the cap down to it.
    Counted here as characters the tokenizer reads, not as time: a few times the text, whatever the cap."""
    import dataclasses

    base = chunker.get_tokenizer("cl100k_base")
    read = [0]

    def counting(text: str) -> int:
        read[0] += len(text)
        return base.count(text)

    tokenizer = dataclasses.replace(base, count=counting)
    for target, cap in [(128, 256), (2048, 4096)]:
        read[0] = 0
        doc = chunker.parse(line, name="line.md", tokenizer=tokenizer)
        chunks = chunker.chunk_with(doc, chunker.ChunkOptions(target, cap, strategy="balanced"))
        assert "".join(c.markdown for c in chunks).replace(" ", "") == line.replace(" ", "")
        assert all(c.token_count <= cap for c in chunks)
        assert read[0] < 40 * len(line), f"hard cap {cap}: read {read[0] / len(line):.0f} times the text"


def test_an_output_whose_name_fits_is_written_however_long(tmp_path: Path) -> None:
    """A document named with 240 characters (its JSON's name, 248 bytes, within the 255 a name may take) was
    skipped with "File name too long": the temporary file beside it added a dot, the process id and a suffix."""
    src, out = tmp_path / "docs", tmp_path / "out"
    src.mkdir()
    long = "é" * 100 + "a" * 40 + ".md"  # 243 bytes in UTF-8: its JSON, 248
    (src / long).write_text(DOC, encoding="utf-8")
    result = cli(src, "-o", out)
    assert result.returncode == 0, result.stderr
    assert chunker.ChunkSet.from_json((out / f"{long}.json").read_text(encoding="utf-8")).document["name"] == long
    single = tmp_path / ("b" * 250 + ".json")
    assert cli(src / long, "-o", single).returncode == 0 and single.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["docs", "out", single.name])


@pytest.mark.parametrize("run", [".", "!", "…", '?"'])
def test_a_line_of_sentence_ends_is_cut_in_linear_time(run: str) -> None:
    """A line of 100,000 dots (a leader, ASCII art) took 220 s to chunk, and a megabyte of them hours: the
    sentence-end pattern tried each dot of the run as a start, read to the run's end, and found no space there."""
    from chunker.cut.text import sentence_starts

    line = run * (60_000 // len(run))
    started = time.process_time()
    assert sentence_starts(line + "x", 0, len(line) + 1) == [0]
    assert sentence_starts(line + " x", 0, len(line) + 2) == [0, len(line) + 1]
    assert time.process_time() - started < 2
    doc = chunker.parse(f"# Dots\n\n{line}\n", name="dots.md")
    chunks = chunker.chunk_with(doc, chunker.ChunkOptions(128, 256))
    assert "".join(c.markdown.removeprefix("# Dots\n\n") for c in chunks) == line
    assert time.process_time() - started < 10


def test_layers_that_cannot_all_be_written_leave_the_previous_three(tmp_path: Path) -> None:
    """`--layers -o FOLDER` wrote documents.jsonl, then failed on sections.jsonl (a folder there): the folder then
    held this run's documents beside another run's chunks, whose parent ids name sections that are not there."""
    (tmp_path / "doc.md").write_text(DOC, encoding="utf-8")
    folder = tmp_path / "layers"
    folder.mkdir()
    (folder / "documents.jsonl").write_text("old documents\n", encoding="utf-8")
    (folder / "chunks.jsonl").write_text("old chunks\n", encoding="utf-8")
    (folder / "sections.jsonl").mkdir()
    result = cli(tmp_path / "doc.md", "--layers", "-o", folder)
    assert result.returncode == 2
    assert "sections.jsonl" in one_error_line(result.stderr)
    assert (folder / "documents.jsonl").read_text(encoding="utf-8") == "old documents\n"
    assert (folder / "chunks.jsonl").read_text(encoding="utf-8") == "old chunks\n"
    assert sorted(p.name for p in folder.iterdir()) == ["chunks.jsonl", "documents.jsonl", "sections.jsonl"]
    (folder / "sections.jsonl").rmdir()
    assert cli(tmp_path / "doc.md", "--layers", "-o", folder).returncode == 0
    assert all(
        json.loads(line)
        for name in ("documents", "sections", "chunks")
        for line in (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    )
