"""The app's shared frame: document source, controls, cached parse and chunk.

``app.py`` calls :func:`sidebar` on every run, before the page; pages call
:func:`current` to get the open document, its chunk set and the settings.
Parsing and counting are cached per (text, name, tokenizer); a slider move only
re-packs (itself cached per settings). Both live in the server's one memory-bounded
cache (:mod:`chunk_inspector.app.cache`), pinned while a run uses them; app.py calls
:func:`release` at the end of every run.
"""

from __future__ import annotations

import hashlib
import logging
import re
import runpy
import secrets
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

import chunker
from chunk_inspector.app import cache, tokenizer_patterns, url_settings, view
from chunk_inspector.app.url_settings import SIZES, SOURCES, TOKENIZERS
from chunk_inspector.app.view import md_escape
from chunker.decode import decode_markdown
from chunker.tokens import HF_MEMORY_PREFIX, hf_tokenizer_from_json
from chunker.wording import quoted

__all__ = [
    "MARKDOWN_KINDS",
    "MARKDOWN_TYPES",
    "MAX_TOKENIZER_BYTES",
    "MAX_UPLOAD_BYTES",
    "SAMPLES_DIR",
    "UPLOAD_LIMIT",
    "Opened",
    "chunk_cached",
    "chunk_spans_cached",
    "chunks_key",
    "current",
    "digest",
    "document_key",
    "error_boundary",
    "heading_tree_cached",
    "load_hf_tokenizer",
    "load_paste",
    "load_upload",
    "open_document",
    "parse_cached",
    "readable",
    "release",
    "reopen",
    "run_page",
    "sidebar",
    "sidebar_uploads",
    "size_error",
    "tokenizer_for",
    "uploaded_tokenizer",
]

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "sample_docs"
DEFAULT_SAMPLE = "poetry_cli.md"
# The app's limits are in MB of 10**6 bytes, as its messages give them (view.megabytes).
MAX_UPLOAD_BYTES = 5 * 1000 * 1000  # the engine does ~1 MB/s; beyond this a page would stall
MAX_TOKENIZER_BYTES = 20 * 1000 * 1000  # a large model's tokenizer.json is 2-10 MB
# What the upload widgets say of the limit (Streamlit's own box says the server's 50 MB, which is set higher
# so that the app can refuse a larger file itself, naming it): "up to 5 MB".
UPLOAD_LIMIT = f"up to {view.megabytes(MAX_UPLOAD_BYTES)}"
MARKDOWN_TYPES = ["md", "markdown", "txt"]  # what a document's uploader takes (the sidebar, Corpus, Revisions)
MARKDOWN_KINDS = f"({', '.join('.' + kind for kind in MARKDOWN_TYPES)})"  # as its label names them
HF_TOKENIZERS_KEPT = 4  # uploaded tokenizers kept in memory, for all sessions (one is tens of MB loaded)
_hf_tokenizers: OrderedDict[str, chunker.Tokenizer] = OrderedDict()  # by name, the last loaded last
_hf_lock = threading.Lock()
_log = logging.getLogger("chunk_inspector.app")
if not _log.handlers and not logging.getLogger().handlers:  # the server's console, as Streamlit's own log
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _log.addHandler(_handler)


@dataclass(frozen=True, slots=True)
class Opened:
    """The open document, its chunk set and the settings that made it."""

    doc: chunker.Document
    chunks: chunker.ChunkSet
    settings: chunker.ChunkOptions
    key: str  # sha256 of the text: identifies the document in caches and keys


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def document_key(key: str, name: str, tokenizer: str) -> tuple[str, str, str, str]:
    """The shared cache's key of a parsed document (:mod:`chunk_inspector.app.cache`)."""
    return ("doc", key, name, tokenizer)


def chunks_key(key: str, name: str, settings: chunker.ChunkOptions) -> tuple[str, str, str, chunker.ChunkOptions]:
    """The shared cache's key of a chunk set (it depends on its document's key)."""
    return ("chunks", key, name, settings)


_parse_ratio = 16.0  # bytes of a parsed document per character of text, as last measured (a guess at first)
_caches_lock = threading.Lock()
# doc key -> (id of the Document, its caches' entries and bytes last counted)
_caches_seen: dict[tuple[str, str, str, str], tuple[int, int, int]] = {}


