"""chunker.pack: the reference outcomes of docs/method.md §5, steps 1-8, and limit errors."""

from __future__ import annotations

import pytest

import chunker
from tests.invariants import check_chunk_set


def words(n: int, word: str = "word") -> str:
    """A paragraph of exactly n cl100k tokens (' word' is one token)."""
    return " ".join([word] * n)


def run(text: str, target: int, cap: int, **options: object) -> chunker.ChunkSet:
    doc = chunker.parse(text, name="doc.md")
    options.setdefault("strategy", "balanced")  # the greedy packing of docs/method.md §5 steps 2–6
    chunks = chunker.chunk(doc, target=target, hard_cap=cap, **options)  # type: ignore[arg-type]
    check_chunk_set(doc, chunks, cap)
    return chunks


def test_whole_document_that_fits_is_one_chunk() -> None:
    """Step 2: everything within the cap gives one chunk with breadcrumb [name]."""
    chunks = run(f"Intro.\n\n# A\n\n{words(50)}\n\n## A1\n\n{words(50)}\n", 64, 256)
    assert len(chunks) == 1
    assert chunks[0].breadcrumb == ["doc.md"]
    assert chunks[0].headings == ["A", "A1"]


def test_preamble_is_packed_on_its_own_when_the_document_does_not_fit() -> None:
    """Step 3: the preamble never shares a chunk with heading content."""
    chunks = run(f"{words(20)}\n\n# A\n\n{words(100)}\n\n# B\n\n{words(100)}\n", 64, 128)
    assert chunks[0].breadcrumb == ["doc.md"]
    assert chunks[0].markdown == words(20)
    assert all("# " not in c.markdown for c in chunks[:1])


def test_section_that_fits_is_never_cut() -> None:
    """Step 4: a section within the cap stays whole in one chunk."""
    text = f"# A\n\n{words(100)}\n\n## A1\n\n{words(100)}\n\n# B\n\n{words(200)}\n"
    chunks = run(text, 64, 240)
    a = [c for c in chunks if "# A\n" in c.markdown]
    assert len(a) == 1 and "## A1" in a[0].markdown
    assert a[0].breadcrumb == ["doc.md", "A"]


def test_open_section_packs_children_greedily_and_starts_a_new_chunk_for_one_that_does_not_fit() -> None:
    """Step 4: children join while within the cap; a child that fits alone starts the next chunk."""
    text = (
        f"# A\n\n{words(30)}\n\n## A1\n\n{words(60)}\n\n## A2\n\n{words(60)}\n\n## A3\n\n{words(60)}\n"
        f"\n# B\n\n{words(180)}\n"
    )
    chunks = run(text, 100, 200)
    first, second = chunks[0], chunks[1]
    assert first.headings == ["A", "A1", "A2"]
    assert second.headings == ["A3"]
    assert first.breadcrumb == ["doc.md", "A"]
    assert second.breadcrumb == ["doc.md", "A"]


def test_child_too_big_is_opened_and_packing_goes_on_with_later_siblings() -> None:
    """Steps 4-5: a child over the cap is opened with its own path; later siblings pack under the parent."""
    text = (
        f"# A\n\n{words(20)}\n\n## Big\n\n{words(150)}\n\n### Deep\n\n{words(150)}\n\n"
        f"## Small1\n\n{words(20)}\n\n## Small2\n\n{words(20)}\n\n# Z\n\n{words(190)}\n"
    )
    chunks = run(text, 100, 200)
    paths = [c.breadcrumb for c in chunks]
    assert ["doc.md", "A", "Big"] in paths
    deep = next(c for c in chunks if "### Deep" in c.markdown)
    assert deep.breadcrumb == ["doc.md", "A", "Big"]  # kept whole inside Big's packing: path not deepened
    tail = next(c for c in chunks if "## Small1" in c.markdown)
    assert "## Small2" in tail.markdown
    assert tail.breadcrumb == ["doc.md", "A"]


