"""Optimal packing (docs/method.md §5a, ``strategy="optimal"``): chunk boundaries by dynamic programming.

The document is a row of **atoms**: its blocks in order (with the front matter when it
is chunked), each block too big for the hard cap first cut into pieces of about
``target`` by the block cutter (:func:`chunker.cut.cut_block`, as the greedy packing
cuts it). A chunk is a run of consecutive atoms whose summed tokens (each atom and the
joins between them, as :meth:`chunker.drafts.Draft.cost_of` sums them) fit the hard cap,
less the breadcrumb line with ``breadcrumb_in_budget``. Of all the ways of cutting the
row into chunks, the one of least total cost is chosen, as line breaking does for
paragraphs: ``best[k] = min over i of best[i] + cost(atoms[i:k])``. No chunk exceeds the
cap, so ``i`` only goes back one cap's worth of atoms: the work is linear in the
number of atoms times the atoms a chunk can hold.

The cost of one chunk of ``t`` tokens ending at boundary ``b`` (see the constants below):

    size(t) + CHUNK_COST + boundary(b) + headings inside + (SMALL_COST if t < small)

    size(t) = SIZE_OVER  * ((t - target) / target) ** 2   when t > target
              SIZE_UNDER * ((t - target) / target) ** 2   otherwise
    boundary(b) = BOUNDARY_BEFORE_HEADING[level]   before a heading of that level
                  BOUNDARY_BETWEEN_BLOCKS          between blocks of one section
                  BOUNDARY_IN_BLOCK                between two pieces of one cut block
                  + BOUNDARY_AFTER_INTRO           between a paragraph and the code block, table or
                                                   list after it
                  + BOUNDARY_IN_FITTING_SECTION    inside a section that fits the cap whole
                                                   (or inside a heading and its direct content
                                                   that fit it together)
                  + FORBIDDEN                      right after a heading whose content follows
    headings inside = HEADING_INSIDE[level] for each heading in the chunk but at its start

and ``small = max(min_tokens, small_size(target))``. Forbidden outright:
a chunk holding two pieces of one cut block, a piece with an added prefix anywhere but
at the start of its chunk (or an added suffix anywhere but at its end), and the
preamble in a chunk with heading content, unless the preamble is under
``small_size(target)`` tokens (then it may join the chunk after it) or the
chunk is the whole document. ``FORBIDDEN`` is a cost, not a rule, so that a solution
always exists: headings that fill the cap by themselves end their chunk, as in the greedy
packing.

The weights were tuned on the Markdown question set (docs/evaluation.md) (BM25, recall within a
1,024-token budget, at 128/256, 256/512 and 512/1024). ``SIZE_OVER`` from 3 to 30 tied there
within noise; 30 was taken because it did better on Chroma's set, which is therefore not fully
held out (docs/method.md §5a).

A chunk's breadcrumb is the path of the deepest section holding all of it. The drafts
then go through the same finish as the greedy packing (exact recount and repair,
small chunks joined, overlap, clause numbers), but not its sibling merge.
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections import deque
from dataclasses import dataclass
from itertools import accumulate
from operator import le, sub

from chunker.chunkset import Chunk
from chunker.drafts import Draft, Packing, Unit, block_units, joinable, piece_unit
from chunker.model import Block, CacheSlot, Document, Section
from chunker.options import ChunkOptions, small_size

__all__ = [
    "BOUNDARY_AFTER_INTRO",
    "BOUNDARY_BEFORE_HEADING",
    "BOUNDARY_BETWEEN_BLOCKS",
    "BOUNDARY_IN_BLOCK",
    "BOUNDARY_IN_FITTING_SECTION",
    "CHUNK_COST",
    "FORBIDDEN",
    "HEADING_INSIDE",
    "SIZE_OVER",
    "SIZE_UNDER",
    "SMALL_COST",
    "CostTerms",
    "cost_terms",
    "optimal_walk",
]

SIZE_OVER = 30.0
"""Weight of the squared relative distance from the target for a chunk above it: steep, so that
the target is the size chunks are packed to and the hard cap only lets a unit that cannot be cut
well (a block, a heading with its first piece) run over it.

