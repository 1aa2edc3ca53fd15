"""The walk of ``strategy="balanced"`` (docs/method.md §5 steps 1-5, §5a): the hierarchical greedy packing.

Whole document if it fits; else the preamble, then each top-level section: a section
that fits is one draft, one that does not is **opened**: its heading and direct content
are packed greedily, then its children, each whole or opened in turn, the chunk being
packed carrying on into an opened child. A block too big for the chunk is cut
(:meth:`chunker.drafts.Packing.cut`); headings at the end of a chunk travel forward
with the content they announce (step 8).

The walk only makes drafts; the sibling merge, exact counts, small chunks, overlap and
the chunks themselves are the passes of :mod:`chunker.pack`.
"""

from __future__ import annotations

from chunker.drafts import Draft, Packing, Unit, piece_unit
from chunker.model import Section

__all__ = ["GreedyWalk", "balanced_walk"]


def balanced_walk(packing: Packing) -> list[Draft]:
    """The drafts of the greedy hierarchical packing, in document order."""
    doc, name = packing.doc, packing.doc.name
    root = doc.root
    preamble = [packing.block_unit(i) for i in range(root.first, root.direct_end)]
    if packing.front_matter:
        preamble.insert(0, packing.front_matter_unit())
    if _whole_document_fits(packing, preamble):
        draft = Draft((name,), preamble=True)
        for unit in preamble:
            draft.add(unit)
        if root.children:
            draft.add(packing.sections_unit(root))
        return [draft] if draft.units else []
    walk = GreedyWalk(packing, Draft((name,), preamble=True))
    for unit in preamble:
        walk.add_unit(unit, (name,), ())
    walk.flush((name,), ())
    for section in root.children:
        path, key = (name, section.title), (section.first,)
        if section.tokens <= packing.cap(path):
            draft = Draft(path, key=key)
            draft.add(packing.section_unit(section))
            walk.drafts.append(draft)
        else:
            walk.acc = Draft(path, key=key)
            walk.open(section, path, key)
    return walk.drafts


def _whole_document_fits(packing: Packing, preamble: list[Unit]) -> bool:
    doc = packing.doc
    whole = doc.root.tokens
    if packing.front_matter:
        whole = preamble[0].tokens + (preamble[0].join + whole if doc.blocks else 0)
    return whole <= packing.cap((doc.name,))


class GreedyWalk:
    """The drafts made so far and the one being packed (``acc``).

    ``path`` and ``key`` passed to each step are those of the section being opened: a
    chunk started there carries them.
    """

    def __init__(self, packing: Packing, acc: Draft) -> None:
        self.packing = packing
        self.drafts: list[Draft] = []
        self.acc = acc

    def cap(self) -> int:
        """Tokens the markdown of the chunk being packed may take."""
        return self.packing.cap(self.acc.path)

    def open(self, section: Section, path: tuple[str, ...], key: tuple[int, ...]) -> None:
        """Pack a section that does not fit: heading and direct content, then children.

        The chunk being packed carries on into the section. If it holds content of an
        enclosing section it keeps that section's path (the chunk started there);
        empty, or holding only headings that wait for their content, it takes this
        section's path. The caller starts its next chunk afresh.
        """
        packing = self.packing
        if not self.acc.units or self.acc.only_headings:
            self.acc.path, self.acc.key = path, key
        for index in range(section.first, section.direct_end):
            self.add_unit(packing.block_unit(index), path, key)
        for child in section.children:
            unit = packing.section_unit(child)
            if self.acc.cost_of(unit) <= self.cap():
                self.acc.add(unit)
                continue
            if self.acc.units and self.acc.units[-1].heading_only:
                self.release_headings(path, key)
                if self.acc.cost_of(unit) <= self.cap():
                    self.acc.add(unit)
                    continue
            if child.tokens <= packing.cap(path) and not self.acc.only_headings:
                self.flush(path, key)
                self.acc.add(unit)
                continue
            # Opened: too big alone (the chunk carries on into it), or pending headings
            # must travel with its content.
            self.open(child, (*path, child.title), (*key, child.first))
            self.acc = Draft(path, key=key)
        self.flush(path, key)

    def add_unit(self, unit: Unit, path: tuple[str, ...], key: tuple[int, ...]) -> None:
        """Add a block greedily, cutting it when it exceeds the cap (or must share with headings)."""
        packing, acc = self.packing, self.acc
        if acc.cost_of(unit) <= self.cap():
            acc.add(unit)
            return
        if acc.units and acc.units[-1].heading_only:
            self.release_headings(path, key)
            acc = self.acc
            if acc.cost_of(unit) <= self.cap():
                acc.add(unit)
                return
        if unit.tokens <= packing.cap(path) and not acc.only_headings:
            self.flush(path, key)
            self.acc.add(unit)
            return
        cap = self.cap()
        if acc.only_headings:
            room = cap - acc.tokens - acc.units[-1].join
            if room < 1:
                self.flush(path, key)  # headings alone fill the cap: nothing can travel with them
                first_limit = min(packing.target, cap)
            else:
                first_limit = min(packing.target, cap, room)
        else:
            self.flush(path, key)
            first_limit = min(packing.target, cap)
        block = packing.block(unit)
        pieces = packing.cut(block, first_limit, self.cap())
        for n, piece in enumerate(pieces):
            last = n == len(pieces) - 1
            one = piece_unit(block, unit, piece, last)
            if n and self.acc.units:
                self.flush(path, key)
            if self.acc.units and self.acc.cost_of(one) > self.cap():
                self.flush(path, key)
            self.acc.add(one)
            if last and piece.suffix:
                self.flush(path, key)

    def release_headings(self, path: tuple[str, ...], key: tuple[int, ...]) -> None:
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
        done = Draft(self.acc.path, self.acc.preamble, key=self.acc.key)
        for unit in units[:keep]:
            done.add(unit)
        self.drafts.append(done)
        self.acc = Draft(path, key=key)
        for unit in units[keep:]:
            self.acc.add(unit)

    def flush(self, path: tuple[str, ...], key: tuple[int, ...]) -> None:
        """Emit the chunk being packed; the next one starts on ``path``."""
        if self.acc.units:
            self.drafts.append(self.acc)
        self.acc = Draft(path, self.acc.preamble, key=key)
