"""`chunker eval` driven as a user would: a question set on disk, the table, JSON, and clear errors."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import chunker
from chunk_inspector.cli.commands import main
from chunk_inspector.cli.progress import Progress
from chunk_inspector.evaluate.metrics import Contender, evaluate
from chunk_inspector.evaluate.questions import load_question_set
from chunk_inspector.evaluate.retrievers import BM25Retriever

GUIDE = """# Gizmo guide

Gizmo is a tool for sorting socks.

## Install

Run pip install gizmo to get the gizmo package on your machine.

## Configure

Set the colour option to purple in the settings file to change the theme.

## Troubleshooting

If the socks come out unsorted, restart the gizmo daemon and clear its cache folder.
"""


def write_set(folder: Path) -> Path:
    docs = folder / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    lines = []
    for n, (question, answer, kind) in enumerate(
        [
            ("How do I make the theme purple?", "Set the colour option to purple", "prose"),
            ("What to do when the socks stay unsorted?", "restart the gizmo daemon", "prose"),
            ("How do I install it?", "pip install gizmo", "code"),
        ]
    ):
        at = GUIDE.index(answer)
        refs = [{"content": answer, "start_index": at, "end_index": at + len(answer)}]
        record = {"id": f"q{n}", "document": "guide.md", "question": question, "kind": kind, "references": refs}
        lines.append(json.dumps(record))
    path = folder / "set.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_table_shows_the_same_recall_as_the_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_set(tmp_path)
    code = main(["eval", str(path), "--root", str(tmp_path / "docs"), "--target", "16", "--hard-cap", "32", "-q"])
    out = capsys.readouterr().out
    assert code == 0
    qs = load_question_set(path, tmp_path / "docs")
    ev = evaluate(qs, Contender.engine(chunker.ChunkOptions(16, 32)), BM25Retriever())
    assert ev.contender.index == "context"  # what the CLI indexes by default, as the library does
    row = next(line for line in out.splitlines() if line.startswith("engine 16/32 + breadcrumb "))
    cells = row.removeprefix("engine 16/32 + breadcrumb").split()
    assert cells[0] == str(len(ev.chunks))
    assert cells[1] == f"{ev.mean()['recall@k']:.3f}"
    assert cells[4] == f"{ev.mean()['recall@budget']:.3f}"
    assert "recall@budget per kind (prose 2, code 1 questions)" in out
    assert out.startswith("set.jsonl: 3 questions over 1 documents, bm25, k=5, budget=1024 tokens")


def test_json_for_scripts_with_both_indexes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_set(tmp_path)
    argv = ["eval", str(path), "--root", str(tmp_path / "docs"), "--format", "json", "--index", "both", "-q", "-k", "2"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["k"] == 2 and data["count"] == 3
    defaults = f"engine {chunker.DEFAULT_TARGET}/{chunker.DEFAULT_HARD_CAP}"  # the CLI's limits are the engine's
    assert [r["chunker"] for r in data["rows"]] == [defaults, defaults + " + breadcrumb"]
    assert [q["id"] for q in data["rows"][0]["questions"]] == ["q0", "q1", "q2"]
    assert set(data["rows"][0]["by_kind"]) == {"prose", "code"}


def test_bad_sets_and_options_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_set(tmp_path)
    text = path.read_text(encoding="utf-8").replace('"start_index": ', '"start_index": 1', 1)
    path.write_text(text, encoding="utf-8")
    assert main(["eval", str(path), "--root", str(tmp_path / "docs")]) == 2
    err = capsys.readouterr().err
    assert (
        err == "error: question 'q0' (line 1): reference offsets (1142, 173) are outside 'guide.md' (322 characters)\n"
    )
    assert main(["eval", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err
    assert main(["eval", str(path), "--target", "64", "--hard-cap", "32"]) == 2
    assert "hard_cap (32) must be at least target (64)" in capsys.readouterr().err


def test_a_root_that_is_a_file_is_said_to_be_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`eval SET --root FILE` said the folder "does not exist" though it does, as a file."""
    path = write_set(tmp_path)
    assert main(["eval", str(path), "--root", str(tmp_path / "docs" / "guide.md"), "-q"]) == 2
    assert capsys.readouterr().err.endswith("docs/guide.md is not a folder (give --root DIR)\n")
    assert main(["eval", str(path), "--root", str(tmp_path / "nothing"), "-q"]) == 2
    assert capsys.readouterr().err.endswith("nothing does not exist (give --root DIR)\n")