def open_document(key: str, name: str, tokenizer: str, text: str) -> cache.Got[chunker.Document]:
    """The parsed document from the shared cache (parsed and measured on a miss), pinned for this run.
    Before a parse, least recently used documents are evicted to make room for it (by the size measured
    per character of the last parse); ``kept`` is False when it alone is larger than the whole budget."""
    global _parse_ratio
    store = cache.shared()
    doc_key = document_key(key, name, tokenizer)

    def parse() -> chunker.Document:
        return chunker.parse(text, name=name, tokenizer=tokenizer_for(tokenizer))

    def get() -> cache.Got[chunker.Document]:
        return store.get(
            doc_key, parse, cache.document_size, pin=cache.run_holder(), room=int(_parse_ratio * len(text))
        )

    if doc_key in store:
        return get()
    with st.spinner("Parsing and counting tokens…"):
        got = get()
    if got.made and text:
        _parse_ratio = got.size / len(text)
    return got


def parse_cached(key: str, name: str, tokenizer: str, _text: str) -> chunker.Document:
    """One parse per (text, name, tokenizer), shared by all sessions within the cache's memory budget;
    ``_text`` is identified by ``key``, not hashed again."""
    return open_document(key, name, tokenizer, _text).value


def chunk_cached(key: str, name: str, settings: chunker.ChunkOptions, _doc: chunker.Document) -> chunker.ChunkSet:
    """Re-pack only: the Document (and its caches of cutting work) comes from :func:`parse_cached`. The chunk
    set is cached with its document (evicted with it) while the document is; pinned for this run."""
    doc_key = document_key(key, name, settings.tokenizer_name)

    def pack() -> chunker.ChunkSet:
        return chunker.chunk_with(_doc, settings)

    got = cache.shared().get(
        chunks_key(key, name, settings),
        pack,
        lambda chunks: cache.chunk_set_size(chunks, _doc),
        depends_on=(doc_key,),
        pin=cache.run_holder(),
    )
    if got.made:
        _count_caches(doc_key, _doc)
    return got.value


def reopen(
    key: str, name: str, settings: chunker.ChunkOptions, text: str, tokenizer: str | chunker.Tokenizer
) -> tuple[chunker.Document, chunker.ChunkSet]:
    """The document and chunk set a run opened (:func:`open_document`, :func:`chunk_cached`), taken from the
    shared cache or made again there, outside any script run and without Streamlit: what a download computed
    only when clicked (a deferred ``st.download_button``) reads, holding only the text and the settings in
    between, never the parsed document the cache may have let go. ``tokenizer`` is
    :func:`tokenizer_for` the settings' tokenizer, resolved while the run could still read its session."""
    store = cache.shared()
    doc_key = document_key(key, name, settings.tokenizer_name)
    doc = store.get(doc_key, lambda: chunker.parse(text, name=name, tokenizer=tokenizer), cache.document_size).value
    chunks = store.get(
        chunks_key(key, name, settings),
        lambda: chunker.chunk_with(doc, settings),
        lambda made: cache.chunk_set_size(made, doc),
        depends_on=(doc_key,),
    ).value
    return doc, chunks


def heading_tree_cached(opened: Opened) -> pd.DataFrame:
    """The open document's heading tree (:func:`view.heading_tree`): made once per document, kept with it in
    the shared cache (evicted with it); each move adds only its chunk set's columns (:func:`view.tree_rows`)."""
    doc_key = document_key(opened.key, opened.doc.name, opened.settings.tokenizer_name)
    return (
        cache.shared()
        .get(
            ("tree", *doc_key[1:]),
            lambda: view.heading_tree(opened.doc),
            cache.table_size,
            depends_on=(doc_key,),
            pin=cache.run_holder(),
        )
        .value
    )


def chunk_spans_cached(opened: Opened) -> view.ChunkSpans:
    """The open chunk set's :func:`view.chunk_spans`: made once per chunk set and kept with it in the shared
    cache (evicted with it), so that a run on the same settings (a row chosen, another page of a table, a
    section found) does not walk its 10,000 chunks again."""
    set_key = chunks_key(opened.key, opened.doc.name, opened.settings)
    return (
        cache.shared()
        .get(
            ("spans", *set_key[1:]),
            lambda: view.chunk_spans(opened.chunks),
            cache.deep_size,
            depends_on=(set_key,),
            pin=cache.run_holder(),
        )
        .value
    )


