"""Tables: between rows, each later piece repeating the header and delimiter rows.

A table is lines: its header row, its delimiter row, then one body row a line, so it needs no
inner parse. The header is repeated (``repeat_table_header``) where it takes at most half a
piece; a row too long for a piece is cut as text, at words.
"""

from __future__ import annotations

from chunker.cut.cutter import LINE, STARTS_LINE_TEXT, WORD, Atom, Cutter, Piece
from chunker.cut.text import cut_text
from chunker.parse import InnerNode

__all__ = ["cut_node", "cut_table"]


def cut_node(
    cutter: Cutter, node: InnerNode, span: tuple[int, int], first_limit: int, limit: int, flag: str
) -> list[Piece]:
    """A table inside another block (its pieces flagged ``split_table``)."""
    return cut_table(cutter, node.first, node.stop, first_limit, limit)


def cut_table(cutter: Cutter, first: int, stop: int, first_limit: int, limit: int) -> list[Piece]:
    """Between rows; later pieces repeat the header and delimiter rows.

    The table is lines ``[first, stop)``: its header row, its delimiter row, then a body row
    on each line (a row is one line), so it needs no inner parse.
    """
    span = cutter.trimmed(first, stop)
    if span is None:
        return []
    header_stop = first + 2
    header = cutter.text[cutter.src.line_starts[first] : cutter.src.line_end(header_stop - 1)] + "\n"
    atoms = cutter.line_atoms(header_stop, cutter.src.line_index(span[1]) + 1)  # the body rows
    if not atoms:
        return cut_text(cutter, span[0], span[1], first_limit, limit, "split_table", LINE)
    table_start = span[0]
    atoms[0] = Atom(table_start, atoms[0].end, atoms[0].strength)
    header_tokens = cutter.text_tokens(header)
    repeat = cutter.repeat_table_header and header_tokens * 2 <= limit
    header_line = cutter.added_line(header[:-1])

    def make(start: int, end: int, tokens: int | None) -> Piece:
        prefix = header if repeat and start != table_start else ""
        if prefix and tokens is not None:
            # The header is summed like a source line before the row starting the piece.
            ok = header_line is not None and STARTS_LINE_TEXT.match(cutter.text, start)
            tokens = tokens + sum(header_line) if ok and header_line is not None else None
        if tokens is None:
            tokens = cutter.count(prefix + cutter.text[start:end])
        return Piece(start, end, tokens, prefix, "", "split_table")

    def descend(atom: Atom, first_cap: int, cap: int) -> list[Piece]:
        return cut_text(cutter, atom.start, atom.end, first_cap, cap, "split_table", WORD)

    return cutter.pack(atoms, first_limit, limit, make, descend)
