"""Fewer small chunks: an opened section carries its chunk into a child too big for it
(docs/method.md §5 step 4), and a small chunk joins a neighbour within a common section.

Most hand-written documents below gave a small orphan chunk before these behaviours
(a section's heading and intro alone ahead of its opened child, a small last section
after a chunk of another parent); the docstrings say which.
"""

from __future__ import annotations

import bisect
import functools

import pytest

import chunker
from tests.conftest import corpus_files, requires_corpus
from tests.invariants import check_chunk_set, unclosed_fences
from tests.test_pack import words


def run(text: str, target: int, cap: int, **options: object) -> chunker.ChunkSet:
    doc = chunker.parse(text, name="doc.md")
    options.setdefault("strategy", "balanced")  # the greedy packing of docs/method.md §5 steps 2–6
    chunks = chunker.chunk(doc, target=target, hard_cap=cap, **options)  # type: ignore[arg-type]
    check_chunk_set(doc, chunks, cap)
    assert_headings_travel_forward(doc, chunks)
    return chunks


def assert_headings_travel_forward(doc: chunker.Document, chunks: chunker.ChunkSet) -> None:
    """No chunk ends with a heading whose content (a block or a deeper section) is in the next chunk.

    A chunk of headings alone (flag ``heading_only``: headings that fill the cap by
    themselves) and a heading cut into pieces are the exceptions the engine allows.
    """
    blocks = doc.blocks
    starts = [b.start for b in blocks]
    for chunk in chunks:
        if "heading_only" in chunk.flags:
            continue
        end = chunk.char_span[1]
        last = bisect.bisect_left(starts, end) - 1  # the last block starting inside the chunk
        if last < 0 or blocks[last].start < chunk.char_span[0]:
            continue
        block = blocks[last]
        if block.kind != "heading" or block.end != end or last + 1 == len(blocks):
            continue
        following = blocks[last + 1]
        has_content = following.kind != "heading" or following.level > block.level
        assert not has_content, f"chunk {chunk.id} ends with heading {block.title!r}; its content is in the next chunk"


# -- 1. an opened section carries its chunk into an opened child --------------------------


def test_heading_and_intro_carry_on_into_the_opened_child() -> None:
    """Before: "# Top" and its 10-word intro were a chunk of 13 tokens, because the child
    "## Child" is too big on its own. Now the child's heading, direct content and whole
    grandchildren join that chunk while it fits; the chunk keeps Top's path."""
    text = (
        f"# Top\n\n{words(10)}\n\n## Child\n\n{words(60)}\n\n### G1\n\n{words(100)}\n\n"
        f"### G2\n\n{words(100)}\n\n# Next\n\n{words(150)}\n"
    )
    chunks = run(text, 100, 200)
    first = chunks[0]
    assert first.markdown.startswith(f"# Top\n\n{words(10)}\n\n## Child\n\n{words(60)}")
    assert first.headings == ["Top", "Child", "G1"]
    assert first.breadcrumb == ["doc.md", "Top"]  # the chunk started in Top
    assert chunks[1].headings == ["G2"]
    assert chunks[1].breadcrumb == ["doc.md", "Top", "Child"]  # made while opening Child
    assert min(c.token_count for c in chunks) > 50


def test_carrying_on_recurses_into_grandchildren() -> None:
    """Before: "# A" + intro (13 tokens) and "## B" + intro (13) were two chunks, then "### C".
    Now one chunk holds A, B and C's start; later chunks carry the path of the section
    being opened when they start."""
    text = (
        f"# A\n\n{words(10)}\n\n## B\n\n{words(10)}\n\n### C\n\n{words(100)}\n\n#### D\n\n{words(150)}\n\n"
        f"### E\n\n{words(100)}\n\n# Z\n\n{words(150)}\n"
    )
    chunks = run(text, 100, 200)
    assert chunks[0].headings == ["A", "B", "C"]
    assert chunks[0].breadcrumb == ["doc.md", "A"]
    assert chunks[1].headings == ["D"] and chunks[1].breadcrumb == ["doc.md", "A", "B", "C"]
    assert chunks[2].headings == ["E"] and chunks[2].breadcrumb == ["doc.md", "A", "B"]