def test_peers_without_any_installed_says_how_to_get_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chunk_inspector.cli.commands.available_peers", lambda: [])
    path = write_set(tmp_path)
    assert main(["eval", str(path), "--root", str(tmp_path / "docs"), "--peers", "-q"]) == 2
    assert "no peer chunker is installed" in capsys.readouterr().err


def test_the_console_script_runs(tmp_path: Path) -> None:
    """As a user types it: `python -m chunk_inspector eval SET --root DIR` prints the table, progress on stderr."""
    path = write_set(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "chunk_inspector", "eval", str(path), "--root", str(tmp_path / "docs")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "recall@budget" in done.stdout
    assert "1/1 chunkers" in done.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_within_an_item_is_a_plain_line_per_tenth_off_a_terminal() -> None:
    """Off a terminal: a line each time the whole passes another tenth inside an item (its line after the
    count), the item's end left to advance()'s usual line."""
    stream = io.StringIO()
    bar = Progress(2, stream, unit="chunkers")
    for done in range(0, 65, 8):
        bar.within(done / 64, f"engine: embedding chunks: {done} of 64")
    bar.advance("engine")
    bar.within(0.5, "peer: embedding chunks: 32 of 64")
    bar.advance("peer")
    assert stream.getvalue().splitlines() == [
        "0/2 chunkers (12%) engine: embedding chunks: 16 of 64",
        "0/2 chunkers (25%) engine: embedding chunks: 32 of 64",
        "0/2 chunkers (31%) engine: embedding chunks: 40 of 64",
        "0/2 chunkers (43%) engine: embedding chunks: 56 of 64",
        "1/2 chunkers (50%)",
        "1/2 chunkers (75%) peer: embedding chunks: 32 of 64",
        "2/2 chunkers (100%)",
    ]


def test_progress_within_an_item_moves_the_terminal_bar_with_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    now = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])  # the clock progress.py reads
    monkeypatch.setenv("COLUMNS", "200")  # room for the whole line
    stream = Terminal()
    bar = Progress(1, stream, unit="chunkers")
    for step in range(5):
        now[0] += 2.0
        bar.within(step / 8, f"engine: embedding chunks: {8 * step} of 64")
    draws = stream.getvalue().split("\r\x1b[K")[1:]
    assert draws[0] == "[" + " " * 24 + "] 0/1 chunkers  engine: embedding chunks: 0 of 64"
    assert draws[2] == "[######                  ] 0/1 chunkers  engine: embedding chunks: 16 of 64"
    # from the third step after the first, the time left at the rate so far: 3/8 in 6 s, then half in 8 s
    assert draws[3] == "[#########               ] 0/1 chunkers  engine: embedding chunks: 24 of 64 · about 10 s left"
    assert (
        draws[4] == "[############            ] 0/1 chunkers  engine: embedding chunks: 32 of 64 · a few seconds left"
    )


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence-transformers is not installed (the [dense] extra; `make setup` installs it)",
)
def test_a_dense_eval_reports_its_embedding_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`chunker eval --retriever dense` says how far the embedding is while it runs, not only at the end."""
    path = write_set(tmp_path)
    args = ["eval", str(path), "--root", str(tmp_path / "docs"), "--target", "16", "--hard-cap", "32"]
    assert main([*args, "--retriever", "dense"]) == 0
    lines = capsys.readouterr().err.splitlines()
    label = "engine 16/32 + breadcrumb"
    assert lines[0].startswith(f"0/1 chunkers (10%) {label}: ")
    embedded = [
        line
        for line in lines
        if re.fullmatch(rf"0/1 chunkers \(\d+%\) {re.escape(label)}: embedding chunks: (\d+) of \1", line)
    ]
    assert embedded, lines
    percents = [int(line.split("(")[1].split("%")[0]) for line in lines[:-1]]
    assert percents == sorted(percents) and percents[-1] < 100
    assert lines[-1] == "1/1 chunkers (100%)"


def test_a_refused_document_is_named_as_the_set_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under the folder given (here the set's own, the current one), not by its resolved absolute path."""
    line = {
        "id": "q1",
        "document": "gone.md",
        "question": "Where?",
        "references": [{"content": "a", "start_index": 0, "end_index": 1}],
    }
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "set.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "docs/set.jsonl", "-q"]) == 2
    assert (
        capsys.readouterr().err
        == "error: question 'q1' (line 1): its document is refused: docs/gone.md: no such file\n"
    )
