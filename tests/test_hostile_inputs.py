"""Hostile and careless input to the CLI, the question-set readers and directory runs (docs/SECURITY.md).

Each case was once seen to read a file it should not, hang, lose documents, clobber a file or end in a
traceback. Run as root, as CI does: file permissions cannot stand in for these checks.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
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
