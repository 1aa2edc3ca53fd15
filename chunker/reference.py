"""Reference packing (docs/method.md §5a, ``strategy="reference"``): markdown-object's outcomes, less its defects.

Steps 2–6 of docs/method.md §5 exactly as markdown-object's ``HierarchicalChunker`` does them
(github.com/benbjurstrom/markdown-object, ``src/Chunking/HierarchicalChunker.php``: ``processHeading``,
``processChildren`` for the document and ``mergeSiblingChunks`` for step 6):

- **Document** (``processChildren``). When there is a preamble *and* there are headings and
  all of it fits the hard cap: one chunk, breadcrumb ``[name]``. Otherwise the preamble is
  packed on its own (breadcrumb ``[name]``) and each top-level section goes through
  ``processHeading``: so a document of one top-level section that fits is one chunk with that
  section's path, and several that fit end as one chunk ``[name]`` by the sibling merge.
- **A section** (``processHeading``) that fits is one chunk with its own path. One that does
  not is opened: its heading and direct content are packed greedily (a new chunk when the next
  block does not fit), then its children in order: a child that fits the current chunk joins it
  whole (the path is not deepened); one that does not ends the current chunk, and then starts the
  next chunk if it fits alone (under the parent's path: the code, and docs/method.md §5 step 4; the
  architecture's pseudo-code recurses here), or else is opened the same way with its own path.
  After an opened child the next chunk starts empty, under the parent's path ("greedy
  continuation"): a chunk never carries on from a section into a child opened after it.
- **Sibling merge** (``mergeSiblingChunks``, step 6): one pass joins neighbours whose parent
  paths are equal while within the cap; the joined chunk keeps the path if all were equal, else
  takes the parent. The preamble's parent is not a section's, so it merges only with preamble.

Less its defects (docs/method.md §5): no chunk exceeds the hard cap (joins counted; a heading's direct
content over the cap is packed into chunks like a leaf section's, the last one going on with
the children, where markdown-object emitted it as one chunk over the cap); token counts are
exact recounts; pieces are verbatim slices with their own spans (no sentences re-joined with
spaces, lists flattened, fences broken nor setext underlines lost); a chunk of headings alone
is not emitted ahead of their content (step 8, below). Sections are told apart by their place,
not their titles: two sibling sections with the same title are two sections (markdown-object
compares breadcrumb strings).

The passes, and which apply here (docs/method.md §5a: "cutting (step 7), the hard cap (step 1),
headings travelling forward (step 8), spans, counts and every option of §6 are the same under
all of them"):

1. **The walk** (steps 2–5): this module's :func:`reference_walk`, with
   :meth:`_ReferenceWalk.open` and :meth:`_ReferenceWalk.pack_child`. Not balanced's:
   balanced lets the chunk being packed carry on into an opened child (a section's heading and
   intro join the child's first chunk); the reference emits that chunk first. Blocks are added
   by balanced's greedy step (:meth:`chunker.balanced.GreedyWalk.add_unit`): a block over the cap is
   cut into pieces of about the target (step 7; markdown-object packs those pieces together
   again up to the cap: here, as under every strategy, each is a chunk of its own, but the first
   may follow its headings and later blocks may follow the last), and headings travel forward
   with their content (step 8).
2. **Headings travel forward** (step 8), shared. Where the walk would leave a section's heading
   alone ahead of a first child that does not fit with it (markdown-object emits the heading as
   a chunk of its own), the child is opened with the heading waiting in its first chunk, which
   takes the child's path, as under balanced.
3. **Sibling merge** (step 6): the shared :func:`chunker.pack.merge_siblings`; it is
   markdown-object's ``mergeSiblingChunks`` (same parent path, within the cap, one pass, the
   path kept or the parent's, preamble only with preamble), counted within the cap by
   ``breadcrumb_in_budget`` too.
4. **Exact counts** (step 1), shared: every chunk recounted on its markdown, one over the cap
   (a tokenizer whose counts do not add up) re-packed.
5. **Small chunks** (balanced's improvement): *not* applied. A chunk under
   ``min(50, target // 4)`` tokens stays as the reference leaves it, and a small preamble stays
   on its own (docs/method.md §5a). Only the ``min_tokens`` option of docs/method.md §6, shared, runs: a chunk under
   ``min_tokens`` joins a neighbour within a common section when the joined chunk fits, else
   takes whole blocks from one, else is flagged ``tiny``: the shared small-chunk pass
   (:func:`chunker.pack.join_small`) at the size ``min_tokens``, where balanced and optimal use
   the larger of the two (``Packing.small``).
6. **Overlap, breadcrumb in budget, clause numbers, output**: shared
   (:func:`chunker.pack.overlaps`, :func:`chunker.pack.to_chunks`).
"""

from __future__ import annotations

from chunker.balanced import GreedyWalk
from chunker.drafts import Draft, Packing
from chunker.model import Section

__all__ = ["reference_walk"]


def reference_walk(packing: Packing) -> list[Draft]:
    """``processChildren``: the whole document, or the preamble apart and each top-level section."""
    doc = packing.doc
    root, top = doc.root, (doc.name,)
    preamble = [packing.block_unit(i) for i in range(root.first, root.direct_end)]
    if packing.front_matter:
        preamble.insert(0, packing.front_matter_unit())
    if preamble and root.children:  # only then does processChildren try the whole document
        whole = Draft(top, preamble=True)
        for unit in (*preamble, packing.sections_unit(root)):
            whole.add(unit)
        if whole.tokens <= packing.cap(top):
            return [whole]
    walk = _ReferenceWalk(packing, Draft(top, preamble=True))
    for unit in preamble:
        walk.add_unit(unit, top, ())
    walk.flush(top, ())
    for section in root.children:
        path, key = (doc.name, section.title), (section.first,)
        walk.acc = Draft(path, key=key)
        if section.tokens <= packing.cap(path):  # processHeading: all of it fits
            walk.acc.add(packing.section_unit(section))
            walk.flush(path, key)
        else:
            walk.open(section, path, key)
    return walk.drafts


class _ReferenceWalk(GreedyWalk):
    """Balanced's walk (blocks added greedily, cut, headings forward), opening sections as the reference does."""

    def open(self, section: Section, path: tuple[str, ...], key: tuple[int, ...]) -> None:
        """``processHeading`` of a section too big: heading and direct content, then each child.

        Entered with an empty chunk, or with headings that wait for their content (step 8):
        either way the chunk takes this section's path.
        """
        assert not self.acc.units or self.acc.only_headings
        self.acc.path, self.acc.key = path, key
        for index in range(section.first, section.direct_end):
            self.add_unit(self.packing.block_unit(index), path, key)  # cut and headings forward as everywhere
        for child in section.children:
            self.pack_child(child, path, key)
        self.flush(path, key)

    def pack_child(self, child: Section, path: tuple[str, ...], key: tuple[int, ...]) -> None:
        """One child of the section being opened (``path``): inlined whole, the start of the next chunk, or opened."""
        unit = self.packing.section_unit(child)
        if self.acc.cost_of(unit) <= self.cap():
            self.acc.add(unit)  # inlined whole: the path is not deepened
            return
        if not self.acc.only_headings:  # headings alone wait for the child's content: opened with them
            self.flush(path, key)
            if child.tokens <= self.packing.cap(path):
                self.acc.add(unit)  # fits alone: starts the next chunk, under the path of the section opened
                return
        self.open(child, (*path, child.title), (*key, child.first))
        self.acc = Draft(path, key=key)  # greedy continuation: later siblings start anew
