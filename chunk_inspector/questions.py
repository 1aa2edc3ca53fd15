"""Question sets for retrieval evaluation (``EVAL.md`` §1): read, check, refuse bad labels.

A question set is questions over documents, each with the reference excerpts that answer
it, as verbatim slices with character offsets. Two formats are read:

- our JSONL: one ``{"id", "document", "question", "kind", "references": [{"content",
  "start_index", "end_index"}]}`` a line, ``document`` relative to a root folder;
- Chroma's ``questions_df.csv``: ``question``, ``references`` (a JSON list of the same
  objects) and ``corpus_id``, naming ``corpora/<id>.md`` (or ``<id>.md``) beside the file.

Offsets index the document as read with ``open(path, encoding="utf-8", newline="")``,
so ``text[start_index:end_index] == content``. A set that does not check out is refused
with a :class:`QuestionSetError` naming the question: nothing is measured on bad labels.

- :func:`load_question_set` reads a file and its documents from disk (CLI, benchmarks);
- :func:`read_question_set` reads a set's text against documents already in hand (the app).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from chunker.errors import ChunkerError

__all__ = [
    "KINDS",
    "Question",
    "QuestionSet",
    "QuestionSetError",
    "Reference",
    "load_question_set",
    "read_question_set",
]

KINDS = ("prose", "table", "code", "list", "heading_context", "multi_span")
Format = Literal["jsonl", "csv"]


class QuestionSetError(ChunkerError):
    """A question set that cannot be read or does not check out; the message names the question."""


@dataclass(frozen=True, slots=True)
class Reference:
    """One reference excerpt: ``content == text[start:end]`` of its question's document."""

    content: str
    start: int
    end: int

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(frozen=True, slots=True)
class Question:
    """A question over one ``document``, answered by its ``references`` (sorted, at least one)."""

    id: str
    document: str
    question: str
    kind: str | None
    references: tuple[Reference, ...]


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """Checked questions and the text of every document they name (``name -> text``)."""

    name: str
    questions: tuple[Question, ...]
    documents: Mapping[str, str]

    def kinds(self) -> list[str]:
        """The kinds present, in :data:`KINDS` order (unknown kinds last, sorted)."""
        present = {q.kind for q in self.questions if q.kind}
        return [k for k in KINDS if k in present] + sorted(present - set(KINDS))


def load_question_set(path: Path, root: Path | None = None) -> QuestionSet:
    """Read the set at ``path`` (``.jsonl``, or Chroma's ``.csv``) and the documents it names.

    ``root`` is the folder the ``document`` names are relative to; by default the set's own
    folder (for Chroma's CSV, its ``corpora/`` folder when there is one).
    """
    fmt = _format_of(path.name)
    try:
        data = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionSetError(f"cannot read the question set {path}: {exc}") from None
    folder = root if root is not None else path.parent
    if root is None and fmt == "csv" and (path.parent / "corpora").is_dir():
        folder = path.parent / "corpora"
    if not folder.is_dir():
        raise QuestionSetError(f"the documents' folder {folder} does not exist (give --root DIR)")
    cache: dict[str, str | None] = {}

    def read(name: str) -> str | None:
        if name not in cache:
            file = folder / name
            try:
                with open(file, encoding="utf-8", newline="") as handle:
                    cache[name] = handle.read()
            except (OSError, UnicodeDecodeError):
                cache[name] = None
        return cache[name]

    return _parse(data, fmt, path.name, read, where=str(folder))


def read_question_set(data: str, fmt: Format, documents: Mapping[str, str], name: str = "questions") -> QuestionSet:
    """Read a set's text (``fmt`` ``"jsonl"`` or ``"csv"``) against ``documents`` (``name -> text``)."""
    return _parse(data, fmt, name, documents.get, where="the documents given")


def _format_of(filename: str) -> Format:
    if filename.endswith(".jsonl"):
        return "jsonl"
    if filename.endswith(".csv"):
        return "csv"
    raise QuestionSetError(f"{filename}: a question set is a .jsonl file or Chroma's questions_df.csv")


