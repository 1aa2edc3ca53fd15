"""Question sets for retrieval evaluation (docs/evaluation.md): read, check, refuse bad labels.

A question set is questions over documents, each with the reference excerpts that answer
it, as verbatim slices with character offsets. Two formats are read:

- our JSONL: one ``{"id", "document", "question", "kind", "references": [{"content",
  "start_index", "end_index"}]}`` a line, ``document`` relative to a root folder;
- Chroma's ``questions_df.csv``: ``question``, ``references`` (a JSON list of the same
  objects) and ``corpus_id``, naming ``corpora/<id>.md`` (or ``<id>.md``) beside the file.

Offsets index the document as read with ``open(path, encoding="utf-8", newline="")``,
so ``text[start_index:end_index] == content``. A set that does not check out is refused
with a :class:`QuestionSetError` naming the question: nothing is measured on bad labels.

A question set is untrusted input (docs/SECURITY.md): its document names stay inside the
root, only regular files within a size limit are read, every malformed line or field is one
:class:`QuestionSetError`, and no message quotes a document's text.

- :func:`load_question_set` reads a file and its documents from disk (CLI, benchmarks);
- :func:`read_question_set` reads a set's bytes or text against documents already in hand (the app).

Both decode the set the same way (UTF-8, a leading BOM dropped) and apply the same checks, so
the CLI and the app accept and refuse the same sets.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from chunk_inspector.files import (
    DEFAULT_MAX_BYTES,
    FileRefused,
    display,
    file_id,
    is_unicode,
    read_bytes,
    under_root,
)
from chunker.errors import ChunkerError
from chunker.wording import quoted

__all__ = [
    "KINDS",
    "Question",
    "QuestionSet",
    "QuestionSetError",
    "Reference",
    "format_of",
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


def load_question_set(path: Path, root: Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES) -> QuestionSet:
    """Read the set at ``path`` (``.jsonl``, or Chroma's ``.csv``) and the documents it names.

    ``root`` is the folder the ``document`` names are relative to; by default the set's own
    folder (for Chroma's CSV, its ``corpora/`` folder when there is one, refused if it is a link out
    of the set's folder). A name that resolves outside the root (``..``, an absolute path, a link
    that leaves it) is refused without being read; the set and each document must be regular files
    of at most ``max_bytes``.
    """
    fmt = format_of(path.name)
    try:
        data = read_bytes(path, max_bytes=max_bytes)
    except FileRefused as exc:
        raise QuestionSetError(f"the question set {exc}") from None
    folder = root if root is not None else path.parent
    if root is None and fmt == "csv" and (path.parent / "corpora").is_dir():
        try:  # a link named corpora that leaves the set's folder would open the whole disk to the set's names
            folder = under_root(path.parent, "corpora")
        except FileRefused as exc:
            raise QuestionSetError(f"the documents' folder {exc} (give --root DIR to name it)") from None
    if not folder.is_dir():
        what = "is not a folder" if os.path.exists(folder) else "does not exist"  # a file given as --root
        raise QuestionSetError(f"the documents' folder {display(folder)} {what} (give --root DIR)")

    names: dict[tuple[int, int], str] = {}  # each file read once: (device, inode) -> the name it was read by

    def read(name: str) -> str:
        try:
            target = under_root(folder, name)
            _one_name(names, target, name)
            # Named as the set names it, under the folder given, unless a link led elsewhere: then where it led.
            listed = target == Path(os.path.realpath(folder)) / name
            raw = read_bytes(target, max_bytes=max_bytes, shown=folder / name if listed else None)
        except FileRefused as exc:
            raise _Unreadable(f"its document is refused: {exc}") from None
        try:
            # The offsets' convention: UTF-8, no newline translation, a BOM kept as a character.
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Unreadable(
                f"its document {quoted(name)} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
            ) from None

    return _parse(_text_of(data, path.name, max_bytes), fmt, path.name, read)


def _one_name(names: dict[tuple[int, int], str], path: Path, name: str) -> None:
    """Refuse a second name for a file already read (``./guide.md``, ``sub/../guide.md``, a link beside it):
    each name would be read, held and chunked as a document of its own, so a set of a few kilobytes that
    names one large file forty ways once took 6 GB and five minutes, and counted one document as forty."""
    key = file_id(path)
    if key is None:
        return  # reading it says why
    first = names.setdefault(key, name)
    if first != name:
        raise FileRefused(f"{quoted(name)} is {quoted(first)} under another name: name each document one way")


def read_question_set(
    data: str | bytes,
    fmt: Format,
    documents: Mapping[str, str],
    name: str = "questions",
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> QuestionSet:
    """Read a set (its bytes or text; ``fmt`` ``"jsonl"`` or ``"csv"``) against ``documents`` (``name -> text``).

    The same rules as :func:`load_question_set`: a leading BOM is dropped, a set over ``max_bytes``
    is refused, and so is anything malformed, in one line naming the question.
    """

    def read(document: str) -> str:
        text = documents.get(document)
        if text is None:
            raise _Unreadable(f"its document {quoted(document)} is not among the documents given ({_names(documents)})")
        return text

    return _parse(_text_of(data, name, max_bytes), fmt, name, read)


def format_of(filename: str) -> Format:
    """``"jsonl"`` or ``"csv"`` by the file's extension (any case); :class:`QuestionSetError` otherwise."""
    lower = filename.lower()
    if lower.endswith(".jsonl"):
        return "jsonl"
    if lower.endswith(".csv"):
        return "csv"
    raise QuestionSetError(f"{quoted(filename)}: a question set is a .jsonl file or Chroma's questions_df.csv")


class _Unreadable(Exception):
    """A document a question names cannot be read; the message says why (never what the file holds)."""


def _names(documents: Mapping[str, str]) -> str:
    names = sorted(documents)
    shown = ", ".join(names[:5]) + (f", … ({len(names)} in all)" if len(names) > 5 else "")
    return shown or "none"


def _text_of(data: str | bytes, name: str, max_bytes: int) -> str:
    """The set's text: bytes decoded as UTF-8, a leading BOM dropped, at most ``max_bytes``."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise QuestionSetError(f"{name} is {size:,} bytes, over the limit of {max_bytes:,}")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise QuestionSetError(
                f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
            ) from None
    return data.removeprefix("\ufeff")


def _parse(data: str, fmt: Format, name: str, read: Callable[[str], str]) -> QuestionSet:
    records = _jsonl_records(data) if fmt == "jsonl" else _csv_records(data)
    questions: list[Question] = []
    documents: dict[str, str] = {}
    seen: set[str] = set()
    for label, record in records:
        question = _question(label, record)
        if question.id in seen:
            raise QuestionSetError(f"{label}: the id {quoted(question.id)} is used twice")
        seen.add(question.id)
        text = documents.get(question.document)
        if text is None:
            try:
                text = read(question.document)
            except _Unreadable as exc:
                raise QuestionSetError(f"{label}: {exc}") from None
            documents[question.document] = text
        _check_references(label, question, text)
        questions.append(question)
    if not questions:
        raise QuestionSetError(f"{name} holds no questions")
    return QuestionSet(name=name, questions=tuple(questions), documents=documents)


def _loads(text: str) -> Any:
    """``json.loads``, with every way it can fail on hostile text as one :class:`ValueError`."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise ValueError(exc.msg) from None
    except ValueError as exc:  # e.g. a number of more than 4,300 digits
        raise ValueError(str(exc).split(";")[0]) from None


def _jsonl_records(data: str) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    # Split on line feeds only: str.splitlines() would also split inside a JSON string holding
    # U+2028 or U+0085, which json.dumps(ensure_ascii=False) writes raw.
    for number, line in enumerate(data.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = _loads(line)
        except ValueError as exc:
            raise QuestionSetError(f"line {number}: not JSON ({exc})") from None
        if not isinstance(record, dict):
            raise QuestionSetError(f"line {number}: expected a JSON object, got {type(record).__name__}")
        label = f"question {quoted(record['id'])} (line {number})" if "id" in record else f"line {number}"
        out.append((label, record))
    return out


def _csv_records(data: str) -> list[tuple[str, dict[str, Any]]]:
    # A Chroma row's references hold whole excerpts: allow fields as long as the set itself may be.
    csv.field_size_limit(max(csv.field_size_limit(), DEFAULT_MAX_BYTES))
    out: list[tuple[str, dict[str, Any]]] = []
    reader = csv.DictReader(io.StringIO(data, newline=""))
    try:
        missing = {"question", "references", "corpus_id"} - set(reader.fieldnames or ())
        if missing:
            raise QuestionSetError(
                f"the CSV lacks the column(s) {', '.join(sorted(missing))} of Chroma's questions_df.csv"
            )
        for number, row in enumerate(reader, 1):
            label = f"question {number} (line {reader.line_num})"  # a row's references may span lines
            try:
                references = _loads(row["references"] or "")
            except ValueError as exc:
                raise QuestionSetError(f"{label}: references are not a JSON list ({exc})") from None
            corpus_id = row["corpus_id"]
            if not isinstance(corpus_id, str) or not corpus_id:
                raise QuestionSetError(f"{label}: no corpus_id")
            record = {
                "id": str(number),
                "document": f"{corpus_id}.md",
                "question": row["question"],
                "references": references,
            }
            out.append((label, record))
    except csv.Error as exc:
        raise QuestionSetError(f"line {reader.line_num}: not CSV ({exc})") from None
    return out


def _question(label: str, record: Mapping[str, Any]) -> Question:
    for key in ("id", "document", "question", "references"):
        if key not in record:
            raise QuestionSetError(f"{label}: missing {key!r}")
    qid = record["id"]
    if not (isinstance(qid, str) and qid) and not _is_int(qid):
        raise QuestionSetError(f"{label}: 'id' must be a non-empty string or a whole number")
    if not isinstance(record["question"], str) or not record["question"].strip():
        raise QuestionSetError(f"{label}: the question is empty")
    for name, value in (("id", qid), ("question", record["question"])):
        if isinstance(value, str) and not is_unicode(value):  # JSON's "\ud800": no text can hold it, no table show it
            raise QuestionSetError(f"{label}: the {name} is not valid Unicode (it holds a lone surrogate)")
    if not isinstance(record["document"], str) or not record["document"]:
        raise QuestionSetError(f"{label}: 'document' must name a file")
    kind = record.get("kind")
    if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
        raise QuestionSetError(f"{label}: unknown kind {quoted(kind)} (one of {', '.join(KINDS)})")
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
        id=str(qid),
        document=record["document"],
        question=record["question"],
        kind=kind,
        references=tuple(references),
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_references(label: str, question: Question, text: str) -> None:
    """Each reference is the slice of the document at its offsets. A mismatch names the offset where they
    part, never the document's text (the message must not carry a file's content anywhere)."""
    for ref in question.references:
        if not 0 <= ref.start < ref.end <= len(text):
            raise QuestionSetError(
                f"{label}: reference offsets ({_bounded(ref.start)}, {_bounded(ref.end)}) are outside "
                f"{quoted(question.document)} ({len(text):,} characters)"
            )
        found = text[ref.start : ref.end]
        if found != ref.content:
            at = next((i for i, (a, b) in enumerate(zip(found, ref.content, strict=False)) if a != b), None)
            where = (
                f"they part at character {ref.start + at}"
                if at is not None
                else f"the slice has {len(found):,} characters, the content {len(ref.content):,}"
            )
            hint = (
                " (offsets must index the text read with newline='', no newline translation)"
                if ("\r" in found or "\r" in ref.content)
                else ""
            )
            raise QuestionSetError(
                f"{label}: the reference at ({ref.start}, {ref.end}) is not the document's text there: {where}{hint}"
            )


def _bounded(value: int) -> str:
    """An offset for a message: a number of thousands of digits is shown by its size."""
    digits = len(str(abs(value))) if abs(value) < 10**30 else None
    return str(value) if digits is not None else f"a {value.bit_length()}-bit number"
