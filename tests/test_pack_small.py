"""Fewer small chunks: an opened section carries its chunk into its first child (spec §5.4).

Each hand-written document below gave a small orphan chunk before this behaviour
(a section's heading and intro alone, ahead of its opened child); the docstrings
say which.
"""

from __future__ import annotations

import bisect
import functools

import pytest

import chunker
from tests.conftest import corpus_files, requires_corpus
from tests.invariants import check_chunk_set


def words(n: int, word: str = "word") -> str:
    """A paragraph of exactly n cl100k tokens (' word' is one token)."""
    return " ".join([word] * n)


def run(text: str, target: int, cap: int, **options: object) -> chunker.ChunkSet:
    doc = chunker.parse(text, name="doc.md")
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
    a chunk holding preamble text holds no heading (unless it is the whole document)."""
    preamble_end = doc.blocks[doc.root.direct_end].start if doc.root.children else len(doc.text)
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
        if chunk.char_span[0] < preamble_end and len(chunks) > 1:
            assert end <= preamble_end, f"{doc.name} {chunk.id}: preamble mixed with heading content"


@functools.cache
def corpus_documents() -> list[chunker.Document]:
    """The corpus, parsed once for the tests of this module."""
    return [
        chunker.parse(path.read_bytes().decode("utf-8", errors="replace"), name=path.name) for path in corpus_files()
    ]


@requires_corpus
@pytest.mark.corpus
@pytest.mark.parametrize(("target", "cap"), [(256, 512), (128, 256)])
def test_corpus_headings_travel_forward_and_breadcrumbs_hold(target: int, cap: int) -> None:
    """On every corpus document: no chunk ends with a heading whose content is in the next
    chunk, breadcrumbs name sections that hold their chunks, preamble stays apart."""
    for doc in corpus_documents():
        for options in ({}, {"min_tokens": target // 4}):
            chunks = chunker.chunk(doc, target=target, hard_cap=cap, **options)  # type: ignore[arg-type]
            assert_headings_travel_forward(doc, chunks)
            assert_breadcrumbs_hold_their_chunks(doc, chunks)
