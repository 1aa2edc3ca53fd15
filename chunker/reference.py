"""Reference packing (spec §5a, ``strategy="reference"``): markdown-object's outcomes, less its defects.

Steps 2–6 of spec §5 exactly as markdown-object's ``HierarchicalChunker`` does them
(``../shared/reference/markdown-object-ARCHITECTURE.md``: ``processHeading``; its code also
has ``processChildren`` for the document and ``mergeSiblingChunks`` for step 6):

- **Document** (``processChildren``). When there is a preamble *and* there are headings and
  all of it fits the hard cap: one chunk, breadcrumb ``[name]``. Otherwise the preamble is
  packed on its own (breadcrumb ``[name]``) and each top-level section goes through
  ``processHeading``: so a document of one top-level section that fits is one chunk with that
  section's path, and several that fit end as one chunk ``[name]`` by the sibling merge.
- **A section** (``processHeading``) that fits is one chunk with its own path. One that does
  not is opened: its heading and direct content are packed greedily (a new chunk when the next
  block does not fit), then its children in order: a child that fits the current chunk joins it
  whole (the path is not deepened); one that does not ends the current chunk, and then starts the
  next chunk if it fits alone (under the parent's path: the code, and spec §5 step 4; the
  architecture's pseudo-code recurses here), or else is opened the same way with its own path.
  After an opened child the next chunk starts empty, under the parent's path ("greedy
  continuation"): a chunk never carries on from a section into a child opened after it.
- **Sibling merge** (``mergeSiblingChunks``, step 6): one pass joins neighbours whose parent
  paths are equal while within the cap; the joined chunk keeps the path if all were equal, else
  takes the parent. The preamble's parent is not a section's, so it merges only with preamble.

Less its defects (spec §5): no chunk exceeds the hard cap (joins counted; a heading's direct
content over the cap is packed into chunks like a leaf section's, the last one going on with
the children, where markdown-object emitted it as one chunk over the cap); token counts are
exact recounts; pieces are verbatim slices with their own spans (no sentences re-joined with
spaces, lists flattened, fences broken nor setext underlines lost); a chunk of headings alone
is not emitted ahead of their content (step 8, below). Sections are told apart by their place,
not their titles: two sibling sections with the same title are two sections (markdown-object
compares breadcrumb strings).

The passes, and which apply here (spec §5a: "cutting (step 7), the hard cap (step 1),
headings travelling forward (step 8), spans, counts and every option of §6 are the same under
all of them"):

1. **The walk** (steps 2–5): this module's :meth:`ReferencePacker.run`,
   :meth:`ReferencePacker._open` and :meth:`ReferencePacker._pack_child`. Not balanced's:
   balanced lets the chunk being packed carry on into an opened child (a section's heading and
   intro join the child's first chunk); the reference emits that chunk first. Blocks are added
   by the shared greedy step (:meth:`chunker.pack._Packer._add_unit`): a block over the cap is
   cut into pieces of about the target (step 7; markdown-object packs those pieces together
   again up to the cap: here, as under every strategy, each is a chunk of its own, but the first
   may follow its headings and later blocks may follow the last), and headings travel forward
   with their content (step 8).
2. **Headings travel forward** (step 8), shared. Where the walk would leave a section's heading
   alone ahead of a first child that does not fit with it (markdown-object emits the heading as
   a chunk of its own), the child is opened with the heading waiting in its first chunk, which
   takes the child's path, as under balanced.
3. **Sibling merge** (step 6): the shared :meth:`chunker.pack._Packer._merge`; it is
   markdown-object's ``mergeSiblingChunks`` (same parent path, within the cap, one pass, the
   path kept or the parent's, preamble only with preamble), counted within the cap by
   ``breadcrumb_in_budget`` too.
4. **Exact counts** (step 1), shared: every chunk recounted on its markdown, one over the cap
   (a tokenizer whose counts do not add up) re-packed.
5. **Small chunks** (balanced's improvement): *not* applied. A chunk under
   ``min(50, target // 4)`` tokens stays as the reference leaves it, and a small preamble stays
   on its own (spec §5a). Only the ``min_tokens`` option of spec §6, shared, runs: a chunk under
   ``min_tokens`` joins a neighbour within a common section when the joined chunk fits, else
   takes whole blocks from one, else is flagged ``tiny``: balanced's small-chunk pass at the size
   ``min_tokens``, where balanced uses the larger of the two sizes (:meth:`ReferencePacker._merge_small`,
   to become that pass called with ``min_tokens`` once its size is a parameter).
6. **Overlap, breadcrumb in budget, clause numbers, output**: shared
   (:meth:`chunker.pack._Packer._finish`).
"""

