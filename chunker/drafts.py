"""What the packing passes hand each other: units, drafts, counted drafts, and the document being packed.

A **unit** is a run of source placed whole in a chunk (blocks, a whole section, or one cut
piece of a block); a **draft** is a chunk being made (its units and its section); a
**counted** draft has its exact markdown and token count. :class:`Packing` is the document
being packed with its :class:`~chunker.options.ChunkOptions`: the caps, the breadcrumb
lines measured so far, and the small operations every pass and strategy shares (a block's
unit, cutting a block, counting a draft). The passes themselves are in :mod:`chunker.pack`.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field

from chunker.context import breadcrumb_line
from chunker.cut import Piece, cut_block
from chunker.model import Block, CacheSlot, Document, Section
from chunker.options import ChunkOptions, small_size
from chunker.tokens import pretoken_tail

__all__ = [
    "Counted",
    "Draft",
    "Packing",
    "Unit",
    "block_units",
    "joinable",
    "piece_unit",
    "running_sizes",
]


@dataclass(slots=True)
class Unit:
    """A run of source placed whole in a chunk: blocks ``[first, stop)``, or one cut piece.

    Never changed once made: a block's unit is shared by every packing of its document.
    """

    start: int
    end: int
    tokens: int
    join: int  # tokens added by joining the next unit through the source between them
    first: int  # -1: the front matter
    stop: int
    piece: Piece | None = None
    continues: bool = False  # the next piece of the same cut block follows: never merge across
    heading_only: bool = False


@dataclass(slots=True)
class Draft:
    """A chunk being packed: its units and the section it belongs to (its breadcrumb ``path``)."""

    path: tuple[str, ...]
    preamble: bool = False
    units: list[Unit] = field(default_factory=list)
    tokens: int = 0  # summed: the units' counts and the joins between them
    # The sections of ``path`` below the document (their first block's index): two sections
    # with the same title are told apart. ``len(key) == len(path) - 1``.
    key: tuple[int, ...] = ()
    group: tuple[int, ...] = ()  # the sibling merge's parent key

    @property
    def only_headings(self) -> bool:
        return bool(self.units) and all(u.heading_only for u in self.units)

    def cost_of(self, unit: Unit) -> int:
        return self.tokens + (self.units[-1].join if self.units else 0) + unit.tokens

    def add(self, unit: Unit) -> None:
        self.tokens = self.cost_of(unit)
        self.units.append(unit)

    def holding(self, units: list[Unit]) -> Draft:
        """A draft of the same section holding ``units`` (its summed count left at 0: recount it)."""
        return Draft(self.path, self.preamble, units, key=self.key)


@dataclass(slots=True)
class Counted:
    """A draft with its exact markdown, token count and (``breadcrumb_in_budget``) context count."""

    draft: Draft
    markdown: str
    tokens: int
    context_tokens: int | None = None
    line: str | None = None  # the breadcrumb line of contextualize(), when counted in the cap
    shortened: bool = False


class Packing:
    """A document being packed with its options: caps, breadcrumb lines, units, cuts and counts."""

    def __init__(self, doc: Document, options: ChunkOptions, *, joins_small_chunks: bool) -> None:
        self.doc = doc
        self.blocks = doc.blocks
        self.options = options
        self.target = options.target
        self.hard_cap = options.hard_cap
        self.front_matter = options.include_front_matter and doc.front_matter_block is not None
        # A chunk under this many tokens is small: it joins a neighbour when it can. A strategy that
        # does not join small chunks (chunker.strategies: "reference", as markdown-object leaves them)
        # joins only what is under min_tokens.
        self.small = max(options.min_tokens, small_size(options.target))
        if not joins_small_chunks:
            self.small = options.min_tokens
        self._lines: dict[tuple[str, ...], tuple[str, bool, int]] = {}

    # -- caps ----------------------------------------------------------------

    def cap(self, path: tuple[str, ...]) -> int:
        """The hard cap, less the breadcrumb line and blank line when they count (``breadcrumb_in_budget``)."""
        return self.hard_cap - self.context(path)[2] if self.options.breadcrumb_in_budget else self.hard_cap

    def context(self, path: tuple[str, ...]) -> tuple[str, bool, int]:
        """The breadcrumb line of ``path`` (shortened to half the cap), whether shortened, and its cost."""
        found = self._lines.get(path)
        if found is None:
            line, shortened = breadcrumb_line(path, self.doc.tokenizer, self.hard_cap // 2)
            found = self._lines[path] = (line, shortened, self.doc.tokenizer.count(line + "\n\n"))
        return found

    # -- units ---------------------------------------------------------------

    def block_unit(self, index: int) -> Unit:
        return block_units(self.doc)[index]

    def front_matter_unit(self) -> Unit:
        fm = self.doc.front_matter_block
        assert fm is not None
        return Unit(fm.start, fm.end, fm.tokens, fm.join_tokens, -1, 0)

    def section_unit(self, section: Section) -> Unit:
        return self._blocks_unit(section.first, section.end, section.tokens)

    def sections_unit(self, root: Section) -> Unit:
        """All sections of the document as one unit (the whole-document case)."""
        return self._blocks_unit(root.direct_end, root.end, self.doc.region_tokens(root.direct_end, root.end))

    def _blocks_unit(self, first: int, stop: int, tokens: int) -> Unit:
        """``blocks[first:stop]`` as one unit of ``tokens``: from the first block's start to the last one's end."""
        last = self.blocks[stop - 1]
        return Unit(self.blocks[first].start, last.end, tokens, last.join_tokens, first, stop)

    def block(self, unit: Unit) -> Block:
        block = self.blocks[unit.first] if unit.first >= 0 else self.doc.front_matter_block
        assert block is not None
        return block

    def atoms(self, units: list[Unit]) -> list[Unit]:
        """``units`` with each run of whole blocks (a whole section) taken apart into its blocks."""
        atoms: list[Unit] = []
        for unit in units:
            if unit.piece is not None or unit.stop - unit.first <= 1:
                atoms.append(unit)
            else:
                atoms.extend(self.block_unit(n) for n in range(unit.first, unit.stop))
        return atoms

    def heading_level(self, unit: Unit) -> int:
        """The level of the heading ``unit`` starts with; 7 when it starts with another block."""
        if unit.first < 0 or (unit.piece is not None and unit.start != self.blocks[unit.first].start):
            return 7
        block = self.blocks[unit.first]
        return block.level if block.kind == "heading" else 7

    def cut(self, block: Block, first_limit: int, cap: int) -> list[Piece]:
        """Cut a block into pieces of about the target, every piece within ``cap``.

        If wrappers overflow a tiny target, fall back to bigger, then plain pieces.
        """
        target = min(self.target, cap)
        repeat = self.options.repeat_table_header
        for limit in (target, cap):
            pieces = cut_block(self.doc, block, min(first_limit, limit), limit, repeat_table_header=repeat, cap=cap)
            if all(p.tokens <= cap for p in pieces) and pieces[0].tokens <= max(first_limit, 1) + (limit - target):
                return pieces
        plain = Block("text", block.char_span, block.byte_span, block.line_span, block.tokens, block.join_tokens)
        return cut_block(self.doc, plain, first_limit, cap, cap=cap)

    # -- counts --------------------------------------------------------------

    def markdown(self, units: list[Unit]) -> str:
        head, tail = units[0], units[-1]
        prefix = head.piece.prefix if head.piece else ""
        suffix = tail.piece.suffix if tail.piece else ""
        return prefix + self.doc.text[head.start : tail.end] + suffix

    def counted(self, draft: Draft, tokens: int | None = None) -> Counted:
        """``draft`` with its markdown, counted (``tokens`` when the sum is already exact)."""
        count = self.doc.tokenizer.count
        markdown = self.markdown(draft.units)
        item = Counted(draft, markdown, count(markdown) if tokens is None else tokens)
        if self.options.breadcrumb_in_budget:
            item.line, item.shortened, cost = self.context(draft.path)
            if self.doc.tokenizer.line_additive and markdown[:1] not in ("", "\n", "\r"):
                # The line's last pre-token ends with its blank line, and a chunk starts a line with text
                # (or indentation, then text): the two counts add up (docs/method.md, Decisions, "Token counts
                # are exact").
                item.context_tokens = cost + item.tokens
            else:
                item.context_tokens = count(f"{item.line}\n\n{markdown}")
        return item

    def fits(self, item: Counted) -> bool:
        return item.tokens <= self.hard_cap and (item.context_tokens is None or item.context_tokens <= self.hard_cap)

    def summed_exactly(self, draft: Draft) -> bool:
        """Whether the draft's summed count is exact: where two units meet, they meet at block edges.

        A block's join counts the source from the block's end to the next block's
        start; a piece that stops before its block's trailing spaces, or starts after
        its leading indentation, leaves those uncounted.
        """
        if not any(map(_PIECE, draft.units)):  # whole blocks only: they meet at block edges
            return True
        pairs = itertools.pairwise(draft.units)
        return all(self.meet_at_edges(a, b) for a, b in pairs if a.piece is not None or b.piece is not None)

    def meet_at_edges(self, left: Unit, right: Unit) -> bool:
        """Whether ``left`` ends as its block does and ``right`` starts at its block's start.

        Ending as its block does: at the block's end, with the same last pre-token (a
        piece cut inside the block's last pre-token, such as ``"|."`` of ``" |."``, joins
        the next block at another cost than the block's).
        """
        if left.piece is not None:
            block = self.block(left)
            if left.end != block.end:
                return False
            if left.start != block.start:
                text = self.doc.text
                if pretoken_tail(text[left.start : left.end]) != pretoken_tail(text[block.start : block.end]):
                    return False
        return right.piece is None or right.start == self.block(right).start


_PIECE = operator.attrgetter("piece")


_UNITS: CacheSlot[tuple[Unit, ...]] = CacheSlot("units")


def block_units(doc: Document) -> tuple[Unit, ...]:
    """Each block's unit, made once per document (kept in its caches): they do not depend on the limits."""
    units = doc.caches.get(_UNITS)
    if units is None:
        units = doc.caches.put(
            _UNITS,
            tuple(
                Unit(b.start, b.end, b.tokens, b.join_tokens, n, n + 1, heading_only=b.kind == "heading")
                for n, b in enumerate(doc.blocks)
            ),
        )
    return units


