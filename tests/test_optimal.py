"""strategy="optimal" (docs/method.md §5a): chunk boundaries by dynamic programming over one stated cost.

The contract of tests/invariants.py holds as under the default strategy (sample documents,
the corpus, the CommonMark examples, generated documents, every option); hand-made
documents pin the boundaries the cost of chunker.optimal chooses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import chunker
from chunker.drafts import Packing
from chunker.optimal import _Row
from tests.conftest import SAMPLES, commonmark_examples, corpus_files, requires_corpus
from tests.invariants import check_chunk_set
from tests.test_pack import words
from tests.test_pack_small import assert_headings_travel_forward, assert_no_small_chunk_could_join
from tests.test_properties import documents, limits

PAIRS = [(64, 128), (128, 256), (256, 512), (512, 1024)]
OPTIONS: list[dict[str, Any]] = [
    {},
    {"overlap": 40},
    {"min_tokens": 60},
    {"breadcrumb_in_budget": True},
    {"overlap": 30, "min_tokens": 30, "breadcrumb_in_budget": True, "include_front_matter": True},
]


def optimal(text: str, target: int, cap: int, **options: Any) -> chunker.ChunkSet:
    doc = chunker.parse(text, name="doc.md")
    chunks = chunker.chunk(doc, target=target, hard_cap=cap, strategy="optimal", **options)
    check_full(doc, chunks, cap)
    return chunks


def check_full(doc: chunker.Document, chunks: chunker.ChunkSet, cap: int) -> None:
    """The invariants, headings travelling forward, breadcrumbs, and the preamble rule of docs/method.md §5a."""
    check_chunk_set(doc, chunks, cap)
    assert_headings_travel_forward(doc, chunks)
    assert_breadcrumbs_are_deepest_holders(doc, chunks)
    assert_preamble_apart_unless_small(doc, chunks)


def assert_breadcrumbs_are_deepest_holders(doc: chunker.Document, chunks: chunker.ChunkSet) -> None:
    """Each chunk's breadcrumb is the path of the deepest section holding all of it (docs/method.md §5a).

    Small chunks joined afterwards take the deepest section holding both, so this holds for them too.
    """
    for chunk in chunks:
        start, end = chunk.char_span
        section, path = doc.root, [doc.name]
        while True:
            inner = [s for s in section.children if s.char_span[0] <= start and end <= s.char_span[1]]
            if not inner:
                break
            section = inner[0]
            path.append(section.title)
        assert chunk.breadcrumb == path, f"{doc.name} {chunk.id}: breadcrumb {chunk.breadcrumb}, deepest {path}"


def assert_preamble_apart_unless_small(doc: chunker.Document, chunks: chunker.ChunkSet) -> None:
    """Preamble text shares a chunk with heading content only when the preamble is small, or all fits."""
    root = doc.root
    if not root.children or root.direct_end == root.first:
        return
    preamble_end = doc.blocks[root.direct_end].start
    small = min(50, chunks.config["target"] // 4)
    preamble_tokens = doc.region_tokens(root.first, root.direct_end)
    for chunk in chunks:
        start, end = chunk.char_span
        if start < preamble_end < end and len(chunks) > 1:
            assert preamble_tokens < small, f"{doc.name} {chunk.id}: preamble of {preamble_tokens} mixed"


# -- the contract ------------------------------------------------------------------------------


def sample_paths() -> list[Path]:
    return sorted(SAMPLES.glob("*.md"))


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.name)
@pytest.mark.parametrize(("target", "cap"), PAIRS)
def test_sample_documents_meet_the_contract(path: Path, target: int, cap: int) -> None:
    """Sample documents at four settings, each with every option."""
    doc = chunker.parse(path.read_text(encoding="utf-8"), name=path.name)
    for options in OPTIONS:
        chunks = chunker.chunk(doc, target=target, hard_cap=cap, strategy="optimal", **options)
        check_full(doc, chunks, cap)
        if not options:
            assert_no_small_chunk_could_join(doc, chunks, cap)


@requires_corpus
@pytest.mark.corpus
def test_commonmark_examples_meet_the_contract() -> None:
    """Every construct of the syntax, at a tiny cap, a small one and a big one, and with the options."""
    examples = commonmark_examples()
    if not examples:
        pytest.skip("the CommonMark examples are not in the corpus")
    for example in examples:
        doc = chunker.parse(example["markdown"], name="example.md")
        for target, cap in [(1, chunker.MIN_HARD_CAP), (8, 32), (128, 256)]:
            check_full(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy="optimal"), cap)
        check_full(doc, chunker.chunk(doc, target=32, hard_cap=64, strategy="optimal", **OPTIONS[-1]), 64)


@requires_corpus
@pytest.mark.corpus
@pytest.mark.parametrize(("target", "cap"), [(128, 256), (256, 512)])
def test_corpus_documents_meet_the_contract(target: int, cap: int) -> None:
    """Every corpus document: the contract, and no small chunk left that could join a neighbour."""
    for path in corpus_files():
        doc = chunker.parse(path.read_bytes().decode("utf-8", errors="replace"), name=path.name)
        chunks = chunker.chunk(doc, target=target, hard_cap=cap, strategy="optimal")
        check_full(doc, chunks, cap)
        assert_no_small_chunk_could_join(doc, chunks, cap)


def assert_shortcuts_exact(doc: chunker.Document, target: int, cap: int) -> None:
    """The programme over open boundaries with its early stops makes the choices of trying every start."""
    row = _Row(Packing(doc, chunker.ChunkOptions(target, cap), joins_small_chunks=True))
    short = row._open_programme()
    if short is None:  # it gave up: the full programme is used
        return
    total = row.total
    assert row._programme() == short
    assert row.total == total


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.name)
def test_the_shortcut_programme_chooses_as_the_full_one_on_samples(path: Path) -> None:
    doc = chunker.parse(path.read_text(encoding="utf-8"), name=path.name)
    for target, cap in [*PAIRS, (100, 1000), (1000, 1024)]:
        assert_shortcuts_exact(doc, target, cap)


@requires_corpus
@pytest.mark.corpus
def test_the_shortcut_programme_chooses_as_the_full_one_on_the_corpus() -> None:
    for path in corpus_files():
        doc = chunker.parse(path.read_bytes().decode("utf-8", errors="replace"), name=path.name)
        for target, cap in [(128, 256), (512, 1024)]:
            assert_shortcuts_exact(doc, target, cap)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=documents(), lim=limits())
def test_the_shortcut_programme_chooses_as_the_full_one_on_generated_markdown(
    text: str, lim: tuple[int, int, dict[str, Any]]
) -> None:
    target, cap, _ = lim
    assert_shortcuts_exact(chunker.parse(text, name="gen.md"), target, cap)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=documents(), lim=limits())
def test_solving_with_any_options_chooses_as_the_full_one(text: str, lim: tuple[int, int, dict[str, Any]]) -> None:
    """solve() takes the shortcuts only where they are exact: with a minimum chunk size over the target
    (a small chunk's cost above the target, so sizes that do not only grow), the full programme."""
    target, cap, options = lim
    row = _Row(
        Packing(
            chunker.parse(text, name="gen.md"), chunker.ChunkOptions(target, cap, **options), joins_small_chunks=True
        )
    )
    assert row.solve() == row._programme()


def test_a_minimum_over_the_target_leaves_the_shortcuts_out() -> None:
    """The early stop over the target assumes sizes that only grow there; a min_tokens over it breaks that."""
    doc = chunker.parse("# A\n\n" + "\n\n".join(words(30) for _ in range(12)), name="m.md")
    assert _Row(Packing(doc, chunker.ChunkOptions(40, 400), joins_small_chunks=True)).small <= 41
    assert _Row(Packing(doc, chunker.ChunkOptions(40, 400), joins_small_chunks=True))._bounds_hold()
    assert not _Row(Packing(doc, chunker.ChunkOptions(40, 400, min_tokens=120), joins_small_chunks=True))._bounds_hold()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=documents(), lim=limits())