def _parse(data: str, fmt: Format, name: str, read: Callable[[str], str | None], where: str) -> QuestionSet:
    records = _jsonl_records(data) if fmt == "jsonl" else _csv_records(data)
    questions: list[Question] = []
    documents: dict[str, str] = {}
    seen: set[str] = set()
    for label, record in records:
        question = _question(label, record)
        if question.id in seen:
            raise QuestionSetError(f"{label}: the id {question.id!r} is used twice")
        seen.add(question.id)
        text = documents.get(question.document)
        if text is None:
            text = read(question.document)
            if text is None:
                raise QuestionSetError(f"{label}: its document {question.document!r} is not in {where}")
            documents[question.document] = text
        _check_references(label, question, text)
        questions.append(question)
    if not questions:
        raise QuestionSetError(f"{name} holds no questions")
    return QuestionSet(name=name, questions=tuple(questions), documents=documents)


def _jsonl_records(data: str) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    # Split on line feeds only: str.splitlines() would also split inside a JSON string holding
    # U+2028 or U+0085, which json.dumps(ensure_ascii=False) writes raw.
    for number, line in enumerate(data.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionSetError(f"line {number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise QuestionSetError(f"line {number}: expected a JSON object, got {type(record).__name__}")
        label = f"question {record['id']!r} (line {number})" if "id" in record else f"line {number}"
        out.append((label, record))
    return out


def _csv_records(data: str) -> list[tuple[str, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(data, newline=""))
    missing = {"question", "references", "corpus_id"} - set(reader.fieldnames or ())
    if missing:
        raise QuestionSetError(f"the CSV lacks the column(s) {', '.join(sorted(missing))} of Chroma's questions_df.csv")
    out: list[tuple[str, dict[str, Any]]] = []
    for number, row in enumerate(reader, 1):
        label = f"question {number} (line {reader.line_num})"  # a row's references may span lines
        try:
            references = json.loads(row["references"] or "")
        except json.JSONDecodeError as exc:
            raise QuestionSetError(f"{label}: references are not a JSON list ({exc.msg})") from None
        record = {
            "id": str(number),
            "document": f"{row['corpus_id']}.md",
            "question": row["question"],
            "references": references,
        }
        out.append((label, record))
    return out


def _question(label: str, record: Mapping[str, Any]) -> Question:
    for key in ("id", "document", "question", "references"):
        if key not in record:
            raise QuestionSetError(f"{label}: missing {key!r}")
    if not isinstance(record["question"], str) or not record["question"].strip():
        raise QuestionSetError(f"{label}: the question is empty")
    if not isinstance(record["document"], str) or not record["document"]:
        raise QuestionSetError(f"{label}: 'document' must name a file")
    kind = record.get("kind")
    if kind is not None and kind not in KINDS:
        raise QuestionSetError(f"{label}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
    raw = record["references"]
    if not isinstance(raw, list) or not raw:
        raise QuestionSetError(f"{label}: 'references' must be a non-empty list")
    references: list[Reference] = []
    for ref in raw:
        if not isinstance(ref, dict) or not {"content", "start_index", "end_index"} <= ref.keys():
            raise QuestionSetError(f"{label}: a reference needs content, start_index and end_index")
        start, end, content = ref["start_index"], ref["end_index"], ref["content"]
        if not (_is_int(start) and _is_int(end) and isinstance(content, str)):
            raise QuestionSetError(f"{label}: a reference's offsets must be integers and its content a string")
        references.append(Reference(content=content, start=start, end=end))
    references.sort(key=lambda r: (r.start, r.end))
    return Question(
        id=str(record["id"]),
        document=record["document"],
        question=record["question"],
        kind=kind,
        references=tuple(references),
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_references(label: str, question: Question, text: str) -> None:
    for ref in question.references:
        if not 0 <= ref.start < ref.end <= len(text):
            raise QuestionSetError(
                f"{label}: reference offsets ({ref.start}, {ref.end}) are outside {question.document!r} "
                f"({len(text)} characters)"
            )
        if text[ref.start : ref.end] != ref.content:
            found = text[ref.start : ref.end]
            raise QuestionSetError(
                f"{label}: the reference at ({ref.start}, {ref.end}) is not its content: the document has "
                f"{found[:40]!r}…, the set says {ref.content[:40]!r}… (offsets must index the text read with "
                "newline='', no newline translation)"
            )