def _count_caches(doc_key: tuple[str, str, str, str], doc: chunker.Document) -> None:
    """Add what a re-pack put in the document's caches to its size in the cache: measured again whenever
    they have grown by a tenth (the first re-pack fills most of them; later ones add little)."""
    store = cache.shared()
    with _caches_lock:
        seen, entries, counted = _caches_seen.get(doc_key, (id(doc), 0, 0))
        if seen != id(doc):  # parsed again since: its caches start empty
            entries = counted = 0
        now = cache.caches_entries(doc)
        if now - entries <= max(100, entries // 10) or doc_key not in store:
            return
        nbytes = cache.caches_size(doc)
        _caches_seen[doc_key] = (id(doc), now, nbytes)
        if len(_caches_seen) > 1024:  # forget documents the cache no longer holds
            for gone in [k for k in _caches_seen if k not in store]:
                del _caches_seen[gone]
    store.grow(doc_key, nbytes - counted)


def release() -> None:
    """End of a run: unpin what it used (so the cache may evict it) and let go of the open document, which
    the cache alone keeps between runs (else every session's last document would outlive its eviction)."""
    cache.shared().release(cache.run_holder())
    st.session_state.opened = None
    st.session_state._hf_tokenizer = None


def samples() -> list[str]:
    """The bundled documents (sample_docs/README.md is their attribution, not a sample)."""
    return sorted(p.name for p in SAMPLES_DIR.glob("*.md") if p.name != "README.md")


def size_error(what: str, nbytes: int, name: str = "FILE") -> chunker.ChunkerError | None:
    """The message for a document of ``nbytes`` over :data:`MAX_UPLOAD_BYTES` (None when it is not)."""
    if nbytes <= MAX_UPLOAD_BYTES:
        return None
    return chunker.ChunkerError(
        f"{what} is {view.megabytes(nbytes, MAX_UPLOAD_BYTES)}; the app takes files {UPLOAD_LIMIT}. "
        f"Chunk bigger files with the CLI: chunker {name}"
    )


def load_upload(name: str, data: bytes) -> str:
    """Upload bytes -> text; raises :class:`chunker.ChunkerError` with a message for the page."""
    too_large = size_error(name, len(data), name)
    if too_large is not None:
        raise too_large
    text = decode_markdown(data, name)
    if not text.strip():
        raise chunker.ChunkerError(f"{name} is empty: there is nothing to chunk")
    return text


def load_paste(text: str) -> str:
    """Pasted text, held to the same limit as an upload; raises :class:`chunker.ChunkerError` with a message
    in the same words when it is larger."""
    nbytes = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    too_large = size_error("The pasted text", nbytes)
    if too_large is not None:
        raise too_large
    return text


def hf_key(data: bytes) -> str:
    """The name of the tokenizer loaded from the tokenizer.json ``data``: its content's (``hf:sha256:…``)."""
    return HF_MEMORY_PREFIX + hashlib.sha256(data).hexdigest()[:16]


def load_hf_tokenizer(name: str, data: bytes, key: str | None = None) -> chunker.Tokenizer:
    """An uploaded tokenizer.json, loaded in memory: nothing is written to disk. Named by its content
    (``hf:sha256:…``, :func:`hf_key`, what chunk sets record; ``key`` when the caller has it already); the last
    :data:`HF_TOKENIZERS_KEPT` loaded are kept for every session (a tokenizer is large, and loading one takes a
    moment), so its messages name it by that key (:func:`readable` names the file). Raises
    :class:`chunker.ChunkerError` with the reason for a file over :data:`MAX_TOKENIZER_BYTES`, one holding a
    pattern the app does not run (:mod:`.tokenizer_patterns`) or one the tokenizers package cannot load."""
    _refuse_large_tokenizer(name, len(data))
    key = key or hf_key(data)
    with _hf_lock:
        tokenizer = _hf_tokenizers.get(key)
        if tokenizer is not None:
            _hf_tokenizers.move_to_end(key)
            return tokenizer
    _refuse_unknown_patterns(name, data)
    tokenizer = hf_tokenizer_from_json(data, key)
    with _hf_lock:
        _hf_tokenizers[key] = tokenizer
        while len(_hf_tokenizers) > HF_TOKENIZERS_KEPT:
            _hf_tokenizers.popitem(last=False)
    return tokenizer


# A tokenizer named by its content in a message, with the words before it: "cannot load the Hugging Face
# tokenizer 'hf:sha256:…'", "the tokenizer 'hf:sha256:…' failed on this text" (chunker/tokens.py).
_HF_NAMED = re.compile(r"(?:\b[Tt]he (?:Hugging Face )?tokenizer )?'?(" + re.escape(HF_MEMORY_PREFIX) + r"[0-9a-f]+)'?")


# The engine's way out of an encoding it cannot load, in a Python caller's terms (chunker/tokens.py), and the app's.
_ENCODING_FIX = re.compile(
    r"^cannot load the tiktoken encoding (.*), or pass tokenizer='cl100k_base' or a callable str -> int\.$"
)
_HF_FILE_FIX = ", or pass a tiktoken encoding name such as 'cl100k_base'."  # an uploaded tokenizer.json that fails
_HF_FILE_FIX_HERE = ", or remove the file to count with the Tokenizer above."
_ENCODING_FIX_HERE = (
    r"Cannot load the tiktoken encoding \1; meanwhile choose cl100k_base under Tokenizer in the sidebar."
)


def readable(message: object) -> str:
    """``message`` (an error, or its text) in the app's terms: each uploaded tokenizer.json it names by its content
    (``'hf:sha256:…'``, the key the loaded tokenizer is shared under) named as the user knows it: "the
    uploaded tokenizer.json (NAME)", NAME the file this session uploaded with that content; an encoding that
    cannot be loaded, or an uploaded tokenizer.json, with the Tokenizer box as the way out, not a Python argument.
    Plain text: escape it where Markdown reads it."""
    names: Any = st.session_state.get("_hf_names") or {}

    def name(match: re.Match[str]) -> str:
        file = names.get(match.group(1)) if isinstance(names, dict) else None
        if not file or file == "tokenizer.json":
            return "the uploaded tokenizer.json"
        return f"the uploaded tokenizer.json ({file})"

    text = _ENCODING_FIX.sub(_ENCODING_FIX_HERE, _HF_NAMED.sub(name, str(message)))
    if "the uploaded tokenizer.json" in text:  # not a model folder's (the Evaluate page): that one is not removed
        text = text.replace(_HF_FILE_FIX, _HF_FILE_FIX_HERE)
    return text


def uploaded_tokenizer(tokenizer: str) -> str | None:
    """The name of the file this session uploaded as the tokenizer ``tokenizer`` (``hf:sha256:…``), else None."""
    names: Any = st.session_state.get("_hf_names") or {}
    name = names.get(tokenizer) if isinstance(names, dict) else None
    return str(name) if name else None


def _refuse_unknown_patterns(name: str, data: bytes) -> None:
    """Refuse a tokenizer.json that would run a pattern of its own the app does not run (docs/SECURITY.md); one
    that is not UTF-8 is left to the loader, which says so."""
    try:
        unknown = tokenizer_patterns.unknown_patterns(data.decode("utf-8"))
    except UnicodeDecodeError:
        return
    if unknown:
        first = quoted(unknown[0], 80)
        more = f" and {len(unknown) - 1:,} more" if len(unknown) > 1 else ""
        raise chunker.TokenizerError(
            f"{name} runs a regular expression of its own ({first}{more}) that the app does not run: such a "
            "pattern can hold the server for hours, so the app runs only those of the tokenizers in wide use "
            "(GPT-2, Llama 3, Qwen2, o200k_base) and single quantified ones. Count with this file from the "
            "command line instead: chunker FILE --tokenizer PATH"
        )


def _refuse_large_tokenizer(name: str, nbytes: int) -> None:
    if nbytes > MAX_TOKENIZER_BYTES:
        raise chunker.ChunkerError(
            f"{name} is {view.megabytes(nbytes, MAX_TOKENIZER_BYTES)}; the app takes a tokenizer.json up to "
            f"{view.megabytes(MAX_TOKENIZER_BYTES)}"
        )


def tokenizer_for(name: str) -> str | chunker.Tokenizer:
    """What :func:`chunker.parse` takes for the settings' tokenizer ``name``: the name itself, or for an
    uploaded tokenizer.json (``hf:sha256:…``) the tokenizer this run loaded (else one still kept)."""
    if not name.startswith(HF_MEMORY_PREFIX):
        return name
    mine: Any = st.session_state.get("_hf_tokenizer")
    if isinstance(mine, chunker.Tokenizer) and mine.name == name:
        return mine
    with _hf_lock:
        kept = _hf_tokenizers.get(name)
    if kept is None:
        raise chunker.TokenizerError("The uploaded tokenizer.json is no longer loaded: upload it again.")
    return kept


def _clamp_target() -> None:
    """Keep target <= hard cap; leave a note so the sidebar can say why it moved (on the next run only)."""
    state = st.session_state
    if state.target > state.hard_cap:
        moved = "target" if state.get("_last_moved") == "target" else "hard cap"
        state.clamp_note = (
            f"Target lowered to {state.hard_cap}: it cannot exceed the hard cap "
            f"(no piece may be larger than the cap). You moved the {moved}."
        )
        state.target = state.hard_cap
    else:
        state.clamp_note = ""


def _moved(which: str) -> None:
    st.session_state._last_moved = which
    _clamp_target()


def _document_source() -> tuple[str, str] | None:
    """The (name, text) chosen in the sidebar, or None with a message shown."""
    source = st.sidebar.segmented_control(
        "Document", SOURCES, key="source", default="Sample", required=True, bind="query-params"
    )
    if source == "Upload":
        files = st.sidebar.file_uploader(
            f"Markdown files {MARKDOWN_KINDS}, {UPLOAD_LIMIT} each",
            type=MARKDOWN_TYPES,
            accept_multiple_files=True,
            key="uploads",
            help="The first file opens here; the Corpus page reviews them all together (Sidebar uploads), "
            "and a question set on Evaluate may name any of them.",
        )
        if not files:
            st.sidebar.info("Upload a file, or pick a sample meanwhile.")
            return None
        texts = _upload_texts(files)
        readable = [file for file in files if file.file_id in texts]
        if len(readable) > 1:  # the first opens; any other may
            upload_names = {file.file_id: file.name for file in readable}
            chosen = st.sidebar.selectbox(
                "Open",
                list(upload_names),
                format_func=upload_names.__getitem__,
                key="upload_open",
                help="Which upload Inspect, "
                "Tune, Compare, Revisions and Export show; Corpus and Evaluate read them all.",
            )
            readable = [file for file in readable if file.file_id == chosen] or readable
        return (readable[0].name, texts[readable[0].file_id]) if readable else None
    if source == "Paste":
        text = st.sidebar.text_area(
            "Paste Markdown",
            key="pasted",
            height=180,
            placeholder="# Title\n\nSome text…",
            persist_state="session",  # kept while a sample or an upload is shown: it went when the box was not drawn
        )
        if not text.strip():
            st.sidebar.info("Paste some Markdown to chunk it.")
            return None
        try:
            return "pasted.md", load_paste(text)
        except chunker.ChunkerError as exc:
            st.sidebar.error(md_escape(exc))
            return None
    names = samples()
    name = st.sidebar.selectbox(
        "Sample", names, index=names.index(_default_sample()), key="sample", bind="query-params"
    )
    return name, (SAMPLES_DIR / name).read_text(encoding="utf-8")


def sidebar_uploads() -> list[Any]:
    """The files uploaded in the sidebar (Streamlit's ``UploadedFile``s, in their order; none unless its
    Document is Upload), as they came: each reader decodes them with :func:`load_upload` and says which it
    refused and why."""
    state = st.session_state
    files: Any = state.get("uploads") if state.get("source") == "Upload" else None
    return list(files) if isinstance(files, list) else []


def _upload_texts(files: list[Any]) -> dict[str, str]:
    """The text of each readable upload (:func:`load_upload`) by its file id, each decoded once per upload: every
    run (every move of a slider) would otherwise read and decode their bytes again, 20 ms for 5 MB. Each one
    refused gets its message in the sidebar, every run."""
    memo: Any = st.session_state.get("_upload_texts")
    memo = memo if isinstance(memo, dict) else {}
    read: dict[str, str | chunker.ChunkerError] = {}
    for file in files:
        if file.file_id in memo:
            read[file.file_id] = memo[file.file_id]
            continue
        try:
            read[file.file_id] = load_upload(file.name, file.getvalue())
        except chunker.ChunkerError as exc:
            read[file.file_id] = exc
    st.session_state._upload_texts = read  # the uploads of now only
    for value in read.values():
        if isinstance(value, chunker.ChunkerError):
            st.sidebar.error(md_escape(value))
    return {file_id: value for file_id, value in read.items() if isinstance(value, str)}


def _key_of(text: str) -> str:
    """:func:`digest` of the open text, computed again only when the text is another object (a new upload,
    paste or sample) than at the last run."""
    memo = st.session_state.get("_text_key")
    if memo is not None and memo[0] is text:
        return str(memo[1])
    key = digest(text)
    st.session_state._text_key = (text, key)
    return key


def _default_sample() -> str:
    """The sample that opens first (and stays open while an upload or a paste is missing)."""
    names = samples()
    return DEFAULT_SAMPLE if DEFAULT_SAMPLE in names else names[0]


def _controls() -> chunker.ChunkOptions:
    side = st.sidebar
    side.selectbox(
        "Tokenizer",
        TOKENIZERS,
        key="tokenizer",
        bind="query-params",
        help="A tiktoken encoding or model name. cl100k_base works offline.",
    )
    side.select_slider(
        "Hard cap (tokens)",
        SIZES,
        chunker.DEFAULT_HARD_CAP,
        key="hard_cap",
        bind="query-params",
        on_change=_moved,
        args=("cap",),
        help="No chunk is ever larger. Whole sections are kept together while they fit.",
    )
    side.select_slider(
        "Target (tokens)",
        SIZES,
        chunker.DEFAULT_TARGET,
        key="target",
        bind="query-params",
        on_change=_moved,
        args=("target",),
        help="The size of the pieces when a block or section must be split. It cannot exceed the hard cap.",
    )
    side.segmented_control(
        "Packing",
        chunker.STRATEGIES,
        key="strategy",
        default=chunker.DEFAULT_STRATEGY,
        required=True,
        bind="query-params",
        help="optimal: the boundaries of least cost (sizes near the target, cuts before headings, sections "
        "kept apart); balanced: greedy, whole sections kept together up to the hard cap; reference: "
        "markdown-object's packing, less its defects (docs/method.md §5a).",
    )
    note = st.session_state.pop("clamp_note", "")  # said on the run after the move only: later it was stale
    if note:
        side.caption(f"⚠ {note}")
    with side.expander("More options", expanded=False):
        # Whole numbers in float inputs, shown without decimals: Streamlit's int input raises OverflowError
        # while it seeds itself from a URL holding inf or 1e400 (a link, or the back button to one), before
        # any check of ours can run; a float input resets such a value to its default.
        st.number_input(
            "Overlap (tokens)",
            0.0,
            float(url_settings.MAX_OVERLAP),
            0.0,
            step=10.0,
            format="%.0f",
            key="overlap",
            bind="query-params",
            help="Whole sentences shared by consecutive chunks of one section; counted inside the cap.",
        )
        st.number_input(
            "Minimum chunk (tokens)",
            0.0,
            float(url_settings.MAX_MIN_TOKENS),
            0.0,
            step=10.0,
            format="%.0f",
            key="min_tokens",
            bind="query-params",
            help="Smaller chunks join a neighbour of the same section when the result fits; else flagged tiny.",
        )
        st.checkbox(
            "Repeat table headers",
            True,
            key="repeat_table_header",
            bind="query-params",
            help="Every piece of a split table starts with the table's header rows.",
        )
        st.checkbox(
            "Breadcrumb in budget",
            False,
            key="breadcrumb_in_budget",
            bind="query-params",
            help="The cap holds for contextualize(): breadcrumb line + blank line + markdown.",
        )
        hf_file = st.file_uploader(
            "Hugging Face tokenizer.json (instead of the tokenizer above)",
            type=["json"],
            key="hf_tokenizer",
            help="Your embedding model's tokenizer file; counted with the tokenizers package. Up to "
            f"{view.megabytes(MAX_TOKENIZER_BYTES)}.",
        )
    state = st.session_state
    tokenizer = str(state.tokenizer)
    if hf_file is not None:
        try:
            _refuse_large_tokenizer(hf_file.name, hf_file.size)  # before its bytes are read
            data = hf_file.getvalue()
            key = hf_key(data)
            # What this session calls it: the loaded tokenizer is shared, under its content's name (readable).
            state._hf_names = {**(state.get("_hf_names") or {}), key: hf_file.name}
            loaded = load_hf_tokenizer(hf_file.name, data, key)
            state._hf_tokenizer = loaded  # this run's (another session may push it out of the shared few)
            tokenizer = loaded.name
        except chunker.ChunkerError as exc:
            message = readable(exc)
            if "the uploaded tokenizer.json" in message:  # names the file: a sentence of its own
                message = message[:1].upper() + message[1:]
            elif not message.startswith(hf_file.name):
                message = f"{hf_file.name}: {message}"
            side.error(md_escape(message))
    settings, lowered = url_settings.build_settings(
        tokenizer,
        int(state.hard_cap),
        int(state.target),
        int(state.overlap),
        int(state.min_tokens),
        bool(state.repeat_table_header),
        bool(state.breadcrumb_in_budget),
        str(state.strategy or chunker.DEFAULT_STRATEGY),
    )
    if lowered:
        side.warning("Using " + "; ".join(lowered) + ".")
    return settings


def _check_link() -> None:
    """Correct the link before any widget bound to it reads it (:func:`url_settings.check_query`): the
    parameters it asks for that no widget offers are rewritten in the URL and the script runs again, on the
    corrected URL; the sidebar then says what was changed. Parameters already bound to a widget cannot be
    rewritten: the note is shown all the same, and the widget resets a value it cannot take."""
    params = st.query_params
    query = {key: params.get_all(key) for key in params}
    checked = url_settings.check_query(query, samples(), _default_sample())
    if not checked.fixes:
        return
    asked = sorted(query.items())
    if st.session_state.get("_link_checked") == asked:  # corrected once already: never loop
        return
    st.session_state._link_checked = asked
    st.session_state.link_note = checked.note()
    rewritten = False
    for key, value in checked.fixes.items():
        try:
            if value is None:
                del params[key]
            else:
                params[key] = value
            rewritten = True
        except StreamlitAPIException:  # bound to its widget (the back button to a link): the widget resets
            continue  # what it cannot take, and a run again would only have it read the same URL again
    if rewritten:
        st.rerun()


def sidebar() -> None:
    """Draw the frame (every run, on every page) and store the open document in session state."""
    st.sidebar.title("Chunk Inspector")
    _check_link()
    note = st.session_state.pop("link_note", "")
    if note:
        st.sidebar.warning(md_escape(note), icon="⚠️")
    picked = _document_source()
    settings = _controls()
    if picked is None:
        default = _default_sample()
        picked = (default, (SAMPLES_DIR / default).read_text(encoding="utf-8"))
    name, text = picked
    key = _key_of(text)
    cache.shared().release(cache.run_holder())  # the last run's pins, if it ended without release()
    try:
        got = open_document(key, name, settings.tokenizer_name, text)
        doc = got.value
        chunks = chunk_cached(key, name, settings, doc)
    except chunker.ChunkerError as exc:
        st.session_state.opened = None
        st.session_state.open_error = readable(exc)
        return
    except MemoryError:
        st.session_state.opened = None
        st.session_state.open_error = (
            f"The server ran out of memory opening {name} "
            f"({view.megabytes(len(text.encode('utf-8', 'surrogatepass')))}). "
            "Try again in a moment, or chunk it with the CLI: chunker FILE"
        )
        return
    store = cache.shared()
    footprint = (store.size_of(document_key(key, name, settings.tokenizer_name)) or got.size) + (
        store.size_of(chunks_key(key, name, settings)) or 0
    )
    if not got.kept or footprint > store.budget:
        budget = store.budget
        st.warning(
            f"{md_escape(name)} takes {footprint / cache.MB:,.1f} MiB of memory once parsed, more than the app's "
            f"whole cache ({budget / cache.MB:.4g} MiB, set by {cache.ENV_BUDGET}). It is shown, but not kept: "
            "every change of a setting parses it again. For files this size the CLI is faster: chunker FILE",
            icon="⚠️",
        )
    st.session_state.opened = Opened(doc, chunks, settings, key)
    st.session_state.open_error = ""


def current() -> Opened | None:
    """The open document, or None after showing why there is none.

    A page normally runs inside app.py, after the frame. On the first run of a fresh server
    whose first request is a page URL (a shared link to /compare), Streamlit still treats
    ``pages/`` as an old-style page folder and runs the page alone, with that folder's list
    in the sidebar and no top navigation: the page then reruns inside app.py
    (:func:`_rerun_in_frame`), and only where that is not possible draws the frame itself.
    """
    if not st.session_state.get("in_frame"):
        _rerun_in_frame()
        # Run this page as app.py would: inside the frame and its error boundary; then end the page's own run.
        script = sys._getframe(1).f_globals.get("__file__")
        st.set_page_config(page_title="Chunk Inspector", page_icon="🧩", layout="wide")
        if script:
            run_page(lambda: runpy.run_path(str(script), run_name="__main__"), Path(script).stem)
            st.stop()
        sidebar()  # pragma: no cover - a page without a file: the frame at least
    opened: Any = st.session_state.get("opened")
    if opened is None:
        st.error(md_escape(st.session_state.get("open_error") or "No document is open."))
        return None
    assert isinstance(opened, Opened)
    return opened


def _rerun_in_frame() -> None:
    """Leave Streamlit's old-style page folder mode and rerun, so that app.py runs this page.

    Streamlit sets ``PagesManager.uses_pages_directory`` when its server starts next to a
    ``pages/`` folder and clears it the first time any script calls ``st.navigation``; until
    then it runs a page URL's script alone. Cleared here, the rerun runs app.py, whose
    ``st.navigation`` finds the same page (a page's identity is its URL path); the URL and
    its settings stay. Returns only where this Streamlit has no such flag.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without it
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()


@contextmanager
def error_boundary(where: str) -> Iterator[None]:
    """Run the block; an unexpected exception in it shows one line (no traceback, no server path) and goes,
    with its whole trace, to the server's log. A :class:`chunker.ChunkerError` a page did not catch (a
    tokenizer failing on a chunk at one of Tune's settings, say) is not unexpected: its own line is shown, as
    :func:`readable` words it. ``st.stop()`` and ``st.rerun()`` pass through: they are not ``Exception``s
    (Streamlit's ``ScriptControlException`` is a ``BaseException``)."""
    try:
        yield
    except chunker.ChunkerError as exc:
        st.error(view.md_escape(readable(exc)))
    except Exception as exc:
        ref = secrets.token_hex(4)
        _log.exception("unexpected error in %s (ref %s)", where, ref)
        st.error(
            f"Something went wrong here ({type(exc).__name__}, logged on the server as {ref}). "
            "Change a setting or reload the page to try again."
        )


def switch_keeping_link(page: Any) -> None:
    """Go to ``page`` with the link's parameters (each of its values)."""
    params = st.query_params
    st.switch_page(page, query_params={key: params.get_all(key) for key in params})


def run_page(run: Callable[[], object], where: str) -> None:
    """The frame around one page: the sidebar, then the page, each inside :func:`error_boundary` (the page
    only once the sidebar has drawn), then :func:`release`. app.py calls it for the page it navigates to."""
    try:
        drawn = False
        with error_boundary("the sidebar"):
            sidebar()
            drawn = True
        if drawn:
            st.session_state.in_frame = True  # the page can tell it runs inside this frame (see current)
            with error_boundary(f"the {where} page"):
                run()
    finally:
        st.session_state.in_frame = False
        release()  # unpin this run's documents in the shared cache (chunk_inspector/cache.py)