def test_generated_markdown_meets_the_contract(text: str, lim: tuple[int, int, dict[str, Any]]) -> None:
    """Generated Markdown at any target <= hard_cap, with any options: the contract holds."""
    target, cap, options = lim
    doc = chunker.parse(text, name="gen.md")
    check_full(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy="optimal", **options), cap)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=documents(), lim=limits(smallest=64))
def test_generated_markdown_with_a_plain_counting_callable(text: str, lim: tuple[int, int, dict[str, Any]]) -> None:
    """A character-counting callable (summed counts not exact): the recount and repair still hold the cap."""
    target, cap, options = lim
    doc = chunker.parse(text, name="gen.md", tokenizer=len)
    check_chunk_set(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy="optimal", **options), cap)


# -- the boundaries the cost chooses -------------------------------------------------------------


def test_sections_stay_chunks_of_their_own_under_the_target() -> None:
    """Eight sections of ~48 tokens under one heading, target 100: one chunk each (a heading inside a
    chunk costs HEADING_INSIDE), not packed two by two to the target nor to the cap as balanced does."""
    text = "# A\n\n" + "".join(f"## S{n}\n\n{words(45)}\n\n" for n in range(1, 9))
    chunks = optimal(text, 100, 400)
    assert [c.headings for c in chunks] == [["A", "S1"], *([f"S{n}"] for n in range(2, 9))]
    assert chunks[0].breadcrumb == ["doc.md", "A"]
    assert [c.breadcrumb for c in chunks[1:]] == [["doc.md", "A", f"S{n}"] for n in range(2, 9)]
    balanced = chunker.chunk(chunker.parse(text, name="doc.md"), target=100, hard_cap=400, strategy="balanced")
    assert len(balanced) == 2  # the greedy packing fills chunks to the cap


