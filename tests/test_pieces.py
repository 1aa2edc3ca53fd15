"""Reading a text in pieces (for memory) gives what reading it whole gives.

The fast path parses the top level in pieces (``fastparse._Pieces``), its checks for divergent
constructs read the text in pieces (``fastparse._scan_pieces``), the line tables are built in
pieces (``spans.line_arrays``) and the whole-text encoding is encoded in pieces
(``tokens._encode_offsets``). Each is checked here with pieces as small as they go (one line,
one character) against one piece holding the whole text; and a parsed Document's arrays
against the lists they replace.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunker
from chunker import fastparse, spans, tokens
from chunker.spans import SourceMap, line_arrays, line_bounds
from tests.conftest import CORPUS, commonmark_examples, corpus_files, requires_corpus
from tests.test_fastpath import colliding_markdown

WHOLE = 1 << 40  # a piece size no text reaches: one piece


@contextmanager
def patched(module: Any, name: str, value: Any) -> Iterator[None]:
    """``module.name`` set to ``value`` (a piece size, or numpy switched off) inside the block."""
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def read_in_pieces_and_whole(text: str) -> tuple[Any, Any]:
    """(top-level blocks and scans in pieces of one line, the same in one piece)."""
    results = []
    for size in (1, WHOLE):
        with patched(fastparse, "PIECE_CHARS", size), patched(fastparse, "_SCAN_PIECE_CHARS", size):
            blocks = fastparse.top_level_blocks(text)
            code = [(first, stop) for kind, first, stop, *_ in blocks or () if kind == "code"]
            scans = (
                fastparse.diverges(text),
                fastparse.diverges(text, code),
                fastparse._deep_prefixes(text),
                fastparse._many_definitions(text),
            )
            results.append((blocks, scans))
    return results[0], results[1]


@requires_corpus
@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_document_reads_the_same_in_pieces(path: Path) -> None:
    """Every corpus document, in CRLF and CR too: the same blocks and the same verdicts of the scans."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    for variant in (text, text.replace("\n", "\r\n"), text.replace("\n", "\r")):
        in_pieces, whole = read_in_pieces_and_whole(variant)
        assert in_pieces == whole


@requires_corpus
def test_commonmark_examples_read_the_same_in_pieces() -> None:
    """Every construct of the syntax, each example alone and all of them one after the other."""
    examples = [example["markdown"] for example in commonmark_examples()]
    for text in [*examples, "\n\n".join(examples), "\n".join(examples), "".join(examples)]:
        in_pieces, whole = read_in_pieces_and_whole(text)
        assert in_pieces == whole


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(colliding_markdown(), min_size=1, max_size=6), st.sampled_from(["", "\n", "\n\n", "\r\n\r\n"]))
def test_generated_markdown_reads_the_same_in_pieces(parts: list[str], glue: str) -> None:
    """Lines built to collide (containers, lazy lines, fences, tables, HTML), several documents' worth."""
    in_pieces, whole = read_in_pieces_and_whole(glue.join(parts))
    assert in_pieces == whole


def test_a_block_longer_than_a_piece_is_parsed_whole() -> None:
    """A fence, an HTML block and a list that run past many pieces' ends come out as one block each."""
    text = (
        "# T\n\n```\n" + "code\n\n# not a heading\n\n" * 50 + "```\n\n<pre>\n" + "x\n\n# no\n\n" * 50 + "</pre>\n\n"
        + "- item\n\n  more\n\n" * 50 + "after\n"
    )  # fmt: skip
    with patched(fastparse, "PIECE_CHARS", 8):
        blocks = fastparse.top_level_blocks(text)
    assert blocks is not None
    assert [block[0] for block in blocks] == ["heading", "code", "html", "list", "paragraph"]
    assert blocks == fastparse.top_level_blocks(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab\n\r é日😀")), max_size=40), st.integers(1, 8))
def test_line_tables_in_pieces_equal_line_bounds(text: str, size: int) -> None:
    """line_arrays, in pieces of a few characters, holds what line_bounds gives, for the text and its UTF-8."""
    with patched(spans, "_PIECE_CHARS", size):
        assert tuple(map(list, line_arrays(text))) == line_bounds(text)
        assert tuple(map(list, line_arrays(text, utf8=True))) == line_bounds(text.encode("utf-8"))


# Words, numbers, spaces, line breaks of every kind, punctuation, contractions, non-ASCII letters
# and white space (tiktoken's and not), a special token's text, Markdown markers.
_ENCODING_PARTS = [
    *("a", "b", "word", "1", "1234", "'s", "'ll", ".", "!?", "é", "日本", "😀", "```", "# ", "- ", "|"),
    *(" ", "  ", "\t", "\n", "\r", "\r\n", "\n\n", "\u00a0", "\u3000", "\u2003", "\x0b", "\x1c"),
    "<|endoftext|>",
]
_ENCODING_TEXT = st.lists(st.sampled_from(_ENCODING_PARTS), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(_ENCODING_TEXT, st.integers(1, 12), st.booleans())
def test_encoding_in_pieces_is_the_whole_encoding(text: str, size: int, with_numpy: bool) -> None:
    """The token offsets of the text encoded in pieces are those of its encoding whole (BPE never merges
    across the pre-token boundary where a piece ends), with numpy and without."""
    encoding = chunker.get_tokenizer("cl100k_base")._encoding
    lengths = tokens._token_lengths(encoding)
    assert lengths is not None
    whole = [0, *accumulate(lengths[i] for i in encoding.encode_ordinary(text))]
    numpy = tokens._np
    with patched(tokens, "_ENCODING_PIECE_CHARS", size), patched(tokens, "_np", numpy if with_numpy else None):
        assert list(tokens._encode_offsets(encoding, lengths, text)) == whole


@requires_corpus
def test_a_document_keeps_arrays_holding_the_values_of_the_lists_they_replace() -> None:
    """Line tables, byte line tables and the cumulative token counts: arrays, the same values as before."""
    text = "\n\n".join(path.read_bytes().decode("utf-8", errors="replace") for path in corpus_files()[:30])
    doc = chunker.parse(text)
    assert not doc.source.ascii
    assert (list(doc.source.line_starts), list(doc.source.line_ends)) == line_bounds(text)
    assert tuple(map(list, doc.source.byte_lines())) == line_bounds(text.encode("utf-8"))
    assert list(doc._cumulative) == [0, *accumulate(block.tokens + block.join_tokens for block in doc.blocks)]
    assert doc.token_count == len(chunker.get_tokenizer("cl100k_base")._encoding.encode_ordinary(text))
    source = SourceMap(text)
    assert [source.byte_offset(offset) for offset in range(0, len(text), 997)] == [
        len(text[:offset].encode("utf-8")) for offset in range(0, len(text), 997)
    ]
