"""Hierarchical greedy packing (spec §5): Document -> ChunkSet.

``hard_cap`` decides what is kept together; ``target`` is the size of the pieces
when a block must be cut. Steps: whole document; preamble; sections top down
(a section that fits is one unit, one that does not is opened: heading and
direct content packed greedily, then children whole or opened in turn, the chunk
carrying on into an opened child);
headings travel forward; one sibling-merge pass; exact token counts.
Small chunks join a neighbour within a common section, or else take whole blocks
from one. Then the options of spec §6:
small chunks merged up to ``min_tokens`` too, ``overlap``
sentences carried forward within a section, the breadcrumb counted inside the cap
(``breadcrumb_in_budget``), and clause numbers from numbered headings.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from chunker.chunkset import Chunk, ChunkSet
from chunker.context import breadcrumb_line, nearest_clause
from chunker.errors import ConfigError
from chunker.hierarchy import outline
from chunker.model import Block, Document, Section
from chunker.parse import unclosed_fence
from chunker.split import Piece, cut_block, sentence_starts
from chunker.tokens import pretoken_tail

__all__ = ["DEFAULT_STRATEGY", "MIN_HARD_CAP", "STRATEGIES", "chunk"]

MIN_HARD_CAP = 16  # room for a re-opened fence or a repeated header around real content
# A chunk under min(SMALL_TOKENS, target // 4) tokens is small: it joins a neighbour when it can,
# whatever min_tokens says (RAG users count chunks under about 50 tokens as defects).
SMALL_TOKENS = 50
# Text that would open a block (heading, quote, list item, table row, HTML, fence) at the
# start of a chunk: an overlap never starts there, though it may inside a sentence of its source.
_BLOCK_OPENER = re.compile(r"[#>|<]|[-+*](?:\s|\Z)|\d{1,9}[.)](?:\s|\Z)|[`~]{3}")
ENGINE_VERSION = "0.3.0"
# Packing strategies (spec §5a): "balanced" is the greedy hierarchical packing of this module;
# "optimal" (the default: it retrieves best, README) chooses boundaries by dynamic programming
# (chunker.optimal); "reference" is markdown-object's packing less its defects (chunker.reference).
STRATEGIES = ("balanced", "optimal", "reference")
DEFAULT_STRATEGY = "optimal"


@dataclass(slots=True)
class _Unit:
    """A run of source placed whole in a chunk: blocks ``[first, stop)``, or one cut piece."""

    start: int
    end: int
    tokens: int
    join: int  # tokens added by joining the next unit through the source between them
    first: int
    stop: int
    piece: Piece | None = None
    continues: bool = False  # the next piece of the same cut block follows: never merge across
    heading_only: bool = False


@dataclass(slots=True)
class _Draft:
    path: tuple[str, ...]
    preamble: bool = False
    units: list[_Unit] = field(default_factory=list)
    tokens: int = 0
    # The sections of ``path`` below the document (their first block's index): two sections
    # with the same title are told apart. ``len(key) == len(path) - 1``.
    key: tuple[int, ...] = ()
    group: tuple[int, ...] = ()  # the sibling merge's parent key

    @property
    def only_headings(self) -> bool:
        return bool(self.units) and all(u.heading_only for u in self.units)

    def cost_of(self, unit: _Unit) -> int:
        return self.tokens + (self.units[-1].join if self.units else 0) + unit.tokens

    def add(self, unit: _Unit) -> None:
        self.tokens = self.cost_of(unit)
        self.units.append(unit)

    def holding(self, units: list[_Unit]) -> _Draft:
        """A draft of the same section holding ``units`` (its summed count left at 0: recount it)."""
        return _Draft(self.path, self.preamble, units, key=self.key)


@dataclass(slots=True)
class _Final:
    """A draft with its exact markdown, token count and (``breadcrumb_in_budget``) context count."""

    draft: _Draft
    markdown: str
    tokens: int
    context_tokens: int | None = None
    line: str | None = None  # the breadcrumb line of contextualize(), when counted in the budget
    shortened: bool = False


def chunk(
    doc: Document,
    target: int = 512,
    hard_cap: int = 1024,
    *,
    overlap: int = 0,
    min_tokens: int = 0,
    breadcrumb_in_budget: bool = False,
    repeat_table_header: bool = True,
    include_front_matter: bool = False,
    strategy: str = DEFAULT_STRATEGY,
) -> ChunkSet:
    """Pack a parsed document into chunks of at most ``hard_cap`` tokens.

    ``overlap``: consecutive chunks of one section share up to that many tokens of
    whole sentences (recorded as ``Chunk.overlap_span``). ``min_tokens``: a smaller
    chunk joins a neighbour within a common section when the result fits, else is
    flagged ``tiny`` (chunks under ``min(50, target // 4)`` try that whatever its
    value). ``breadcrumb_in_budget``: the cap holds for ``contextualize()``.
    ``strategy`` (spec §5a): ``"balanced"``, the hierarchical greedy packing,
    ``"optimal"``, boundaries that minimise the cost of :mod:`chunker.optimal`, or
    ``"reference"``, markdown-object's packing less its defects (:mod:`chunker.reference`).

    Raises :class:`~chunker.errors.ConfigError` when ``target < 1``,
    ``hard_cap < target``, ``hard_cap < MIN_HARD_CAP``, an option is out of range,
    or the strategy is unknown.
    """
    _check_limits(
        target,
        hard_cap,
        overlap=overlap,
        min_tokens=min_tokens,
        breadcrumb_in_budget=breadcrumb_in_budget,
        strategy=strategy,
    )
    if strategy == "optimal":
        from chunker.optimal import OptimalPacker  # imports this module: imported on first use

        packer: _Packer = OptimalPacker(doc, target, hard_cap, repeat_table_header, include_front_matter)
    elif strategy == "reference":
        from chunker.reference import ReferencePacker  # imports this module: imported on first use

        packer = ReferencePacker(doc, target, hard_cap, repeat_table_header, include_front_matter)
    else:
        packer = _Packer(doc, target, hard_cap, repeat_table_header, include_front_matter)
    packer.set_options(overlap, min_tokens, breadcrumb_in_budget)
    chunks = packer.run()
    config = {
        "target": target,
        "hard_cap": hard_cap,
        "tokenizer": doc.tokenizer.name,
        "repeat_table_header": repeat_table_header,
        "include_front_matter": include_front_matter,
        "overlap": overlap,
        "min_tokens": min_tokens,
        "breadcrumb_in_budget": breadcrumb_in_budget,
        "engine": ENGINE_VERSION,
    }
    config["strategy"] = strategy
    return ChunkSet(chunks, doc.metadata(), config, lambda: outline(doc), doc.text)  # the outline on first use


def _check_limits(
    target: object,
    hard_cap: object,
    *,
    overlap: object = 0,
    min_tokens: object = 0,
    breadcrumb_in_budget: object = False,
    strategy: object = DEFAULT_STRATEGY,
    **_others: object,
) -> None:
    """Raise ConfigError naming the bad value; options other than these four are not checked here."""
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        choices = ", ".join(repr(s) for s in STRATEGIES)
        raise ConfigError(f"unknown strategy {strategy!r}: use one of {choices}")
    for name, value in (("target", target), ("hard_cap", hard_cap), ("overlap", overlap), ("min_tokens", min_tokens)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name} must be an int, got {value!r}")
    assert isinstance(target, int) and isinstance(hard_cap, int)
    assert isinstance(overlap, int) and isinstance(min_tokens, int)
    if target < 1:
        raise ConfigError(f"target must be at least 1 token, got target={target}")
    if hard_cap < MIN_HARD_CAP:
        raise ConfigError(
            f"hard_cap={hard_cap} is below the smallest workable size ({MIN_HARD_CAP} tokens): "
            f"a cut code block needs room for its fences"
        )
    if hard_cap < target:
        raise ConfigError(f"hard_cap ({hard_cap}) must be at least target ({target})")
    if overlap < 0:
        raise ConfigError(f"overlap must be 0 or more tokens, got overlap={overlap}")
    if overlap * 2 >= hard_cap:
        raise ConfigError(
            f"overlap={overlap} must be less than half the hard cap ({hard_cap}): chunks would be mostly repeated text"
        )
    if not 0 <= min_tokens <= hard_cap:
        raise ConfigError(f"min_tokens must be between 0 and hard_cap ({hard_cap}), got min_tokens={min_tokens}")
    if not isinstance(breadcrumb_in_budget, bool):
        raise ConfigError(f"breadcrumb_in_budget must be True or False, got {breadcrumb_in_budget!r}")
    if breadcrumb_in_budget and hard_cap < 2 * MIN_HARD_CAP:
        raise ConfigError(
            f"hard_cap={hard_cap} is too small to hold the breadcrumb too: with breadcrumb_in_budget=True "
            f"it must be at least {2 * MIN_HARD_CAP} (half for the breadcrumb line, half for the chunk)"
        )


class _Packer:
    def __init__(self, doc: Document, target: int, cap: int, repeat_header: bool, front_matter: bool) -> None:
        self.doc = doc
        self.blocks = doc.blocks
        self.target = target
        self.hard_cap = cap
        self.repeat_header = repeat_header
        self.front_matter = front_matter and doc.front_matter_block is not None
        self.drafts: list[_Draft] = []
        self.acc = _Draft(())
        # The section being opened: a chunk started there carries its path.
        self.path: tuple[str, ...] = (doc.name,)
        self.key: tuple[int, ...] = ()
        self.overlap = 0
        self.min_tokens = 0
        self.in_budget = False  # breadcrumb_in_budget
        self._lines: dict[tuple[str, ...], tuple[str, bool, int]] = {}

    def set_options(self, overlap: int, min_tokens: int, breadcrumb_in_budget: bool) -> None:
        """The options of spec §6 (all off by default): see :func:`chunk`."""
        self.overlap, self.min_tokens, self.in_budget = overlap, min_tokens, breadcrumb_in_budget

    # -- budgets -------------------------------------------------------------

    @property
    def cap(self) -> int:
        """Tokens the markdown of the chunk being packed may take."""
        return self.budget(self.acc.path)

    def budget(self, path: tuple[str, ...]) -> int:
        """The hard cap, less the breadcrumb line and blank line when they count (``breadcrumb_in_budget``)."""
        return self.hard_cap - self.context(path)[2] if self.in_budget else self.hard_cap

    def context(self, path: tuple[str, ...]) -> tuple[str, bool, int]:
        """The breadcrumb line of ``path`` (shortened to half the cap), whether shortened, and its cost."""
        found = self._lines.get(path)
        if found is None:
            line, shortened = breadcrumb_line(path, self.doc.tokenizer, self.hard_cap // 2)
            found = self._lines[path] = (line, shortened, self.doc.tokenizer.count(line + "\n\n"))
        return found

    # -- units ---------------------------------------------------------------

    def _block_unit(self, index: int) -> _Unit:
        block = self.blocks[index]
        return _Unit(
            block.start,
            block.end,
            block.tokens,
            block.join_tokens,
            index,
            index + 1,
            heading_only=block.kind == "heading",
        )

    def _section_unit(self, section: Section) -> _Unit:
        last = self.blocks[section.end - 1]
        return _Unit(
            section.char_span[0], section.char_span[1], section.tokens, last.join_tokens, section.first, section.end
        )

    # -- the walk ----------------------------------------------------------------

    def run(self) -> list[Chunk]:
        doc, name = self.doc, self.doc.name
        root = doc.root
        preamble = [self._block_unit(i) for i in range(root.first, root.direct_end)]
        if self.front_matter:
            assert doc.front_matter_block is not None
            fm = doc.front_matter_block
            preamble.insert(0, _Unit(fm.start, fm.end, fm.tokens, fm.join_tokens, -1, 0))
        whole = root.tokens + (preamble[0].tokens + preamble[0].join if self.front_matter and self.blocks else 0)
        if self.front_matter and not self.blocks:
            whole = preamble[0].tokens
        if whole <= self.budget((name,)):
            draft = _Draft((name,), preamble=True)
            for unit in preamble:
                draft.add(unit)
            if root.children:
                draft.add(self._section_unit_range(root))
            if draft.units:
                self.drafts.append(draft)
        else:
            self.acc = _Draft((name,), preamble=True)
            for unit in preamble:
                self._add_unit(unit)
            self._flush()
            for section in root.children:
                path = (name, section.title)
                if section.tokens <= self.budget(path):
                    draft = _Draft(path, key=(section.first,))
                    draft.add(self._section_unit(section))
                    self.drafts.append(draft)
                else:
                    self.acc = _Draft(path, key=(section.first,))
                    self._open(section, path, (section.first,))
        return self._finish(self._merge(self.drafts))

    def _section_unit_range(self, root: Section) -> _Unit:
        """All sections of the document as one unit (the whole-document case)."""
        first = root.direct_end
        last = self.blocks[root.end - 1]
        return _Unit(
            self.blocks[first].start,
            last.end,
            self.doc.region_tokens(first, root.end),
            last.join_tokens,
            first,
            root.end,
        )

    def _open(self, section: Section, path: tuple[str, ...], key: tuple[int, ...]) -> None:
        """Pack a section that does not fit: heading and direct content, then children.

        The chunk being packed carries on into the section. If it holds content of an
        enclosing section it keeps that section's path (the chunk started there);
        empty, or holding only headings that wait for their content, it takes this
        section's path.
        """
        outer = self.path, self.key
        self.path, self.key = path, key
        if not self.acc.units or self.acc.only_headings:
            self.acc.path, self.acc.key = path, key
        for index in range(section.first, section.direct_end):
            self._add_unit(self._block_unit(index))
        for child in section.children:
            unit = self._section_unit(child)
            if self.acc.cost_of(unit) <= self.cap:
                self.acc.add(unit)
                continue
            if self.acc.units and self.acc.units[-1].heading_only:
                self._release_headings()
                if self.acc.cost_of(unit) <= self.cap:
                    self.acc.add(unit)
                    continue
            if child.tokens <= self.budget(path) and not self.acc.only_headings:
                self._flush()
                self.acc.add(unit)
                continue
            # Opened: too big alone (the chunk carries on into it), or pending headings
            # must travel with its content.
            self._open(child, (*path, child.title), (*key, child.first))
        self._flush()
        self.path, self.key = outer
        self.acc = _Draft(outer[0], key=outer[1])

    def _add_unit(self, unit: _Unit) -> None:
        """Add a block greedily, cutting it when it exceeds the cap (or must share with headings)."""
        if self.acc.cost_of(unit) <= self.cap:
            self.acc.add(unit)
            return
        if self.acc.units and self.acc.units[-1].heading_only:
            self._release_headings()
            if self.acc.cost_of(unit) <= self.cap:
                self.acc.add(unit)
                return
        acc = self.acc
        if unit.tokens <= self.budget(self.path) and not acc.only_headings:
            self._flush()
            self.acc.add(unit)
            return
        if acc.only_headings:
            room = self.cap - acc.tokens - acc.units[-1].join
            if room < 1:
                self._flush()  # headings alone fill the cap: nothing can travel with them
                first_limit = min(self.target, self.cap)
            else:
                first_limit = min(self.target, self.cap, room)
        else:
            self._flush()
            first_limit = min(self.target, self.cap)
        block = self.blocks[unit.first] if unit.first >= 0 else self.doc.front_matter_block
        assert block is not None
        pieces = self._cut(block, first_limit)
        for n, piece in enumerate(pieces):
            last = n == len(pieces) - 1
            piece_unit = _piece_unit(block, unit, piece, last)
            if n and self.acc.units:
                self._flush()
            if self.acc.units and self.acc.cost_of(piece_unit) > self.cap:
                self._flush()
            self.acc.add(piece_unit)
            if last and piece.suffix:
                self._flush()

    def _release_headings(self) -> None:
        """Headings at the end of the chunk move on to the next one, with the content they announce.

        Called when the next unit does not fit: the chunk before them is emitted, and
        the headings start the next chunk, which takes the path of the section being
        opened. A chunk of headings alone is left as it is.
        """
        units = self.acc.units
        keep = len(units)
        while keep and units[keep - 1].heading_only:
            keep -= 1
        if keep in (0, len(units)):
            return
        done = _Draft(self.acc.path, self.acc.preamble, key=self.acc.key)
        for unit in units[:keep]:
            done.add(unit)
        self.drafts.append(done)
        self.acc = _Draft(self.path, key=self.key)
        for unit in units[keep:]:
            self.acc.add(unit)

    def _cut(self, block: Block, first_limit: int, cap: int | None = None) -> list[Piece]:
        """Cut a block (every piece within ``cap``, by default the chunk's budget).

        If wrappers overflow a tiny target, fall back to bigger, then plain pieces.
        """
        cap = self.cap if cap is None else cap
        target = min(self.target, cap)
        for limit in (target, cap):
            pieces = cut_block(
                self.doc, block, min(first_limit, limit), limit, repeat_table_header=self.repeat_header, cap=cap
            )
            if all(p.tokens <= cap for p in pieces) and pieces[0].tokens <= max(first_limit, 1) + (limit - target):
                return pieces
        plain = Block("text", block.char_span, block.byte_span, block.line_span, block.tokens, block.join_tokens)
        return cut_block(self.doc, plain, first_limit, cap, cap=cap)

    def _flush(self) -> None:
        if self.acc.units:
            self.drafts.append(self.acc)
        self.acc = _Draft(self.path, self.acc.preamble, key=self.key)

    # -- sibling merge and output ---------------------------------------------

    def _merge(self, drafts: list[_Draft]) -> list[_Draft]:
        """One pass joining neighbours whose breadcrumbs share a parent, within the cap."""
        out: list[_Draft] = []
        for draft in drafts:
            draft.group = draft.key[:-1]
            prev = out[-1] if out else None
            if (
                prev is not None
                and not prev.units[-1].continues
                and prev.preamble == draft.preamble
                and prev.group == draft.group
                and prev.tokens + prev.units[-1].join + draft.tokens
                <= self.budget(prev.path if prev.key == draft.key else prev.path[: len(prev.group) + 1])
            ):
                prev.tokens += prev.units[-1].join + draft.tokens
                prev.units.extend(draft.units)
                if prev.key != draft.key:
                    prev.path, prev.key = prev.path[: len(prev.group) + 1], prev.group
                continue
            out.append(draft)
        return out

    def _finish(self, drafts: list[_Draft]) -> list[Chunk]:
        finals = self._merge_small(self._exact(drafts))
        chunks: list[Chunk] = []
        for n, item in enumerate(finals):
            shared = self._overlap_with(finals[n - 1], item) if self.overlap and n else None
            chunks.append(self._chunk(n, item, shared))
        return chunks

    # -- exact counts --------------------------------------------------------

    def _exact(self, drafts: list[_Draft]) -> list[_Final]:
        additive = self.doc.tokenizer.line_additive
        out: list[_Final] = []
        for draft in drafts:
            item = self._final(draft, draft.tokens if additive and self._summed_exactly(draft) else None)
            if self._fits(item):
                out.append(item)
            else:  # a tokenizer without exact sums overshot: re-pack these blocks by exact counts
                out.extend(self._repair(draft))
        return out

    def _summed_exactly(self, draft: _Draft) -> bool:
        """Whether the draft's summed count is exact: where two units meet, they meet at block edges.

        A block's join counts the source from the block's end to the next block's
        start; a piece that stops before its block's trailing spaces, or starts after
        its leading indentation, leaves those uncounted.
        """
        return all(self._meet_at_edges(left, right) for left, right in itertools.pairwise(draft.units))

    def _meet_at_edges(self, left: _Unit, right: _Unit) -> bool:
        """Whether ``left`` ends as its block does and ``right`` starts at its block's start.

        Ending as its block does: at the block's end, with the same last pre-token (a
        piece cut inside the block's last pre-token, such as ``"|."`` of ``" |."``, joins
        the next block at another cost than the block's).
        """
        if left.piece is not None:
            block = self._block(left)
            if left.end != block.end:
                return False
            if left.start != block.start:
                text = self.doc.text
                if pretoken_tail(text[left.start : left.end]) != pretoken_tail(text[block.start : block.end]):
                    return False
        return right.piece is None or right.start == self._block(right).start

    def _block(self, unit: _Unit) -> Block:
        block = self.blocks[unit.first] if unit.first >= 0 else self.doc.front_matter_block
        assert block is not None
        return block

    def _final(self, draft: _Draft, tokens: int | None = None) -> _Final:
        """``draft`` with its markdown, counted (``tokens`` when the sum is already exact)."""
        count = self.doc.tokenizer.count
        markdown = self._markdown(draft.units)
        item = _Final(draft, markdown, count(markdown) if tokens is None else tokens)
        if self.in_budget:
            item.line, item.shortened, cost = self.context(draft.path)
            if self.doc.tokenizer.line_additive and markdown[:1] not in ("", "\n", "\r"):
                # The line's last pre-token ends with its blank line, and a chunk starts a line with text
                # (or indentation, then text): the two counts add up (README, "Token counts").
                item.context_tokens = cost + item.tokens
            else:
                item.context_tokens = count(f"{item.line}\n\n{markdown}")
        return item

    def _fits(self, item: _Final) -> bool:
        return item.tokens <= self.hard_cap and (item.context_tokens is None or item.context_tokens <= self.hard_cap)

    def _markdown(self, units: list[_Unit]) -> str:
        head, tail = units[0], units[-1]
        prefix = head.piece.prefix if head.piece else ""
        suffix = tail.piece.suffix if tail.piece else ""
        return prefix + self.doc.text[head.start : tail.end] + suffix

    def _repair(self, draft: _Draft) -> list[_Final]:
        atoms = self._atoms(draft.units)
        out: list[_Final] = []
        current: list[_Unit] = []
        fitted: _Final | None = None
        for atom in atoms:
            if current:
                trial = self._final(draft.holding([*current, atom]))
                if self._fits(trial):
                    fitted = trial
                else:
                    out.append(self._squeezed(fitted or self._final(draft.holding(current))))
                    current, fitted = [], None
            current.append(atom)
        if current:
            out.append(self._squeezed(fitted or self._final(draft.holding(current))))
        return out

    def _squeezed(self, item: _Final) -> _Final:
        """Shorten the breadcrumb line of one chunk whose context a non-additive tokenizer made overshoot."""
        if item.context_tokens is None or item.context_tokens <= self.hard_cap:
            return item
        count = self.doc.tokenizer.count
        limit = self.context(item.draft.path)[2] - (item.context_tokens - self.hard_cap)
        while limit > 0 and item.context_tokens > self.hard_cap:
            item.line, _ = breadcrumb_line(item.draft.path, self.doc.tokenizer, limit)
            item.shortened = True
            item.context_tokens = count(f"{item.line}\n\n{item.markdown}")
            limit -= 1
        return item

    # -- small chunks (and min_tokens): joined to a neighbour within a common section

    def _merge_small(self, items: list[_Final]) -> list[_Final]:
        """Join each small chunk to a neighbour when the joined chunk fits the cap.

        Small is under ``min(SMALL_TOKENS, target // 4)`` tokens, always, or under
        ``min_tokens``. Of the two neighbours the one sharing the deeper section
        wins, then the one giving the smaller result, then the previous one; this is
        repeated while the joined chunk is still small. A small chunk that no neighbour
        can take whole takes whole blocks from one (:meth:`_rebalanced`). A chunk under
        ``min_tokens`` that stays small is flagged ``tiny`` (see :meth:`_chunk`).
        """
        small = max(self.min_tokens, min(SMALL_TOKENS, self.target // 4))
        i = 0
        while i < len(items):
            tokens = items[i].tokens
            if tokens >= small:
                i += 1
                continue
            rejoin = tokens < self.min_tokens  # the option may rejoin the pieces of a cut block
            best: _Final | None = None
            rank = (0, 0)
            at = i
            for first in (i - 1, i):
                if first >= 0 and first + 1 < len(items):
                    joined = self._joined(items[first], items[first + 1], rejoin)
                    if joined is not None and (best is None or (-len(joined.draft.key), joined.tokens) < rank):
                        best, at, rank = joined, first, (-len(joined.draft.key), joined.tokens)
            if best is None:
                moved = self._rebalanced(items, i, small)
                if moved is not None:
                    at, pair = moved
                    items[at : at + 2] = pair
                i += 1
                continue
            items[at : at + 2] = [best]
            i = at
        return items

    def _rebalanced(self, items: list[_Final], i: int, small: int) -> tuple[int, list[_Final]] | None:
        """The small chunk ``items[i]``, which no neighbour can take whole, with whole blocks of one.

        The last blocks of the previous chunk, or the first of the next, move into the
        small chunk, so that both chunks reach ``small`` tokens and fit the cap. The cut
        falls before the shallowest heading that allows it (a section boundary), then
        moves the fewest tokens; a heading never ends the chunk it leaves (spec §5.8).
        Returns where the two chunks start and the two new chunks, or None.
        """
        candidates: list[tuple[int, int, int, int, list[_Unit], list[_Unit]]] = []
        for at in (i - 1, i):
            if at < 0 or at + 1 >= len(items):
                continue
            a, b = items[at].draft, items[at + 1].draft
            if a.preamble != b.preamble or a.units[-1].continues or not _joinable(a.units[-1], b.units[0]):
                continue
            take_from_left = at == i - 1
            atoms = self._atoms(a.units if take_from_left else b.units)
            sizes = _running_sizes(atoms)
            whole = sizes[-1]
            for k in range(1, len(atoms)):
                left, right = atoms[:k], atoms[k:]
                if left[-1].heading_only:  # a heading never ends the chunk its content leaves
                    continue
                before = sizes[k - 1]  # left's tokens, summed
                after = whole - before - left[-1].join  # right's tokens, summed
                if take_from_left:
                    kept, grown = before, after + right[-1].join + b.tokens
                else:
                    kept, grown = after, a.tokens + a.units[-1].join + before
                if kept < small or grown < small or grown > self.hard_cap:
                    continue
                level = self._heading_level(right[0])
                candidates.append((level, grown, at, k, left, right))
        for _level, _grown, at, _k, left, right in sorted(candidates, key=lambda c: c[:3]):
            a, b = items[at].draft, items[at + 1].draft
            if at == i - 1:  # a's last blocks join b
                first, second = a.holding(left), self._common([*right, *b.units], a, b)
            else:  # b's first blocks join a
                first, second = self._common([*a.units, *left], a, b), b.holding(right)
            pair = [self._final(first), self._final(second)]
            if all(self._fits(p) and p.tokens >= small and not unclosed_fence(p.markdown) for p in pair):
                return at, pair
        return None

    def _atoms(self, units: list[_Unit]) -> list[_Unit]:
        """``units`` with each run of whole blocks (a whole section) taken apart into its blocks."""
        atoms: list[_Unit] = []
        for unit in units:
            if unit.piece is not None or unit.stop - unit.first <= 1:
                atoms.append(unit)
            else:
                atoms.extend(self._block_unit(n) for n in range(unit.first, unit.stop))
        return atoms

    def _heading_level(self, unit: _Unit) -> int:
        """The level of the heading ``unit`` starts with; 7 when it starts with another block."""
        if unit.first < 0 or (unit.piece is not None and unit.start != self.blocks[unit.first].start):
            return 7
        block = self.blocks[unit.first]
        return block.level if block.kind == "heading" else 7

    @staticmethod
    def _common(units: list[_Unit], a: _Draft, b: _Draft) -> _Draft:
        """A draft of ``units`` (from ``a`` and ``b``) under the deepest section holding both."""
        depth = 0
        for x, y in zip(a.key, b.key, strict=False):
            if x != y:
                break
            depth += 1
        return _Draft(a.path[: depth + 1], a.preamble, units, key=a.key[:depth])

    def _joined(self, a: _Final, b: _Final, rejoin: bool) -> _Final | None:
        """``a`` and ``b`` as one chunk, if the result fits; its breadcrumb is their deepest common section.

        Preamble joins only preamble (spec §5.3). Two pieces of one cut block are
        joined back only when ``rejoin`` (``min_tokens`` asks for it).
        """
        left, right = a.draft, b.draft
        if left.preamble != right.preamble:
            return None
        if (left.units[-1].continues and not rejoin) or not _joinable(left.units[-1], right.units[0]):
            return None
        joined = self._common([*left.units, *right.units], left, right)
        tokens = None
        tail, head = left.units[-1], right.units[0]
        if (
            self.doc.tokenizer.line_additive
            and not (tail.piece and tail.piece.suffix)
            and not (head.piece and head.piece.prefix)
            and self._meet_at_edges(tail, head)
        ):
            tokens = a.tokens + tail.join + b.tokens  # exact, as in _exact: no need to count
            if tokens > self.hard_cap:
                return None
        item = self._final(joined, tokens)
        # Joined pieces can spell a fence line their parts did not (three pieces of "```").
        return item if self._fits(item) and not unclosed_fence(item.markdown) else None

    # -- overlap: whole sentences carried forward within a section ---------------

    def _overlap_with(self, prev: _Final, item: _Final) -> tuple[tuple[int, int], _Final] | None:
        """``item`` with the last whole sentences of ``prev`` put before it, and their span; or None.

        Only between chunks of the same section (same breadcrumb) where ``prev`` ends
        with paragraph text and ``item`` does not start a section (a heading) nor a
        re-opened fence or repeated table header. The overlap is the longest run of
        whole sentences at the end of ``prev`` within ``overlap`` tokens, shorter when
        the chunk with it would exceed the cap, never all of ``prev``.
        """
        a, b = prev.draft, item.draft
        if a.path != b.path or a.preamble != b.preamble:
            return None
        tail, head = a.units[-1], b.units[0]
        if not (self._is_prose(tail) and self._starts_inside_section(head)):
            return None
        text, count = self.doc.text, self.doc.tokenizer.count
        starts: list[int] = []  # latest first
        for start in reversed(sentence_starts(text, tail.start, tail.end)):
            if start <= a.units[0].start or count(text[start : tail.end]) > self.overlap:
                break
            if not _BLOCK_OPENER.match(text, start):
                starts.append(start)
        last = b.units[-1]
        end, suffix = last.end, last.piece.suffix if last.piece else ""
        for start in reversed(starts):  # the longest first
            markdown = text[start:end] + suffix
            candidate = _Final(b, markdown, count(markdown), line=item.line, shortened=item.shortened)
            if item.line is not None:
                candidate.context_tokens = count(f"{item.line}\n\n{markdown}")
            if self._fits(candidate):
                return (start, tail.end), candidate
        return None

    def _is_prose(self, unit: _Unit) -> bool:
        """A paragraph, or a plain piece of one: text whose sentences can be shared."""
        if unit.first < 0 or unit.stop - unit.first != 1 or self.blocks[unit.first].kind != "paragraph":
            return False
        piece = unit.piece
        return piece is None or (piece.flag == "split_text" and not piece.prefix and not piece.suffix)

    def _starts_inside_section(self, unit: _Unit) -> bool:
        """Not a heading (a section boundary), the front matter, nor a piece with an added prefix."""
        if unit.first < 0 or self.blocks[unit.first].kind == "heading":
            return False
        return unit.piece is None or not unit.piece.prefix

    # -- output ----------------------------------------------------------------

    def _chunk(self, index: int, item: _Final, shared: tuple[tuple[int, int], _Final] | None) -> Chunk:
        src = self.doc.source
        draft = item.draft
        units = draft.units
        own_tokens = item.tokens
        overlap_span = None
        if shared is not None:
            overlap_span, item = shared
        span = (units[0].start if overlap_span is None else overlap_span[0], units[-1].end)
        headings: list[str] = []
        flags: set[str] = set()
        for unit in units:
            if unit.piece is not None:
                flags.add(unit.piece.flag)
                if unit.piece.hard:
                    flags.add("hard_cut")
                if (
                    unit.first >= 0
                    and unit.start == self.blocks[unit.first].start
                    and self.blocks[unit.first].kind == "heading"
                ):
                    headings.append(self.blocks[unit.first].title)
                continue
            headings.extend(b.title for b in self.blocks[max(unit.first, 0) : unit.stop] if b.kind == "heading")
        if all(u.heading_only for u in units):
            flags.add("heading_only")
        if own_tokens < self.min_tokens:
            flags.add("tiny")
        if item.shortened:
            flags.add("breadcrumb_shortened")
        head, tail = units[0], units[-1]
        return Chunk(
            id=f"c{index + 1}",
            index=index,
            breadcrumb=list(draft.path),
            markdown=item.markdown,
            token_count=item.tokens,
            byte_span=src.byte_span(span),
            char_span=span,
            line_span=src.line_span(span),
            headings=headings,
            flags=sorted(flags),
            added_prefix=head.piece.prefix if head.piece else "",
            added_suffix=tail.piece.suffix if tail.piece else "",
            clause=nearest_clause(draft.path[1:]),
            overlap_span=overlap_span,
            breadcrumb_line=item.line if item.shortened else None,
            context_tokens=item.context_tokens,
        )


def _piece_unit(block: Block, unit: _Unit, piece: Piece, last: bool) -> _Unit:
    """The unit of one cut piece of ``block`` (whose whole unit is ``unit``): only the last piece
    joins the next block, and every piece but the last (or one with an added suffix) continues."""
    return _Unit(
        piece.start,
        piece.end,
        piece.tokens,
        block.join_tokens if last else 0,
        unit.first,
        unit.stop,
        piece,
        continues=not last or bool(piece.suffix),  # an added suffix must end its chunk
    )


def _running_sizes(units: list[_Unit]) -> list[int]:
    """Summed tokens of ``units[:k + 1]`` for each k: their counts and the joins between them."""
    sizes: list[int] = []
    total = 0
    for n, unit in enumerate(units):
        total += unit.tokens + (units[n - 1].join if n else 0)
        sizes.append(total)
    return sizes


def _joinable(left: _Unit, right: _Unit) -> bool:
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
