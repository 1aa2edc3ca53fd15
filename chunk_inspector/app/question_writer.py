"""The Evaluate page's question writer (docs/app.md#evaluate, docs/evaluation.md §1): pick the answer in a
document, type the question, add it; the set is an editable table, evaluated at once, downloadable as JSONL.

Streamlit only: finding answers, building questions and the JSONL are
:mod:`chunk_inspector.evaluate.authoring`. The set lives in session state under :data:`STATE` (not a widget's
key, so it outlives reruns and page changes); :func:`draw` returns the questions that check out against the
documents at hand, or None after saying what to do.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from chunk_inspector.app.view import md_escape
from chunk_inspector.evaluate import authoring
from chunk_inspector.evaluate.authoring import AuthoringError
from chunk_inspector.evaluate.questions import KINDS, Question, QuestionSet, Reference
from chunker.spans import line_bounds
from chunker.wording import shorten

__all__ = ["HOW", "NAME", "STATE", "draw", "written"]

STATE = "written_questions"  # the set: a tuple of Question
_PENDING = "written_pending"  # excerpts kept for the next question: (document, Reference) pairs
NAME = "your questions"
HOW = ("Paste its text", "Choose lines")
_NO_KIND = "(none)"
_SHOWN_LINES = 1500  # lines of a document shown with their numbers at once


def written() -> tuple[Question, ...]:
    """The questions written in this session."""
    return tuple(st.session_state.get(STATE, ()))


def _pending() -> list[tuple[str, Reference]]:
    return list(st.session_state.get(_PENDING, ()))


def _apply_edits(key: str) -> None:
    """Apply the table's edits to the set (or keep the reason they are refused), and give the next table a new
    key, so that it starts from the set, not from these edits."""
    state = st.session_state
    try:
        state[STATE] = authoring.apply_edits(written(), state.get(key) or {})
    except AuthoringError as exc:
        state._write_error = str(exc)
    state._write_version = int(state.get("_write_version", 0)) + 1


def _numbered(text: str, around: int) -> tuple[str, int]:
    """Up to :data:`_SHOWN_LINES` lines of ``text`` from a little before line ``around``, each after its number;
    and the first line shown."""
    starts, ends = line_bounds(text)
    first = max(1, min(around - 20, len(starts) - _SHOWN_LINES + 1))
    last = min(len(starts), first + _SHOWN_LINES - 1)
    width = len(str(last))
    lines = [f"{n:>{width}} │ {text[starts[n - 1] : ends[n - 1]]}" for n in range(first, last + 1)]
    return "\n".join(lines), first


def _count(n: int) -> str:
    return f"{n} question{'s' if n != 1 else ''}"


def _lines(text: str | None, refs: Sequence[Reference]) -> str:
    if text is None:
        return "—"
    spans = []
    for ref in refs:
        a, b = authoring.line_of(text, ref.start), authoring.line_of(text, ref.end - 1)
        spans.append(str(a) if a == b else f"{a}–{b}")
    return ", ".join(spans)


def _short(content: str) -> str:
    flat = " ⏎ ".join(line.strip() for line in content.splitlines() if line.strip())
    return shorten(flat, 90)


def _table(questions: Sequence[Question], documents: Mapping[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "id": q.id,
                "kind": q.kind,
                "question": q.question,
                "document": q.document,
                "lines": _lines(documents.get(q.document), q.references),
                "answer": " · ".join(_short(r.content) for r in q.references),
            }
            for q in questions
        ],
        columns=["id", "kind", "question", "document", "lines", "answer"],
    )


def _pick_answer(name: str, text: str) -> list[Reference]:
    """The answer's excerpts chosen on the page (pasted and found, or lines), or none yet."""
    how = st.segmented_control("Choose the answer", HOW, key="write_how", default=HOW[0], required=True)
    if how == HOW[1]:
        count = len(line_bounds(text)[0])
        for key in ("write_first", "write_last"):  # another document may have fewer lines
            if int(st.session_state.get(key, 1)) > count:
                st.session_state[key] = count
        left, right = st.columns(2)
        first = int(left.number_input("First line", 1, count, 1, key="write_first"))
        last = int(right.number_input("Last line", 1, count, max(first, 1), key="write_last"))
        numbered, shown_from = _numbered(text, first)
        with st.expander("The document with its line numbers", expanded=False):
            if shown_from > 1 or count > _SHOWN_LINES:
                st.caption(f"Lines {shown_from:,}–{min(count, shown_from + _SHOWN_LINES - 1):,} of {count:,}.")
            st.code(numbered, language=None, height=320)
        try:
            return [authoring.lines_excerpt(text, first, last)]
        except AuthoringError as exc:
            st.warning(md_escape(exc))
            return []
    answer = st.text_area(
        "The answer, as the document has it",
        key="write_answer",
        height=90,
        placeholder="Paste the excerpt that answers the question (Ctrl+Enter to find it)",
    )
    if not answer.strip():
        return []
    try:
        found = authoring.find_answer(text, answer)
    except AuthoringError as exc:
        st.error(md_escape(exc))
        return []
    places = found.occurrences
    if not places:
        st.warning(
            f"Not found in {md_escape(name)}: paste it exactly as the document has it (line breaks and the white "
            "space around it may differ, nothing else), or choose its lines."
        )
        return []
    if len(places) == 1:
        st.caption(
            f"Found once, at line {places[0].line:,} (characters {places[0].reference.start:,}–"
            f"{places[0].reference.end:,})."
        )
        return [places[0].reference]
    more = f" (the first {len(places)}: paste a longer excerpt to narrow it)" if found.more else ""
    digest = hashlib.sha256(f"{name}\0{answer}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
    picked = st.multiselect(
        f"It occurs {len(places)} times{more}: choose where it answers the question",
        list(range(len(places))),
        format_func=lambda i: places[i].label(),
        key=f"write_where_{digest}",
        placeholder="Choose one occurrence or more",
    )
    return [places[i].reference for i in picked]


def draw(documents: Mapping[str, str], open_name: str) -> QuestionSet | None:
    """The writer over ``documents`` (name -> text, as :func:`~chunk_inspector.app.evaluate_view.upload_documents`
    gives them; ``open_name`` first): returns the written questions that check out, or None."""
    state = st.session_state
    for key in state.pop("_write_reset", ()):  # inputs to empty, set before they are drawn (after an add): set,
        state[key] = ""  # not removed, so that the browser shows them empty too
    names = sorted(documents, key=lambda n: (n != open_name, n))
    if state.get("write_doc") not in documents:
        state.pop("write_doc", None)
    st.markdown(
        "**Write your questions** · choose the document, find the answer in it, type the question a user would ask "
        "and add it. The set is evaluated below as you write it and kept while you move between pages."
    )
    left, right = st.columns([5, 4], gap="medium")
    with left:
        name = str(
            st.selectbox(
                "Document",
                names,
                key="write_doc",
                format_func=lambda n: f"{n} (open)" if n == open_name else n,
                help="The open document, the sidebar's uploads and the samples.",
            )
        )
        text = documents[name]
        chosen = _pick_answer(name, text)
        if chosen:
            st.caption("The answer's excerpt" + ("s" if len(chosen) > 1 else "") + ", exactly:")
            st.code("\n⋯\n".join(r.content for r in chosen), language=None, height="content", wrap_lines=True)
    pending = _pending()
    with right:
        question = st.text_area(
            "Question", key="write_question", height=90, placeholder="What would a user ask, that this answers?"
        )
        kind = st.selectbox(
            "Kind",
            [_NO_KIND, *KINDS],
            key="write_kind",
            help="Optional: prose, table, code, list, heading_context (the subject is only in the heading above "
            "the answer), multi_span (the answer is in two places or more). Recall is shown per kind.",
        )
        if pending:
            st.caption(
                f"Kept for this question ({md_escape(pending[0][0])}): "
                + "; ".join(f"line {authoring.line_of(documents.get(d, ''), r.start):,}" for d, r in pending)
            )
        add = st.button("Add the question", type="primary", key="write_add")
        keep = st.button(
            "Keep this excerpt and choose another part", key="write_keep", help="For an answer in several places."
        )
    if keep or add:
        refs = [r for d, r in pending if d == name] + chosen
        if any(d != name for d, _ in pending):
            st.error(
                f"The excerpts kept so far are in {md_escape(pending[0][0])}: a question's excerpts are all in one "
                "document. Choose that document again, or add the question without them."
            )
            state[_PENDING] = []
        elif keep:
            if not chosen:
                st.error("Choose an excerpt first: paste its text or choose its lines.")
            else:
                state[_PENDING], state._write_reset = [(name, r) for r in refs], ("write_answer",)
                st.rerun()
        else:
            try:
                added = authoring.add_question(
                    written(), name, question, None if kind == _NO_KIND else kind, refs, text
                )
            except AuthoringError as exc:
                st.error(md_escape(exc))
            else:
                state[STATE], state[_PENDING] = added, []
                state._write_reset = ("write_question", "write_answer")
                state._write_note = f"Added {added[-1].id}."
                st.rerun()
    note = state.pop("_write_note", "")
    if note:
        st.success(md_escape(note))
    return _the_set(documents)


def _the_set(documents: Mapping[str, str]) -> QuestionSet | None:
    """The written set as a table to edit and delete from, its download, and the questions that check out."""
    state = st.session_state
    questions = written()
    error = state.pop("_write_error", "")
    if error:
        st.error(md_escape(f"Not changed: {error}"))
    if not questions:
        st.info("No question yet: add one above, and its recall shows here at once.")
        return None
    key = f"write_table_{int(state.get('_write_version', 0))}"
    st.markdown(
        f"**The set** · {_count(len(questions))}: edit an id, a question or "
        "a kind in place; select rows and press Delete to remove them"
    )
    column: Any = st.column_config
    st.data_editor(
        _table(questions, documents),
        key=key,
        num_rows="delete",
        hide_index=True,
        disabled=["document", "lines", "answer"],
        column_config={
            "id": column.TextColumn("id", required=True, width="small"),
            "kind": column.SelectboxColumn("kind", options=list(KINDS), width="medium"),
            "question": column.TextColumn("question", required=True, width="large"),
            "answer": column.TextColumn("answer", width="large"),
        },
    )
    edits = state.get(key) or {}
    if edits.get("edited_rows") or edits.get("deleted_rows"):  # applied to the set, then drawn afresh from it
        _apply_edits(key)
        st.rerun()
    st.download_button(
        f"Download the set ({_count(len(questions))}, JSONL)",
        authoring.to_jsonl(questions),
        file_name="questions.jsonl",
        mime="application/jsonl",
        key="write_download",
        on_click="ignore",
        help="The documented format (docs/evaluation.md §1): upload it here again, or run chunker eval on it "
        "beside the same files.",
    )
    checked, problems = authoring.check(questions, documents, NAME)
    for line in problems:
        st.warning(md_escape(line))
    return checked
