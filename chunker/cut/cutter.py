"""What cutting every kind of block shares: pieces, atoms and their counts, and packing atoms into pieces.

A block is cut by its kind's module (:mod:`chunker.cut`: ``text``, ``code``, ``tables``,
``containers``, ``html``), each reading it as a row of **atoms** (lines, sentences, words, inner
blocks), each atom with the strength of the boundary after it (``PARAGRAPH`` > ``SENTENCE`` >
``LINE`` > ``WORD`` > ``TOKEN``: docs/method.md §5 step 7), and handing the row to
:meth:`Cutter.pack`, which cuts it into pieces of about even size at the strongest boundaries
near an even share; an atom too big for a piece is descended into by the kind's own rule.

Counting: each atom (line, inner block) is counted once and remembered on the document
(:func:`cut_cache`). With a line-additive tokenizer (see ``chunker.tokens``) a piece made of
whole lines is counted by summing its atoms and the joins between them (:class:`Run`), and an
added fence or header line by one more join; only pieces cut inside a line, and every piece for
other tokenizers, are counted on their text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import accumulate, pairwise

from chunker.model import CacheSlot, Document
from chunker.options import small_size
from chunker.parse import InnerNode
from chunker.tokens import ASCII_WORD

__all__ = [
    "BLANK",
    "LINE",
    "NON_BLANK",
    "PARAGRAPH",
    "SENTENCE",
    "STARTS_LINE_TEXT",
    "TOKEN",
    "WORD",
    "Atom",
    "CutCache",
    "Cutter",
    "Descend",
    "Make",
    "NodeCut",
    "Piece",
    "Run",
    "cut_cache",
    "share",
]

# Blank as Markdown reads it: spaces, tabs, form feeds and line breaks. A no-break space, U+2028 or
# U+001C is content (Python's str.strip and \s take them for white space): a line or piece of them is kept.
_LINE_BLANK = " \t\f\v"  # blanks within a line
BLANK = _LINE_BLANK + "\n\r"
NON_BLANK = re.compile(f"[^{BLANK}]")
# A line with text: blanks (not line breaks), then a non-blank character.
STARTS_LINE_TEXT = re.compile(f"[{_LINE_BLANK}]*[^{BLANK}]")
_LINE_BREAK = re.compile(r"[\r\n]")
_AFTER_WORD = re.compile(r"(?<=[0-9A-Za-z])[^0-9A-Za-z]*\Z")

# A cut falls within this fraction of an even share of what is left (see ``Cutter._cut_after``).
_BALANCE = 0.3
# A piece over its cap loses this many atoms one at a time before the rest is bisected (``Cutter._fitted``).
_NEAR_MISS = 4

# Boundary strength after an atom: higher is a better place to cut.
PARAGRAPH, SENTENCE, LINE, WORD, TOKEN = 5, 4, 3, 2, 1


@dataclass(frozen=True, slots=True)
class Piece:
    """A cut piece: ``prefix + text[start:end] + suffix``, ``tokens`` counted on all of it."""

    start: int
    end: int
    tokens: int
    prefix: str = ""
    suffix: str = ""
    flag: str = "split_text"
    hard: bool = False  # cut inside a sentence, at a word or token boundary


@dataclass(frozen=True, slots=True)
class Atom:
    start: int
    end: int
    strength: float  # of the boundary after this atom (fractions: code.py, _by_indentation)
    node: InnerNode | None = None  # for descending into nested structure
    level: int = LINE  # how this atom was found; descending goes finer


def share(total: int, room: int, later: int) -> float:
    """What one piece should hold of ``total`` still to cut: an even share over the fewest pieces.

    The fewest: this one holding ``room``, each later one ``later``. Never more than ``room``.
    """
    if total <= room:
        return total
    pieces = 1 + math.ceil((total - room) / later)
    return min(room, total / pieces)


class Run:
    """Exact token counts of runs of consecutive atoms: ``text[atoms[i].start : atoms[j - 1].end]``.

    ``sizes[k]`` counts atom ``k``; ``joins[k]`` is what the source between atoms ``k``
    and ``k + 1`` adds, or None where that cannot be summed exactly (within a line, or a
    tokenizer that is not line-additive): a run across such a gap is counted on its text.
    """

    __slots__ = ("_cum", "_gaps", "estimated", "sizes")

    def __init__(self, sizes: list[int], joins: list[int | None], guesses: list[int]) -> None:
        self.sizes = sizes
        self._cum = list(accumulate((s + (j or 0) for s, j in zip(sizes, joins, strict=True)), initial=0))
        self._gaps = list(accumulate((j is None for j in joins), initial=0))
        # estimated[k]: atoms [0, k) and the joins after them, a join that cannot be summed guessed
        self.estimated = list(
            accumulate((s + (g if j is None else j) for s, j, g in zip(sizes, joins, guesses, strict=True)), initial=0)
        )

    def tokens(self, i: int, j: int) -> int | None:
        """Tokens of atoms ``[i, j)`` joined through the source, or None when not summable."""
        if self._gaps[j - 1] != self._gaps[i]:
            return None
        return self._cum[j - 1] - self._cum[i] + self.sizes[j - 1]

    def estimate(self, i: int, j: int) -> int:
        """Tokens of atoms ``[i, j)``: exact where summable, else guessed joins (0 within a line, 1 across)."""
        return self.estimated[j - 1] - self.estimated[i] + self.sizes[j - 1]


@dataclass(slots=True)
class CutCache:
    """Limit-independent work of cutting one document, kept on it (:func:`cut_cache`) so that
    re-chunking with new limits reuses it: exact counts of spans and of added lines, join costs,
    runs of atoms, each block's inner structure (by the block's start), any run of lines as
    atoms (by its range and strength), and the pieces of the blocks cut so far (by their limits).
    What only code blocks need is :mod:`chunker.cut.code`'s."""

    span_tokens: dict[tuple[int, int], int] = field(default_factory=dict)
    text_tokens: dict[str, int] = field(default_factory=dict)
    join_costs: dict[tuple[str, str], int] = field(default_factory=dict)
    runs: dict[tuple[int, ...], Run] = field(default_factory=dict)
    inner: dict[int, tuple[InnerNode, ...]] = field(default_factory=dict)
    lines: dict[tuple[int, int, int], tuple[Atom, ...]] = field(default_factory=dict)
    # A block's pieces before slivers are joined, by (start, end, kind, first limit, limit, table header
    # repeated): those do not depend on the hard cap, so a move of the hard cap alone cuts no block again.
    pieces: dict[tuple[int, int, str, int, int, bool], tuple[Piece, ...]] = field(default_factory=dict)


