"""Writing a question set by hand (docs/evaluation.md §1): find the answer in a document, build the questions,
write them as JSONL that the readers accept. Pure: text in, values out; the app's Evaluate page draws it.

- :func:`find_answer`: every place an answer's text occurs in a document, exactly, its line breaks matching
  any line ending (``\\n``, ``\\r\\n``, ``\\r``) and trailing spaces at a line's end, so a pasted answer is
  found in a CRLF document too; each :class:`Occurrence` has its line and its context, to choose from;
- :func:`lines_excerpt`: the excerpt that lines ``first``–``last`` of a document hold (1-based, as the
  engine's ``line_span``), without the last line's break;
- :func:`add_question`, :func:`apply_edits`: the set, one question added, or edited and deleted as a table
  edits it; every refusal is one :class:`AuthoringError` line;
- :func:`to_jsonl`: the set in the documented format, offsets into the document's text exactly as the app
  holds it (read with ``newline=''``: no newline translation), so the JSONL uploads again, and reads with
  ``chunker eval`` next to the same files;
- :func:`check`: the questions that check out against the documents at hand, as a
  :class:`~chunk_inspector.evaluate.questions.QuestionSet` (read back through the readers' own checks), and
  one line for each one that does not (its document is gone or changed).

Everything typed is untrusted: no value here is ever markup, and a message quotes at most a short ``repr``.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate, pairwise
from typing import Any

from chunk_inspector.evaluate.questions import KINDS, Question, QuestionSet, Reference, read_question_set
from chunker.errors import ChunkerError
from chunker.spans import line_bounds
from chunker.wording import quoted, shorten

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_OCCURRENCES",
    "MAX_QUESTION_CHARS",
    "AuthoringError",
    "Found",
    "Occurrence",
    "add_question",
    "apply_edits",
    "check",
    "find_answer",
    "line_of",
    "lines_excerpt",
    "next_id",
    "to_jsonl",
]

MAX_OCCURRENCES = 50  # occurrences listed to choose from; more means the answer is too short to place
MAX_QUESTION_CHARS = 2000
MAX_ANSWER_CHARS = 100_000
_CONTEXT = 30  # characters of context either side of an occurrence


class AuthoringError(ChunkerError):
    """A question or an answer that cannot be added as given; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One place an answer occurs: its ``reference`` (exact offsets and text), its 1-based ``line`` and up to
    30 characters of its line's text ``before`` and ``after`` it."""

    reference: Reference
    line: int
    before: str
    after: str

    def label(self) -> str:
        """``line N: …before[answer]after…`` on one line, the answer's line breaks shown as ``⏎``, an answer over
        60 characters by its start and its end."""
        shown = shorten(self.reference.content, 60, keep="both")
        flat = (self.before + "[" + shown + "]" + self.after).replace("\r\n", "⏎").replace("\n", "⏎").replace("\r", "⏎")
        return f"line {self.line}: …{flat}…"