def test_small_top_level_sections_merge_under_the_document() -> None:
    """Step 6: neighbouring chunks with the same parent merge within the cap; different paths take the parent."""
    text = f"# A\n\n{words(300)}\n\n# B\n\n{words(30)}\n\n# C\n\n{words(30)}\n"
    chunks = run(text, 100, 200)
    last = chunks[-1]
    assert last.headings == ["B", "C"]
    assert last.breadcrumb == ["doc.md"]


def test_preamble_chunks_never_merge_with_section_chunks() -> None:
    """Step 6: a preamble at the small size (25 tokens at target 100) stays apart even when a merge
    would fit; a smaller one joins the chunk after it (docs/method.md §5a), under the document's breadcrumb."""
    text = f"{words(30)}\n\n# A\n\n{words(10)}\n\n# B\n\n{words(195)}\n"
    chunks = run(text, 100, 200)
    assert chunks[0].markdown == words(30)
    assert chunks[1].headings == ["A"]
    small = run(text.replace(words(30), words(10), 1), 100, 200)
    assert small[0].markdown == f"{words(10)}\n\n# A\n\n{words(10)}"
    assert small[0].breadcrumb == ["doc.md"] and small[0].headings == ["A"]
    assert run(text.replace(words(30), words(10), 1), 100, 200, strategy="reference")[0].markdown == words(10)


def test_heading_travels_forward_with_its_content() -> None:
    """Step 8: no chunk ends with a heading whose content is in the next chunk."""
    text = f"# A\n\n## B\n\n### C\n\n{words(300)}\n\n# Z\n\n{words(10)}\n"
    chunks = run(text, 100, 150)
    assert chunks[0].markdown.startswith("# A\n\n## B\n\n### C\n\nword")
    assert not any("heading_only" in c.flags for c in chunks)


def test_heading_with_a_block_that_only_fits_alone_cuts_the_block_not_the_heading() -> None:
    """Step 8: heading + block over the cap: the block is cut so its first piece joins the heading."""
    text = f"# A\n\n{words(140)}\n\n# B\n\n{words(140)}\n"
    chunks = run(text, 100, 142)  # heading (2) + join (1) + block (140) = 143
    assert chunks[0].markdown.startswith("# A\n\nword")
    assert "split_text" in chunks[0].flags


def test_a_section_without_content_may_be_only_a_heading() -> None:
    """Step 8: an empty section can stand alone, flagged heading_only."""
    text = f"# A\n\n{words(150)}\n\n# Empty\n\n# B\n\n{words(150)}\n"
    chunks = run(text, 100, 160)
    assert any(c.headings == ["Empty"] or "# Empty" in c.markdown for c in chunks)


def test_block_over_the_cap_is_cut_into_pieces_of_about_target() -> None:
    """Step 7: a long paragraph is cut at sentence ends into pieces no larger than target."""
    sentence = "This sentence has exactly a few words in it."
    text = "# A\n\n" + " ".join([sentence] * 60) + "\n"
    chunks = run(text, 100, 200)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.token_count <= 100 + 5  # the first piece also carries the heading
        body = chunk.markdown.removeprefix("# A\n\n")
        assert body.endswith(".")  # cut between sentences, never inside one
        assert "split_text" in chunk.flags


def test_target_larger_than_what_fits_still_respects_the_cap() -> None:
    """Step 1: the hard cap holds for every chunk even when target == hard_cap."""
    text = f"# A\n\n{words(500)}\n\n```python\n" + "x = 1\n" * 400 + "```\n"
    chunks = run(text, 200, 200)
    assert max(c.token_count for c in chunks) <= 200


def test_code_pieces_are_complete_fences_with_the_original_fence_and_info() -> None:
    """Step 7: each piece of a cut fence opens and closes with the same fence and info string."""
    body = "\n".join(f"print('line {n}')  # ``` inside" for n in range(200))
    text = f"# Code\n\n````python title=x\n{body}\n````\n"
    chunks = run(text, 100, 150)
    assert len(chunks) > 3
    for chunk in chunks:
        assert "split_code" in chunk.flags
        lines = chunk.markdown.removeprefix("# Code\n\n").split("\n")
        assert lines[0] == "````python title=x"
        assert lines[-1] == "````"
    assert chunks[1].added_prefix == "````python title=x\n"
    assert chunks[0].added_suffix == "\n````"


