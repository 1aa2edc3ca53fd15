"""The app with untrusted input (AppTest): hostile links, a page that raises, uploads named to escape a folder,
tokenizer files, oversized pastes and question sets, Markdown in names and questions."""

from __future__ import annotations

import io
import json
import logging
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import chunker
from chunk_inspector.app import evaluate_view, frame, view
from tests.app.conftest import APP, plain
from tests.test_tokenizer_patterns import LLAMA_3, split_tokenizer

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
GUIDE = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")
IMAGE = "![](http://198.51.100.9/q.png)"


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def engine_count(text: str, target: int = 384, cap: int = 1024, **options: Any) -> int:
    return len(chunker.chunk_markdown(text, name="x.md", target=target, hard_cap=cap, **options))


def opened_with(query: dict[str, str | list[str]]) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at


def sidebar_text(at: AppTest) -> str:
    return " ".join(plain(e.value) for kind in ("warning", "caption", "error") for e in getattr(at.sidebar, kind))


# -- links ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "widgets", "note"),
    [
        ({"overlap": "1e400"}, {"overlap": 0}, "overlap '1e400' is not a number → 0"),
        ({"overlap": "inf"}, {"overlap": 0}, "overlap 'inf' is not a number → 0"),
        ({"overlap": "nan"}, {"overlap": 0}, "overlap 'nan' is not a number → 0"),
        ({"overlap": "-5"}, {"overlap": 0}, "overlap '-5' → 0 (the smallest)"),
        ({"overlap": "abc"}, {"overlap": 0}, "overlap 'abc' is not a number → 0"),
        ({"overlap": "99999999999999999999999"}, {"overlap": 2048}, "→ 2048 (the largest)"),
        ({"min_tokens": "-1e400"}, {"min_tokens": 0}, "minimum chunk '-1e400' is not a number → 0"),
        ({"hard_cap": "700"}, {"hard_cap": 600}, "hard cap '700' → 600 (the nearest slider stop below)"),
        ({"hard_cap": "1e400"}, {"hard_cap": 1024}, "hard cap '1e400' is not a number → 1024"),
        ({"target": "257"}, {"target": 256}, "target '257' → 256"),
        ({"target": "2048"}, {"target": 1024}, "target 2048 → 1024 (it cannot exceed the hard cap)"),
        ({"strategy": "evil"}, {"strategy": "optimal"}, "packing 'evil' is not one of the choices → optimal"),
        ({"tokenizer": "../x.json"}, {"tokenizer": "cl100k_base"}, "tokenizer '../x.json' is not one of the choices"),
        ({"sample": "../../etc/passwd"}, {"sample": "poetry_cli.md"}, "sample '../../etc/passwd' is not one of"),
        ({"sample": "nope.md"}, {"sample": "poetry_cli.md"}, "sample 'nope.md' is not one of the choices"),
        ({"source": "Nope"}, {"source": "Sample"}, "document source 'Nope' is not one of the choices → Sample"),
        ({"hard_cap": ["512", "1024"]}, {"hard_cap": 1024}, "hard cap was given 2 times: the last one counts"),
        ({"sample": IMAGE}, {"sample": "poetry_cli.md"}, f"sample '{IMAGE}' is not one of the choices"),
    ],
)
def test_a_hostile_link_is_corrected_with_a_note_in_the_sidebar_never_a_traceback(
    query: dict[str, str | list[str]], widgets: dict[str, object], note: str
) -> None:
    """Unparsable or out-of-range URL parameters are reset or clamped, the sidebar says what became what, and
    the page chunks at the corrected settings (on the old frame, ``overlap=1e400`` raised OverflowError)."""
    at = opened_with(query)
    assert not at.exception, [e.value for e in at.exception]
    assert note in sidebar_text(at)
    for key, value in widgets.items():
        assert at.session_state[key] == value, key
    state = at.session_state
    cap = int(state["hard_cap"])
    expected = engine_count(GUIDE, int(state["target"]), cap, overlap=min(int(state["overlap"]), (cap - 1) // 2))
    assert metric(at, "Chunks") == str(expected)
    assert not re.search(r"(?<!\\)!\[", " ".join(w.value for w in at.sidebar.warning)), "the note is escaped"


def test_several_bad_parameters_make_one_note_and_a_good_link_none() -> None:
    at = opened_with({"overlap": "1e400", "hard_cap": "700", "sample": "../../etc/passwd", "strategy": "x"})
    assert not at.exception
    notes = [plain(w.value) for w in at.sidebar.warning if "corrected" in plain(w.value)]
    assert len(notes) == 1 and notes[0].count(" → ") == 4
    good = opened_with({"hard_cap": "1024", "target": "500", "sample": "redux_modern_redux.md"})
    assert not good.exception and "corrected" not in sidebar_text(good)


# -- one error boundary --------------------------------------------------------------------------------------------


def test_an_unexpected_error_in_a_page_is_one_line_and_the_trace_goes_to_the_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No exception element, no traceback or server path on the page: one st.error; the log has it all."""

    def broken(*args: object, **kwargs: object) -> dict[str, int]:
        raise RuntimeError("boom at /srv/secret/path.py")

    monkeypatch.setattr(view, "summary", broken)
    with caplog.at_level(logging.ERROR, logger="chunk_inspector.app"):
        at = AppTest.from_file(str(APP), default_timeout=120)
        at.run()
    assert not at.exception
    assert len(at.error) == 1
    shown = plain(at.error[0].value)
    assert "RuntimeError" in shown and "/srv/secret" not in shown and "Traceback" not in shown
    assert "\n" not in shown
    assert any("boom at /srv/secret/path.py" in r.exc_text for r in caplog.records if r.exc_text)
    ref = re.search(r"logged on the server as (\w+)", shown)
    assert ref and any(ref.group(1) in r.getMessage() for r in caplog.records)
    assert plain(at.sidebar.title[0].value) == "Chunk Inspector", "the frame is drawn"


def test_an_error_in_the_sidebar_is_one_line_and_the_page_is_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunk_inspector.app import url_settings

    def broken(*args: object) -> None:
        raise ValueError("bad")

    monkeypatch.setattr(url_settings, "build_settings", broken)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception and len(at.error) == 1 and not at.metric


@pytest.mark.parametrize("how", ["stop", "rerun"])
def test_st_stop_and_st_rerun_pass_through_the_boundary(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """st.stop() ends the page without an error line; st.rerun() runs it again (here once), to the end."""
    import streamlit as st

    real = view.summary
    calls: list[int] = []

    def control(*args: Any, **kwargs: Any) -> dict[str, int]:
        calls.append(1)
        if how == "stop":
            st.stop()
        if len(calls) == 1:
            st.rerun()
        return real(*args, **kwargs)

    monkeypatch.setattr(view, "summary", control)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception and not at.error
    if how == "stop":
        assert not at.metric
    else:
        assert len(calls) == 2 and metric(at, "Chunks") == str(engine_count(GUIDE))


def test_a_page_run_alone_goes_through_the_same_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    """frame.current's fallback (a page script run without app.py) runs the page inside the frame and its
    boundary: the page draws once, and an error in it is one line."""
    page = APP.parent / "pages" / "export.py"
    at = AppTest.from_file(str(page), default_timeout=120)
    at.run()
    assert not at.exception
    assert [plain(h.value) for h in at.subheader] == ["Export · poetry_cli.md"]

    def broken(*args: object) -> str:
        raise KeyError("/srv/secret")

    monkeypatch.setattr(view, "python_snippet", broken)
    at = AppTest.from_file(str(page), default_timeout=120)
    at.run()
    assert not at.exception and len(at.error) == 1 and "/srv/secret" not in at.error[0].value


# -- uploads and pastes ----------------------------------------------------------------------------------------------


def test_a_paste_over_the_upload_limit_is_refused_as_an_upload_is(app: AppTest) -> None:
    """8 MB pasted: one sidebar error in the upload's words, and the sample stays open (it used to be parsed)."""
    app.segmented_control(key="source").set_value("Paste").run()
    app.text_area(key="pasted").input("# Big\n\n" + "word " * 1_700_000).run()
    assert not app.exception
    errors = [plain(e.value) for e in app.sidebar.error]
    assert len(errors) == 1
    assert errors[0].startswith("The pasted text is 8.5 MB; the app takes files up to 5 MB.")
    assert plain(app.subheader[0].value) == "poetry_cli.md" and metric(app, "Chunks") == str(engine_count(GUIDE))
    upload = frame.size_error("x.md", 8_500_000)
    assert upload is not None and "the app takes files up to 5 MB" in str(upload)


def small_tokenizer(words: Iterable[str]) -> bytes:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(list(words), trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False))
    return tok.to_str().encode()


def test_an_uploaded_tokenizer_is_kept_in_memory_never_in_the_temp_folder(
    app: AppTest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Nothing is written to the temp folder (it used to be a world-readable folder never cleaned); the chunk
    set records the content's hash, not a server path; only a few tokenizers are kept loaded."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data = small_tokenizer([GUIDE[:5000]])
    app.file_uploader(key="hf_tokenizer").set_value(("tokenizer.json", data, "application/json")).run()
    assert not app.exception and not app.sidebar.error
    tok = chunker.tokens.hf_tokenizer_from_json(data)
    expected = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", tokenizer=tok, target=384, hard_cap=1024)
    assert metric(app, "Chunks") == str(len(expected))
    assert list(tmp_path.iterdir()) == []
    for n in range(frame.HF_TOKENIZERS_KEPT + 2):
        other = small_tokenizer([GUIDE[:5000], f"extra{n} words{n}"])
        app.file_uploader(key="hf_tokenizer").set_value((f"t{n}.json", other, "application/json")).run()
        assert not app.exception
    assert len(frame._hf_tokenizers) <= frame.HF_TOKENIZERS_KEPT
    assert list(tmp_path.iterdir()) == []
    app.switch_page("pages/export.py").run()
    first = json.loads(app.get("json")[0].proto.body)
    assert first["id"] == "c1"
    assert not any(str(tmp_path) in c.value or "/tmp" in c.value for c in app.code)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"{" + b" " * frame.MAX_TOKENIZER_BYTES + b"}",
            "tok.json is 20,000,002 bytes; the app takes a tokenizer.json up to 20 MB",
        ),
        (b'{"version": "1.0", "model": 3}', "Cannot load the uploaded tokenizer.json (tok.json): "),
        (b"\xff\xfe\x00", "The uploaded tokenizer.json (tok.json) is not UTF-8"),
        (
            split_tokenizer(r"\s+", r"a*a*a*a*(?!a)x?\z").encode(),
            "tok.json runs a regular expression of its own ('a*a*a*a*(?!a)x?\\\\z') that the app does not run",
        ),
    ],
    ids=["too-large", "malformed", "binary", "backtracking-pattern"],
)
def test_a_too_large_or_malformed_tokenizer_is_one_clear_line(app: AppTest, data: bytes, message: str) -> None:
    """One line, naming the file as uploaded (never the hf:sha256:… key the loaded tokenizer is shared under)."""
    app.file_uploader(key="hf_tokenizer").set_value(("tok.json", data, "application/json")).run()
    assert not app.exception
    errors = [plain(e.value) for e in app.sidebar.error]
    assert len(errors) == 1 and errors[0].startswith(message) and "sha256" not in errors[0], errors
    assert "\n" not in errors[0]
    assert metric(app, "Chunks") == str(engine_count(GUIDE)), "the encoding stays"