_CUTS: CacheSlot[CutCache] = CacheSlot("cuts")


def cut_cache(doc: Document) -> CutCache:
    """The document's :class:`CutCache`, made on first use."""
    return doc.caches.get_or_make(_CUTS, CutCache)


Make = Callable[[int, int, "int | None"], Piece]
"""Makes the piece of ``text[start:end]``, given its summed count where there is one (else it counts)."""
Descend = Callable[[Atom, int, int], list[Piece]]
"""Cuts one atom too big for a piece: ``descend(atom, first_limit, limit)``."""
NodeCut = Callable[["Cutter", InnerNode, tuple[int, int], int, int, str], list[Piece]]
"""A kind's rule for an inner block: ``cut(cutter, node, span, first_limit, limit, flag)``, ``span`` the
node's characters (blank lines at its end left out), ``flag`` that of the block the node is in."""


class Cutter:
    """One block being cut: the document, its counts and atoms (kept on it), and :meth:`pack`.

    ``node_cutters`` is the rule of each kind of inner block (by ``InnerNode.kind``; the text rule
    for the others): :meth:`cut_node` looks a node's kind up there, so that a kind's module
    descends into any other kind without importing it.
    """

    def __init__(
        self, doc: Document, repeat_table_header: bool, node_cutters: Mapping[str, NodeCut], default: NodeCut
    ) -> None:
        self.doc = doc
        self.text = doc.text
        self.src = doc.source
        self.tokenizer = doc.tokenizer
        self.count = doc.tokenizer.count
        self.additive = doc.tokenizer.line_additive
        self.cache = cut_cache(doc)
        self.repeat_table_header = repeat_table_header
        self.node_cutters = node_cutters
        self.default_cut = default

    def span_tokens(self, start: int, end: int) -> int:
        """Tokens of ``text[start:end]``, remembered on the document across re-chunks."""
        return self.spans_tokens([(start, end)])[0]

    def spans_tokens(self, spans: list[tuple[int, int]]) -> list[int]:
        """:meth:`span_tokens` of each span, those not remembered read off the parse's encoding at once."""
        known = self.cache.span_tokens
        found: list[int | None] = [known.get(span) for span in spans]
        missing = [k for k, tokens in enumerate(found) if tokens is None]
        if missing:
            read = self.doc.lines_tokens([spans[k] for k in missing])
            for k, tokens in zip(missing, read, strict=True):
                if tokens is None:
                    start, end = spans[k]
                    tokens = self.count(self.text[start:end])
                found[k] = known[spans[k]] = tokens
        return [tokens or 0 for tokens in found]  # every one is an int by now

    def text_tokens(self, text: str) -> int:
        """Tokens of an added line (a re-opened fence, a table header), remembered on the document."""
        known = self.cache.text_tokens
        found = known.get(text)
        if found is None:
            found = known[text] = self.count(text)
        return found

    def join(self, left_start: int, left_end: int, right_start: int) -> int | None:
        """Tokens the source between ``left_end`` and ``right_start`` adds to ``text[left_start:left_end]``.

        Exact (see ``chunker.tokens``) when the tokenizer is line-additive, the gap is
        blank and ends a line, and a non-blank line starts at ``right_start``: what
        follows the gap then starts a new pre-token. Otherwise None.
        """
        text = self.text
        if not self.additive or right_start <= left_end or text[right_start - 1] not in "\r\n":
            return None
        gap = text[left_end:right_start]
        if gap.strip() or not STARTS_LINE_TEXT.match(text, right_start):
            return None
        if left_end > left_start and text[left_end - 1] in ASCII_WORD:
            # the common case: a word or number ends the line, nothing after it (see join_cost)
            return self._cached_join_cost("", gap)
        return self.join_cost(self.last_line(left_start, left_end), gap)

    def last_line(self, start: int, end: int) -> str:
        """The last line of ``text[start:end]``: the last pre-token lies within it."""
        if end <= start:
            return ""
        return self.text[max(start, self.src.line_starts[self.src.line_index(end - 1)]) : end]

    def join_cost(self, line: str, gap: str) -> int | None:
        """``tokenizer.join_cost(line, gap)``; None after trailing white space other than
        spaces and tabs (a no-break space...), which that cost does not read.

        The cost depends only on what follows the line's last ASCII letter or digit (the
        last pre-token never holds one): that ending and the gap key a cache on the document.
        """
        if not self.additive or line[len(line.rstrip()) :].strip(_LINE_BLANK):
            return None
        ending = _AFTER_WORD.search(line[-16:])
        if ending is None:  # no letter or digit near the end: not cached
            return self.tokenizer.join_cost(line, gap)
        return self._cached_join_cost(ending.group(), gap)

    def _cached_join_cost(self, ending: str, gap: str) -> int:
        """``tokenizer.join_cost(ending, gap)``, remembered on the document."""
        known = self.cache.join_costs
        found = known.get((ending, gap))
        if found is None:
            found = known[ending, gap] = self.tokenizer.join_cost(ending, gap)
        return found

    def run(self, atoms: list[Atom]) -> Run:
        """Counts of ``atoms`` and of the joins between them, remembered on the document."""
        key = tuple(n for a in atoms for n in (a.start, a.end))
        known = self.cache.runs
        found = known.get(key)
        if found is None:
            sizes = self.spans_tokens([(a.start, a.end) for a in atoms])
            joins = [self.join(a.start, a.end, b.start) for a, b in pairwise(atoms)]
            guesses = [int(_LINE_BREAK.search(self.text, a.end, b.start) is not None) for a, b in pairwise(atoms)]
            found = known[key] = Run(sizes, [*joins, 0], [*guesses, 0])
        return found

    def added_line(self, line: str) -> tuple[int, int] | None:
        """``(tokens, join)`` of an added line put before a piece (the line, then a line break), or None."""
        join = self.join_cost(line[line.rfind("\n") + 1 :], "\n")
        return None if join is None else (self.text_tokens(line), join)

    # -- atoms ---------------------------------------------------------------

    def line_atoms(self, first: int, stop: int, strength: int = LINE) -> list[Atom]:
        """Lines ``[first, stop)``, a blank line joining the line above it; kept on the document.

        A line before a blank line ends a paragraph of its own (in code: a function, a
        step): a better cut than between two lines that run on.
        """
        if stop <= first:
            return []
        known = self.cache.lines
        found = known.get((first, stop, strength))
        if found is None:
            found = known[first, stop, strength] = tuple(self.read_line_atoms(first, stop, strength))
        return list(found)

    def read_line_atoms(self, first: int, stop: int, strength: int) -> list[Atom]:
        atoms: list[Atom] = []
        text, starts, ends, non_blank = self.text, self.src.line_starts, self.src.line_ends, NON_BLANK.search
        for line in range(first, stop):
            start, end = starts[line], ends[line]
            if non_blank(text, start, end) is None:  # blank (a slice would copy each line)
                if atoms and atoms[-1].strength < PARAGRAPH:
                    atoms[-1] = Atom(atoms[-1].start, atoms[-1].end, PARAGRAPH)
                continue
            atoms.append(Atom(start, end, strength))
        return atoms

    def node_atoms(self, nodes: list[InnerNode] | tuple[InnerNode, ...], first: int, stop: int) -> list[Atom]:
        """Inner blocks as atoms; lines no node covers become line atoms."""
        atoms: list[Atom] = []
        cursor = first
        for node in nodes:
            node_first, node_stop = max(node.first, cursor), min(node.stop, stop)
            if node_first >= node_stop:
                continue
            atoms.extend(self.line_atoms(cursor, node_first))
            span = self.trimmed(node_first, node_stop)
            if span is not None:
                atoms.append(Atom(span[0], span[1], PARAGRAPH, node, PARAGRAPH))
            cursor = node_stop
        atoms.extend(self.line_atoms(cursor, stop))
        return atoms

    def trimmed(self, first: int, stop: int) -> tuple[int, int] | None:
        starts, ends = self.src.line_starts, self.src.line_ends
        while stop > first and NON_BLANK.search(self.text, starts[stop - 1], ends[stop - 1]) is None:
            stop -= 1
        return self.src.lines_to_chars(first, stop) if stop > first else None

    def cut_node(self, node: InnerNode, first_limit: int, limit: int, flag: str) -> list[Piece]:
        """An inner block, by its kind's rule (``node_cutters``)."""
        span = self.trimmed(node.first, node.stop)
        if span is None:
            return []
        return self.node_cutters.get(node.kind, self.default_cut)(self, node, span, first_limit, limit, flag)

    # -- packing atoms into pieces ------------------------------------------

    def pack(
        self,
        atoms: list[Atom],
        first_limit: int,
        limit: int,
        make: Make,
        descend: Descend,
        overhead: int = 0,
        alone: Callable[[Atom], bool] | None = None,
    ) -> list[Piece]:
        """Balanced: cut the atoms into the fewest pieces the limits allow, each about the same size.

        Each cut is at the best boundary near an even share of what is left (:meth:`_cut_after`).
        ``overhead`` estimates what ``make`` adds (fences, header); every piece is
        then counted exactly (summed where :class:`Run` can) and shrunk until it fits.
        A sliver before an atom too big for any piece (an item's first line before its
        nested list) starts the first piece of that atom instead (:meth:`_carried`). An atom for
        which ``alone`` holds never starts a piece with other atoms: it is descended into, as one
        too big is (a fence that does not read as one where a piece starts with it: :func:`chunker.cut.code.fragile`).
        """
        pieces: list[Piece] = []
        run = self.run(atoms)
        small = small_size(limit)
        i = 0
        while i < len(atoms):
            cap = first_limit if not pieces else limit
            if alone is not None and alone(atoms[i]):
                pieces.extend(self._descend_within(descend, atoms[i], cap, limit, bool(pieces)))
                i += 1
                continue
            j = self._cut_after(atoms, run, i, cap - overhead, limit - overhead)
            j, piece = self._fitted(atoms, run, i, j, cap, make)
            if piece.tokens > cap:
                pieces.extend(self._descend_within(descend, atoms[i], cap, limit, bool(pieces)))
                i += 1
                continue
            if j < len(atoms) and piece.tokens < small and run.sizes[j] + overhead > limit:
                pieces.extend(self._carried(piece, atoms[j - 1], atoms[j], cap, limit, descend))
                i = j + 1
                continue
            pieces.append(piece)
            i = j
        return pieces

    @staticmethod
    def _fitted(atoms: list[Atom], run: Run, i: int, j: int, cap: int, make: Make) -> tuple[int, Piece]:
        """The piece of atoms ``[i, j')`` for the largest ``j' <= j`` whose piece fits ``cap`` (``j' = i + 1``,
        over the cap, when none does: the caller descends into that atom).

        The estimate that chose ``j`` can fall far short of the exact count: a word of one token alone may
        take two after a space (``<a <a <a``), so a piece estimated at the cap counts twice that. Taking one
        atom off at a time then recounted the piece once per atom, a cost that grew with the cap on every
        piece (docs/SECURITY.md). A near miss still takes a few atoms off one at a time; a far one is
        bisected, so a piece is counted a few times plus the log of its atoms.
        """

        def piece_of(stop: int) -> Piece:
            return make(atoms[i].start, atoms[stop - 1].end, run.tokens(i, stop))

        piece = piece_of(j)
        for _ in range(_NEAR_MISS):
            if piece.tokens <= cap or j - i <= 1:
                return j, piece
            j -= 1
            piece = piece_of(j)
        if piece.tokens <= cap or j - i <= 1:
            return j, piece
        low, high = i + 1, j  # [i, high) is over the cap; the answer is in [low, high), else i + 1
        fitted: tuple[int, Piece] | None = None
        while low < high:
            middle = (low + high) // 2
            candidate = piece_of(middle)
            if candidate.tokens <= cap:
                fitted, low = (middle, candidate), middle + 1
            else:
                high = middle
        return fitted if fitted is not None else (i + 1, piece_of(i + 1))

    def _carried(
        self,
        piece: Piece,
        before: Atom,
        atom: Atom,
        cap: int,
        limit: int,
        descend: Descend,
    ) -> list[Piece]:
        """``piece`` (ending with atom ``before``), then ``atom`` cut, ``piece`` joined to its first part.

        ``atom`` is cut with its first part within what ``piece`` leaves of ``cap``. Where the
        two cannot join (an added prefix, a count over the cap), they stay apart.
        """
        join = self.join(before.start, before.end, atom.start)
        room = cap - piece.tokens - (1 if join is None else join)
        if piece.prefix or piece.suffix or room < 1:
            return [piece, *self._descend_within(descend, atom, limit, limit, True)]
        parts = self._descend_within(descend, atom, room, limit, False)
        head = parts[0] if parts else None
        if head is None or head.prefix:
            return [piece, *parts]
        if join is not None and head.start == atom.start:
            tokens = piece.tokens + join + head.tokens
        else:
            tokens = self.count(self.text[piece.start : head.end] + head.suffix)
        if tokens > cap:
            return [piece, *parts]
        joined = Piece(piece.start, head.end, tokens, "", head.suffix, head.flag, piece.hard or head.hard)
        return [joined, *parts[1:]]

    @staticmethod
    def _descend_within(descend: Descend, atom: Atom, first_cap: int, cap: int, started: bool) -> list[Piece]:
        """Descend into an atom; if joining estimates overshot, retry with tighter limits."""
        squeeze = 0
        while True:
            out = descend(atom, max(1, first_cap - squeeze), max(1, cap - squeeze))
            over = max((p.tokens - (cap if n or started else first_cap) for n, p in enumerate(out)), default=0)
            if over <= 0 or squeeze >= cap:
                return out
            squeeze += over

    @staticmethod
    def _cut_after(atoms: list[Atom], run: Run, i: int, room: int, later: int) -> int:
        """Where the piece starting at atom ``i`` ends: ``j`` for atoms ``[i, j)``.

        ``room`` is what this piece may hold, ``later`` what each later one may. The piece
        aims at an even share of what is left (:func:`share`), so that no last piece is a
        sliver. Among the cuts within ``_BALANCE`` of that aim, the strongest boundary wins
        (docs/method.md §5 step 7 order), then the one nearest the aim; with none there (atoms too big),
        the cut nearest the aim that fits.
        """
        n = len(atoms)
        total = run.estimate(i, n)
        if total <= room or i + 1 == n:
            return n
        aim = share(total, max(room, 1), max(later, 1))
        low, high = aim * (1 - _BALANCE), min(room, aim * (1 + _BALANCE))
        best, best_key = i + 1, (-1.0, 0.0)
        nearest, nearest_gap = i + 1, float("inf")
        estimated, sizes = run.estimated, run.sizes  # run.estimate(i, j), inlined: the loop's one sum
        before = estimated[i]
        for j in range(i + 1, n):
            size = estimated[j - 1] - before + sizes[j - 1]
            if size > room and j > i + 1:
                break
            gap = abs(size - aim)
            if gap < nearest_gap:
                nearest, nearest_gap = j, gap
            if low <= size <= high:
                key = (atoms[j - 1].strength, -gap)
                if key > best_key:
                    best, best_key = j, key
        return best if best_key[0] >= 0 else nearest

    def plain(self, flag: str) -> Make:
        def make(start: int, end: int, tokens: int | None) -> Piece:
            return Piece(start, end, self.count(self.text[start:end]) if tokens is None else tokens, flag=flag)

        return make
