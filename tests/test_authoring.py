"""Writing a question set by hand (chunk_inspector/evaluate/authoring.py): finding answers exactly, in LF and CRLF
documents, lines as the engine numbers them, the set's edits, and JSONL that both readers accept."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chunker
from chunk_inspector.app import evaluate_view
from chunk_inspector.evaluate import authoring
from chunk_inspector.evaluate.authoring import AuthoringError, add_question, apply_edits, find_answer, to_jsonl
from chunk_inspector.evaluate.questions import Question, Reference, load_question_set, read_question_set

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"
GUIDE = "# Gizmo\n\nRun `pip install gizmo` to install.\n\n## Configure\n\nSet the colour to purple.  \nThen restart.\n"


def test_an_answer_is_found_at_its_exact_offsets_with_its_line_and_context() -> None:
    found = find_answer(GUIDE, "  Set the colour to purple.\n")  # surrounding white space is not part of it
    (only,) = found.occurrences
    assert not found.more
    start = GUIDE.index("Set the colour")
    assert only.reference == Reference("Set the colour to purple.", start, start + 25)
    assert only.line == 7 and only.before == "" and only.after == "  "
    assert only.label() == "line 7: …[Set the colour to purple.]  …"
    assert find_answer(GUIDE, "purple colour").occurrences == ()


def test_every_occurrence_is_listed_overlapping_ones_too_and_the_list_is_capped() -> None:
    text = "alpha beta\nbeta gamma\n\nbeta\n"
    found = find_answer(text, "beta")
    assert [o.line for o in found.occurrences] == [1, 2, 4]
    assert all(text[o.reference.start : o.reference.end] == "beta" for o in found.occurrences)
    assert [o.reference.start for o in find_answer("aaaa", "aa").occurrences] == [0, 1, 2]
    many = find_answer("x " * 100, "x", limit=7)
    assert len(many.occurrences) == 7 and many.more


def test_a_pasted_answer_is_found_in_a_crlf_document_as_the_document_holds_it() -> None:
    text = GUIDE.replace("\n", "\r\n")
    pasted = "Set the colour to purple.\nThen restart."  # a browser sends \n, and drops the hard break's blanks
    (only,) = find_answer(text, pasted).occurrences
    assert only.reference.content == "Set the colour to purple.  \r\nThen restart."
    assert text[only.reference.start : only.reference.end] == only.reference.content
    assert find_answer(text.replace("\r\n", "\r"), pasted).occurrences[0].reference.content.count("\r") == 1


def test_a_crlf_line_break_is_one_line_of_an_answer_never_two() -> None:
    """`\\r\\n` once matched an answer's break or two of them (`\\r`, then `\\n`): an answer with a blank line
    between two lines was found where the document has none."""
    assert find_answer("one\r\ntwo\r\n", "one\n\ntwo").occurrences == ()
    assert [o.line for o in find_answer("one\r\n\r\ntwo\r\n", "one\n\ntwo").occurrences] == [1]


def test_hostile_answers_are_found_in_time_that_grows_with_the_text() -> None:
    """Each of an answer's line breaks matched `\\r\\n`, `\\r` or `\\n` by backtracking: a document of 40 CRLF
    breaks and an answer of 60 blank lines (100 bytes, from any visitor of the Evaluate page) held a server thread
    for longer than anyone waited (28 breaks: 23 s, each two more four times that); a 20,000-character answer
    over a 400,000-character document took 19 s, quadratic in the two."""
    started = time.process_time()
    assert find_answer("a" + "\r\n" * 40 + "c\n", "a" + "\n" * 60 + "b").occurrences == ()
    assert find_answer("a" * 2_000_000, "a" * 99_999 + "b").occurrences == ()
    lines = "a\n" * 1_000_000
    found = find_answer(lines, "a\n" * 49_999 + "a")
    assert len(found.occurrences) == authoring.MAX_OCCURRENCES and found.more
    assert time.process_time() - started < 10


def test_a_crlf_document_s_set_is_read_by_the_cli_from_the_file_on_disk(tmp_path: Path) -> None:
    """The offsets index the text read with newline='': the JSONL, saved beside the CRLF file, loads with the CLI's
    reader, and the app's upload reader takes the same bytes."""
    text = GUIDE.replace("\n", "\r\n")
    (tmp_path / "guide.md").write_bytes(text.encode("utf-8"))
    ref = find_answer(text, "Set the colour to purple.\nThen restart.").occurrences[0].reference
    lines = authoring.lines_excerpt(text, 3, 3)
    qs = add_question((), "guide.md", "Which colour?", "multi_span", [ref], text)
    qs = add_question(qs, "guide.md", "How to install?", "code", [lines], text)
    (tmp_path / "set.jsonl").write_text(to_jsonl(qs), encoding="utf-8")
    loaded = load_question_set(tmp_path / "set.jsonl")
    assert loaded.questions == qs
    uploaded = evaluate_view.read_upload("set.jsonl", to_jsonl(qs).encode(), {"guide.md": text})
    assert uploaded.questions == qs


