"""Cut one block that exceeds the hard cap into pieces of about ``target`` tokens.

Each piece is a verbatim slice of the source with its own span, plus only what
the engine must add: a re-opened code fence (prefix) and its closing fence
(suffix), or a repeated table header (prefix). A block that must become k pieces
is cut into k of about even size, each cut at the best boundary near its share
(no short last piece), and a piece still under ``SLIVER_TOKENS`` joins a
neighbour within the hard cap. Boundaries, best first:

- code: between lines, best before a blank line (blank lines stay with the line above);
- tables: between rows;
- lists: between items, then between the blocks of an item;
- blockquotes and HTML: between inner blocks, then lines;
- text: between lines and sentences, then words, then tokens.

Counting: each atom (line, inner block) is counted once and remembered on the
document. With a line-additive tokenizer (see ``chunker.tokens``) a piece made of
whole lines is counted by summing its atoms and the joins between them
(:class:`_Run`), and an added fence or header line by one more join; only pieces
cut inside a line, and every piece for other tokenizers, are counted on their text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, pairwise

from chunker.model import Block, CacheSlot, Document
from chunker.parse import InnerNode, fence_closes, inner_structure, unclosed_fence
from chunker.tokens import ASCII_WORD

__all__ = ["CutCache", "Piece", "cut_block", "cut_cache", "sentence_starts"]

_SENTENCE_END = re.compile(r"""(?:[.!?…]+["'”’)\]]*(?=\s)|[。！？]+)""")
_ENDS_SENTENCE = re.compile(r"[.!?…。！？][\"'”’)\]]*\Z")
_WORD_GAP = re.compile(r"\s+")
_NON_BLANK = re.compile(r"\S")
_LIST_MARKER = re.compile(r"[-*+]|\d{1,9}[.)]")
# A line with text: blanks (not line breaks), then a non-blank character.
_STARTS_LINE_TEXT = re.compile(r"[ \t\f\v]*[^\s]")
_LINE_BREAK = re.compile(r"[\r\n]")
_AFTER_WORD = re.compile(r"(?<=[0-9A-Za-z])[^0-9A-Za-z]*\Z")

# A cut falls within this fraction of an even share of what is left (see ``_Cutter._cut_after``).
_BALANCE = 0.3

# Boundary strength after an atom: higher is a better place to cut.
_PARAGRAPH, _SENTENCE, _LINE, _WORD, _TOKEN = 5, 4, 3, 2, 1


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
class _Atom:
    start: int
    end: int
    strength: float  # of the boundary after this atom (see _by_indentation for fractions)
    node: InnerNode | None = None  # for descending into nested structure
    level: int = _LINE  # how this atom was found; descending goes finer


def _share(total: int, room: int, later: int) -> float:
    """What one piece should hold of ``total`` still to cut: an even share over the fewest pieces.

    The fewest: this one holding ``room``, each later one ``later``. Never more than ``room``.
    """
    if total <= room:
        return total
    pieces = 1 + math.ceil((total - room) / later)
    return min(room, total / pieces)


class _Run:
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


@dataclass(frozen=True, slots=True)
class _FencePlan:
    """The fence lines a cut fenced code block adds to its pieces, chosen so that each piece read on its
    own (as CommonMark reads a document) is one closed fence holding its lines of code.

    A piece other than the first starts with ``reopen``; a piece other than the last ends with
    ``close``, and so does the last where the source's closing line does not close ``reopen`` read
    alone (a closer indented four columns or more once the list item around it is gone: it is then
    a line of code, and ``close`` follows it). The first piece starts with the source's opening
    line where that opens a fence read alone (``source_opens``; a piece that goes on ends with
    ``source_close``); where it does not (indented four columns or more outside its list item),
    ``reopen`` comes before it and it reads as a line of code.
    """

    reopen: str  # the re-opened fence line, with its line break
    close: str  # a line break, then the closing fence line after a re-opened fence
    source_close: str  # a line break, then the closing fence line after the source's opening line
    source_opens: bool  # the source's opening line, at the start of a piece, opens a fence
    closes_source: bool  # the source's closing line closes the source's opening one, read alone
    closes_reopen: bool  # the source's closing line closes ``reopen``, read alone
    # For a piece that starts inside a line (a code line too long for the limit, cut): it does not
    # start with the line's ``>`` markers, so its fence is at the margin (the same as the above
    # outside block quotes).
    margin_reopen: str
    margin_close: str
    closes_margin: bool


@dataclass(slots=True)
class CutCache:
    """Limit-independent work of cutting one document, kept on it (:func:`cut_cache`) so that
    re-chunking with new limits reuses it: exact counts of spans and of added lines, join costs,
    runs of atoms, each block's inner structure (by the block's start), the lines of each code
    body cut (by its line range), any run of lines as atoms (by its range and strength) and the
    added fence lines of each fenced code block cut (by its line range)."""

    span_tokens: dict[tuple[int, int], int] = field(default_factory=dict)
    text_tokens: dict[str, int] = field(default_factory=dict)
    join_costs: dict[tuple[str, str], int] = field(default_factory=dict)
    runs: dict[tuple[int, ...], _Run] = field(default_factory=dict)
    inner: dict[int, tuple[InnerNode, ...]] = field(default_factory=dict)
    code_lines: dict[tuple[int, int], tuple[_Atom, ...]] = field(default_factory=dict)
    lines: dict[tuple[int, int, int], tuple[_Atom, ...]] = field(default_factory=dict)
    fences: dict[tuple[int, int], _FencePlan] = field(default_factory=dict)


_CUTS: CacheSlot[CutCache] = CacheSlot("cuts")


def cut_cache(doc: Document) -> CutCache:
    """The document's :class:`CutCache`, made on first use."""
    cache = doc.caches.get(_CUTS)
    if cache is None:
        cache = doc.caches.put(_CUTS, CutCache())
    return cache


_Make = Callable[[int, int, "int | None"], Piece]


class _Cutter:
    def __init__(self, doc: Document, repeat_table_header: bool) -> None:
        self.doc = doc
        self.text = doc.text
        self.src = doc.source
        self.tokenizer = doc.tokenizer
        self.count = doc.tokenizer.count
        self.additive = doc.tokenizer.line_additive
        self.cache = cut_cache(doc)
        self.repeat_table_header = repeat_table_header

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
        if gap.strip() or not _STARTS_LINE_TEXT.match(text, right_start):
            return None
        if left_end > left_start and text[left_end - 1] in ASCII_WORD:
            # the common case: a word or number ends the line, nothing after it (see _join_cost)
            return self._cached_join_cost("", gap)
        return self._join_cost(self.last_line(left_start, left_end), gap)

    def last_line(self, start: int, end: int) -> str:
        """The last line of ``text[start:end]``: the last pre-token lies within it."""
        if end <= start:
            return ""
        return self.text[max(start, self.src.line_starts[self.src.line_index(end - 1)]) : end]

    def _join_cost(self, line: str, gap: str) -> int | None:
        """``tokenizer.join_cost(line, gap)``; None after trailing white space other than
        spaces and tabs (a no-break space...), which that cost does not read.

        The cost depends only on what follows the line's last ASCII letter or digit (the
        last pre-token never holds one): that ending and the gap key a cache on the document.
        """
        if not self.additive or line[len(line.rstrip()) :].strip(" \t\f\v"):
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

    def run(self, atoms: list[_Atom]) -> _Run:
        """Counts of ``atoms`` and of the joins between them, remembered on the document."""
        key = tuple(n for a in atoms for n in (a.start, a.end))
        known = self.cache.runs
        found = known.get(key)
        if found is None:
            sizes = self.spans_tokens([(a.start, a.end) for a in atoms])
            joins = [self.join(a.start, a.end, b.start) for a, b in pairwise(atoms)]
            guesses = [int(_LINE_BREAK.search(self.text, a.end, b.start) is not None) for a, b in pairwise(atoms)]
            found = known[key] = _Run(sizes, [*joins, 0], [*guesses, 0])
        return found

    def added_line(self, line: str) -> tuple[int, int] | None:
        """``(tokens, join)`` of an added line put before a piece (the line, then a line break), or None."""
        join = self._join_cost(line[line.rfind("\n") + 1 :], "\n")
        return None if join is None else (self.text_tokens(line), join)

    # -- atoms ---------------------------------------------------------------

    def line_atoms(self, first: int, stop: int, strength: int = _LINE) -> list[_Atom]:
        """Lines ``[first, stop)``, a blank line joining the line above it; kept on the document.

        A line before a blank line ends a paragraph of its own (in code: a function, a
        step): a better cut than between two lines that run on.
        """
        if stop <= first:
            return []
        known = self.cache.lines
        found = known.get((first, stop, strength))
        if found is None:
            found = known[first, stop, strength] = tuple(self._line_atoms(first, stop, strength))
        return list(found)

    def _line_atoms(self, first: int, stop: int, strength: int) -> list[_Atom]:
        atoms: list[_Atom] = []
        text, starts, ends, non_blank = self.text, self.src.line_starts, self.src.line_ends, _NON_BLANK.search
        for line in range(first, stop):
            start, end = starts[line], ends[line]
            if non_blank(text, start, end) is None:  # blank (a slice would copy each line)
                if atoms and atoms[-1].strength < _PARAGRAPH:
                    atoms[-1] = _Atom(atoms[-1].start, atoms[-1].end, _PARAGRAPH)
                continue
            atoms.append(_Atom(start, end, strength))
        return atoms

    def code_lines(self, first: int, stop: int) -> list[_Atom]:
        """Lines ``[first, stop)`` of a code body as atoms (:func:`_by_indentation`), kept on the document."""
        known = self.cache.code_lines
        found = known.get((first, stop))
        if found is None:
            found = known[first, stop] = tuple(_by_indentation(self.text, self._line_atoms(first, stop, _LINE)))
        return list(found)

    def fence_closed(self, node: InnerNode, first: int, stop: int) -> bool:
        """Whether line ``stop - 1`` closes the fenced code block opened at line ``first``."""
        closing_line = self.text[self.src.line_starts[stop - 1] : self.src.line_end(stop - 1)].strip()
        return (
            stop - 1 > first
            and closing_line.lstrip("> ").startswith(node.fence[0] * len(node.fence))
            and set(closing_line.lstrip("> ").rstrip()) <= {node.fence[0]}
        )

    def fence_plan(self, node: InnerNode, first: int, stop: int, closed: bool) -> _FencePlan:
        """The fence lines added to the pieces of the fenced code block at lines ``[first, stop)``.

        A piece holds whole lines of the source, each with what its list items and block quotes
        put before it; read alone, a list item around it is gone (its indentation is only
        indentation), block quotes stay. So the re-opened fence goes inside the block quotes that
        every line of the piece keeps (``>`` markers within three columns of indentation), as far
        in as the source's opening line (at most three columns), and the closing fence under it.
        Its fence is longer than any run of the fence character that would close it early (the
        source's own length, unless a line of code would close it read alone).
        """
        known = self.cache.fences
        found = known.get((first, stop))
        if found is not None:
            return found
        text, starts, line_end = self.text, self.src.line_starts, self.src.line_end
        opening = text[starts[first] : line_end(first)]
        at = opening.find(node.fence)
        indent = opening[:at] if at >= 0 else ""
        info = opening[len(indent) + len(node.fence) :] if at >= 0 else ""
        blank = _LIST_MARKER.sub(lambda m: " " * len(m.group()), indent)
        marks = _quote_marks(blank)
        depth = len(marks)
        lines = range(first + 1, stop)  # the body, and the source's closing line (it must stay inside too)
        for line in lines:
            if not depth:
                break
            depth = min(depth, len(_quote_marks(text[starts[line] : line_end(line)], depth)))
        offset, column, content = marks[depth - 1] if depth else (0, 0, 0)
        quote = blank[:offset]
        pad = " " * min(3, _column(blank, offset, column) - content)
        char, length = node.fence[0], len(node.fence)
        source_opens = fence_closes(opening, blank + node.fence)
        # the lines of code: the body, and the opening line where it does not open a fence read alone
        body = range(first + source_opens, stop - 1 if closed else stop)
        if body and text.find(char * length, starts[body[0]], line_end(body[-1])) >= 0:
            for line in body:
                run = _closing_run(text[starts[line] : line_end(line)], depth, char)
                if run >= length:
                    length = run + 1
        fence = char * length
        reopen, close = quote + pad + fence + info, quote + pad + fence
        if not fence_closes(reopen, close):  # never seen: a fence at the margin always works
            reopen, close = fence + info, fence
        closing = text[starts[stop - 1] : line_end(stop - 1)] if closed else ""
        closes_reopen = closed and fence_closes(reopen, closing)
        margin_reopen, margin_close, closes_margin = reopen, close, closes_reopen
        if depth:
            margin_reopen, margin_close = fence + info, fence
            closes_margin = closed and fence_closes(margin_reopen, closing)
        found = known[first, stop] = _FencePlan(
            reopen + "\n",
            "\n" + close,
            "\n" + blank + fence,
            source_opens,
            closed and fence_closes(opening, closing),
            closes_reopen,
            margin_reopen + "\n",
            "\n" + margin_close,
            closes_margin,
        )
        return found

    def node_atoms(self, nodes: list[InnerNode] | tuple[InnerNode, ...], first: int, stop: int) -> list[_Atom]:
        """Inner blocks as atoms; lines no node covers become line atoms."""
        atoms: list[_Atom] = []
        cursor = first
        for node in nodes:
            node_first, node_stop = max(node.first, cursor), min(node.stop, stop)
            if node_first >= node_stop:
                continue
            atoms.extend(self.line_atoms(cursor, node_first))
            span = self._trimmed(node_first, node_stop)
            if span is not None:
                atoms.append(_Atom(span[0], span[1], _PARAGRAPH, node, _PARAGRAPH))
            cursor = node_stop
        atoms.extend(self.line_atoms(cursor, stop))
        return atoms

    def _trimmed(self, first: int, stop: int) -> tuple[int, int] | None:
        starts, ends = self.src.line_starts, self.src.line_ends
        while stop > first and _NON_BLANK.search(self.text, starts[stop - 1], ends[stop - 1]) is None:
            stop -= 1
        return self.src.lines_to_chars(first, stop) if stop > first else None

    def sub_line_atoms(self, start: int, end: int, level: int) -> list[_Atom]:
        """Sentences (level _SENTENCE) or words (_WORD) of one line or sentence."""
        segment = self.text[start:end]
        atoms: list[_Atom] = []
        cursor = 0
        if level == _SENTENCE:
            for match in _SENTENCE_END.finditer(segment):
                cut = match.end()
                if segment[cursor:cut].strip():
                    atoms.append(self._stripped(start, cursor, cut, _SENTENCE))
                cursor = cut
        else:
            for match in _WORD_GAP.finditer(segment):
                if segment[cursor : match.start()].strip():
                    atoms.append(_Atom(start + cursor, start + match.start(), _WORD, level=_WORD))
                cursor = match.end()
        if segment[cursor:].strip():
            atoms.append(self._stripped(start, cursor, len(segment), level))
        return atoms

    def _stripped(self, base: int, first: int, stop: int, level: int) -> _Atom:
        segment = self.text[base + first : base + stop]
        lead = len(segment) - len(segment.lstrip())
        tail = len(segment.rstrip())
        return _Atom(base + first + lead, base + first + tail, level, level=level)

    # -- packing atoms into pieces ------------------------------------------

    def pack(
        self,
        atoms: list[_Atom],
        first_limit: int,
        limit: int,
        make: _Make,
        descend: Callable[[_Atom, int, int], list[Piece]],
        overhead: int = 0,
        alone: Callable[[_Atom], bool] | None = None,
    ) -> list[Piece]:
        """Balanced: cut the atoms into the fewest pieces the limits allow, each about the same size.

        Each cut is at the best boundary near an even share of what is left (:meth:`_cut_after`).
        ``overhead`` estimates what ``make`` adds (fences, header); every piece is
        then counted exactly (summed where :class:`_Run` can) and shrunk until it fits.
        A sliver before an atom too big for any piece (an item's first line before its
        nested list) starts the first piece of that atom instead (:meth:`_carried`). An atom for
        which ``alone`` holds never starts a piece with other atoms: it is descended into, as one
        too big is (a fence that does not read as one where a piece starts with it: :meth:`_fragile`).
        """
        pieces: list[Piece] = []
        run = self.run(atoms)
        small = min(SLIVER_TOKENS, limit // 4)
        i = 0
        while i < len(atoms):
            cap = first_limit if not pieces else limit
            if alone is not None and alone(atoms[i]):
                pieces.extend(self._descend_within(descend, atoms[i], cap, limit, bool(pieces)))
                i += 1
                continue
            j = self._cut_after(atoms, run, i, cap - overhead, limit - overhead)
            piece = make(atoms[i].start, atoms[j - 1].end, run.tokens(i, j))
            while piece.tokens > cap and j - i > 1:
                j -= 1
                piece = make(atoms[i].start, atoms[j - 1].end, run.tokens(i, j))
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

    def _carried(
        self,
        piece: Piece,
        before: _Atom,
        atom: _Atom,
        cap: int,
        limit: int,
        descend: Callable[[_Atom, int, int], list[Piece]],
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
    def _descend_within(
        descend: Callable[[_Atom, int, int], list[Piece]], atom: _Atom, first_cap: int, cap: int, started: bool
    ) -> list[Piece]:
        """Descend into an atom; if joining estimates overshot, retry with tighter limits."""
        squeeze = 0
        while True:
            out = descend(atom, max(1, first_cap - squeeze), max(1, cap - squeeze))
            over = max((p.tokens - (cap if n or started else first_cap) for n, p in enumerate(out)), default=0)
            if over <= 0 or squeeze >= cap:
                return out
            squeeze += over

    @staticmethod
    def _cut_after(atoms: list[_Atom], run: _Run, i: int, room: int, later: int) -> int:
        """Where the piece starting at atom ``i`` ends: ``j`` for atoms ``[i, j)``.

        ``room`` is what this piece may hold, ``later`` what each later one may. The piece
        aims at an even share of what is left (:func:`_share`), so that no last piece is a
        sliver. Among the cuts within ``_BALANCE`` of that aim, the strongest boundary wins
        (docs/method.md §5 step 7 order), then the one nearest the aim; with none there (atoms too big),
        the cut nearest the aim that fits.
        """
        n = len(atoms)
        total = run.estimate(i, n)
        if total <= room or i + 1 == n:
            return n
        aim = _share(total, max(room, 1), max(later, 1))
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

    # -- per kind ----------------------------------------------------------

    def plain(self, flag: str) -> _Make:
        def make(start: int, end: int, tokens: int | None) -> Piece:
            return Piece(start, end, self.count(self.text[start:end]) if tokens is None else tokens, flag=flag)

        return make

    def cut_text(self, start: int, end: int, first_limit: int, limit: int, flag: str, level: int) -> list[Piece]:
        """Cut a run of text: lines, then sentences, then words, then tokens."""
        make = self.plain(flag)
        if level >= _LINE:
            first, stop = self.src.line_index(start), self.src.line_index(max(start, end - 1)) + 1
            atoms = self.line_atoms(first, stop)
            atoms = [_Atom(max(a.start, start), min(a.end, end), _LINE) for a in atoms]
            atoms = self._mark_sentence_ends(atoms)
            if len(atoms) > 1:
                return self.pack(atoms, first_limit, limit, make, self._descend_text(flag, _SENTENCE))
            level = _SENTENCE
        if level >= _SENTENCE:
            atoms = self.sub_line_atoms(start, end, _SENTENCE)
            if len(atoms) > 1:
                return self.pack(atoms, first_limit, limit, make, self._descend_text(flag, _WORD))
            level = _WORD
        if level >= _WORD:
            atoms = self.sub_line_atoms(start, end, _WORD)
            if len(atoms) > 1:
                return self.pack(atoms, first_limit, limit, self._hard(make), self._descend_text(flag, _TOKEN))
        return self.cut_tokens(start, end, first_limit, limit, flag)

    def _mark_sentence_ends(self, atoms: list[_Atom]) -> list[_Atom]:
        """A line that ends a sentence is a better cut than a wrapped line."""
        out = []
        for atom in atoms:
            strong = bool(_ENDS_SENTENCE.search(self.text, max(atom.start, atom.end - 8), atom.end))
            out.append(_Atom(atom.start, atom.end, _SENTENCE if strong else _LINE))
        return out

    def _descend_text(self, flag: str, level: int) -> Callable[[_Atom, int, int], list[Piece]]:
        def descend(atom: _Atom, first_limit: int, limit: int) -> list[Piece]:
            return self.cut_text(atom.start, atom.end, first_limit, limit, flag, level)

        return descend

    @staticmethod
    def _hard(make: _Make) -> _Make:
        def hard_make(start: int, end: int, tokens: int | None) -> Piece:
            piece = make(start, end, tokens)
            return Piece(piece.start, piece.end, piece.tokens, flag=piece.flag, hard=True)

        return hard_make

    def cut_tokens(self, start: int, end: int, first_limit: int, limit: int, flag: str) -> list[Piece]:
        """Last resort: token boundaries (characters for a plain counting callable), pieces of even size."""
        pieces: list[Piece] = []
        fit = self.doc.tokenizer.fit_prefix
        left = self.count(self.text[start:end])  # about what is still to cut
        while start < end:
            cap = first_limit if not pieces else limit
            size_aim = max(1, min(cap, math.ceil(_share(left, max(cap, 1), max(limit, 1)))))
            window = max(size_aim * 16, 256)  # never re-encode the whole remainder of a huge line
            while True:
                size = fit(self.text[start : min(end, start + window)], size_aim)
                if size < window or start + window >= end:
                    break
                window *= 2
            piece_end = start + max(size, 1)  # always progress
            kept = len(self.text[start:piece_end].rstrip())
            if kept:
                body = self.text[start : start + kept]
                pieces.append(Piece(start, start + kept, self.count(body), flag=flag, hard=True))
                left -= pieces[-1].tokens
            start = piece_end
            while start < end and self.text[start].isspace():
                start += 1
        return pieces

    def cut_code(self, block_start: int, node: InnerNode, first_limit: int, limit: int) -> list[Piece]:
        """Between lines; every piece a complete fence with the original fence and info string."""
        first, stop = node.first, node.stop
        span = self._trimmed(first, stop)
        if span is None:
            return []
        stop = self.src.line_index(span[1]) + 1
        if not node.fence:  # indented code: pieces stay indented code
            atoms = self.line_atoms(first, stop)
            return self.pack(
                atoms, first_limit, limit, self.plain("split_code"), self._descend_text("split_code", _WORD)
            )
        closed = self.fence_closed(node, first, stop)
        body_stop = stop - 1 if closed else stop
        block_end = span[1]
        open_start = self.src.line_starts[first]
        if not self.code_lines(first + 1, body_stop):  # only fence lines: nothing to re-fence, and cut
            # between them each piece would open a fence. One piece (a block over the hard cap then falls
            # back to plain text: Packing.cut).
            return [self.plain("split_code")(span[0], span[1], None)]
        plan = self.fence_plan(node, first, stop, closed)
        # Where the opening line does not open a fence read alone, it is a line of code like the others.
        atoms = self.code_lines(first + plan.source_opens * 1, body_stop)
        body_start, body_end = atoms[0].start, atoms[-1].end
        reopen, close, source_close = plan.reopen, plan.close, plan.source_close
        # What each end adds to a piece of whole body lines, where it can be summed (else None):
        open_end = self.src.line_end(first)
        open_join = self.join(open_start, open_end, body_start)
        add_open = None if open_join is None else self.span_tokens(open_start, open_end) + open_join
        add_close: int | None = 0  # not closed: the body's last line ends the block
        if block_end != body_end:
            close_start = self.src.line_starts[stop - 1]
            close_join = self.join(atoms[-1].start, body_end, close_start)
            add_close = None if close_join is None else close_join + self.span_tokens(close_start, block_end)
        reopen_line = self.added_line(reopen[:-1])
        add_reopen = None if reopen_line is None else sum(reopen_line)
        close_tokens = {close: self.text_tokens(close[1:]), source_close: self.text_tokens(source_close[1:])}
        margin = plan.margin_reopen != reopen  # a piece that starts inside a line re-opens at the margin

        def make(start: int, end: int, tokens: int | None = None) -> Piece:
            # The source's own opening (closing) fence line goes with the first (last) piece;
            # other pieces get a re-opened (closing) fence added. Where the source's line does not
            # open (close) the fence read alone, it is a line of code between added ones (_FencePlan).
            prefix = ""
            added: list[int | None] = [tokens]
            source_opens = in_line = False
            # (a slice would copy the body: quadratic)
            if plan.source_opens and _NON_BLANK.search(self.text, body_start, start) is None:
                source_opens = True
                added.append(add_open if start == body_start else None)
                start = open_start
            elif margin and start != self.src.line_starts[self.src.line_index(start)]:
                in_line = True
                prefix = plan.margin_reopen
                added.append(None)
            else:
                prefix = reopen
                added.append(add_reopen if _STARTS_LINE_TEXT.match(self.text, start) else None)
            suffix = source_close if source_opens else plan.margin_close if in_line else close
            if _NON_BLANK.search(self.text, end, body_end) is None:
                closes = plan.closes_source if source_opens else plan.closes_margin if in_line else plan.closes_reopen
                if not closed or closes:
                    added.append(add_close if end == body_end else None)
                    suffix = ""
                else:
                    added.append(None)
                end = block_end
            elif tokens is not None:
                join = self._join_cost(self.last_line(start, end), "\n")
                added.append(None if join is None or in_line else join + close_tokens[suffix])
            if None in added:
                summed = self.count(prefix + self.text[start:end] + suffix)
            else:
                summed = sum(n for n in added if n is not None)
            return Piece(start, end, summed, prefix, suffix, "split_code")

        overhead = self.text_tokens(reopen) + self.text_tokens(close) + 2
        fence_chars = {"`", "~"}
        quoted = "> \t" if margin else ""  # in a block quote, the line's markers before a run too

        def fence_only(start: int, end: int) -> bool:
            return set(self.text[start:end].strip().lstrip(quoted)) <= fence_chars

        def descend(atom: _Atom, first_cap: int, cap: int) -> list[Piece]:
            # One code line longer than the limit: cut it as text, each piece fenced.
            inner = self.cut_text(
                atom.start, atom.end, max(1, first_cap - overhead), max(1, cap - overhead), "split_code", _WORD
            )
            # A piece that is only a run of fence characters would close the fence: keep it joined.
            spans: list[tuple[int, int]] = []
            for p in inner:
                if spans and (fence_only(p.start, p.end) or fence_only(*spans[-1])):
                    spans[-1] = (spans[-1][0], p.end)
                else:
                    spans.append((p.start, p.end))
            return [make(start, end) for start, end in spans]

        return self.pack(atoms, first_limit, limit, make, descend, overhead)

    def cut_table(self, first: int, stop: int, first_limit: int, limit: int) -> list[Piece]:
        """Between rows; later pieces repeat the header and delimiter rows.

        The table is lines ``[first, stop)``: its header row, its delimiter row, then a body row
        on each line (a row is one line), so it needs no inner parse.
        """
        span = self._trimmed(first, stop)
        if span is None:
            return []
        header_stop = first + 2
        header = self.text[self.src.line_starts[first] : self.src.line_end(header_stop - 1)] + "\n"
        atoms = self.line_atoms(header_stop, self.src.line_index(span[1]) + 1)  # the body rows
        if not atoms:
            return self.cut_text(span[0], span[1], first_limit, limit, "split_table", _LINE)
        table_start = span[0]
        atoms[0] = _Atom(table_start, atoms[0].end, atoms[0].strength)
        header_tokens = self.text_tokens(header)
        repeat = self.repeat_table_header and header_tokens * 2 <= limit
        header_line = self.added_line(header[:-1])

        def make(start: int, end: int, tokens: int | None) -> Piece:
            prefix = header if repeat and start != table_start else ""
            if prefix and tokens is not None:
                # The header is summed like a source line before the row starting the piece.
                ok = header_line is not None and _STARTS_LINE_TEXT.match(self.text, start)
                tokens = tokens + sum(header_line) if ok and header_line is not None else None
            if tokens is None:
                tokens = self.count(prefix + self.text[start:end])
            return Piece(start, end, tokens, prefix, "", "split_table")

        def descend(atom: _Atom, first_cap: int, cap: int) -> list[Piece]:
            return self.cut_text(atom.start, atom.end, first_cap, cap, "split_table", _WORD)

        return self.pack(atoms, first_limit, limit, make, descend)

    def cut_container(self, node: InnerNode, first_limit: int, limit: int, flag: str) -> list[Piece]:
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
        atoms = self.node_atoms(children, node.first, node.stop)
        if not atoms:
            return []
        if len(atoms) == 1 and atoms[0].node is not None and atoms[0].node.kind == node.kind:
            return self.cut_node(atoms[0].node, first_limit, limit, flag)
        return self.pack(atoms, first_limit, limit, self.plain(flag), self._descend_node(flag), alone=self._fragile)

    def _fragile(self, atom: _Atom) -> bool:
        """Whether ``atom`` is a fenced code block that does not read as one closed fence where a piece
        starts with it (its opening or closing line too far in once its list item is gone)."""
        node = atom.node
        if node is None or node.kind != "code" or not node.fence:
            return False
        span = self._trimmed(node.first, node.stop)
        if span is None:
            return False
        stop = self.src.line_index(span[1]) + 1
        closed = self.fence_closed(node, node.first, stop)
        plan = self.fence_plan(node, node.first, stop, closed)
        return not plan.source_opens or (closed and not plan.closes_source)

    def _descend_node(self, flag: str) -> Callable[[_Atom, int, int], list[Piece]]:
        def descend(atom: _Atom, first_limit: int, limit: int) -> list[Piece]:
            if atom.node is None:
                return self.cut_text(atom.start, atom.end, first_limit, limit, flag, _SENTENCE)
            return self.cut_node(atom.node, first_limit, limit, flag)

        return descend

    def cut_node(self, node: InnerNode, first_limit: int, limit: int, flag: str) -> list[Piece]:
        span = self._trimmed(node.first, node.stop)
        if span is None:
            return []
        if node.kind == "code":
            return self.cut_code(span[0], node, first_limit, limit)
        if node.kind == "table":
            return self.cut_table(node.first, node.stop, first_limit, limit)
        if node.kind in ("list", "item", "blockquote") and node.children:
            return self.cut_container(node, first_limit, limit, flag)
        if node.kind == "html":
            atoms = self.node_atoms([], node.first, node.stop)
            return self.pack(
                atoms, first_limit, limit, self.plain("split_html"), self._descend_text("split_html", _SENTENCE)
            )
        return self.cut_text(span[0], span[1], first_limit, limit, flag, _LINE)


_CLOSING_BRACKETS = frozenset(")]}")


def _by_indentation(text: str, atoms: list[_Atom]) -> list[_Atom]:
    """Code lines, each line end made a better cut the shallower the line after it.

    Where the body's lines are not all at one indentation, the end of a line before a line
    at the same or a shallower indentation (a YAML key, a statement, a definition: not the
    first line of a deeper block, nor a closing bracket, which ends what is above it) gets
    a strength between a line's and a blank line's: the shallower the next line, the
    stronger. So a piece of code starts at a top-level key or definition where one lies
    near its share, else at the shallowest line there. Blank lines stay the best cut.
    """
    if len(atoms) < 2:
        return atoms
    lines = [text[a.start : a.end] for a in atoms]
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines]
    levels = sorted(set(indents))
    if len(levels) == 1:
        return atoms
    rank = {indent: n for n, indent in enumerate(levels)}
    out = list(atoms)
    for n in range(len(atoms) - 1):
        after = indents[n + 1]
        if out[n].strength == _LINE and after <= indents[n] and lines[n + 1][after] not in _CLOSING_BRACKETS:
            out[n] = _Atom(out[n].start, out[n].end, _LINE + 1 / (2 + rank[after]))
    return out


def _quote_marks(line: str, most: int = 1 << 30) -> list[tuple[int, int, int]]:
    """The block-quote markers CommonMark reads at the start of ``line`` (up to ``most`` of them).

    Each is ``>`` after at most three columns of indentation (tabs to stops of four) from where
    the quote around it starts its content; after each: the offset in ``line`` (past the one
    optional space), the column there, and the column where that quote's content starts (a tab
    after ``>`` gives one of its columns as that space).
    """
    marks: list[tuple[int, int, int]] = []
    i = column = content = 0
    n = len(line)
    while len(marks) < most:
        j, col = i, column
        while j < n and line[j] in " \t":
            col = col + 4 - col % 4 if line[j] == "\t" else col + 1
            j += 1
        if j >= n or line[j] != ">" or col - content > 3:
            break
        j, col = j + 1, col + 1
        content = col + 1 if j < n and line[j] in " \t" else col
        if j < n and line[j] == " ":
            j, col = j + 1, col + 1
        marks.append((j, col, content))
        i, column = j, col
    return marks


def _column(line: str, offset: int, column: int) -> int:
    """The column after ``line[offset:]`` (blanks), starting at ``column``; tabs to stops of four."""
    for ch in line[offset:]:
        column = column + 4 - column % 4 if ch == "\t" else column + 1
    return column


def _closing_run(line: str, depth: int, char: str) -> int:
    """The length of the fence run that makes ``line`` a closing fence inside ``depth`` block quotes, or 0."""
    marks = _quote_marks(line, depth)
    if len(marks) < depth:
        return 0
    offset, column, content = marks[-1] if marks else (0, 0, 0)
    rest = line[offset:]
    body = rest.lstrip(" \t")
    if _column(rest[: len(rest) - len(body)], 0, column) - content > 3:
        return 0
    body = body.rstrip(" \t")
    return len(body) if body and body == char * len(body) else 0


def sentence_starts(text: str, start: int, end: int) -> list[int]:
    """Offsets in ``text[start:end]`` where a sentence begins, in order.

    The first non-blank character, then the first non-blank character after each
    sentence end (the same sentence ends the cutter uses: ``.!?…`` before a space,
    closing quotes and brackets included, and ``。！？``).
    """
    starts: list[int] = []
    for cut in [start, *(start + m.end() for m in _SENTENCE_END.finditer(text[start:end]))]:
        found = _NON_BLANK.search(text, cut, end)
        if found is not None and (not starts or found.start() > starts[-1]):
            starts.append(found.start())
    return starts


# A cut piece under this many tokens (and under a quarter of the limit) is a sliver: see _join_slivers.
SLIVER_TOKENS = 50

_FLAG_BY_KIND = {
    "code": "split_code",
    "table": "split_table",
    "list": "split_list",
    "blockquote": "split_quote",
    "html": "split_html",
}


def cut_block(
    doc: Document,
    block: Block,
    first_limit: int,
    limit: int,
    *,
    repeat_table_header: bool = True,
    budget: int | None = None,
) -> list[Piece]:
    """Cut ``block`` into pieces: the first within ``first_limit`` tokens, the rest within ``limit``.

    Pieces are in order, non-overlapping, and together hold every non-blank
    character of the block; they are of about even size (see ``_Cutter.pack``). A
    sliver (under ``SLIVER_TOKENS`` and a quarter of ``limit``) is joined with a
    neighbour, and so is a piece that would open a code fence its source does not
    (a fence-like line inside HTML or text), while the result stays within ``budget``
    (the chunk's share of the hard cap, default ``limit``; the first piece: ``first_limit``).
    """
    cutter = _Cutter(doc, repeat_table_header)
    first_line, stop_line = block.line_span[0] - 1, block.line_span[1]
    flag = _FLAG_BY_KIND.get(block.kind, "split_text")
    if block.kind in ("paragraph", "heading", "text", "hr", "front_matter"):
        pieces = cutter.cut_text(block.start, block.end, first_limit, limit, flag, _LINE)
    elif block.kind == "table":
        pieces = cutter.cut_table(first_line, stop_line, first_limit, limit)
    else:
        inner = cutter.cache.inner
        nodes = inner.get(block.start)
        if nodes is None:
            line_start = doc.source.line_starts[first_line]
            nodes = inner[block.start] = tuple(inner_structure(doc.text[line_start : block.end], first_line))
        top = [n for n in nodes if n.first < stop_line]
        if len(top) == 1:
            pieces = cutter.cut_node(top[0], first_limit, limit, flag)
        else:
            atoms = cutter.node_atoms(top, first_line, stop_line)
            descend = cutter._descend_node(flag)
            pieces = cutter.pack(atoms, first_limit, limit, cutter.plain(flag), descend, alone=cutter._fragile)
    budget = limit if budget is None else budget
    pieces = _join_slivers(doc, pieces, first_limit, limit, budget)
    if block.kind == "code" or len(pieces) < 2:  # code pieces are re-fenced by construction
        return pieces
    return _join_stray_fences(doc, pieces, budget)


def _join_slivers(doc: Document, pieces: list[Piece], first_limit: int, limit: int, budget: int) -> list[Piece]:
    """Join each piece under ``min(SLIVER_TOKENS, limit // 4)`` to the neighbour giving the smaller piece.

    Balanced cuts leave such a sliver only where the boundaries are coarse (an item's
    first line before its nested list, a big last atom). The joined piece must fit
    ``budget`` (the first piece: ``first_limit``) and open no fence its parts did not; else
    the sliver stays. Pieces with an added prefix or suffix join as at packing: what a
    piece added falls away where the source reads on.
    """
    small = min(SLIVER_TOKENS, limit // 4)
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
            if joined.tokens > (first_limit if j == 0 else budget) or (
                best is not None and joined.tokens >= best.tokens
            ):
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


def _join_stray_fences(doc: Document, pieces: list[Piece], budget: int) -> list[Piece]:
    """Mend a piece that opens a fence its source does not (a fence-like line in HTML or text).

    Join it with its neighbour (the previous first) while the result fits ``budget``; if
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
                if joined.tokens <= budget:
                    out[min(i, j) : max(i, j) + 1] = [joined]
                    i = min(i, j)
                    break
        else:
            out[i] = _closed(doc, piece, fence, budget)
            i += 1
    return out


def _joined(doc: Document, a: Piece, b: Piece) -> Piece:
    markdown = a.prefix + doc.text[a.start : b.end] + b.suffix
    return Piece(a.start, b.end, doc.tokenizer.count(markdown), a.prefix, b.suffix, a.flag, a.hard or b.hard)


def _closed(doc: Document, piece: Piece, fence: str, budget: int) -> Piece:
    suffix = piece.suffix + "\n" + fence
    tokens = doc.tokenizer.count(piece.prefix + doc.text[piece.start : piece.end] + suffix)
    if tokens <= budget:
        return Piece(piece.start, piece.end, tokens, piece.prefix, suffix, piece.flag, piece.hard)
    return Piece(piece.start, piece.end, piece.tokens, piece.prefix, piece.suffix, "unbalanced_fence", piece.hard)