def test_sections_under_the_small_size_pair_up() -> None:
    """Sections of ~19 tokens are under the small size (25 at target 100): they join two by two."""
    text = "# A\n\n" + "".join(f"## S{n}\n\n{words(15)}\n\n" for n in range(1, 9))
    chunks = optimal(text, 100, 400)
    assert [c.headings for c in chunks] == [["A", "S1", "S2"], ["S3", "S4"], ["S5", "S6"], ["S7", "S8"]]
    assert all(c.breadcrumb == ["doc.md", "A"] for c in chunks)


def test_a_cut_prefers_a_heading_to_a_paragraph_boundary() -> None:
    """Section A (two paragraphs, 84 tokens) and B: the cut falls before "## B", not between A's paragraphs."""
    text = f"# A\n\n{words(40)}\n\n{words(40)}\n\n## B\n\n{words(40)}\n"
    chunks = optimal(text, 120, 200)
    assert [c.headings for c in chunks] == [["A"], ["B"]]
    assert chunks[0].markdown == f"# A\n\n{words(40)}\n\n{words(40)}"


def test_a_section_over_the_target_is_cut_between_paragraphs() -> None:
    """Four paragraphs of ~40 tokens (165 in all) under one heading, target 100: two chunks of two."""
    text = f"# A\n\n{words(40)}\n\n{words(40)}\n\n{words(40)}\n\n{words(40)}\n"
    chunks = optimal(text, 100, 200)
    assert [c.token_count for c in chunks] == [84, 81]
    assert chunks[1].markdown == f"{words(40)}\n\n{words(40)}"
    assert [c.breadcrumb for c in chunks] == [["doc.md", "A"], ["doc.md", "A"]]


def test_no_chunk_ends_on_a_heading() -> None:
    """Sizes alone would end the first chunk with "## B" (cheaper near the target): it travels forward."""
    text = f"# A\n\n{words(95)}\n\n## B\n\n{words(95)}\n\n## C\n\n{words(95)}\n"
    chunks = optimal(text, 100, 200)
    assert [c.markdown.split("\n")[0] for c in chunks] == ["# A", "## B", "## C"]
    assert [c.breadcrumb for c in chunks] == [["doc.md", "A"], ["doc.md", "A", "B"], ["doc.md", "A", "C"]]


def test_a_section_over_the_target_is_cut_at_its_subsections_though_it_fits_the_cap() -> None:
    """A (~133 tokens with two subsections) fits the cap 200 but not the target 100: one chunk per subsection."""
    text = f"# A\n\n{words(40)}\n\n## A1\n\n{words(40)}\n\n## A2\n\n{words(40)}\n\n# B\n\n{words(120)}\n"
    chunks = optimal(text, 100, 200)
    assert [c.headings for c in chunks] == [["A"], ["A1"], ["A2"], ["B"]]
    assert [c.breadcrumb for c in chunks] == [
        ["doc.md", "A"],
        ["doc.md", "A", "A1"],
        ["doc.md", "A", "A2"],
        ["doc.md", "B"],
    ]


def test_a_small_preamble_joins_the_chunk_after_it() -> None:
    """Spec §5a: a preamble under the small size joins the first chunk (breadcrumb the document)."""
    text = f"Short intro.\n\n# A\n\n{words(100)}\n\n# B\n\n{words(100)}\n"
    chunks = optimal(text, 100, 200)
    assert chunks[0].markdown.startswith("Short intro.\n\n# A\n\nword")
    assert chunks[0].breadcrumb == ["doc.md"]
    assert [c.headings for c in chunks] == [["A"], ["B"]]
    doc = chunker.parse(text, name="doc.md")
    balanced = chunker.chunk(doc, target=100, hard_cap=200, strategy="balanced")
    assert balanced[0].markdown.startswith("Short intro.\n\n# A\n\nword")  # joined under balanced too (§5a)
    reference = chunker.chunk(doc, target=100, hard_cap=200, strategy="reference")
    assert reference[0].markdown == "Short intro."  # apart under "reference", as docs/method.md §5 step 3 says


def test_a_bigger_preamble_stays_apart() -> None:
    text = f"{words(60)}\n\n# A\n\n{words(80)}\n\n# B\n\n{words(80)}\n"
    chunks = optimal(text, 100, 200)
    assert chunks[0].markdown == words(60)
    assert chunks[0].breadcrumb == ["doc.md"]
    assert [c.headings for c in chunks] == [[], ["A"], ["B"]]