from __future__ import annotations

from chunker.chunkset import Chunk
from chunker.model import Section
from chunker.pack import _Draft, _Final, _Packer, _Unit

__all__ = ["ReferencePacker"]


class ReferencePacker(_Packer):
    """markdown-object's ``processHeading`` (module docstring); the finish is shared but for small chunks."""

    def run(self) -> list[Chunk]:
        """``processChildren``: the whole document, or the preamble apart and each top-level section."""
        doc = self.doc
        root, top = doc.root, (doc.name,)
        preamble = [self._block_unit(i) for i in range(root.first, root.direct_end)]
        fm = doc.front_matter_block
        if self.front_matter and fm is not None:
            preamble.insert(0, _Unit(fm.start, fm.end, fm.tokens, fm.join_tokens, -1, 0))
        if preamble and root.children:  # only then does processChildren try the whole document
            whole = _Draft(top, preamble=True)
            for unit in (*preamble, self._section_unit_range(root)):
                whole.add(unit)
            if whole.tokens <= self.budget(top):
                return self._finish([whole])
        self.acc = _Draft(top, preamble=True)
        for unit in preamble:
            self._add_unit(unit)
        self._flush()
        for section in root.children:
            path, key = (doc.name, section.title), (section.first,)
            self.acc = _Draft(path, key=key)
            if section.tokens <= self.budget(path):  # processHeading: all of it fits
                self.acc.add(self._section_unit(section))
                self._flush()
            else:
                self._open(section, path, key)
        return self._finish(self._merge(self.drafts))

    def _open(self, section: Section, path: tuple[str, ...], key: tuple[int, ...]) -> None:
        """``processHeading`` of a section too big: heading and direct content, then each child.

        Entered with an empty chunk, or with headings that wait for their content (step 8):
        either way the chunk takes this section's path.
        """
        assert not self.acc.units or self.acc.only_headings
        outer = self.path, self.key
        # The chunk being packed, and those that _add_unit and _flush start, carry this section's path.
        self.path = self.acc.path = path
        self.key = self.acc.key = key
        for index in range(section.first, section.direct_end):
            self._add_unit(self._block_unit(index))  # greedily; cut and headings forward as everywhere
        for child in section.children:
            self._pack_child(child)
        self._flush()
        self.path, self.key = outer
        self.acc = _Draft(outer[0], key=outer[1])  # greedy continuation: later siblings start anew

    def _pack_child(self, child: Section) -> None:
        """One child of the section being opened: inlined whole, the start of the next chunk, or opened."""
        unit = self._section_unit(child)
        if self.acc.cost_of(unit) <= self.cap:
            self.acc.add(unit)  # inlined whole: the path is not deepened
            return
        if not self.acc.only_headings:  # headings alone wait for the child's content: opened with them
            self._flush()
            if child.tokens <= self.budget(self.path):
                self.acc.add(unit)  # fits alone: starts the next chunk, under the path of the section opened
                return
        self._open(child, (*self.path, child.title), (*self.key, child.first))

    def _merge_small(self, items: list[_Final]) -> list[_Final]:
        """Only the ``min_tokens`` option: a chunk under it joins a neighbour, or takes blocks from one.

        The neighbour sharing the deeper section first, then the smaller result, then the
        previous one, as balanced chooses; a chunk that can join neither takes whole blocks
        from one (:meth:`chunker.pack._Packer._rebalanced`), or stays (flagged ``tiny``).
        """
        small = self.min_tokens
        i = 0
        while small and i < len(items):
            if items[i].tokens >= small:
                i += 1
                continue
            joins = [
                (-len(joined.draft.key), joined.tokens, at, joined)
                for at in (i - 1, i)
                if 0 <= at < len(items) - 1 and (joined := self._joined(items[at], items[at + 1], True)) is not None
            ]
            if joins:
                *_, at, joined = min(joins, key=lambda j: j[:3])
                items[at : at + 2] = [joined]
                i = at
                continue
            moved = self._rebalanced(items, i, small)
            if moved is not None:
                at, pair = moved
                items[at : at + 2] = pair
            i += 1
        return items