def test_table_pieces_repeat_the_header_by_default() -> None:
    """Step 7: every later table piece starts with the header and delimiter rows."""
    rows = "\n".join(f"| {n} | value number {n} |" for n in range(150))
    text = f"| id | value |\n|----|-------|\n{rows}\n"
    chunks = run(text, 100, 150)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.markdown.startswith("| id | value |\n|----|-------|\n")
        assert "split_table" in chunk.flags


def test_table_header_is_not_repeated_when_disabled() -> None:
    """repeat_table_header=False: only the first piece has the header."""
    rows = "\n".join(f"| {n} | value number {n} |" for n in range(150))
    chunks = run(f"| id | value |\n|----|-------|\n{rows}\n", 100, 150, repeat_table_header=False)
    assert chunks[0].markdown.startswith("| id | value |")
    assert not any(c.markdown.startswith("| id |") for c in chunks[1:])


def test_list_is_cut_between_items_keeping_markers_and_nesting() -> None:
    """Step 7: pieces of a list start at an item, with the marker and nested items intact."""
    items = "\n".join(f"- item {n} {words(8, 'text')}\n  - nested {n}" for n in range(80))
    chunks = run(items + "\n", 100, 150)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.markdown.startswith("- item ")
        assert chunk.markdown.count("- item") == chunk.markdown.count("  - nested")
        assert "split_list" in chunk.flags


def test_blockquote_pieces_keep_their_prefixes() -> None:
    """Step 7: a cut blockquote keeps '>' on every line of every piece."""
    quote = "\n>\n".join(f"> {words(30)}." for _ in range(20))
    chunks = run(quote + "\n", 50, 100)
    assert len(chunks) > 2
    for chunk in chunks:
        assert all(line.startswith(">") for line in chunk.markdown.split("\n"))


def test_an_unbreakable_word_is_cut_at_token_boundaries() -> None:
    """Step 7: one word longer than the cap is cut at token boundaries and flagged hard_cut."""
    text = "x" * 3000 + "\n"
    chunks = run(text, 50, 60)
    assert "".join(c.markdown for c in chunks) == "x" * 3000
    assert all("hard_cut" in c.flags for c in chunks)


def test_sentences_keep_their_order_and_text() -> None:
    """Pieces are verbatim slices: joined in order they give back the paragraph's words."""
    sentences = [f"Sentence number {n} says something about {n * 7}." for n in range(120)]
    text = " ".join(sentences) + "\n"
    chunks = run(text, 60, 80)
    assert " ".join(c.markdown for c in chunks) == text.strip()


@pytest.mark.parametrize(
    ("target", "hard_cap", "message"),
    [
        (0, 100, "target must be at least 1"),
        (200, 100, r"hard_cap \(100\) must be at least target \(200\)"),
        (4, 8, "below the smallest workable size"),
        (1.5, 100, "target must be an int"),
    ],
)
def test_bad_limits_raise_config_error_naming_the_value(target: object, hard_cap: object, message: str) -> None:
    """Caller mistakes raise ConfigError (a ChunkerError) with the bad value in the message."""
    doc = chunker.parse("# A\n")
    with pytest.raises(chunker.ConfigError, match=message):
        chunker.chunk(doc, target=target, hard_cap=hard_cap)  # type: ignore[arg-type]
    with pytest.raises(chunker.ChunkerError):
        chunker.chunk_markdown("# A\n", target=target, hard_cap=hard_cap)  # type: ignore[arg-type]