def test_a_block_over_the_cap_is_cut_near_the_target_with_its_heading() -> None:
    """The heading travels with the first piece; pieces of about the target; the next section apart."""
    text = f"# A\n\n{words(500)}\n\n# B\n\n{words(60)}\n"
    chunks = optimal(text, 100, 200)
    assert chunks[0].markdown.startswith("# A\n\nword")
    assert all("split_text" in c.flags for c in chunks[:-1])
    assert all(95 <= c.token_count <= 105 for c in chunks[:-1])
    assert chunks[-1].markdown == f"# B\n\n{words(60)}"


def test_a_heading_that_fits_with_a_block_only_when_cut_takes_its_first_piece() -> None:
    """The heading "## B" and its 190-token paragraph exceed the cap 192 together: the paragraph is cut."""
    text = f"# A\n\n{words(150)}\n\n## B\n\n{words(190)}\n"
    chunks = optimal(text, 96, 192)
    b = next(c for c in chunks if "B" in c.headings)
    assert b.markdown.startswith("## B\n\nword") and "split_text" in b.flags
    assert all(c.token_count <= 192 for c in chunks)


def test_a_small_document_of_one_section_is_one_chunk() -> None:
    chunks = optimal(f"Intro.\n\n# A\n\n{words(40)}\n\n{words(40)}\n", 100, 200)
    assert len(chunks) == 1 and chunks[0].breadcrumb == ["doc.md"]


def test_empty_and_blank_documents() -> None:
    assert len(optimal("", 100, 200)) == 0
    assert len(optimal("\n\n  \n", 100, 200)) == 0
    assert len(optimal("# Only a heading\n", 100, 200)) == 1


def test_headings_that_fill_the_cap_alone_still_give_chunks_within_it() -> None:
    """A run of headings bigger than the cap: they cannot all travel with their content."""
    text = "".join(f"{'#' * min(n, 6)} {words(12)}\n\n" for n in range(1, 7)) + words(100) + "\n"
    for cap in (16, 32, 64):
        optimal(text, cap // 2, cap)


# -- the option and its record ---------------------------------------------------------------------


def test_unknown_strategy_raises_config_error_naming_it() -> None:
    doc = chunker.parse("# A\n\ntext\n", name="doc.md")
    with pytest.raises(chunker.ConfigError, match="'greedy'"):
        chunker.chunk(doc, 100, 200, strategy="greedy")
    with pytest.raises(chunker.ConfigError, match="unknown strategy"):
        chunker.chunk_markdown("# A\n\ntext\n", target=100, hard_cap=200, strategy="Optimal")
    with pytest.raises(chunker.ConfigError, match="unknown strategy"):
        chunker.chunk(doc, 100, 200, strategy=None)  # type: ignore[arg-type]


def test_optimal_is_the_default_and_the_strategy_is_recorded_in_the_config() -> None:
    text = f"# A\n\n{words(300)}\n\n## B\n\n{words(40)}\n"
    doc = chunker.parse(text, name="doc.md")
    default = chunker.chunk(doc, 100, 200)
    assert default.to_json() == chunker.chunk(doc, 100, 200, strategy="optimal").to_json()
    assert default.config["strategy"] == "optimal"
    balanced = chunker.chunk_markdown(text, name="doc.md", target=100, hard_cap=200, strategy="balanced")
    assert balanced.config["strategy"] == "balanced"
    again = chunker.ChunkSet.from_json(balanced.to_json())
    assert again.config["strategy"] == "balanced" and again.to_json() == balanced.to_json()


def test_rechunking_is_deterministic() -> None:
    path = SAMPLES / "poetry_cli.md"
    doc = chunker.parse(path.read_text(encoding="utf-8"), name=path.name)
    first = chunker.chunk(doc, 128, 256, strategy="optimal").to_json()
    chunker.chunk(doc, 512, 1024, strategy="optimal")
    assert chunker.chunk(doc, 128, 256, strategy="optimal").to_json() == first


def test_sizes_sit_nearer_the_target_than_balanced() -> None:
    """On the sample documents, the mean distance of chunk sizes from the target is smaller."""
    for path in sample_paths():
        doc = chunker.parse(path.read_text(encoding="utf-8"), name=path.name)
        spread = {}
        for strategy in ("balanced", "optimal"):
            chunks = chunker.chunk(doc, 128, 512, strategy=strategy)
            spread[strategy] = sum(abs(c.token_count - 128) for c in chunks) / len(chunks)
        assert spread["optimal"] <= spread["balanced"], (path.name, spread)