def test_child_heading_moves_on_when_its_first_block_does_not_fit() -> None:
    """The carried chunk takes the child's heading only with content after it: when the
    child's first block does not fit, the heading starts the next chunk (headings travel
    forward), and that chunk carries the child's path."""
    text = f"# Top\n\n{words(150)}\n\n## Child\n\n{words(100)}\n\n### G\n\n{words(150)}\n\n# Z\n\n{words(150)}\n"
    chunks = run(text, 100, 200)
    assert chunks[0].headings == ["Top"]
    assert chunks[0].markdown.endswith("word")
    assert chunks[1].markdown.startswith("## Child\n\nword")
    assert chunks[1].breadcrumb == ["doc.md", "Top", "Child"]


def test_pending_headings_still_take_the_path_of_their_content() -> None:
    """A section with no intro opens straight into its child: the chunk of headings and the
    child's content carries the child's path, as before."""
    text = f"# A\n\n## B\n\n{words(150)}\n\n### C\n\n{words(150)}\n\n# Z\n\n{words(150)}\n"
    chunks = run(text, 100, 200)
    assert chunks[0].markdown.startswith("# A\n\n## B\n\nword")
    assert chunks[0].breadcrumb == ["doc.md", "A", "B"]


# -- the whole corpus ------------------------------------------------------------------------


