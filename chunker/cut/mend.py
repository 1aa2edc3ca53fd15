"""After a block is cut: slivers joined to a neighbour, and a piece that would open a stray fence mended.

Both join pieces as packing does (what a piece added falls away where the source reads on),
within the chunk's share of the hard cap.
"""

from __future__ import annotations

from chunker.cut.cutter import Piece
from chunker.model import Document
from chunker.options import small_size
from chunker.parse import unclosed_fence

__all__ = ["join_slivers", "join_stray_fences"]


def join_slivers(doc: Document, pieces: list[Piece], first_limit: int, limit: int, cap: int) -> list[Piece]:
    """Join each piece under ``small_size(limit)`` to the neighbour giving the smaller piece.

    Balanced cuts leave such a sliver only where the boundaries are coarse (an item's
    first line before its nested list, a big last atom). The joined piece must fit
    ``cap`` (the first piece: ``first_limit``) and open no fence its parts did not; else
    the sliver stays. Pieces with an added prefix or suffix join as at packing: what a
    piece added falls away where the source reads on.
    """
    small = small_size(limit)
    out = list(pieces)
    i = 0
    while i < len(out):
        if out[i].tokens >= small or out[i].flag == "unbalanced_fence":
            i += 1
            continue
        best: Piece | None = None
        at = i
        for j in (i - 1, i):
            if j < 0 or j + 1 >= len(out) or out[j + 1].flag == "unbalanced_fence":
                continue
            a, b = out[j], out[j + 1]
            if not a.suffix and b.prefix and b.flag != "split_table":
                continue  # a prefix that only the next piece's source can stand for
            joined = _joined(doc, a, b)
            if joined.tokens > (first_limit if j == 0 else cap) or (best is not None and joined.tokens >= best.tokens):
                continue
            markdown = joined.prefix + doc.text[joined.start : joined.end] + joined.suffix
            if unclosed_fence(markdown) and not any(
                unclosed_fence(p.prefix + doc.text[p.start : p.end] + p.suffix) for p in (a, b)
            ):
                continue
            best, at = joined, j
        if best is None:
            i += 1
            continue
        out[at : at + 2] = [best]
        i = at
    return out


_FENCE_MARKS = ("```", "~~~")


def join_stray_fences(doc: Document, pieces: list[Piece], cap: int) -> list[Piece]:
    """Mend a piece that opens a fence its source does not (a fence-like line in HTML or text).

    Join it with its neighbour (the previous first) while the result fits ``cap``; if
    neither fits, close the fence in the suffix; if even that does not fit, flag it.
    """
    text, first, stop = doc.text, pieces[0].start, pieces[-1].end
    added = "".join(piece.prefix + piece.suffix for piece in pieces)
    if not any(text.find(mark, first, stop) >= 0 or mark in added for mark in _FENCE_MARKS):
        return pieces  # the common case: not even a fence's marks, so no piece opens one
    out = list(pieces)
    i = 0
    while i < len(out):
        piece = out[i]
        fence = unclosed_fence(piece.prefix + doc.text[piece.start : piece.end] + piece.suffix)
        if not fence:
            i += 1
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(out):
                a, b = (out[j], piece) if j < i else (piece, out[j])
                joined = _joined(doc, a, b)
                if joined.tokens <= cap:
                    out[min(i, j) : max(i, j) + 1] = [joined]
                    i = min(i, j)
                    break
        else:
            out[i] = _closed(doc, piece, fence, cap)
            i += 1
    return out


def _joined(doc: Document, a: Piece, b: Piece) -> Piece:
    markdown = a.prefix + doc.text[a.start : b.end] + b.suffix
    return Piece(a.start, b.end, doc.tokenizer.count(markdown), a.prefix, b.suffix, a.flag, a.hard or b.hard)


def _closed(doc: Document, piece: Piece, fence: str, cap: int) -> Piece:
    suffix = piece.suffix + "\n" + fence
    tokens = doc.tokenizer.count(piece.prefix + doc.text[piece.start : piece.end] + suffix)
    if tokens <= cap:
        return Piece(piece.start, piece.end, tokens, piece.prefix, suffix, piece.flag, piece.hard)
    return Piece(piece.start, piece.end, piece.tokens, piece.prefix, piece.suffix, "unbalanced_fence", piece.hard)
