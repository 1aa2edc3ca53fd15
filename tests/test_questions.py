"""Question sets: both formats read, and every kind of bad label refused with the question named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunk_inspector.evaluate.questions import QuestionSetError, load_question_set, read_question_set

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "retrieval"
TEXT = "# Title\r\n\r\nThe answer is forty-two.\r\n"
AT = TEXT.index("forty-two")


def record(**changes: object) -> str:
    base: dict[str, object] = {
        "id": "q1",
        "document": "doc.md",
        "question": "What is the answer?",
        "kind": "prose",
        "references": [{"content": "forty-two", "start_index": AT, "end_index": AT + 9}],
    }
    base.update(changes)
    return json.dumps(base)


def test_a_good_jsonl_set_reads_with_crlf_offsets_kept() -> None:
    qs = read_question_set(record(), "jsonl", {"doc.md": TEXT})
    (q,) = qs.questions
    assert q.references[0].span == (AT, AT + 9)
    assert qs.documents["doc.md"] is TEXT
    assert qs.kinds() == ["prose"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"document": "other.md"}, r"question 'q1' \(line 1\): its document 'other.md' is not among the documents"),
        (
            {"references": [{"content": "forty-two", "start_index": AT + 1, "end_index": AT + 10}]},
            r"question 'q1' \(line 1\): the reference at \(26, 35\) is not the document's text there",
        ),
        (
            {"references": [{"content": "x", "start_index": 0, "end_index": 999}]},
            r"question 'q1' \(line 1\): reference offsets \(0, 999\) are outside 'doc.md'",
        ),
        ({"references": []}, "'references' must be a non-empty list"),
        ({"kind": "poetry"}, "unknown kind 'poetry'"),
        ({"question": " "}, "the question is empty"),
        ({"references": [{"content": "forty-two"}]}, "needs content, start_index and end_index"),
        (
            {"references": [{"content": "forty-two", "start_index": True, "end_index": AT + 9}]},
            "offsets must be integers",
        ),
    ],
)
def test_bad_labels_are_refused_naming_the_question(changes: dict[str, object], message: str) -> None:
    with pytest.raises(QuestionSetError, match=message):
        read_question_set(record(**changes), "jsonl", {"doc.md": TEXT})


def test_a_line_separator_inside_an_excerpt_is_text_not_a_line_break() -> None:
    """json.dumps(ensure_ascii=False) writes U+2028 raw; the set still reads."""
    text = "# T\n\nOne\u2028two.\n"
    at = text.index("One")
    line = json.dumps(
        {
            "id": "u",
            "document": "doc.md",
            "question": "What?",
            "references": [{"content": "One\u2028two.", "start_index": at, "end_index": at + 8}],
        },
        ensure_ascii=False,
    )
    assert "\u2028" in line
    assert read_question_set(line + "\r\n", "jsonl", {"doc.md": text}).questions[0].references[0].end == at + 8


def test_a_duplicate_id_and_a_line_that_is_not_json() -> None:
    with pytest.raises(QuestionSetError, match="the id 'q1' is used twice"):
        read_question_set(record() + "\n" + record(), "jsonl", {"doc.md": TEXT})
    with pytest.raises(QuestionSetError, match="line 2: not JSON"):
        read_question_set(record() + "\n{oops\n", "jsonl", {"doc.md": TEXT})
    with pytest.raises(QuestionSetError, match="holds no questions"):
        read_question_set("\n", "jsonl", {"doc.md": TEXT})


def test_chroma_csv_reads_and_its_bad_rows_are_named(tmp_path: Path) -> None:
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "doc.md").write_bytes(TEXT.encode())
    refs = json.dumps([{"content": "forty-two", "start_index": AT, "end_index": AT + 9}]).replace('"', '""')
    good = f'question,references,corpus_id\nWhat is it?,"{refs}",doc\n'
    (tmp_path / "questions_df.csv").write_text(good, encoding="utf-8", newline="")
    qs = load_question_set(tmp_path / "questions_df.csv")
    assert [q.document for q in qs.questions] == ["doc.md"]
    bad = good + 'Second?,"[{""content"": ""nope"", ""start_index"": 0, ""end_index"": 4}]",doc\n'
    (tmp_path / "questions_df.csv").write_text(bad, encoding="utf-8", newline="")
    with pytest.raises(QuestionSetError, match=r"question 2 \(line 3\): the reference at \(0, 4\)"):
        load_question_set(tmp_path / "questions_df.csv")
    with pytest.raises(QuestionSetError, match="lacks the column"):
        read_question_set("question,corpus_id\nx,doc\n", "csv", {"doc.md": TEXT})


def test_load_refuses_other_files_and_missing_roots(tmp_path: Path) -> None:
    with pytest.raises(QuestionSetError, match=r"a \.jsonl file or Chroma's questions_df\.csv"):
        load_question_set(tmp_path / "set.txt")
    (tmp_path / "set.jsonl").write_text(record(), encoding="utf-8")
    with pytest.raises(QuestionSetError, match="does not exist"):
        load_question_set(tmp_path / "set.jsonl", tmp_path / "nowhere")


@pytest.mark.corpus
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/corpus/retrieval is absent (a user's clone has none)")
def test_the_shared_sets_check_out() -> None:
    markdown = load_question_set(SHARED / "markdown" / "questions.jsonl", SHARED.parent / "real")
    assert (len(markdown.questions), len(markdown.documents)) == (163, 25)
    chroma = load_question_set(SHARED / "chroma" / "questions_df.csv")
    assert (len(chroma.questions), len(chroma.documents)) == (472, 5)