def assert_breadcrumbs_hold_their_chunks(doc: chunker.Document, chunks: chunker.ChunkSet) -> None:
    """Each breadcrumb names nested sections, the last of which holds the chunk's span after
    its leading headings (headings that waited for their content take the content's path);
    a chunk holding preamble text holds no heading (unless it is the whole document, or a small
    preamble joined the chunk after it: docs/method.md §5a)."""
    preamble_end = doc.blocks[doc.root.direct_end].start if doc.root.children else len(doc.text)
    small = min(50, chunks.config["target"] // 4)  # docs/method.md §5a: a smaller preamble may join the next chunk
    small_preamble_joins = (
        chunks.config["strategy"] != "reference" and doc.region_tokens(doc.root.first, doc.root.direct_end) < small
    )
    headings = {b.start: b.end for b in doc.blocks if b.kind == "heading"}
    text = doc.text
    for chunk in chunks:
        sections = [doc.root]
        for title in chunk.breadcrumb[1:]:
            sections = [child for s in sections for child in s.children if child.title == title]
        start, end = chunk.char_span
        while start in headings and headings[start] < end:  # skip leading headings
            rest = text[headings[start] : end]
            start = end - len(rest.lstrip())
        holders = [s for s in sections if s is doc.root or (s.char_span[0] <= start and end <= s.char_span[1])]
        assert holders, f"{doc.name} {chunk.id}: breadcrumb {chunk.breadcrumb} does not hold {chunk.char_span}"
        if chunk.char_span[0] < preamble_end and len(chunks) > 1 and not small_preamble_joins:
            assert end <= preamble_end, f"{doc.name} {chunk.id}: preamble mixed with heading content"


def assert_no_small_chunk_could_join(doc: chunker.Document, chunks: chunker.ChunkSet, cap: int) -> None:
    """Every chunk still under the small size has no neighbour it may join within the cap.

    May: both preamble or both not, and, unless the chunk is under ``min_tokens``, not two
    pieces of one cut block. (Joins through an added fence or header are not checked, nor
    chunk sets made with ``breadcrumb_in_budget``, where the joined breadcrumb counts too.)
    """
    if chunks.config["breadcrumb_in_budget"]:
        return
    target, min_tokens = chunks.config["target"], chunks.config["min_tokens"]
    small = max(min_tokens, min(50, target // 4))
    text, count = doc.text, doc.tokenizer.count
    preamble_end = doc.blocks[doc.root.direct_end].start if doc.root.children else len(text)
    starts = [b.start for b in doc.blocks]
    for chunk in chunks:
        if chunk.token_count >= small:
            continue
        n = chunk.index
        for left, right in (
            (chunks[n - 1] if n else None, chunk),
            (chunk, chunks[n + 1] if n + 1 < len(chunks) else None),
        ):
            if left is None or right is None or left.added_suffix or right.added_prefix:
                continue
            if (left.char_span[0] < preamble_end) != (right.char_span[0] < preamble_end):
                continue
            cut = doc.blocks[bisect.bisect_left(starts, left.char_span[1]) - 1]  # the last block in ``left``
            if cut.end > right.char_span[0] and chunk.token_count >= min_tokens:
                continue  # two pieces of one block: joined back only for min_tokens
            markdown = left.added_prefix + text[left.char_span[0] : right.char_span[1]] + right.added_suffix
            other = left if right is chunk else right
            assert count(markdown) > cap or unclosed_fences(markdown), (
                f"{doc.name}: {chunk.id} ({chunk.token_count} tokens) could join {other.id}"
            )


@functools.cache
def corpus_documents() -> list[chunker.Document]:
    """The corpus, parsed once for the tests of this module."""
    return [
        chunker.parse(path.read_bytes().decode("utf-8", errors="replace"), name=path.name) for path in corpus_files()
    ]


@requires_corpus
@pytest.mark.corpus
@pytest.mark.parametrize(("target", "cap"), [(256, 512), (128, 256)])
def test_corpus_headings_travel_forward_breadcrumbs_hold_and_small_chunks_join(target: int, cap: int) -> None:
    """On every corpus document: no chunk ends with a heading whose content is in the next
    chunk, breadcrumbs name sections that hold their chunks, preamble stays apart, and no
    small chunk is left that could have joined a neighbour."""
    for doc in corpus_documents():
        for options in ({}, {"min_tokens": target // 4}):
            chunks = chunker.chunk(doc, target=target, hard_cap=cap, strategy="balanced", **options)  # type: ignore[arg-type]
            assert_headings_travel_forward(doc, chunks)
            assert_breadcrumbs_hold_their_chunks(doc, chunks)
            assert_no_small_chunk_could_join(doc, chunks, cap)


# -- 2. a small chunk joins a neighbour inside a common section ------------------------------


def test_small_trailing_section_joins_a_deeper_neighbour_under_their_common_section() -> None:
    """Before: "## License" (13 tokens) stayed alone after the chunk of "### Deep", whose
    breadcrumb [Top, Big] has another parent. Now it joins that chunk, which takes the
    path of their deepest common section, Top."""
    text = (
        f"# Top\n\n{words(10)}\n\n## Big\n\n{words(120)}\n\n### Deep\n\n{words(120)}\n\n"
        f"## License\n\n{words(10)}\n\n# Z\n\n{words(190)}\n"
    )
    chunks = run(text, 100, 200)
    tail = next(c for c in chunks if "License" in c.headings)
    assert tail.headings == ["Deep", "License"]
    assert tail.breadcrumb == ["doc.md", "Top"]
    assert min(c.token_count for c in chunks) > 25


def test_small_top_level_section_joins_under_the_document() -> None:
    """Before: "# C" (13 tokens) stayed alone after a chunk of [A, A1]. With the document as
    their only common section, the joined chunk's breadcrumb is the document name."""
    text = (
        f"# A\n\n{words(10)}\n\n## A1\n\n{words(10)}\n\n### Deep1\n\n{words(180)}\n\n"
        f"### Deep2\n\n{words(180)}\n\n# C\n\n{words(10)}\n"
    )
    chunks = run(text, 100, 200)
    assert chunks[-1].headings == ["Deep2", "C"]
    assert chunks[-1].breadcrumb == ["doc.md"]


def test_small_chunk_prefers_the_neighbour_of_its_deeper_section() -> None:
    """ "### B2" (13 tokens) could join the chunk before it (same section B) or "## C" after
    it (common section A only, smaller result): it stays within B."""
    text = (
        f"# A\n\n{words(150)}\n\n## B\n\n{words(150)}\n\n### B1\n\n{words(120)}\n\n#### B1a\n\n{words(120)}\n\n"
        f"### B2\n\n{words(10)}\n\n## C\n\n{words(40)}\n\n## D\n\n{words(185)}\n"
    )
    chunks = run(text, 100, 200)
    b2 = next(c for c in chunks if "B2" in c.headings)
    assert b2.headings == ["B1a", "B2"]
    assert b2.breadcrumb == ["doc.md", "A", "B"]
    assert next(c for c in chunks if "C" in c.headings).headings == ["C"]


def test_small_heading_and_intro_join_the_cut_block_that_follows() -> None:
    """Before: "# Top" and its intro (23 tokens) stayed alone ahead of "## Child", whose first
    block is cut. Now they join the chunk of the child's heading and first piece."""
    text = f"# Top\n\n{words(20)}\n\n## Child\n\n{words(400)}\n\n# Z\n\n{words(150)}\n"
    chunks = run(text, 100, 200)
    assert chunks[0].headings == ["Top", "Child"]
    assert chunks[0].breadcrumb == ["doc.md", "Top"]
    assert chunks[1].breadcrumb == ["doc.md", "Top", "Child"]


def test_a_small_preamble_joins_the_chunk_after_it_and_stays_alone_under_reference() -> None:
    """Spec §5a: under balanced a preamble under the small size joins the first chunk after it when
    that fits (breadcrumb the document); under reference it stays alone, and is not flagged `tiny`."""
    text = f"Short intro.\n\n# A\n\n{words(150)}\n\n# B\n\n{words(150)}\n"
    chunks = run(text, 100, 200)
    assert chunks[0].markdown.startswith("Short intro.\n\n# A\n\nword")
    assert chunks[0].breadcrumb == ["doc.md"]
    alone = run(text, 100, 200, strategy="reference")
    assert alone[0].markdown == "Short intro."
    assert alone[0].flags == []


def test_small_last_piece_of_a_cut_block_joins_its_neighbour_in_the_cutter() -> None:
    """Sentences of 40, 40 and 5 tokens cut at target 40: the cutter leaves no sliver where
    joining fits the cap (docs/method.md §5 step 7), so the 5 tokens go with the second piece,
    with or without min_tokens; at a cap that the join would exceed, the sliver stays."""
    text = f"{words(39, 'one')}. {words(39, 'two')}. {words(4, 'three')}.\n"
    assert [c.token_count for c in run(text, 40, 60)] == [40, 45]
    assert [c.token_count for c in run(text, 40, 60, min_tokens=10)] == [40, 45]
    assert [c.token_count for c in run(text, 40, 44)] == [40, 40, 5]


def test_min_tokens_joins_across_sections_under_their_common_section() -> None:
    """Before: with min_tokens=50 the 13-token "## License" was flagged `tiny` (no neighbour
    with the same breadcrumb). Now min_tokens uses the same common-section rule."""
    text = (
        f"# Top\n\n{words(10)}\n\n## Big\n\n{words(120)}\n\n### Deep\n\n{words(120)}\n\n"
        f"## License\n\n{words(10)}\n\n# Z\n\n{words(190)}\n"
    )
    chunks = run(text, 100, 200, min_tokens=50)
    assert not any("tiny" in c.flags for c in chunks)
    tail = next(c for c in chunks if "License" in c.headings)
    assert tail.breadcrumb == ["doc.md", "Top"]


# -- 3. a small chunk no neighbour can take whole takes whole blocks from one ------------------


def test_small_last_section_takes_the_previous_chunks_last_section() -> None:
    """Before: "## C" (8 tokens) stayed alone after a chunk of 196 tokens that it could not
    join within the cap of 200. Now the last section of that chunk, "## B", moves to it: the
    cut falls before the shallowest heading that leaves both chunks at 25 tokens or more
    (min(50, target // 4)), here a level-2 heading rather than "### A1"."""
    text = (
        f"# Top\n\n{words(10)}\n\n## A\n\n{words(100)}\n\n### A1\n\n{words(30)}\n\n"
        f"## B\n\n{words(40)}\n\n## C\n\n{words(5)}\n"
    )
    chunks = run(text, 100, 200)
    assert [c.headings for c in chunks] == [["Top", "A", "A1"], ["B", "C"]]
    assert [c.breadcrumb for c in chunks] == [["doc.md", "Top"], ["doc.md", "Top"]]
    assert chunks[1].markdown == f"## B\n\n{words(40)}\n\n## C\n\n{words(5)}"
    assert min(c.token_count for c in chunks) >= 25


def test_small_first_section_takes_the_next_chunks_first_blocks() -> None:
    """Before: "# S1" (9 tokens) stayed alone ahead of a 98-token chunk it could not join
    within the cap of 100. Now S2's heading and intro join it, the chunk ends before "## X"
    (never with a heading whose content is in the next chunk), and it takes the path of the
    deepest section holding both: the document."""
    text = f"# S1\n\n{words(5)}\n\n# S2\n\n{words(20)}\n\n## X\n\n{words(70)}\n\n## Y\n\n{words(90)}\n"
    chunks = run(text, 100, 100)
    assert chunks[0].markdown == f"# S1\n\n{words(5)}\n\n# S2\n\n{words(20)}"
    assert chunks[0].breadcrumb == ["doc.md"]
    assert chunks[1].headings == ["X"]
    assert chunks[1].breadcrumb == ["doc.md", "S2"]


def test_small_chunk_keeps_its_size_when_no_cut_leaves_both_chunks_big_enough() -> None:
    """The next chunk is a heading and one paragraph: giving the heading away would leave it
    ending nowhere, and the paragraph with it would leave nothing; so "# S1" stays small."""
    text = f"# S1\n\n{words(5)}\n\n# S2\n\n## X\n\n{words(90)}\n\n## Y\n\n{words(90)}\n"
    chunks = run(text, 100, 100)
    assert chunks[0].markdown == f"# S1\n\n{words(5)}"


def test_small_preamble_never_takes_blocks_from_heading_content() -> None:
    """Spec §5.3 holds for the rebalancing too: the preamble neither gives nor takes blocks."""
    text = f"Short intro.\n\n# A\n\n{words(20)}\n\n## A1\n\n{words(170)}\n\n# B\n\n{words(150)}\n"
    chunks = run(text, 100, 200)
    assert chunks[0].markdown == "Short intro."


@requires_corpus
@pytest.mark.corpus
def test_corpus_chunks_under_50_tokens_are_whole_preambles_at_the_peers_setting() -> None:
    """At target 256 / cap 512 (benchmarks/peers.py) every chunk under 50 tokens in a document
    of several chunks is a whole preamble that docs/method.md §5 step 3 keeps apart from heading content.
    Before the rebalancing, mixed_content_012's "## Conclusion" (14 tokens) stayed alone
    after a chunk of exactly 512 tokens."""
    for doc in corpus_documents():
        chunks = chunker.chunk(doc, target=256, hard_cap=512)
        if len(chunks) < 2:
            continue
        preamble_end = doc.blocks[doc.root.direct_end - 1].end if doc.root.direct_end else 0
        for chunk in chunks:
            if chunk.token_count < 50:
                assert chunk.index == 0 and chunk.char_span[1] == preamble_end and not chunk.headings, (
                    f"{doc.name} {chunk.id}: {chunk.token_count} tokens, {chunk.breadcrumb}"
                )