def piece_unit(block: Block, unit: Unit, piece: Piece, last: bool) -> Unit:
    """The unit of one cut piece of ``block`` (whose whole unit is ``unit``): only the last piece
    joins the next block, and every piece but the last (or one with an added suffix) continues."""
    return Unit(
        piece.start,
        piece.end,
        piece.tokens,
        block.join_tokens if last else 0,
        unit.first,
        unit.stop,
        piece,
        continues=not last or bool(piece.suffix),  # an added suffix must end its chunk
    )


def running_sizes(units: list[Unit]) -> list[int]:
    """Summed tokens of ``units[:k + 1]`` for each k: their counts and the joins between them."""
    sizes: list[int] = []
    total = 0
    for n, unit in enumerate(units):
        total += unit.tokens + (units[n - 1].join if n else 0)
        sizes.append(total)
    return sizes


def joinable(left: Unit, right: Unit) -> bool:
    """Whether a chunk ending with ``left`` and the next, starting with ``right``, make one valid chunk.

    An added prefix must start its chunk and an added suffix end it, except between
    two pieces of one cut block, where they fall away and the source reads on: a
    closing fence and its re-opened fence, or a repeated table header.
    """
    lp, rp = left.piece, right.piece
    if "unbalanced_fence" in (lp and lp.flag, rp and rp.flag):
        return False
    suffix, prefix = lp.suffix if lp else "", rp.prefix if rp else ""
    if not suffix and not prefix:
        return True
    if lp is None or rp is None or left.first != right.first:
        return False
    if lp.flag == rp.flag == "split_code":
        return bool(suffix and prefix)
    return lp.flag == rp.flag == "split_table" and not suffix
