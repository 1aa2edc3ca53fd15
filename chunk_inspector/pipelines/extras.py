"""What the optional integrations share: importing an extra lazily, and a chunk's metadata.

- :func:`require` imports a module of an optional extra (``[ray]``, ``[langchain]``,
  ``[llamaindex]``) only when it is used, and raises :class:`MissingExtraError`
  naming the ``pip install`` that provides it when it is not installed;
- :func:`chunk_metadata` is the metadata the LangChain and LlamaIndex adapters attach to
  every chunk: the chunk's own fields and its place in the hierarchy, JSON-safe.
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any

import chunker
from chunker.errors import ChunkerError

__all__ = ["METADATA_KEYS", "MissingExtraError", "check_keywords", "chunk_metadata", "options_of", "require"]

METADATA_KEYS = (
    "document",
    "id",
    "content_sha256",
    "breadcrumb",
    "headings",
    "byte_span",
    "char_span",
    "line_span",
    "token_count",
    "flags",
    "clause",
    "parent_id",
    "ancestor_ids",
)


class MissingExtraError(ChunkerError, ImportError):
    """An optional dependency is not installed; the message names the install that adds it."""


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import ``module`` of the optional ``extra``, or raise :class:`MissingExtraError` saying how to get it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{what} needs the '{extra}' extra, which is not installed ({exc}): "
            f"pip install 'chunk-inspector[{extra}]' (from a checkout: pip install -e '.[{extra}]')"
        ) from exc


def chunk_metadata(chunks: chunker.ChunkSet, chunk: chunker.Chunk) -> dict[str, Any]:
    """The chunk's metadata: ``document`` (the name), ``id``, ``content_sha256`` (its content id), ``breadcrumb``,
    ``headings``, the three spans (lists, docs/method.md §3), ``token_count``, ``flags``, ``clause``, ``parent_id`` (its
    section, or ``"d"`` for the document) and ``ancestor_ids`` (parent first, ``"d"`` last)."""
    ancestors = [node.id for node in chunks.get_ancestors(chunk.id)]
    return {
        "document": chunks.document.get("name"),
        "id": chunk.id,
        "content_sha256": chunk.content_sha256,
        "breadcrumb": list(chunk.breadcrumb),
        "headings": list(chunk.headings),
        "byte_span": list(chunk.byte_span),
        "char_span": list(chunk.char_span),
        "line_span": list(chunk.line_span),
        "token_count": chunk.token_count,
        "flags": list(chunk.flags),
        "clause": chunk.clause,
        "parent_id": ancestors[0],
        "ancestor_ids": ancestors,
    }


# The frameworks' own names for two of our options (a TextSplitter's or a NodeParser's chunk_size and
# chunk_overlap): each option has one name here, so these are refused naming ours (docs/pipelines.md).
_THEIR_NAMES = {
    "chunk_size": "hard_cap= (the most tokens a chunk may have) and target= (the size chunks are packed to)",
    "chunk_overlap": "overlap= (tokens of whole sentences shared by consecutive chunks)",
}


def check_keywords(keywords: dict[str, Any]) -> None:
    """Raise :class:`chunker.ConfigError` for a keyword that is not an option of :class:`chunker.ChunkOptions`,
    naming ours for the frameworks' ``chunk_size`` and ``chunk_overlap`` (not Python's TypeError about
    ``ChunkOptions.__init__``, which the caller never called)."""
    known = [f.name for f in dataclasses.fields(chunker.ChunkOptions)]
    for key in keywords:
        if key not in known:
            fix = f"give {_THEIR_NAMES[key]}" if key in _THEIR_NAMES else f"the options are {', '.join(known)}"
            raise chunker.ConfigError(f"unknown option {key}=: {fix}")


def options_of(
    options: chunker.ChunkOptions | None, tokenizer: chunker.TokenizerLike, keywords: dict[str, Any]
) -> chunker.ChunkOptions:
    """The one options value an adapter chunks with: ``options`` as given, or built from its keywords and a
    tokenizer's name (a callable tokenizer is passed to the parse apart: a name cannot hold it). Raises
    :class:`chunker.ConfigError` for bad options, both forms at once, or a tokenizer that cannot be loaded."""
    if options is not None:
        if keywords:
            raise chunker.ConfigError(f"give either options=ChunkOptions(...) or keywords ({', '.join(keywords)})")
        if tokenizer is not None and options.tokenizer is not None and tokenizer != options.tokenizer:
            raise chunker.ConfigError("give the tokenizer either in the options or as tokenizer=, not both")
    else:
        check_keywords(keywords)
        options = chunker.ChunkOptions(tokenizer=tokenizer if isinstance(tokenizer, str) else None, **keywords)
    chunker.get_tokenizer(tokenizer if tokenizer is not None else options.tokenizer)
    return options