Within a retrieval budget, chunks near the target retrieve better than chunks filled to the
hard cap: a big chunk spends the budget on text around the answer (docs/BENCHMARKS.md)."""

SIZE_UNDER = 0.5
"""Weight of the squared relative distance from the target for a chunk below it: a chunk
somewhat under the target costs little (it leaves room in the budget for another one)."""

CHUNK_COST = 0.1
"""A constant per chunk: of two packings otherwise alike, the one with fewer chunks wins."""

SMALL_COST = 4.0
"""A chunk under the small size is a defect for RAG users (no context, noise in the ranking)."""

BOUNDARY_BEFORE_HEADING = (0.0, 0.0, 0.05, 0.1, 0.15, 0.2, 0.25)
"""A boundary before a heading of level 1..6 (index = level): the higher the heading, the
more of the structure the two chunks keep apart, the cheaper the cut."""

BOUNDARY_BETWEEN_BLOCKS = 0.5
"""A boundary between two blocks of one section cuts a section's text apart."""

BOUNDARY_AFTER_INTRO = 3.0
"""Added to a boundary between a paragraph and the code block, table or list after it: the
paragraph usually says what they are (the words a question uses), so it stays with them."""

BOUNDARY_IN_BLOCK = 1.0
"""A boundary between two pieces of one cut block: the dearest cut (always taken: the
block does not fit the cap; it counts so that the costs of packings compare fairly)."""

BOUNDARY_IN_FITTING_SECTION = 0.0
"""Added to a boundary inside a section that fits the cap whole (or, for a section too big,
inside its heading and direct content when they fit together): such a section stays whole
unless it is far over the target. Off (0): measured, keeping a section whole up to the hard
cap spent the retrieval budget the way filling chunks to the cap does."""