@given(
    text=st.text(alphabet="ab \t\r\n", max_size=40),
    bounds=st.tuples(st.integers(0, 40), st.integers(0, 40)),
)
def test_any_excerpt_of_any_text_is_found_where_it_was_taken(text: str, bounds: tuple[int, int]) -> None:
    start, end = sorted(min(b, len(text)) for b in bounds)
    piece = text[start:end]
    if not piece.strip() or piece != piece.strip():
        return
    found = find_answer(text, piece.replace("\r\n", "\n"), limit=1000)
    assert any(o.reference.span == (start, end) for o in found.occurrences)
    assert all(text[o.reference.start : o.reference.end] == o.reference.content for o in found.occurrences)


def test_an_empty_or_huge_answer_is_one_line() -> None:
    with pytest.raises(AuthoringError, match="the answer is empty"):
        find_answer(GUIDE, " \n\t ")
    with pytest.raises(AuthoringError, match="at most"):
        find_answer(GUIDE, "x" * (authoring.MAX_ANSWER_CHARS + 1))


def test_lines_are_numbered_as_the_engine_numbers_them() -> None:
    text = (SAMPLES / "poetry_cli.md").read_bytes().decode("utf-8").replace("\n", "\r\n")
    chunks = chunker.chunk_markdown(text, name="poetry_cli.md", target=64, hard_cap=128)
    for chunk in list(chunks)[:20]:
        first, last = chunk.line_span
        ref = authoring.lines_excerpt(text, first, last)
        assert ref.start <= chunk.char_span[0] and chunk.char_span[1] <= ref.end + 2  # at most the final \r\n
        assert authoring.line_of(text, ref.start) == first and authoring.line_of(text, ref.end - 1) == last
        assert not ref.content.endswith(("\n", "\r"))
    with pytest.raises(AuthoringError, match="between 1 and"):
        authoring.lines_excerpt(text, 0, 2)
    with pytest.raises(AuthoringError, match="between 1 and"):
        authoring.lines_excerpt(text, 5, 4)
    with pytest.raises(AuthoringError, match="blank"):
        authoring.lines_excerpt(GUIDE, 2, 2)


def ref_of(text: str, answer: str) -> Reference:
    return find_answer(text, answer).occurrences[0].reference


def test_questions_are_added_with_sorted_checked_references_and_fresh_ids() -> None:
    purple, install = ref_of(GUIDE, "purple"), ref_of(GUIDE, "pip install gizmo")
    qs = add_question((), "guide.md", "  Which colour?  ", "prose", [purple], GUIDE)
    qs = add_question(qs, "guide.md", "Colour and install?", None, [purple, install], GUIDE)
    assert [q.id for q in qs] == ["q1", "q2"]
    assert qs[0].question == "Which colour?" and qs[1].kind is None
    assert qs[1].references == (install, purple)  # sorted by offset
    assert authoring.next_id([*qs, Question("mine", "g", "x", None, (purple,))]) == "q3"  # typed ids stay out
    assert authoring.next_id([*qs, Question("q9", "g", "x", None, ())]) == "q10"
    for question, kind, refs, text, message in [
        ("", None, [purple], GUIDE, "the question is empty"),
        ("x" * 2001, None, [purple], GUIDE, "at most 2,000"),
        ("Why?", "poem", [purple], GUIDE, "the kind must be one of"),
        ("Why?", None, [], GUIDE, "no answer chosen"),
        ("Why?", None, [purple], GUIDE.upper(), "no longer the text of 'guide.md'"),
        ("Why?", None, [Reference("x", 5, 99999)], GUIDE, "no longer the text"),
        ("Why?", None, [purple, ref_of(GUIDE, "to purple")], GUIDE, "overlap"),
    ]:
        with pytest.raises(AuthoringError, match=message):
            add_question(qs, "guide.md", question, kind, refs, text)


