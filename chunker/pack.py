"""Hierarchical greedy packing (spec §5): Document -> ChunkSet.

``hard_cap`` decides what is kept together; ``target`` is the size of the pieces
when a block must be cut. Steps: whole document; preamble; sections top down
(a section that fits is one unit, one that does not is opened: heading and
direct content packed greedily, then children whole or opened in turn);
headings travel forward; one sibling-merge pass; exact token counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chunker.chunkset import Chunk, ChunkSet
from chunker.errors import ConfigError
from chunker.hierarchy import outline
from chunker.model import Block, Document, Section
from chunker.split import Piece, cut_block

__all__ = ["MIN_HARD_CAP", "chunk"]

MIN_HARD_CAP = 16  # room for a re-opened fence or a repeated header around real content
ENGINE_VERSION = "0.1.0"


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
    group_parent: tuple[str, ...] = ()

    @property
    def only_headings(self) -> bool:
        return bool(self.units) and all(u.heading_only for u in self.units)

    def cost_of(self, unit: _Unit) -> int:
        return self.tokens + (self.units[-1].join if self.units else 0) + unit.tokens

    def add(self, unit: _Unit) -> None:
        self.tokens = self.cost_of(unit)
        self.units.append(unit)


def chunk(
    doc: Document,
    target: int = 512,
    hard_cap: int = 1024,
    *,
    repeat_table_header: bool = True,
    include_front_matter: bool = False,
) -> ChunkSet:
    """Pack a parsed document into chunks of at most ``hard_cap`` tokens.

    Raises :class:`~chunker.errors.ConfigError` when ``target < 1``,
    ``hard_cap < target`` or ``hard_cap < MIN_HARD_CAP``.
    """
    _check_limits(target, hard_cap)
    packer = _Packer(doc, target, hard_cap, repeat_table_header, include_front_matter)
    chunks = packer.run()
    config = {
        "target": target,
        "hard_cap": hard_cap,
        "tokenizer": doc.tokenizer.name,
        "repeat_table_header": repeat_table_header,
        "include_front_matter": include_front_matter,
        "engine": ENGINE_VERSION,
    }
    return ChunkSet(chunks, doc.metadata(), config, outline(doc), doc.text)


def _check_limits(target: object, hard_cap: object) -> None:
    for name, value in (("target", target), ("hard_cap", hard_cap)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name} must be an int, got {value!r}")
    assert isinstance(target, int) and isinstance(hard_cap, int)
    if target < 1:
        raise ConfigError(f"target must be at least 1 token, got target={target}")
    if hard_cap < MIN_HARD_CAP:
        raise ConfigError(
            f"hard_cap={hard_cap} is below the smallest workable size ({MIN_HARD_CAP} tokens): "
            f"a cut code block needs room for its fences"
        )
    if hard_cap < target:
        raise ConfigError(f"hard_cap ({hard_cap}) must be at least target ({target})")


class _Packer:
    def __init__(self, doc: Document, target: int, cap: int, repeat_header: bool, front_matter: bool) -> None:
        self.doc = doc
        self.blocks = doc.blocks
        self.target = target
        self.cap = cap
        self.repeat_header = repeat_header
        self.front_matter = front_matter and doc.front_matter_block is not None
        self.drafts: list[_Draft] = []
        self.acc = _Draft(())

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
        if whole <= self.cap:
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
                if section.tokens <= self.cap:
                    draft = _Draft(path)
                    draft.add(self._section_unit(section))
                    self.drafts.append(draft)
                else:
                    self._open(section, path, None)
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

    def _open(self, section: Section, path: tuple[str, ...], carry: list[_Unit] | None) -> None:
        """Pack a section that does not fit: heading and direct content, then children."""
        self.acc = _Draft(path)
        for unit in carry or []:
            self.acc.add(unit)
        for index in range(section.first, section.direct_end):
            self._add_unit(self._block_unit(index))
        for child in section.children:
            unit = self._section_unit(child)
            if self.acc.cost_of(unit) <= self.cap:
                self.acc.add(unit)
                continue
            if child.tokens <= self.cap and not self.acc.only_headings:
                self._flush()
                self.acc.add(unit)
                continue
            # Opened: too big alone, or pending headings must travel with its content.
            pending = None
            if self.acc.only_headings:
                pending, self.acc = self.acc.units, _Draft(path)
            else:
                self._flush()
            self._open(child, (*path, child.title), pending)
            self.acc = _Draft(path)
        self._flush()

    def _add_unit(self, unit: _Unit) -> None:
        """Add a block greedily, cutting it when it exceeds the cap (or must share with headings)."""
        acc = self.acc
        if acc.cost_of(unit) <= self.cap:
            acc.add(unit)
            return
        if unit.tokens <= self.cap and not acc.only_headings:
            self._flush()
            self.acc.add(unit)
            return
        first_limit = self.target
        if acc.only_headings:
            room = self.cap - acc.tokens - acc.units[-1].join
            if room < 1:
                self._flush()  # headings alone fill the cap: nothing can travel with them
            else:
                first_limit = min(self.target, room)
        elif acc.units:
            self._flush()
        block = self.blocks[unit.first] if unit.first >= 0 else self.doc.front_matter_block
        assert block is not None
        pieces = self._cut(block, first_limit)
        for n, piece in enumerate(pieces):
            last = n == len(pieces) - 1
            piece_unit = _Unit(
                piece.start,
                piece.end,
                piece.tokens,
                block.join_tokens if last else 0,
                unit.first,
                unit.stop,
                piece,
                continues=not last or bool(piece.suffix),  # an added suffix must end its chunk
                heading_only=False,
            )
            if n and self.acc.units:
                self._flush()
            if self.acc.units and self.acc.cost_of(piece_unit) > self.cap:
                self._flush()
            self.acc.add(piece_unit)
            if last and piece.suffix:
                self._flush()

    def _cut(self, block: Block, first_limit: int) -> list[Piece]:
        """Cut a block; if wrappers overflow a tiny target, fall back to bigger, then plain pieces."""
        for limit in (self.target, self.cap):
            pieces = cut_block(
                self.doc, block, min(first_limit, limit), limit, repeat_table_header=self.repeat_header, cap=self.cap
            )
            if all(p.tokens <= self.cap for p in pieces) and pieces[0].tokens <= max(first_limit, 1) + (
                limit - self.target
            ):
                return pieces
        plain = Block("text", block.char_span, block.byte_span, block.line_span, block.tokens, block.join_tokens)
        return cut_block(self.doc, plain, first_limit, self.cap, cap=self.cap)

    def _flush(self) -> None:
        if self.acc.units:
            self.drafts.append(self.acc)
        self.acc = _Draft(self.acc.path, self.acc.preamble)

    # -- sibling merge and output ---------------------------------------------

    def _merge(self, drafts: list[_Draft]) -> list[_Draft]:
        """One pass joining neighbours whose breadcrumbs share a parent, within the cap."""
        out: list[_Draft] = []
        for draft in drafts:
            draft.group_parent = draft.path[:-1]
            prev = out[-1] if out else None
            if (
                prev is not None
                and not prev.units[-1].continues
                and prev.preamble == draft.preamble
                and prev.group_parent == draft.group_parent
                and prev.tokens + prev.units[-1].join + draft.tokens <= self.cap
            ):
                prev.tokens += prev.units[-1].join + draft.tokens
                prev.units.extend(draft.units)
                if prev.path != draft.path:
                    prev.path = prev.group_parent
                continue
            out.append(draft)
        return out

    def _finish(self, drafts: list[_Draft]) -> list[Chunk]:
        count = self.doc.tokenizer.count
        exact = self.doc.tokenizer.line_additive
        final: list[tuple[_Draft, str, int]] = []
        for draft in drafts:
            markdown = self._markdown(draft.units)
            tokens = draft.tokens if exact else count(markdown)
            if tokens <= self.cap:
                final.append((draft, markdown, tokens))
            else:  # a tokenizer without exact sums overshot: re-pack these blocks by exact counts
                final.extend(self._repair(draft))
        return [self._chunk(n, draft, markdown, tokens) for n, (draft, markdown, tokens) in enumerate(final)]

    def _markdown(self, units: list[_Unit]) -> str:
        head, tail = units[0], units[-1]
        prefix = head.piece.prefix if head.piece else ""
        suffix = tail.piece.suffix if tail.piece else ""
        return prefix + self.doc.text[head.start : tail.end] + suffix

    def _repair(self, draft: _Draft) -> list[tuple[_Draft, str, int]]:
        count = self.doc.tokenizer.count
        atoms: list[_Unit] = []
        for unit in draft.units:
            if unit.piece is not None or unit.stop - unit.first <= 1:
                atoms.append(unit)
            else:
                atoms.extend(self._block_unit(i) for i in range(unit.first, unit.stop))
        out: list[tuple[_Draft, str, int]] = []
        current: list[_Unit] = []
        for atom in atoms:
            if current and count(self._markdown([*current, atom])) > self.cap:
                out.append(self._repaired(draft, current))
                current = []
            current.append(atom)
        if current:
            out.append(self._repaired(draft, current))
        return out

    def _repaired(self, draft: _Draft, units: list[_Unit]) -> tuple[_Draft, str, int]:
        markdown = self._markdown(units)
        return _Draft(draft.path, draft.preamble, units), markdown, self.doc.tokenizer.count(markdown)

    def _chunk(self, index: int, draft: _Draft, markdown: str, tokens: int) -> Chunk:
        src = self.doc.source
        units = draft.units
        span = (units[0].start, units[-1].end)
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
        head, tail = units[0], units[-1]
        return Chunk(
            id=f"c{index + 1}",
            index=index,
            breadcrumb=list(draft.path),
            markdown=markdown,
            token_count=tokens,
            byte_span=src.byte_span(span),
            char_span=span,
            line_span=src.line_span(span),
            headings=headings,
            flags=sorted(flags),
            added_prefix=head.piece.prefix if head.piece else "",
            added_suffix=tail.piece.suffix if tail.piece else "",
        )
