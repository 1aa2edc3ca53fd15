"""Cut one block that exceeds the hard cap into pieces of about ``target`` tokens (docs/method.md §5 step 7).

Each piece is a verbatim slice of the source with its own span, plus only what the engine must
add: a re-opened code fence (prefix) and its closing fence (suffix), or a repeated table header
(prefix). A block that must become k pieces is cut into k of about even size, each cut at the
best boundary near its share (no short last piece), and a piece still under the small size (``small_size``)
joins a neighbour within the hard cap. Each kind of block has its rule, in its own module; the
boundaries, best first:

- code (:mod:`~chunker.cut.code`): between lines, best before a blank line (blank lines stay
  with the line above);
- tables (:mod:`~chunker.cut.tables`): between rows;
- lists and block quotes (:mod:`~chunker.cut.containers`): between items and inner blocks;
- HTML (:mod:`~chunker.cut.html`): between lines, then sentences;
- text (:mod:`~chunker.cut.text`): between lines and sentences, then words, then tokens.

What they share (pieces, atoms, counts kept on the document, packing atoms into pieces) is in
:mod:`~chunker.cut.cutter`; what is done after the cut (slivers, stray fences) in
:mod:`~chunker.cut.mend`. This module is the entry, :func:`cut_block`, and the tables of which
rule cuts which kind.
"""

from __future__ import annotations

from collections.abc import Callable

from chunker.cut import code, containers, html, tables, text
from chunker.cut.cutter import LINE, CutCache, Cutter, NodeCut, Piece, cut_cache
from chunker.cut.mend import join_slivers, join_stray_fences
from chunker.cut.text import sentence_starts
from chunker.model import Block, Document

__all__ = ["CutCache", "Piece", "cut_block", "cut_cache", "sentence_starts"]

NODE_CUTTERS: dict[str, NodeCut] = {
    "code": code.cut_node,
    "table": tables.cut_node,
    "list": containers.cut_node,
    "item": containers.cut_node,
    "blockquote": containers.cut_node,
    "html": html.cut_node,
}
"""The rule of each kind of inner block (``InnerNode.kind``); any other (a paragraph, a heading) is text."""

BlockCut = Callable[[Cutter, Block, int, int, str], list[Piece]]


def _cut_text_block(cutter: Cutter, block: Block, first_limit: int, limit: int, flag: str) -> list[Piece]:
    return text.cut_text(cutter, block.start, block.end, first_limit, limit, flag, LINE)


def _cut_table_block(cutter: Cutter, block: Block, first_limit: int, limit: int, flag: str) -> list[Piece]:
    return tables.cut_table(cutter, block.line_span[0] - 1, block.line_span[1], first_limit, limit)


BLOCK_CUTTERS: dict[str, tuple[str, BlockCut]] = {
    "paragraph": ("split_text", _cut_text_block),
    "heading": ("split_text", _cut_text_block),
    "text": ("split_text", _cut_text_block),
    "hr": ("split_text", _cut_text_block),
    "front_matter": ("split_text", _cut_text_block),
    "table": ("split_table", _cut_table_block),
    "code": ("split_code", containers.cut_structured),
    "list": ("split_list", containers.cut_structured),
    "blockquote": ("split_quote", containers.cut_structured),
    "html": ("split_html", containers.cut_structured),
}
"""Each kind of top-level block (``Block.kind``): the flag of its pieces, and its rule. A block with inner
structure is read as the row of its inner blocks, each cut by its kind's rule (:data:`NODE_CUTTERS`)."""


_PIECES_KEPT = 4096
"""The most blocks' pieces a document keeps (:attr:`CutCache.pieces`): a few dozen settings' worth for a large
document, forgotten all at once when full."""


def cut_block(
    doc: Document,
    block: Block,
    first_limit: int,
    limit: int,
    *,
    repeat_table_header: bool = True,
    cap: int | None = None,
) -> list[Piece]:
    """Cut ``block`` into pieces: the first within ``first_limit`` tokens, the rest within ``limit``.

    Pieces are in order, non-overlapping, and together hold every non-blank
    character of the block; they are of about even size (see ``Cutter.pack``). A
    sliver (under ``small_size(limit)``) is joined with a
    neighbour, and so is a piece that would open a code fence its source does not
    (a fence-like line inside HTML or text), while the result stays within ``cap``
    (the chunk's share of the hard cap, default ``limit``; the first piece: ``first_limit``).
    """
    cutter = Cutter(doc, repeat_table_header, NODE_CUTTERS, text.cut_node)
    flag, cut = BLOCK_CUTTERS[block.kind]
    known = cutter.cache.pieces
    key = (block.start, block.end, block.kind, first_limit, limit, repeat_table_header)
    cut_before = known.get(key)
    if cut_before is None:
        if len(known) >= _PIECES_KEPT:
            known.clear()
        cut_before = known[key] = tuple(cut(cutter, block, first_limit, limit, flag))
    pieces = list(cut_before)
    cap = limit if cap is None else cap
    pieces = join_slivers(doc, pieces, first_limit, limit, cap)
    if block.kind == "code" or len(pieces) < 2:  # code pieces are re-fenced by construction
        return pieces
    return join_stray_fences(doc, pieces, cap)
