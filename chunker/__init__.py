"""Chunk Inspector's engine: Markdown -> heading tree -> retrieval-ready chunks.

>>> import chunker
>>> doc = chunker.parse("# Title\\n\\nSome text.\\n", name="guide.md")
>>> chunks = chunker.chunk(doc, target=512, hard_cap=1024)
>>> chunks[0].breadcrumb
['guide.md']
"""

from __future__ import annotations

from typing import Any

from chunker.chunkset import FLAGS, Chunk, ChunkSet
from chunker.errors import ChunkerError, ConfigError, TokenizerError
from chunker.hierarchy import Node, UnknownNodeError
from chunker.model import Block, Document, Section
from chunker.options import (
    DEFAULT_HARD_CAP,
    DEFAULT_STRATEGY,
    DEFAULT_TARGET,
    MIN_HARD_CAP,
    SMALL_TOKENS,
    STRATEGIES,
    ChunkOptions,
)
from chunker.pack import chunk, chunk_with
from chunker.parse import parse
from chunker.tokens import TokenCounter, Tokenizer, TokenizerLike, get_tokenizer
from chunker.version import __version__ as __version__

__all__ = [
    "DEFAULT_HARD_CAP",
    "DEFAULT_STRATEGY",
    "DEFAULT_TARGET",
    "FLAGS",
    "MIN_HARD_CAP",
    "SMALL_TOKENS",
    "STRATEGIES",
    "Block",
    "Chunk",
    "ChunkOptions",
    "ChunkSet",
    "ChunkerError",
    "ConfigError",
    "Document",
    "Node",
    "Section",
    "TokenCounter",
    "Tokenizer",
    "TokenizerError",
    "TokenizerLike",
    "UnknownNodeError",
    "chunk",
    "chunk_markdown",
    "chunk_with",
    "get_tokenizer",
    "parse",
]


def chunk_markdown(
    text: str,
    name: str = "document.md",
    tokenizer: TokenizerLike = None,
    target: int = DEFAULT_TARGET,
    hard_cap: int = DEFAULT_HARD_CAP,
    *,
    options: ChunkOptions | None = None,
    **keywords: Any,
) -> ChunkSet:
    """Parse and chunk in one call: ``chunk(parse(text, name, tokenizer), target, hard_cap, **keywords)``.

    Or with one options value: ``chunk_markdown(text, name, options=ChunkOptions(...))``, its
    ``tokenizer`` the one the text is parsed with (``tokenizer`` may still pass a callable or a
    :class:`Tokenizer`, which a name cannot hold). Raises :class:`ConfigError` before the parse for bad
    limits and options, and when both ``options`` and limits or keywords are given.
    """
    if options is None:
        named = tokenizer if isinstance(tokenizer, str) else None
        options = ChunkOptions(target, hard_cap, tokenizer=named, **keywords)
    elif keywords or (target, hard_cap) != (DEFAULT_TARGET, DEFAULT_HARD_CAP):
        raise ConfigError("give either options=ChunkOptions(...) or the limits and keywords, not both")
    elif tokenizer is not None and options.tokenizer is not None and tokenizer != options.tokenizer:
        raise ConfigError("give the tokenizer either in the options or as tokenizer=, not both")
    return chunk_with(parse(text, name=name, tokenizer=tokenizer or options.tokenizer), options)