def test_the_table_s_edits_and_deletions_apply_or_are_refused_whole() -> None:
    purple = ref_of(GUIDE, "purple")
    qs: tuple[Question, ...] = ()
    for text in ("One?", "Two?", "Three?"):
        qs = add_question(qs, "guide.md", text, "prose", [purple], GUIDE)
    edited = apply_edits(
        qs,
        {
            "edited_rows": {0: {"question": "First?", "kind": None}, "2": {"id": "last", "kind": "list"}},
            "deleted_rows": [1],
            "added_rows": [{"question": "ignored"}],
        },
    )
    assert [(q.id, q.question, q.kind) for q in edited] == [("q1", "First?", None), ("last", "Three?", "list")]
    assert edited[0].references == qs[0].references
    assert apply_edits(qs, {}) == qs
    for edits, message in [
        ({"edited_rows": {0: {"question": "  "}}}, "the question is empty"),
        ({"edited_rows": {0: {"kind": "poem"}}}, "the kind must be"),
        ({"edited_rows": {1: {"id": "q1"}}}, "used twice"),
        ({"edited_rows": {1: {"id": ""}}}, "cannot be empty"),
    ]:
        with pytest.raises(AuthoringError, match=message):
            apply_edits(qs, edits)
    assert apply_edits(qs, {"edited_rows": {7: {"question": "gone"}}, "deleted_rows": [0, 1, 2]}) == ()


def test_the_jsonl_reads_back_as_the_same_questions_whatever_they_hold() -> None:
    odd = 'Is **this** <b>bold</b>, a \u2028 line separator, "quoted" and 東京?\nTwo lines.'
    purple = ref_of(GUIDE, "purple")
    qs = add_question((), "dir/guide.md", odd, "heading_context", [purple], GUIDE)
    qs = add_question(qs, "guide.md", "Plain?", None, [purple], GUIDE)
    data = to_jsonl(qs)
    assert data.count("\n") == 2 and '"kind"' not in data.split("\n")[1]
    back = read_question_set(data, "jsonl", {"dir/guide.md": GUIDE, "guide.md": GUIDE})
    assert back.questions == qs


def test_check_keeps_the_questions_whose_documents_still_hold_their_answers() -> None:
    purple = ref_of(GUIDE, "purple")
    qs = add_question((), "guide.md", "Colour?", None, [purple], GUIDE)
    qs = add_question(qs, "pasted.md", "Again?", None, [purple], GUIDE)
    qs = add_question(qs, "gone.md", "Where?", None, [purple], GUIDE)
    kept, problems = authoring.check(qs, {"guide.md": GUIDE, "pasted.md": GUIDE.replace("purple", "orange")})
    assert kept is not None and [q.id for q in kept.questions] == ["q1"]
    assert dict(kept.documents) == {"guide.md": GUIDE}
    assert problems == [
        "q2 is left out: 'pasted.md' has changed, its answer is no longer there",
        "q3 is left out: 'gone.md' is not open or uploaded now",
    ]
    assert authoring.check(qs[2:], {}) == (None, ["q3 is left out: 'gone.md' is not open or uploaded now"])


def test_edits_naming_no_row_are_ignored_not_raised() -> None:
    """The browser sends the table's edits; a tampered one may name rows by anything. Such rows are passed over
    (a ValueError from int() once reached the page)."""
    purple = ref_of(GUIDE, "purple")
    qs: tuple[Question, ...] = ()
    for text in ("One?", "Two?"):
        qs = add_question(qs, "guide.md", text, "prose", [purple], GUIDE)
    edits = {
        "edited_rows": {"abc": {"question": "x"}, "1e3": {"question": "y"}, "9" * 5000: {"question": "z"}, "1": {}},
        "deleted_rows": ["x", None, 2.5, True, [0], "0"],
    }
    assert [q.question for q in apply_edits(qs, edits)] == ["Two?"]