def test_a_long_refused_pattern_is_quoted_cut_to_eighty_characters() -> None:
    """The refusal quotes the pattern's repr cut to 80 characters, the ellipsis the 80th (it was cut to 77 and
    the ellipsis: 78)."""
    pattern = "(a|" + "b" * 200 + ")*c"
    with pytest.raises(chunker.TokenizerError) as refused:
        frame._refuse_unknown_patterns("tok.json", split_tokenizer(pattern).encode())
    quoted = str(refused.value).removeprefix("tok.json runs a regular expression of its own (").split(")")[0]
    assert quoted == repr(pattern)[:79] + "…"


def test_a_tokenizer_with_the_pattern_of_a_tokenizer_in_wide_use_counts(app: AppTest) -> None:
    """Llama 3's pattern (cl100k_base's) is one the app runs: the upload is taken and counts the chunks."""
    data = split_tokenizer(LLAMA_3).encode()
    app.file_uploader(key="hf_tokenizer").set_value(("llama.json", data, "application/json")).run()
    assert not app.exception and not app.sidebar.error
    tok = chunker.tokens.hf_tokenizer_from_json(data)
    expected = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", tokenizer=tok, target=384, hard_cap=1024)
    assert metric(app, "Chunks") == f"{len(expected):,}"


def test_corpus_archive_members_are_plain_unique_names_one_per_upload(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uploads named ../../x.md, /etc/cron.d/evil.md and dup.md twice: the zip holds x.md.json, evil.md.json,
    dup.md.json and dup-2.md.json (it used to hold the raw names, and one member for both dup.md)."""
    import streamlit as st

    offered: list[Any] = []  # each download's data: the zip is written when its button is clicked
    real: Callable[..., Any] = st.download_button

    def button(label: str, data: Any, *args: Any, **kwargs: Any) -> Any:
        offered.append(data)
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(st, "download_button", button)
    app.switch_page("pages/corpus.py").run()
    app.segmented_control(key="corpus_source").set_value("Upload files").run()
    names = ["../../x.md", "/etc/cron.d/evil.md", "dup.md", "dup.md", f"{IMAGE}.md"]
    files = [
        (name, f"# Doc {n}\n\nText {n} of the corpus test.\n".encode(), "text/markdown") for n, name in enumerate(names)
    ]
    app.file_uploader(key="corpus_uploads").set_value(files).run()
    assert not app.exception
    assert metric(app, "Documents") == str(len(names))
    assert callable(offered[-1])
    with zipfile.ZipFile(io.BytesIO(offered[-1]())) as archive:
        members = archive.namelist()
    assert members == [
        "x.md.json",
        "evil.md.json",
        "dup.md.json",
        "dup-2.md.json",
        "q.png).md.json",
        "chunks.jsonl",
    ]


# -- question sets ---------------------------------------------------------------------------------------------------


def test_a_question_set_over_the_size_limit_is_refused_before_it_is_read(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object) -> None:
        raise AssertionError("read_upload must not be called for a set over the limit")

    monkeypatch.setattr(evaluate_view, "read_upload", never)
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Upload").run()
    data = b" " * (evaluate_view.MAX_SET_BYTES + 1)
    app.file_uploader(key="eval_upload").set_value(("huge.jsonl", data, "application/jsonl")).run()
    assert not app.exception
    errors = [plain(e.value) for e in app.error]
    assert errors == [
        "This question set is refused: huge.jsonl is 20,000,001 bytes; the app takes question sets up to 20 MB. "
        "Evaluate bigger sets with the CLI: chunker eval"
    ]
    assert not app.metric


@pytest.mark.parametrize(
    ("data", "name"),
    [(b"[" * 100_000, "deep.jsonl"), (b'question,references,corpus_id\n"' + b"x" * 200_000 + b'",[],a\n', "wide.csv")],
)
def test_a_question_set_the_reader_fails_on_is_one_error_line(app: AppTest, data: bytes, name: str) -> None:
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Upload").run()
    app.file_uploader(key="eval_upload").set_value((name, data, "text/plain")).run()
    assert not app.exception
    errors = [plain(e.value) for e in app.error]
    assert len(errors) == 1 and errors[0].startswith(f"This question set is refused: {name}: ")


# -- untrusted text is never Markdown ------------------------------------------------------------------------------

MARKDOWN_KINDS = ("markdown", "caption", "subheader", "title", "header", "error", "warning", "info", "success")


def unescaped_markdown(at: AppTest) -> list[str]:
    """Markdown bodies, labels and help texts of the page holding an image or link that is not escaped."""
    texts = [str(getattr(e, "value", "")) for kind in MARKDOWN_KINDS for e in at.get(kind)]
    texts += [m.label for m in at.metric]
    for kind in ("selectbox", "text_input", "file_uploader", "segmented_control", "number_input"):
        for widget in at.get(kind):
            texts += [getattr(widget, "label", "") or "", getattr(widget, "help", "") or ""]
    return [t for t in texts if re.search(r"(?<!\\)!\[|(?<!\\)\]\(", t)]


def test_markdown_in_a_question_set_and_a_document_name_is_shown_as_text(app: AppTest) -> None:
    """A document named like an image, questions and ids holding images: everywhere the page writes them into
    Markdown (subheaders, captions, the question, the chunk it fell into, errors, help), they are escaped."""
    doc = "# Lighthouse ![h](http://198.51.100.9/h.png)\n\nThe lamp is lit at dusk.\n\n## Fog\n\nThe horn sounds.\n"
    name = f"{IMAGE}.md"
    app.segmented_control(key="source").set_value("Upload").run()
    app.file_uploader(key="uploads").set_value((name, doc.encode(), "text/markdown")).run()
    assert not app.exception and plain(app.subheader[0].value) == name
    assert not unescaped_markdown(app)
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Upload").run()
    start = doc.index("The horn")
    record = {
        "id": "![](http://198.51.100.9/id.png)",
        "document": name,
        "question": f"{IMAGE} How often does the horn sound?",
        "references": [{"content": doc[start : start + 15], "start_index": start, "end_index": start + 15}],
    }
    app.file_uploader(key="eval_upload").set_value((f"{IMAGE}.jsonl", json.dumps(record).encode(), "x")).run()
    assert not app.exception and not app.error
    assert metric(app, "Recall in budget") == "1.000"
    assert any(plain(m.value) == f"**{IMAGE} How often does the horn sound?**" for m in app.markdown)
    assert not unescaped_markdown(app), unescaped_markdown(app)
    bad = dict(record, references=[{"content": "nope", "start_index": 0, "end_index": 4}])
    app.file_uploader(key="eval_upload").set_value((f"{IMAGE}.jsonl", json.dumps(bad).encode(), "x")).run()
    assert len(app.error) == 1 and not unescaped_markdown(app)
    for page in (
        "pages/inspect_chunks.py",
        "pages/tune.py",
        "pages/compare.py",
        "pages/revisions.py",
        "pages/export.py",
    ):
        app.switch_page(page).run()
        assert not app.exception, page
        assert not unescaped_markdown(app), (page, unescaped_markdown(app))
        assert "198.51.100.9/h.png" not in " ".join(h.proto.body for h in app.get("html") if "<img" in h.proto.body)


# -- the Export page's code: names that must stay one argument -------------------------------------------------------


def test_an_upload_named_like_an_option_stays_the_file_in_the_export_command_line(app: AppTest) -> None:
    """An upload named ``--ray=203.0.113.9:10001.md`` once stood in the Export page's command line as an option
    (``chunker --ray=…``), which a user copying it would have run against someone else's Ray cluster."""
    import shlex

    name = "--ray=203.0.113.9:10001.md"
    app.segmented_control(key="source").set_value("Upload").run()
    app.file_uploader(key="uploads").set_value((name, b"# Title\n\nSome text.\n", "text/markdown")).run()
    app.switch_page("pages/export.py").run()
    assert not app.exception
    command = next(c.value for c in app.code if c.value.startswith("chunker "))
    words = shlex.split(command)
    assert words[1] == f"./{name}" and not any(word.startswith("--ray") for word in words)


def test_zip_members_named_in_any_script_can_be_unpacked(tmp_path: Path) -> None:
    """An upload named with 200 emoji was kept to 120 characters, 480 bytes: past the 255 bytes a file name may
    take, so unzipping the Corpus page's download lost that document ("File name too long")."""
    names = ["😀" * 200 + ".md", "中" * 300 + ".md", "é" * 250 + ".md", "😀" * 200 + ".md"]
    members = view.archive_names(names, ".json", reserved=["chunks.jsonl"])
    assert len(set(members)) == len(members)
    for member in members:
        assert len(member.encode("utf-8")) <= 255, member
        (tmp_path / member).write_text("{}", encoding="utf-8")  # the file system takes it as it is
