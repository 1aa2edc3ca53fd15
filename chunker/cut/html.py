"""HTML blocks: between lines, then sentences (an HTML block has no inner blocks of Markdown)."""

from __future__ import annotations

from chunker.cut.cutter import SENTENCE, Cutter, Piece
from chunker.cut.text import descend_text
from chunker.parse import InnerNode

__all__ = ["cut_node"]


def cut_node(
    cutter: Cutter, node: InnerNode, span: tuple[int, int], first_limit: int, limit: int, flag: str
) -> list[Piece]:
    """An HTML block, top-level or inside another (its pieces flagged ``split_html``)."""
    atoms = cutter.node_atoms([], node.first, node.stop)
    return cutter.pack(
        atoms, first_limit, limit, cutter.plain("split_html"), descend_text(cutter, "split_html", SENTENCE)
    )
