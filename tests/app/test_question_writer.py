"""Writing a question set on the Evaluate page (AppTest): answers found exactly, several documents, CRLF uploads,
the set evaluated as evaluate() measures it, kept across pages, edited, and uploaded again as downloaded."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import chunker
from chunk_inspector.app import question_writer
from chunk_inspector.evaluate import authoring
from chunk_inspector.evaluate.metrics import Contender, evaluate
from chunk_inspector.evaluate.questions import load_question_set, read_question_set
from chunk_inspector.evaluate.retrievers import get_retriever
from tests.app.conftest import plain
from tests.app.test_safety import IMAGE, unescaped_markdown

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
POETRY = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")
NOTES = "# Notes\n\nThe lamp is lit at dusk.\n\n## Fog\n\nThe horn sounds every minute.\nThe horn is loud.\n"


@pytest.fixture(autouse=True)
def _no_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunk_inspector.peers import chunkers as peers

    monkeypatch.setattr(peers, "available_peers", lambda: [])


@pytest.fixture
def writer(app: AppTest) -> AppTest:
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Write your own").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def add(at: AppTest, question: str, kind: str | None = None) -> None:
    at.text_area(key="write_question").input(question).run()
    at.selectbox(key="write_kind").set_value(kind or "(none)").run()
    at.button(key="write_add").click().run()
    assert not at.exception, [e.value for e in at.exception]


def paste(at: AppTest, answer: str, document: str | None = None) -> None:
    if document is not None:
        at.selectbox(key="write_doc").set_value(document).run()
    at.segmented_control(key="write_how").set_value("Paste its text").run()
    at.text_area(key="write_answer").input(answer).run()


def record(qid: str, document: str, question: str, kind: str | None, text: str, *answers: str) -> dict[str, object]:
    """A question as docs/evaluation.md §1 writes it, its offsets found here independently of the page."""
    refs = []
    for answer in answers:
        start = text.index(answer)
        refs.append({"content": answer, "start_index": start, "end_index": start + len(answer)})
    out: dict[str, object] = {"id": qid, "document": document, "question": question}
    if kind:
        out["kind"] = kind
    return {**out, "references": refs}


def jsonl(*records: dict[str, object]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def expected_recall(data: str, documents: dict[str, str]) -> str:
    questions = read_question_set(data, "jsonl", documents)
    ev = evaluate(questions, Contender.engine(chunker.ChunkOptions(384, 1024)), get_retriever("bm25"))
    return f"{ev.mean()['recall@budget']:.3f}"


def test_an_empty_set_says_what_to_do_and_bad_input_is_one_line(writer: AppTest) -> None:
    assert [plain(i.value) for i in writer.info] == [
        "No question yet: add one above, and its recall shows here at once."
    ]
    assert not writer.metric
    add(writer, "Why?")
    assert [plain(e.value) for e in writer.error] == [
        "no answer chosen: choose its lines, or paste its text and pick where it occurs"
    ]
    paste(writer, "Disables plugins.")
    add(writer, "   ")
    assert [plain(e.value) for e in writer.error] == ["the question is empty: type the question a user would ask"]
    paste(writer, "this text is in no document")
    assert "Not found in poetry_cli.md" in plain(writer.warning[0].value)
    assert question_writer.STATE not in writer.session_state


def test_written_questions_are_evaluated_as_evaluate_measures_them_and_kept_across_pages(writer: AppTest) -> None:
    paste(writer, "Disables plugins.")
    assert any(plain(c.value).startswith("Found once, at line 45 ") for c in writer.caption)
    add(writer, "How do I turn plugins off?", "list")
    assert [plain(s.value) for s in writer.success] == ["Added q1."]
    assert writer.text_area(key="write_question").value == "" and writer.text_area(key="write_answer").value == ""
    writer.segmented_control(key="write_how").set_value("Choose lines").run()
    writer.number_input(key="write_first").set_value(29).run()
    writer.number_input(key="write_last").set_value(35).run()
    add(writer, "Which SHELL_VERBOSITY value means quiet?", "table")
    table = "\n".join(POETRY.splitlines()[28:35])
    want = jsonl(
        record("q1", "poetry_cli.md", "How do I turn plugins off?", "list", POETRY, "Disables plugins."),
        record("q2", "poetry_cli.md", "Which SHELL_VERBOSITY value means quiet?", "table", POETRY, table),
    )
    assert authoring.to_jsonl(writer.session_state[question_writer.STATE]) == want  # what the download holds
    recall = expected_recall(want, {"poetry_cli.md": POETRY})
    assert metric(writer, "Recall in budget") == recall
    edited = writer.data_editor[0].value
    assert list(edited["id"]) == ["q1", "q2"] and list(edited["lines"]) == ["45", "29–35"]
    for page in ("pages/tune.py", "pages/inspect_chunks.py"):  # away and back: the set and its results stay
        writer.switch_page(page).run()
        writer.switch_page("pages/evaluate.py").run()
        assert writer.segmented_control(key="eval_source").value == "Write your own"
        assert metric(writer, "Recall in budget") == recall
    # uploaded again on the same page, the download is the same set, with the same numbers
    writer.segmented_control(key="eval_source").set_value("Upload").run()
    writer.file_uploader(key="eval_upload").set_value(("questions.jsonl", want.encode(), "application/jsonl")).run()
    assert not writer.error and metric(writer, "Recall in budget") == recall


def test_an_answer_that_occurs_more_than_once_is_chosen_among_its_occurrences(writer: AppTest) -> None:
    paste(writer, "poetry")
    (choice,) = writer.multiselect
    assert choice.label == (
        "It occurs 50 times (the first 50: paste a longer excerpt to narrow it): choose where it answers the question"
    )
    answer = "poetry add"
    starts = [m.start() for m in re.finditer(re.escape(answer), POETRY)]
    paste(writer, answer)
    (choice,) = writer.multiselect
    assert len(choice.options) == len(starts) > 2
    assert choice.options[1].startswith(f"line {authoring.line_of(POETRY, starts[1])}: …")
    choice.set_value([1, 2]).run()
    add(writer, "How do I add a package?", "multi_span")
    (q,) = writer.session_state[question_writer.STATE]
    assert [(r.start, r.content) for r in q.references] == [(starts[1], answer), (starts[2], answer)]


def test_several_documents_uploads_and_samples_make_one_set(app: AppTest) -> None:
    second = "# Second\n\nBeta releases ship on Fridays.\n"
    app.segmented_control(key="source").set_value("Upload").run()
    app.file_uploader(key="uploads").set_value(
        [("notes.md", NOTES.encode(), "text/markdown"), ("second.md", second.encode(), "text/markdown")]
    ).run()
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Write your own").run()
    options = app.selectbox(key="write_doc").options
    assert options[:1] == ["notes.md (open)"] and "second.md" in options and "poetry_cli.md" in options
    paste(app, "Beta releases ship on Fridays.", "second.md")
    add(app, "When do betas ship?")
    paste(app, "Disables plugins.", "poetry_cli.md")
    add(app, "How do I turn plugins off?")
    paste(app, "The horn sounds every minute.", "notes.md")
    add(app, "How often does the horn sound?", "prose")
    want = jsonl(
        record("q1", "second.md", "When do betas ship?", None, second, "Beta releases ship on Fridays."),
        record("q2", "poetry_cli.md", "How do I turn plugins off?", None, POETRY, "Disables plugins."),
        record("q3", "notes.md", "How often does the horn sound?", "prose", NOTES, "The horn sounds every minute."),
    )
    assert authoring.to_jsonl(app.session_state[question_writer.STATE]) == want
    documents = {"second.md": second, "poetry_cli.md": POETRY, "notes.md": NOTES}
    assert metric(app, "Recall in budget") == expected_recall(want, documents)
    assert any("3 questions over 3 documents" in plain(c.value) for c in app.caption)
    # the upload that held one of them is gone: its question is left out, with a line saying so
    app.file_uploader(key="uploads").set_value([("notes.md", NOTES.encode(), "text/markdown")]).run()
    assert [plain(w.value) for w in app.warning] == ["q1 is left out: 'second.md' is not open or uploaded now"]
    assert metric(app, "Recall in budget") == expected_recall(want.split("\n", 1)[1], documents)


def test_a_crlf_upload_s_offsets_index_the_file_as_read_with_newline_empty(app: AppTest, tmp_path: Path) -> None:
    crlf = NOTES.replace("\n", "\r\n").encode()
    app.segmented_control(key="source").set_value("Upload").run()
    app.file_uploader(key="uploads").set_value([("notes.md", crlf, "text/markdown")]).run()
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Write your own").run()
    paste(app, "The horn sounds every minute.\nThe horn is loud.")  # as a browser sends it: \n
    add(app, "What about the horn?")
    (q,) = app.session_state[question_writer.STATE]
    assert q.references[0].content == "The horn sounds every minute.\r\nThe horn is loud."
    (tmp_path / "notes.md").write_bytes(crlf)
    (tmp_path / "set.jsonl").write_text(authoring.to_jsonl([q]), encoding="utf-8")
    assert load_question_set(tmp_path / "set.jsonl").questions == (q,)  # chunker eval reads it beside the file
    assert metric(app, "Recall in budget") == "1.000"


def test_the_table_edits_and_deletes_questions(writer: AppTest) -> None:
    for answer, question in [("Disables plugins.", "Plugins off?"), ("Force ANSI output.", "ANSI on?")]:
        paste(writer, answer)
        add(writer, question)
    key = "write_table_0"
    writer.session_state[key] = {"edited_rows": {0: {"question": "How do I turn plugins off?", "kind": "list"}}}
    writer.run()
    qs = writer.session_state[question_writer.STATE]
    assert [(q.id, q.question, q.kind) for q in qs] == [
        ("q1", "How do I turn plugins off?", "list"),
        ("q2", "ANSI on?", None),
    ]
    key = f"write_table_{writer.session_state['_write_version']}"
    writer.session_state[key] = {"edited_rows": {1: {"id": "q1"}}}
    writer.run()
    assert [plain(e.value) for e in writer.error] == [
        "Not changed: the id 'q1' is used twice: ids name one question each"
    ]
    key = f"write_table_{writer.session_state['_write_version']}"
    writer.session_state[key] = {"deleted_rows": [0]}
    writer.run()
    assert [q.id for q in writer.session_state[question_writer.STATE]] == ["q2"]


def test_markdown_in_questions_and_names_is_shown_as_text(app: AppTest) -> None:
    doc = "# Lighthouse\n\nThe lamp is lit at dusk.\n"
    name = f"{IMAGE}.md"
    app.segmented_control(key="source").set_value("Upload").run()
    app.file_uploader(key="uploads").set_value([(name, doc.encode(), "text/markdown")]).run()
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Write your own").run()
    paste(app, "no such text " + IMAGE)
    paste(app, "The lamp is lit at dusk.")
    add(app, f"{IMAGE} When is the lamp lit?", "prose")
    assert metric(app, "Recall in budget") == "1.000"
    assert not unescaped_markdown(app), unescaped_markdown(app)
    app.file_uploader(key="uploads").set_value([("other.md", doc.encode(), "text/markdown")]).run()
    assert app.warning and not unescaped_markdown(app), unescaped_markdown(app)