HEADING_INSIDE = (0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
"""A heading of level 1..6 inside a chunk (not at its start): the chunk mixes sections. Small
sections then stay chunks of their own unless they are small (``SMALL_COST`` outweighs it):
a chunk of two topics answers a question about either one less well, in the ranking and in the
budget it takes."""

FORBIDDEN = 1.0e6
"""A boundary right after a heading whose content follows (headings travel forward)."""

_INFINITY = float("inf")
_INTRODUCED = frozenset({"code", "table", "list"})


def optimal_walk(packing: Packing) -> list[Draft]:
    """The drafts of least total cost (module docstring), in document order."""
    row = _Row(packing)
    return row.drafts(row.solve())


@dataclass(frozen=True, slots=True)
class CostTerms:
    """The cost of one chunk, term by term (module docstring), as the dynamic programme weighed it.

    ``tokens`` is the summed count it weighed (the exact count, for a line-additive tokenizer);
    ``boundary_after`` says what the boundary at the chunk's end cuts.
    """

    tokens: int
    size: float
    chunk: float
    boundary: float
    boundary_after: str
    headings_inside: float
    small: float

    @property
    def total(self) -> float:
        return self.size + self.chunk + self.boundary + self.headings_inside + self.small

    def rows(self) -> list[tuple[str, float, str]]:
        """Each term: its name, its cost and why it is there (for a table or a chart)."""
        return [
            ("size", self.size, f"{self.tokens} tokens against the target"),
            ("per chunk", self.chunk, "fewer chunks cost less"),
            ("boundary", self.boundary, self.boundary_after),
            ("headings inside", self.headings_inside, "headings inside the chunk, not at its start"),
            ("small chunk", self.small, "under the small size" if self.small else "not small"),
        ]


def cost_terms(doc: Document, options: ChunkOptions, chunk: Chunk) -> CostTerms | None:
    """Why the optimal packing of ``doc`` with ``options`` made ``chunk``: its cost, term by term.

    None when the chunk does not start and end at boundaries of the packing's row of atoms
    (a chunk of another strategy or other options).
    """
    row = _Row(Packing(doc, options, joins_small_chunks=True))
    own_start = chunk.char_span[0] if chunk.overlap_span is None else chunk.overlap_span[1]
    starts = [a.start for a in row.atoms]
    i = bisect_left(starts, own_start)  # with an overlap, its own text starts at the first atom after it
    if i >= len(starts) or (chunk.overlap_span is None and starts[i] != own_start):
        return None
    ends = {a.end: n for n, a in enumerate(row.atoms)}
    k = ends.get(chunk.char_span[1])
    if k is None or k < i:
        return None
    return row.terms(i, k + 1)


@dataclass(slots=True)
class BlockRow:
    """What the dynamic programme needs of a document at any limits, made once per document
    (:func:`block_row`, kept in its caches): its sections indexed, and its blocks as a
    row of whole atoms with the boundaries between them.
    """

    sections: list[Section]  # the root first, then every section in document order
    parent: list[int]  # each section's parent (the root's: 0)
    first: list[int]  # each section's first block; the root's is -1: it also holds the front matter
    paths: list[tuple[str, ...]]
    keys: list[tuple[int, ...]]
    section_of: list[int]  # each block's deepest section
    levels: list[int]  # each block's heading level, 0 for other blocks
    boundary: list[float]  # boundary[b]: the cost of a boundary between blocks b - 1 and b, both whole
    # The blocks in order of need (ascending ``needs``): the tokens a block takes with the headings
    # that travel forward with it, or the biggest of those headings. A block whose need is within
    # every section's cap is never cut.
    by_need: list[int]
    needs: list[int]


_ROW: CacheSlot[BlockRow] = CacheSlot("row")


def block_row(doc: Document) -> BlockRow:
    """The document's :class:`BlockRow`, made on first use."""
    row = doc.caches.get(_ROW)
    if row is None:
        row = doc.caches.put(_ROW, _make_block_row(doc))
    return row


def _make_block_row(doc: Document) -> BlockRow:
    blocks = doc.blocks
    sections: list[Section] = []
    parent: list[int] = []
    first: list[int] = []
    paths: list[tuple[str, ...]] = []
    keys: list[tuple[int, ...]] = []
    section_of = [0] * len(blocks)
    stack: list[tuple[Section, int]] = [(doc.root, -1)]
    while stack:
        section, up = stack.pop()
        index = len(sections)
        sections.append(section)
        parent.append(max(up, 0))
        if up < 0:
            first.append(-1)
            paths.append((doc.name,))
            keys.append(())
        else:
            first.append(section.first)
            paths.append((*paths[up], section.title))
            keys.append((*keys[up], section.first))
        section_of[section.first : section.direct_end] = [index] * (section.direct_end - section.first)
        stack.extend((child, index) for child in reversed(section.children))
    levels = [b.level if b.kind == "heading" else 0 for b in blocks]
    units = block_units(doc)
    boundary = [0.0] * len(blocks)
    needs = [0] * len(blocks)
    run: list[int] = []  # the headings just before the block: those that travel with content (_Row._heading_run)
    for b, block in enumerate(blocks):
        needs[b] = block.tokens
        if b:
            boundary[b] = _boundary(blocks, units[b - 1], units[b], levels[b - 1], levels[b])[0]
        if block.kind == "heading":
            run = [*run, b] if run and run[-1] == b - 1 and levels[b] > levels[b - 1] else [b]
            continue
        if run and run[-1] == b - 1:
            with_run = block.tokens + sum(u.tokens + u.join for u in units[run[0] : b])
            needs[b] = max(block.tokens, with_run, *(blocks[h].tokens for h in run))
        run = []
    by_need = sorted(range(len(blocks)), key=needs.__getitem__)
    return BlockRow(
        sections, parent, first, paths, keys, section_of, levels, boundary, by_need, [needs[b] for b in by_need]
    )


def _boundary(blocks: tuple[Block, ...], left: Unit, right: Unit, left_level: int, level: int) -> tuple[float, bool]:
    """The cost of a boundary between atoms ``left`` and ``right`` (of heading levels ``left_level``
    and ``level``, as in ``_Row.heading_level``), and whether one must be there."""
    if left.piece is not None and right.piece is not None and left.first == right.first:
        cost, must = BOUNDARY_IN_BLOCK, True
    else:
        cost = BOUNDARY_BEFORE_HEADING[level] if level else BOUNDARY_BETWEEN_BLOCKS
        must = left.continues or not joinable(left, right)
        if not level and _introduces(blocks, left, right):
            cost += BOUNDARY_AFTER_INTRO
    if left.heading_only and (not right.heading_only or level > left_level):
        cost += FORBIDDEN
    return cost, must


def _introduces(blocks: tuple[Block, ...], left: Unit, right: Unit) -> bool:
    """Whether ``left`` is (the end of) a paragraph and ``right`` starts a code block, table or list."""
    if left.first < 0 or right.first < 0 or (right.piece is not None and right.start != blocks[right.first].start):
        return False
    return blocks[left.stop - 1].kind == "paragraph" and blocks[right.first].kind in _INTRODUCED


def _size_term(tokens: int, target: int, small: int) -> float:
    """The size term of a chunk of ``tokens`` (module docstring), with ``SMALL_COST`` under ``small``."""
    d = (tokens - target) / target
    return (SIZE_OVER if d > 0 else SIZE_UNDER) * d * d + (SMALL_COST if tokens < small else 0.0)


@functools.lru_cache(maxsize=8)
def _size_costs(target: int, hard_cap: int, small: int) -> tuple[float, ...]:
    """:func:`_size_term` of 0 to ``hard_cap`` tokens, looked up by the programme."""
    return tuple(_size_term(tokens, target, small) for tokens in range(hard_cap + 1))


@functools.lru_cache(maxsize=8)
def _size_floors(target: int, hard_cap: int, small: int) -> tuple[float, ...]:
    """``floors[t]``: the least of :func:`_size_costs` over 0 to ``t`` tokens (a bound on the size term of
    any chunk of at most ``t`` tokens)."""
    return tuple(accumulate(_size_costs(target, hard_cap, small), min))


# The dynamic programme passes over whole blocks of this many starts at once (_open_programme).
_BLOCK_SHIFT = 4
_BLOCK = 1 << _BLOCK_SHIFT
_BLOCK_MASK = _BLOCK - 1


class _Row:
    """The document as a row of atoms, with each atom's section, and the dynamic programme over it."""

    def __init__(self, packing: Packing) -> None:
        self.packing = packing
        self.doc, self.blocks = packing.doc, packing.blocks
        self.target, self.hard_cap = packing.target, packing.hard_cap
        self.small = packing.small
        row = self.row = block_row(self.doc)
        self.sections, self.parent, self.first = row.sections, row.parent, row.first
        self.paths, self.keys, self.section_of = row.paths, row.keys, row.section_of
        self._caps: dict[int, int] = {}
        self._build_atoms()
        self.boundary, self.must = self._boundaries()
        # sums[k]: atoms [0, k) and the joins after each; inside[k]: the cost of the headings among them
        self.sums = list(accumulate((unit.tokens + unit.join for unit in self.atoms), initial=0))
        self.inside = list(accumulate(map(HEADING_INSIDE.__getitem__, self.heading_level), initial=0.0))
        self.total = 0.0  # the least total cost, once solved

    def _section_cap(self, index: int) -> int:
        found = self._caps.get(index)
        if found is None:
            found = self._caps[index] = self.packing.cap(self.paths[index])
        return found

    # -- atoms -------------------------------------------------------------------

    def _build_atoms(self) -> None:
        """The row of atoms: blocks, each too big (or too big for the headings it follows) cut.

        A block whose need (:class:`BlockRow`) is within the least cap of any section is
        never cut: the runs of such blocks are copied from the document's row (``self.runs``
        says where they went); the other blocks go through :meth:`_add_block`.
        """
        doc, blocks = self.doc, self.blocks
        self.atoms: list[Unit] = []
        self.atom_section: list[int] = []
        self.atom_block: list[int] = []  # -1 for the front matter
        self.heading_level: list[int] = []  # of an atom that starts a heading block, else 0
        self.runs: list[tuple[int, int, int]] = []  # (first atom, first block, stop block) of each copied run
        if self.packing.front_matter:
            assert doc.front_matter_block is not None
            self._add_block(doc.front_matter_block, -1, 0)
        least = self.hard_cap
        if self.packing.options.breadcrumb_in_budget:
            least = min(self._section_cap(index) for index in range(len(self.sections)))
        row = self.row
        start = 0
        for index in sorted(row.by_need[bisect_right(row.needs, least) :]):
            self._add_whole(start, index)
            self._add_block(blocks[index], index, self.section_of[index])
            start = index + 1
        self._add_whole(start, len(blocks))
        self.preamble_atoms = bisect_left(self.atom_block, doc.root.direct_end)

    def _add_whole(self, first: int, stop: int) -> None:
        """Blocks ``[first, stop)``, none of them cut."""
        if first < stop:
            self.runs.append((len(self.atoms), first, stop))
            self.atoms.extend(block_units(self.doc)[first:stop])
            self.atom_section.extend(self.section_of[first:stop])
            self.atom_block.extend(range(first, stop))
            self.heading_level.extend(self.row.levels[first:stop])

    def _add_block(self, block: Block, index: int, section: int) -> None:
        cap = self._section_cap(section)
        unit = self.packing.block_unit(index) if index >= 0 else self.packing.front_matter_unit()
        first_limit = min(self.target, cap)
        cut = block.tokens > cap
        if block.kind != "heading" and self.atoms and self.atoms[-1].heading_only:
            # Headings travel forward: they share a chunk with this block's first piece.
            run_start, run_tokens = self._heading_run()
            room = self._section_cap(self.atom_section[run_start]) - run_tokens
            if block.tokens > room >= 1:
                cut, first_limit = True, min(first_limit, room)
        if not cut:
            self._push(unit, section, index, block.level if block.kind == "heading" else 0)
            return
        pieces = self.packing.cut(block, first_limit, cap)
        for n, piece in enumerate(pieces):
            last = n == len(pieces) - 1
            level = block.level if block.kind == "heading" and piece.start == block.start else 0
            self._push(piece_unit(block, unit, piece, last), section, index, level)

    def _push(self, unit: Unit, section: int, block: int, level: int) -> None:
        self.atoms.append(unit)
        self.atom_section.append(section)
        self.atom_block.append(block)
        self.heading_level.append(level)

    def _heading_run(self) -> tuple[int, int]:
        """The headings at the end of the row that must travel with the next content block.

        The last heading does; the one before it only if the last is deeper (its content).
        Returns where the run starts and its tokens with the join to the next block.
        """
        atoms = self.atoms
        start = len(atoms)
        while start and atoms[start - 1].heading_only:
            if start < len(atoms) and self.heading_level[start] <= self.heading_level[start - 1]:
                break
            start -= 1
        tokens = sum(u.tokens + u.join for u in atoms[start:])
        return start, tokens

    # -- the dynamic programme -----------------------------------------------------

    def _boundaries(self) -> tuple[list[float], list[bool]]:
        """The cost of a boundary before each atom (index 1..n-1), and whether one must be there.

        Inside a run of whole blocks they are the document's (:class:`BlockRow`); the others,
        at the edges of runs and around cut pieces, are worked out here.
        """
        atoms, level, blocks = self.atoms, self.heading_level, self.blocks
        n = len(atoms)
        cost = [0.0] * (n + 1)
        must = [False] * (n + 1)

        def work_out(start: int, stop: int) -> None:  # the boundaries before atoms [start, stop)
            for q in range(max(start, 1), min(stop, n)):
                cost[q], must[q] = _boundary(blocks, atoms[q - 1], atoms[q], level[q - 1], level[q])

        done = 1  # the boundaries before atoms [1, done) are set
        for at, first, stop in self.runs:
            work_out(done, at + 1)
            cost[at + 1 : at + stop - first] = self.row.boundary[first + 1 : stop]
            done = at + stop - first
        work_out(done, n)
        if BOUNDARY_IN_FITTING_SECTION:
            for q in self._inside_fitting_sections():
                cost[q] += BOUNDARY_IN_FITTING_SECTION
        return cost, must

    def _inside_fitting_sections(self) -> set[int]:
        """Boundaries inside a section (not the document) that fits the hard cap whole.

        For a section too big, inside its heading and direct content when they fit together.
        """
        starts: dict[int, int] = {}  # first atom of each block
        for atom, block in reversed(list(enumerate(self.atom_block))):
            starts[block] = atom
        inside: set[int] = set()
        for index, section in enumerate(self.sections):
            if index and section.tokens <= self._section_cap(index):
                stop = starts.get(section.end, len(self.atoms))
                inside.update(range(starts[section.first] + 1, stop))
            elif index and section.own_tokens <= self._section_cap(index):
                stop = starts.get(section.direct_end, len(self.atoms))
                inside.update(range(starts[section.first] + 1, stop))
        return inside

    def solve(self) -> list[tuple[int, int]]:
        """The chunks of least total cost, as ``(first atom, stop atom)`` pairs.

        ``best[k]``: the least cost of chunking atoms ``[0, k)``; the chunk ``[i, k)`` ending
        there may start no earlier than the last mandatory boundary before ``k``, nor so
        early that it exceeds the hard cap (found by bisection on the running sums), nor
        before the preamble's end unless it holds the whole preamble (small, or the whole
        document). :meth:`_programme` tries every start; :meth:`_open_programme` makes the same
        choices in fewer steps, and is used where its shortcuts are exact.
        """
        cuts = None
        if not self.packing.options.breadcrumb_in_budget and self._bounds_hold():
            cuts = self._open_programme()
        return self._programme() if cuts is None else cuts

    def _bounds_hold(self) -> bool:
        """Whether no term of a cost is negative, tokens only grow as a chunk starts earlier, and the size
        term (with the small chunk's cost) only grows above the target (the small size is at most it)."""
        weights = [SIZE_OVER, SIZE_UNDER, CHUNK_COST, SMALL_COST, FORBIDDEN, *HEADING_INSIDE, *BOUNDARY_BEFORE_HEADING]
        weights += [BOUNDARY_BETWEEN_BLOCKS, BOUNDARY_AFTER_INTRO, BOUNDARY_IN_BLOCK, BOUNDARY_IN_FITTING_SECTION]
        growing = self.small <= self.target + 1
        return growing and min(weights) >= 0 and all(map(le, self.sums, self.sums[1:]))

    def _open_programme(self) -> list[tuple[int, int]] | None:
        """:meth:`_programme` over the open boundaries only, the window cut short; None where that may differ.

        Two shortcuts, each giving the choices of trying every start (when :meth:`_bounds_hold`):

        - A boundary that costs ``FORBIDDEN`` (right after a heading whose content follows) is
          **closed**: a chunk ending there pays it, so ``best`` there is at least that. Only open
          boundaries are ends and starts of chunks here. While the least cost found for each end stays under
          ``FORBIDDEN``, a chunk from a closed start would cost more (never as much: a tie would
          go to the later start), so leaving them out changes nothing; where it does not stay
          under, the programme gives up (None) and every start is tried.
        - Starts are tried from the end down, so the chunk only grows. Once it is over the
          target, each earlier start adds tokens (a dearer size) and headings, so every start
          left costs at least ``lowest + fixed + size + headings inside`` of the chunk from
          here, ``lowest`` the least ``best`` of the starts left. When that reaches the least
          cost found, no start left costs less and the search for this end stops. The bound is
          summed in the order a cost is, so rounding keeps it a bound.
        - Starts are also weighed a block of ``_BLOCK`` at once: the least ``rest`` in the block
          (kept per block once all are known) and the least size any of its chunks can have,
          summed as a cost is, bound what any start there costs. A block whose bound is over
          the least cost found (at or under the target; or not under it, over) is passed over.
          Under the target the last end's best start and the one after it are weighed first,
          so that a low cost is found early (small chunks of many headings: the best start is
          near the end; long runs of small paragraphs: near the target). Which start wins does
          not depend on the order: the least cost, a tie going to the later start.

        The work per end is then about the starts near the best one and a look at each block
        of the window, not every start in it (a window of hundreds of atoms where each is a
        few tokens: 40,000 one-line headings, 66,000 one-word paragraphs).

        Arrays with an ``o`` are over the open boundaries: ``opens[j]`` is the atom of the j-th.
        """
        atoms, n = self.atoms, len(self.atoms)
        if not n:
            return []
        target, hard_cap, small = self.target, self.hard_cap, self.small
        boundary, must, sums, inside = self.boundary, self.must, self.sums, self.inside
        preamble = self.preamble_atoms
        preamble_joins = 0 < preamble < n and sums[preamble] - atoms[preamble - 1].join < small_size(target)
        per_chunk = CHUNK_COST
        opens = [p for p in range(n + 1) if boundary[p] < FORBIDDEN]  # 0 and n among them
        ends_o = [0, *(sums[k] - atoms[k - 1].join for k in opens[1:])]  # the tokens up to each end
        if not all(map(le, ends_o, ends_o[1:])):
            return None  # the windows below only move forward: ends grow
        # A chunk over the hard cap (one atom too big) is past the sizes' end. No chunk holds more tokens than the
        # last end: the tables stop there too, so their length is the document's, not the cap's.
        sizes = _size_costs(target, min(hard_cap, ends_o[-1]), small)
        sums_o = [sums[p] for p in opens]
        musts = [p for p in range(n) if must[p]] + [n]
        best_o = [0.0] * len(opens)
        # rest_o[j]: best_o[j] less the headings among the atoms up to the j-th open start's own; a chunk
        # from there to atom k costs rest_o[j] + inside[k] (the headings up to its end) + its fixed and size terms
        rest_o = [0.0 - inside[1], *([0.0] * (len(opens) - 2))]
        last = len(opens) - 1
        back_o = [0] * len(opens)
        # least_o[b]: the least of rest_o over the b-th block of _BLOCK starts, once all are known
        least_o: list[float] = []
        floors = _size_floors(target, len(sizes) - 1, small)
        window: deque[int] = deque()  # starts in [first, over) of increasing rest_o: its least first
        pushed = 0  # the starts up to here went through the window
        seed = 0  # the best start of the last end
        if max(map(sub, ends_o, sums_o)) > target:
            return None  # the windows below stay before their end: joins > -target
        last_must, next_must = 0, 0
        after_must = 0  # the first open start at or after the last mandatory boundary
        after_preamble = bisect_left(opens, preamble)  # the first open start after the preamble
        fits_from = under_from = 0  # the first open starts of a chunk within the hard cap, within the target
        try:
            for jk in range(1, len(opens)):
                k = opens[jk]
                if musts[next_must] < k:
                    while musts[next_must] < k:  # the last mandatory boundary at or before k - 1
                        last_must = musts[next_must]
                        next_must += 1
                    after_must = bisect_left(opens, last_must, 0, jk)
                end, fixed, headings = ends_o[jk], per_chunk + boundary[k], inside[k]
                reach = end - hard_cap
                while sums_o[fits_from] < reach:
                    fits_from += 1
                reach = end - target
                while sums_o[under_from] < reach:
                    under_from += 1
                first = fits_from if fits_from > after_must else after_must
                whole_preamble = False
                if 0 < preamble < k:
                    whole_preamble = first == 0 and (preamble_joins or k == n)
                    if first < after_preamble:
                        first = after_preamble
                over = under_from if under_from > first else first  # starts before this one are over the target
                found, at = _INFINITY, 0
                # At or under the target; a tie goes to the later start. The last end's best start and
                # the one after it first (the best start moves on with the end), then every start but
                # those of a block whose bound is over the least cost found (none could win or tie).
                for j in (seed, seed + 1):
                    if over <= j < jk:
                        cost = rest_o[j] + headings + (fixed + sizes[end - sums_o[j]])
                        if cost <= found:
                            found, at = cost, j
                j = over
                while j < jk:
                    stop = (j | _BLOCK_MASK) + 1
                    if stop > jk:
                        stop = jk
                    elif (
                        not j & _BLOCK_MASK
                        and (least_o[j >> _BLOCK_SHIFT] + headings) + (fixed + floors[end - sums_o[j]]) > found
                    ):
                        j = stop
                        continue
                    for i in range(j, stop):
                        cost = rest_o[i] + headings
                        if cost > found:
                            continue
                        cost += fixed + sizes[end - sums_o[i]]
                        if cost < found or (cost == found and i > at):
                            found, at = cost, i
                    j = stop
                if over > first:  # over the target: stop once even the least left cannot beat what was found
                    while pushed < over:  # the least of rest_o[first:over]: a sliding window's minimum
                        value = rest_o[pushed]
                        while window and rest_o[window[-1]] >= value:
                            window.pop()
                        window.append(pushed)
                        pushed += 1
                    while window[0] < first:
                        window.popleft()
                    lowest = rest_o[window[0]] + headings
                    j = over - 1
                    while j >= first:
                        low = j & ~_BLOCK_MASK  # j's block, down to its first start; the least size there is j's
                        size = sizes[end - sums_o[j]]
                        if lowest + (fixed + size) >= found:
                            break
                        if low >= first and j & _BLOCK_MASK == _BLOCK_MASK:
                            if (least_o[j >> _BLOCK_SHIFT] + headings) + (fixed + size) >= found:
                                j = low - 1
                                continue
                        elif low < first:
                            low = first
                        for i in range(j, low - 1, -1):
                            size = sizes[end - sums_o[i]]
                            if lowest + (fixed + size) >= found:
                                low = first  # and no start left can beat it
                                break
                            cost = rest_o[i] + headings
                            if cost >= found:
                                continue
                            cost += fixed + size
                            if cost < found:
                                found, at = cost, i
                        if low == first:
                            break
                        j = low - 1
                if whole_preamble:  # the start before the preamble, tried last
                    cost = rest_o[0] + headings + (fixed + sizes[end - sums_o[0]])
                    if cost < found:
                        found, at = cost, 0
                if found >= FORBIDDEN:
                    return None
                best_o[jk], back_o[jk] = found, at
                seed = at
                if jk < last:
                    rest_o[jk] = found - inside[k + 1]  # a heading that starts a chunk is not inside it
                    if not (jk + 1) & _BLOCK_MASK:
                        least_o.append(min(rest_o[jk + 1 - _BLOCK : jk + 1]))
        except IndexError:  # a chunk of one atom bigger than the hard cap: past the sizes' end
            return None
        self.total = best_o[-1]
        cuts: list[tuple[int, int]] = []
        jk = len(opens) - 1
        while jk:
            cuts.append((opens[back_o[jk]], opens[jk]))
            jk = back_o[jk]
        cuts.reverse()
        return cuts

    def _programme(self) -> list[tuple[int, int]]:
        """:meth:`solve`, every start tried.

        ``best[k]``: the least cost of chunking atoms ``[0, k)``; the chunk ``[i, k)`` ending
        there may start no earlier than the last mandatory boundary before ``k``, nor so
        early that it exceeds the hard cap (found by bisection on the running sums), nor
        before the preamble's end unless it holds the whole preamble (small, or the whole
        document).
        """
        atoms, n = self.atoms, len(self.atoms)
        if not n:
            return []
        target, hard_cap = self.target, self.hard_cap
        small = self.small
        boundary, must, sums, inside = self.boundary, self.must, self.sums, self.inside
        preamble = self.preamble_atoms
        preamble_joins = 0 < preamble < n and sums[preamble] - atoms[preamble - 1].join < small_size(target)
        first, parent, section_of, block_of = self.first, self.parent, self.atom_section, self.atom_block
        in_budget, cap = self.packing.options.breadcrumb_in_budget, self._section_cap
        # The table of sizes stops at the hard cap or at the longest chunk the document could make, if shorter (its
        # length is then the document's, not the cap's); a chunk off the table is weighed by _size_term.
        longest = max(sums) - min(sums)
        per_chunk, sizes = CHUNK_COST, _size_costs(target, min(hard_cap, longest), small)
        limit = len(sizes)
        best = [_INFINITY] * (n + 1)
        best[0] = 0.0
        back = [0] * (n + 1)
        last_must = 0  # the last mandatory boundary at or before k - 1
        for k in range(1, n + 1):
            if must[k - 1]:
                last_must = k - 1
            end = sums[k] - atoms[k - 1].join
            fixed = per_chunk + boundary[k]
            low = max(last_must, bisect_left(sums, end - hard_cap, 0, k - 1))
            whole_preamble = False
            if 0 < preamble < k:
                if low < preamble:
                    whole_preamble = low == 0 and (preamble_joins or k == n)
                low = max(low, preamble)
            found, at = _INFINITY, k - 1
            if in_budget:
                section = section_of[k - 1]
                candidates: list[int] = [*range(k - 1, low - 1, -1), *([0] if whole_preamble else [])]
                for i in candidates:
                    block = block_of[i]
                    while first[section] > block:
                        section = parent[section]
                    tokens = end - sums[i]
                    cost = best[i] - inside[i + 1] + inside[k]  # summed as _open_programme sums it
                    if cost >= found or (i < k - 1 and tokens > cap(section)):
                        continue
                    cost += fixed + (sizes[tokens] if 0 <= tokens < limit else _size_term(tokens, target, small))
                    if cost < found:
                        found, at = cost, i
            else:
                for i in range(k - 1, low - 1, -1) if not whole_preamble else (*range(k - 1, low - 1, -1), 0):
                    cost = best[i] - inside[i + 1] + inside[k]
                    if cost >= found:
                        continue
                    tokens = end - sums[i]
                    cost += fixed + (sizes[tokens] if 0 <= tokens < limit else _size_term(tokens, target, small))
                    if cost < found:
                        found, at = cost, i
            best[k], back[k] = found, at
        self.total = best[n]
        cuts: list[tuple[int, int]] = []
        k = n
        while k:
            cuts.append((back[k], k))
            k = back[k]
        cuts.reverse()
        return cuts

    def terms(self, i: int, k: int) -> CostTerms:
        """The cost of the chunk of atoms ``[i, k)``, as :meth:`solve` weighs it."""
        tokens = self.sums[k] - self.atoms[k - 1].join - self.sums[i]
        d = (tokens - self.target) / self.target
        return CostTerms(
            tokens=tokens,
            size=(SIZE_OVER if d > 0 else SIZE_UNDER) * d * d,
            chunk=CHUNK_COST,
            boundary=self.boundary[k],
            boundary_after=self._boundary_kind(k),
            headings_inside=self.inside[k] - self.inside[i + 1],
            small=SMALL_COST if tokens < self.small else 0.0,
        )

    def _boundary_kind(self, p: int) -> str:
        """What a boundary before atom ``p`` cuts, in words."""
        if p >= len(self.atoms):
            return "the end of the document"
        left, right = self.atoms[p - 1], self.atoms[p]
        level = self.heading_level[p]
        if left.piece is not None and right.piece is not None and left.first == right.first:
            words = "inside a block too big for the hard cap"
        elif level:
            words = f"before a level-{level} heading"
        else:
            words = "between two blocks of one section"
            if _introduces(self.blocks, left, right):
                words += ", after the paragraph that introduces the next block"
        if left.heading_only and (not right.heading_only or level > self.heading_level[p - 1]):
            words += ", right after a heading (forbidden unless nothing else fits)"
        return words

    # -- drafts ------------------------------------------------------------------

    def drafts(self, cuts: list[tuple[int, int]]) -> list[Draft]:
        """The chunk of atoms ``[i, k)`` for each cut, under the deepest section holding all of it."""
        atoms, sums, paths, keys = self.atoms, self.sums, self.paths, self.keys
        atom_section, atom_block, first, parent = self.atom_section, self.atom_block, self.first, self.parent
        preamble = self.preamble_atoms
        out: list[Draft] = []
        for i, k in cuts:
            section, low = atom_section[k - 1], atom_block[i]
            while first[section] > low:
                section = parent[section]
            tokens = sums[k] - atoms[k - 1].join - sums[i]  # as Draft.add sums them
            out.append(Draft(paths[section], k <= preamble, atoms[i:k], tokens, keys[section]))
        return out