def test_callable_tokenizer_counts_are_exact_and_capped() -> None:
    """With a non-additive counter every chunk is recounted and repaired to the cap."""

    def chars(text: str) -> int:
        return len(text)

    text = f"# A\n\n{words(100)}\n\n## B\n\n{words(100)}\n\n```\n" + "code line\n" * 80 + "```\n"
    doc = chunker.parse(text, tokenizer=chars)
    chunks = chunker.chunk(doc, target=200, hard_cap=300)
    check_chunk_set(doc, chunks, 300)
    assert chunks.config["tokenizer"] == "callable:chars"


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
def test_rechunking_a_parsed_document_gives_the_same_result_as_chunk_markdown(strategy: str) -> None:
    """chunk(parse(text)) with new limits equals a fresh chunk_markdown at those limits: what the
    document's caches keep from one cut (counts, inner structure, code lines) holds at any other."""
    code = "\n".join(f"{'    ' * (n % 3)}line_{n} = call({n})" for n in range(120))
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| row {n} | {words(6)} |" for n in range(60))
    items = "\n".join(f"- item {n}: {words(12)}" for n in range(40))
    text = f"# A\n\n{words(300)}\n\n## B\n\n{words(50)}\n\n```py\n{code}\n```\n\n{table}\n\n{items}\n"
    doc = chunker.parse(text, name="doc.md")
    for target, cap in [(50, 100), (100, 400), (30, 30), (60, 120)]:
        assert (
            chunker.chunk(doc, target, cap, strategy=strategy).to_json()
            == chunker.chunk_markdown(text, name="doc.md", target=target, hard_cap=cap, strategy=strategy).to_json()
        )


def test_html_block_line_that_looks_like_a_fence_stays_html_when_cut() -> None:
    """Found by Hypothesis: a type-6 HTML block absorbs a following '```' line; cut at target=1,
    that line alone would re-parse as a fence opener, so it stays joined with the HTML above it."""
    text = "<div>\n<p>html <b>block</b></p>\n</div>\n```\n\n```\nT\n===\nT\n===\nT\n===\nT\n===\nT\n==="
    run(text, 1, 16)


def test_piece_cut_inside_the_blocks_last_pre_token_is_recounted_when_joined() -> None:
    """Found by Hypothesis (tests/test_split.py): a table cut at token boundaries left a last
    piece "|." whose block ends in the pre-token " |."; joined to the next paragraph, the
    block's join cost (0 tokens: " |.\\n\\n" counts as " |.") was summed for the piece, whose
    "|.\\n\\n" counts one more. The chunk claimed 3 tokens for a text of 4. A piece ending
    inside its block's last pre-token is now recounted when it joins."""
    text = "| h0 | h1 |\n|---|---|\n| alpha | alpha |\n| alpha | alpha |.\n\nAlpha."
    doc = chunker.parse(text, name="t.md")
    chunks = chunker.chunk(doc, target=1, hard_cap=16, strategy="balanced")
    check_chunk_set(doc, chunks, 16)
    assert chunks[len(chunks) - 1].markdown == "|.\n\nAlpha."


def test_a_document_re_packed_at_one_setting_after_another_gives_what_a_fresh_parse_gives() -> None:
    """Blocks cut at one hard cap keep their pieces for the next (``CutCache.pieces``, by their limits): a
    slider's walk over settings must give, at each, what a document never packed before gives."""
    table = "| a | b |\n|---|---|\n" + "".join(f"| row {i} has words | {'cell ' * (i % 7)} |\n" for i in range(300))
    code = "```python\n" + "".join(f"def f{i}(x):\n    return x * {i}  # a line\n\n" for i in range(200)) + "```\n"
    items = "".join(f"- item {i}: {'word ' * (i % 30)}\n" for i in range(200))
    prose = " ".join(f"Sentence {i} says a little more." for i in range(600))
    long = " ".join(f"heading word {i}" for i in range(30))  # headings that leave a block's first piece less room
    text = (
        f"# Doc\n\nIntro.\n\n## Table {long}\n\n{table}\n## Code\n\n{code}\n## List {long}\n\n{items}\n"
        f"## Prose {long} {long}\n\n{prose}\n"
    )
    caps = (256, 320, 400, 512, 1024)
    walk = [(cap, target) for target in (128, 160, 200, 300, 384) for cap in caps if target <= cap]
    doc = chunker.parse(text, name="walk.md")
    for cap, target in walk:
        for strategy in ("optimal", "balanced", "reference"):
            options = chunker.ChunkOptions(target, cap, strategy=strategy)
            again = chunker.chunk_with(doc, options).to_json()
            assert again == chunker.chunk_with(chunker.parse(text, name="walk.md"), options).to_json(), (cap, target)
