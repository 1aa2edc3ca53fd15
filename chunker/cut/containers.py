"""Lists, list items and block quotes: between inner blocks, descending into the big ones.

A container is a row of its inner blocks (a list's items, an item's or a quote's paragraphs,
lists, code blocks...), cut between them; an inner block too big for a piece is cut by its own
kind's rule (:meth:`Cutter.cut_node`), so a list of lists is cut at the deepest level it must.
A top-level list, quote, code or HTML block is read the same way, as the row of its top inner
blocks (:func:`cut_structured`).
"""

from __future__ import annotations

from functools import partial

from chunker.cut.code import fragile
from chunker.cut.cutter import SENTENCE, Atom, Cutter, Descend, Piece
from chunker.cut.text import cut_node as cut_text_node
from chunker.cut.text import cut_text
from chunker.model import Block
from chunker.parse import InnerNode, inner_structure

__all__ = ["cut_container", "cut_node", "cut_structured", "descend_node"]


def cut_node(
    cutter: Cutter, node: InnerNode, span: tuple[int, int], first_limit: int, limit: int, flag: str
) -> list[Piece]:
    """A list, list item or block quote inside another block; one without inner blocks, as text."""
    if not node.children:
        return cut_text_node(cutter, node, span, first_limit, limit, flag)
    return cut_container(cutter, node, first_limit, limit, flag)


def cut_structured(cutter: Cutter, block: Block, first_limit: int, limit: int, flag: str) -> list[Piece]:
    """A top-level block with inner structure (a list, a quote, a code or HTML block): its inner blocks,
    parsed once per document (the cutter's cache), as a container's."""
    doc = cutter.doc
    first_line, stop_line = block.line_span[0] - 1, block.line_span[1]
    inner = cutter.cache.inner
    nodes = inner.get(block.start)
    if nodes is None:
        line_start = doc.source.line_starts[first_line]
        nodes = inner[block.start] = tuple(inner_structure(doc.text[line_start : block.end], first_line))
    top = [n for n in nodes if n.first < stop_line]
    if len(top) == 1:
        return cutter.cut_node(top[0], first_limit, limit, flag)
    atoms = cutter.node_atoms(top, first_line, stop_line)
    descend = descend_node(cutter, flag)
    return cutter.pack(atoms, first_limit, limit, cutter.plain(flag), descend, alone=partial(fragile, cutter))


def cut_container(cutter: Cutter, node: InnerNode, first_limit: int, limit: int, flag: str) -> list[Piece]:
    """Lists, blockquotes, list items: between inner blocks, descending into the big ones."""
    children = list(node.children)
    first_child = children[0] if children else None
    # An item's first line (its marker) starts its first inner block; but for a fence that opens
    # on a later line (a marker alone on its line): its opening line is its first.
    if node.kind == "item" and first_child and not (first_child.fence and first_child.first > node.first):
        children[0] = InnerNode(
            first_child.kind,
            node.first,
            first_child.stop,
            first_child.children,
            first_child.info,
            first_child.fence,
        )
    atoms = cutter.node_atoms(children, node.first, node.stop)
    if not atoms:
        return []
    if len(atoms) == 1 and atoms[0].node is not None and atoms[0].node.kind == node.kind:
        return cutter.cut_node(atoms[0].node, first_limit, limit, flag)
    return cutter.pack(
        atoms, first_limit, limit, cutter.plain(flag), descend_node(cutter, flag), alone=partial(fragile, cutter)
    )


def descend_node(cutter: Cutter, flag: str) -> Descend:
    """Cuts an atom of inner blocks: text by its sentences, an inner block by its kind's rule."""

    def descend(atom: Atom, first_limit: int, limit: int) -> list[Piece]:
        if atom.node is None:
            return cut_text(cutter, atom.start, atom.end, first_limit, limit, flag, SENTENCE)
        return cutter.cut_node(atom.node, first_limit, limit, flag)

    return descend