@dataclass(frozen=True, slots=True)
class Found:
    """What :func:`find_answer` found: the first :data:`MAX_OCCURRENCES` ``occurrences``, and whether there are
    ``more``."""

    occurrences: tuple[Occurrence, ...]
    more: bool


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``text`` that holds character ``offset`` (line breaks as the engine counts them)."""
    starts, _ = line_bounds(text)
    return bisect.bisect_right(starts, offset)


def find_answer(text: str, answer: str, limit: int = MAX_OCCURRENCES) -> Found:
    """Every place ``answer`` occurs in ``text`` (overlapping ones too), first to last.

    The answer is taken without its surrounding white space; each line break in it matches any line ending of
    the text, and blanks at the end of a line are optional on both sides: an answer pasted from a browser
    (which sends ``\\n``) is found in a CRLF document, and the :class:`Reference` is the document's own text.
    Raises :class:`AuthoringError` for an empty answer or one over :data:`MAX_ANSWER_CHARS`.
    """
    if len(answer) > MAX_ANSWER_CHARS:
        raise AuthoringError(f"the answer is {len(answer):,} characters; an excerpt is at most {MAX_ANSWER_CHARS:,}")
    lines = [line.rstrip(" \t") for line in re.split(r"\r\n|\r|\n", answer.strip())]
    if not any(lines):
        raise AuthoringError("the answer is empty: paste the text that answers the question")
    needle = "\n".join(lines)
    starts, ends = line_bounds(text)
    plain, plain_starts = _plain_lines(text, starts, ends)
    found: list[Occurrence] = []
    at = plain.find(needle)
    while at >= 0:
        if len(found) == limit:
            return Found(tuple(found), more=True)
        # The needle starts and ends with a line's content (the answer is stripped), which maps one to one.
        line = bisect.bisect_right(plain_starts, at)
        start = starts[line - 1] + at - plain_starts[line - 1]
        last = at + len(needle) - 1
        last_line = bisect.bisect_right(plain_starts, last)
        end = starts[last_line - 1] + last - plain_starts[last_line - 1] + 1
        line_start = starts[line - 1]
        after_end = _line_end(text, end)
        found.append(
            Occurrence(
                Reference(text[start:end], start, end),
                line,
                before=text[max(line_start, start - _CONTEXT) : start],
                after=text[end : min(after_end, end + _CONTEXT)],
            )
        )
        at = plain.find(needle, at + 1)
    return Found(tuple(found), more=False)


def _plain_lines(text: str, starts: list[int], ends: list[int]) -> tuple[str, list[int]]:
    """``text`` with each line break written ``\\n`` and the blanks before it dropped, and where each line starts
    in it: an answer is then found as a plain substring, in linear time. (A regular expression that let each
    break be ``\\r\\n``, ``\\r`` or ``\\n`` backtracked exponentially: a CRLF document and an answer of a few
    dozen blank lines held a server thread for hours; a long answer over a long document, quadratically.)"""
    lines = [text[start:end] for start, end in zip(starts, ends, strict=True)]
    broken = ends[-1] < len(text)  # whether a break ends the last line too
    kept = [line.rstrip(" \t") for line in lines[:-1]] + [lines[-1].rstrip(" \t") if broken else lines[-1]]
    plain_starts = [0, *accumulate(len(line) + 1 for line in kept[:-1])]
    return "\n".join(kept) + ("\n" if broken else ""), plain_starts


def _line_end(text: str, offset: int) -> int:
    """Where the line holding ``offset`` ends (before its break)."""
    ends = [i for i in (text.find("\n", offset), text.find("\r", offset)) if i >= 0]
    return min(ends) if ends else len(text)


def lines_excerpt(text: str, first: int, last: int) -> Reference:
    """The excerpt lines ``first`` to ``last`` (1-based, inclusive) of ``text`` hold, without the last line's
    break; :class:`AuthoringError` for lines outside the text or an excerpt of blank lines only."""
    starts, ends = line_bounds(text)
    if not 1 <= first <= last <= len(starts):
        raise AuthoringError(f"choose lines between 1 and {len(starts):,}, the first not after the last")
    start, end = starts[first - 1], ends[last - 1]
    if not text[start:end].strip():
        raise AuthoringError(f"lines {first}–{last} are blank: choose the lines that hold the answer")
    return Reference(text[start:end], start, end)


def next_id(questions: Iterable[Question]) -> str:
    """``q1``, ``q2``, …: one more than the largest ``qN`` among the ids (ids typed by hand stay as they are)."""
    numbers = [int(q.id[1:]) for q in questions if re.fullmatch(r"q[1-9][0-9]{0,8}", q.id)]
    return f"q{max(numbers, default=0) + 1}"


def _row_number(value: object) -> int | None:
    """A table editor's row number (an int, or its digits as the edits' keys are), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 9:
        return int(value)
    return None


def _question_text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise AuthoringError("the question is empty: type the question a user would ask")
    if len(value) > MAX_QUESTION_CHARS:
        raise AuthoringError(f"the question is {len(value):,} characters; at most {MAX_QUESTION_CHARS:,}")
    return value.strip()


def _kind(value: object) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value not in KINDS:
        raise AuthoringError(f"the kind must be one of {', '.join(KINDS)}, or none")
    return value


def add_question(
    questions: Sequence[Question],
    document: str,
    question: str,
    kind: str | None,
    references: Iterable[Reference],
    text: str,
) -> tuple[Question, ...]:
    """``questions`` and one more, over ``document`` (whose text is ``text``), id :func:`next_id`.

    The references are sorted; each must be ``text``'s slice at its offsets, and no two may overlap. Raises
    :class:`AuthoringError` for an empty or overlong question, an unknown kind, no reference, a reference that
    is not the text there, or overlapping references.
    """
    refs = sorted(set(references), key=lambda r: (r.start, r.end))
    if not refs:
        raise AuthoringError("no answer chosen: choose its lines, or paste its text and pick where it occurs")
    for ref in refs:
        if not (0 <= ref.start < ref.end <= len(text)) or text[ref.start : ref.end] != ref.content:
            raise AuthoringError(f"an excerpt is no longer the text of {quoted(document)} at {ref.start}–{ref.end}")
    for a, b in pairwise(refs):
        if b.start < a.end:
            raise AuthoringError(
                f"two excerpts overlap (characters {a.start}–{a.end} and {b.start}–{b.end}): choose each part once"
            )
    added = Question(next_id(questions), document, _question_text(question), _kind(kind), tuple(refs))
    return (*questions, added)


def apply_edits(questions: Sequence[Question], edits: Mapping[str, Any]) -> tuple[Question, ...]:
    """``questions`` with a table editor's ``edits`` applied: ``edited_rows`` (``{row: {column: value}}``, of the
    columns ``id``, ``question`` and ``kind``) and ``deleted_rows`` (row numbers); other columns and added rows
    are ignored, as is a row that is not a row number (the browser sends the edits: a tampered one may send
    anything). Raises :class:`AuthoringError` (nothing applied) for an empty question, an unknown kind, or an
    id that is empty or used twice."""
    out = list(questions)
    edited = edits.get("edited_rows") or {}
    for row, changes in edited.items():
        n = _row_number(row)
        if n is None or not 0 <= n < len(out) or not isinstance(changes, Mapping):
            continue
        q = out[n]
        if "question" in changes:
            q = replace(q, question=_question_text(changes["question"]))
        if "kind" in changes:
            q = replace(q, kind=_kind(changes["kind"]))
        if "id" in changes:
            qid = changes["id"]
            if not isinstance(qid, str) or not qid.strip():
                raise AuthoringError("an id cannot be empty")
            q = replace(q, id=qid.strip()[:100])
        out[n] = q
    deleted = {_row_number(n) for n in edits.get("deleted_rows") or ()}
    out = [q for n, q in enumerate(out) if n not in deleted]
    ids = [q.id for q in out]
    twice = next((qid for qid in ids if ids.count(qid) > 1), None)
    if twice is not None:
        raise AuthoringError(f"the id {quoted(twice)} is used twice: ids name one question each")
    return tuple(out)


def to_jsonl(questions: Iterable[Question]) -> str:
    """The questions in the set's JSONL format (docs/evaluation.md §1), one a line, offsets into the text as
    read with ``newline=''``; ``kind`` only where there is one."""
    lines = []
    for q in questions:
        record: dict[str, Any] = {"id": q.id, "document": q.document, "question": q.question}
        if q.kind:
            record["kind"] = q.kind
        record["references"] = [
            {"content": r.content, "start_index": r.start, "end_index": r.end} for r in q.references
        ]
        lines.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def check(
    questions: Sequence[Question], documents: Mapping[str, str], name: str = "your questions"
) -> tuple[QuestionSet | None, list[str]]:
    """The questions that still check out against ``documents`` (``name -> text``), as a set read back from
    their JSONL by the readers' own checks (so what is downloaded is known to upload again), and one line for
    each question left out: its document is no longer among the documents, or no longer holds its excerpt at
    its offsets. The set is None when no question is left."""
    good: list[Question] = []
    problems: list[str] = []
    for q in questions:
        text = documents.get(q.document)
        if text is None:
            problems.append(f"{q.id} is left out: {quoted(q.document)} is not open or uploaded now")
        elif any(text[r.start : r.end] != r.content for r in q.references):
            problems.append(f"{q.id} is left out: {quoted(q.document)} has changed, its answer is no longer there")
        else:
            good.append(q)
    if not good:
        return None, problems
    named = {q.document: documents[q.document] for q in good}
    return read_question_set(to_jsonl(good), "jsonl", named, name=name), problems
