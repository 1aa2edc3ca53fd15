"""The options of docs/method.md §6 in chunker.pack: overlap, min_tokens, breadcrumb_in_budget, clause numbers."""

from __future__ import annotations

import json
from typing import Any

import pytest

import chunker
from chunker.context import breadcrumb_line, clause_number
from chunker.cut import sentence_starts
from tests.invariants import check_chunk_set, unclosed_fences

COUNT = chunker.get_tokenizer("cl100k_base").count


def sentence(n: int, word: str = "word") -> str:
    """A sentence of about n cl100k tokens."""
    return " ".join([word] * (n - 1)) + "."


def numbered(n: int, start: int = 0) -> str:
    """n sentences of 11 tokens each, numbered so that each is distinct."""
    return " ".join(f"Sentence number {i} says a few plain words here." for i in range(start, start + n))


def run(text: str, target: int, cap: int, **options: Any) -> tuple[chunker.Document, chunker.ChunkSet]:
    doc = chunker.parse(text, name="d.md")
    options.setdefault("strategy", "balanced")  # the greedy packing of docs/method.md §5 steps 2–6
    chunks = chunker.chunk(doc, target=target, hard_cap=cap, **options)
    check_chunk_set(doc, chunks, cap)
    return doc, chunks


# -- defaults and config ---------------------------------------------------------


def test_options_are_recorded_in_the_config() -> None:
    """Every option, default or not, is in ChunkSet.config and the JSON."""
    _, chunks = run(numbered(30), 40, 80, overlap=10, min_tokens=5, breadcrumb_in_budget=True)
    config = json.loads(chunks.to_json())["config"]
    assert config["overlap"] == 10 and config["min_tokens"] == 5 and config["breadcrumb_in_budget"] is True
    default = chunker.chunk_markdown("Text.", name="d.md").config
    assert (default["overlap"], default["min_tokens"], default["breadcrumb_in_budget"]) == (0, 0, False)


def test_default_chunks_carry_no_option_fields() -> None:
    """With every option off, no chunk has overlap, a shortened breadcrumb, a context count or `tiny`."""
    _, chunks = run(f"# A\n\n{numbered(20)}\n\n# B\n\nEnd.\n", 40, 80)
    for chunk in chunks:
        assert chunk.overlap_span is None and chunk.breadcrumb_line is None and chunk.context_tokens is None
        assert "tiny" not in chunk.flags and "breadcrumb_shortened" not in chunk.flags


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"overlap": -1}, "overlap=-1"),
        ({"overlap": 40}, "overlap=40"),
        ({"overlap": 2.5}, "overlap must be an int"),
        ({"min_tokens": -3}, "min_tokens=-3"),
        ({"min_tokens": 81}, "min_tokens=81"),
        ({"breadcrumb_in_budget": "yes"}, "breadcrumb_in_budget must be True or False"),
    ],
)
def test_bad_option_values_raise_config_error_naming_them(options: dict[str, Any], named: str) -> None:
    """Out-of-range options raise ConfigError naming the value, from chunk() and before chunk_markdown parses."""
    doc = chunker.parse("Text.", name="d.md")
    with pytest.raises(chunker.ConfigError, match=named):
        chunker.chunk(doc, target=40, hard_cap=80, **options)
    with pytest.raises(chunker.ConfigError, match=named):
        chunker.chunk_markdown("Text.", target=40, hard_cap=80, **options)


def test_breadcrumb_in_budget_needs_room_for_the_line_and_the_chunk() -> None:
    """A hard cap under twice the smallest workable size cannot hold a breadcrumb too."""
    with pytest.raises(chunker.ConfigError, match="hard_cap=20"):
        chunker.chunk_markdown("Text.", target=10, hard_cap=20, breadcrumb_in_budget=True)


# -- overlap -----------------------------------------------------------------------


def test_overlap_is_whole_sentences_within_the_cap() -> None:
    """A continuing chunk starts with the last whole sentences of the previous one, within `overlap` tokens."""
    doc, chunks = run(f"# A\n\n{numbered(12)}\n", 40, 80, overlap=25)
    shared = [c for c in chunks if c.overlap_span is not None]
    assert shared
    for chunk in shared:
        previous = chunks[chunk.index - 1]
        start, end = chunk.overlap_span  # type: ignore[misc]
        assert end == previous.char_span[1] and start == chunk.char_span[0]
        assert start in sentence_starts(doc.text, previous.char_span[0], end), "overlap starts mid-sentence"
        assert chunk.markdown.startswith(doc.text[start:end])
        assert COUNT(doc.text[start:end]) <= 25
        assert chunk.token_count <= 80
    # The longest run of whole sentences within 25 tokens: two sentences of 11 tokens.
    assert shared[0].markdown.startswith("Sentence number 1 says")


def test_overlap_never_crosses_a_section_boundary() -> None:
    """A chunk that starts a section (a heading) shares nothing with the chunk before it."""
    text = f"# A\n\n{numbered(12)}\n\n## A1\n\n{numbered(12, 50)}\n\n# B\n\n{numbered(12, 100)}\n"
    _, chunks = run(text, 40, 80, overlap=30)
    assert any(c.overlap_span is not None for c in chunks)
    for chunk in chunks:
        if chunk.markdown.lstrip().startswith("#"):
            assert chunk.overlap_span is None, chunk.id
        if chunk.overlap_span is not None:
            assert chunk.breadcrumb == chunks[chunk.index - 1].breadcrumb


def test_overlap_shrinks_to_keep_the_chunk_within_the_cap() -> None:
    """When the whole overlap would push a chunk over the cap, fewer sentences are shared."""
    text = f"# A\n\n{numbered(6)}\n\n{sentence(50)}\n"
    _, wide = run(text, 60, 100, overlap=30)
    _, tight = run(text, 60, 70, overlap=30)
    assert wide[-1].overlap_span is not None and tight[-1].overlap_span is not None
    wide_len = wide[-1].overlap_span[1] - wide[-1].overlap_span[0]
    tight_len = tight[-1].overlap_span[1] - tight[-1].overlap_span[0]
    assert tight_len < wide_len
    assert tight[-1].token_count <= 70


def test_overlap_comes_only_from_text_and_never_into_a_reopened_fence() -> None:
    """Code shares nothing: no overlap into a chunk with an added prefix, nor after one that ends with code."""
    code = "```python\n" + "\n".join(f"value_{i} = compute({i}, {i + 1})" for i in range(40)) + "\n```"
    _, chunks = run(f"# A\n\n{numbered(8)}\n\n{code}\n\n{numbered(8, 50)}\n", 40, 80, overlap=30)
    assert sum(bool(c.added_prefix) for c in chunks) > 2
    for chunk in chunks[1:]:
        if chunk.added_prefix or chunks[chunk.index - 1].markdown.endswith("```"):
            assert chunk.overlap_span is None, chunk.id
    assert any(c.overlap_span is not None for c in chunks)  # the paragraphs around the code still share


def test_overlap_round_trips_through_json() -> None:
    """overlap_span is written as a two-element array and read back."""
    _, chunks = run(f"# A\n\n{numbered(12)}\n", 40, 80, overlap=25)
    data = json.loads(chunks.to_json())
    assert any(isinstance(c["overlap_span"], list) for c in data["chunks"])
    assert chunker.ChunkSet.from_json(chunks.to_json()) == chunks


# -- min_tokens --------------------------------------------------------------------


def test_tiny_chunk_merges_with_its_section_neighbour() -> None:
    """The small last piece of a cut paragraph joins the piece before it when the result fits."""
    text = f"# A\n\n{numbered(10)}\n\n# B\n\n{numbered(10, 100)}\n"
    _, plain = run(text, 40, 60)
    _, merged = run(text, 40, 60, min_tokens=25)
    assert plain[-1].token_count < 25
    assert len(merged) < len(plain)
    assert merged[-1].char_span == (plain[-2].char_span[0], plain[-1].char_span[1])
    assert all(c.token_count >= 25 for c in merged[1:])


def test_tiny_chunk_prefers_the_neighbour_giving_the_smaller_result() -> None:
    """Between two pieces of its section, a tiny piece joins the smaller neighbour (here the next one)."""
    first, tiny, last = (
        f"{sentence(30)} {sentence(32)}",
        sentence(11, "tiny"),  # not a sliver the cutter joins itself (under a quarter of the target)
        f"{sentence(20, 'n')} {sentence(30, 'n')}",
    )
    text = f"# A\n\nIntro.\n\n- {first}\n- {tiny}\n- {last}\n"
    _, plain = run(text, 40, 60)
    _, merged = run(text, 40, 60, min_tokens=15)
    small = next(c for c in plain if c.markdown.startswith("- tiny"))
    following = plain[small.index + 1]
    assert small.token_count < 15 and plain[small.index - 1].token_count > following.token_count
    assert any(c.char_span == (small.char_span[0], following.char_span[1]) for c in merged)


def test_unmergeable_tiny_chunk_is_flagged() -> None:
    """A small preamble has no neighbour of its own section: under reference (where it does not join
    the chunk after it, docs/method.md §5a) it stays, flagged `tiny`."""
    _, chunks = run(f"Short intro.\n\n# A\n\n{numbered(12)}\n", 40, 80, min_tokens=20, strategy="reference")
    assert chunks[0].markdown == "Short intro."
    assert "tiny" in chunks[0].flags
    assert all("tiny" not in c.flags for c in chunks[1:] if c.token_count >= 20)


def test_tiny_chunk_that_would_exceed_the_cap_is_flagged() -> None:
    """A small last piece whose section neighbour is too full to take it stays alone, flagged."""
    text = f"# A\n\n{sentence(55)} {sentence(10, 'end')}\n\n# B\n\n{numbered(5)}\n"
    _, chunks = run(text, 60, 60, min_tokens=15)
    assert [c.token_count for c in chunks] == [58, 10, 58]
    assert [("tiny" in c.flags) for c in chunks] == [False, True, False]


def test_min_tokens_never_merges_across_a_section_boundary() -> None:
    """A chunk never holds two top-level sections under one of their breadcrumbs: where the tiny
    section B joins a neighbour, the joined chunk takes the document's path (their common section)."""
    text = f"# A\n\n{numbered(12)}\n\n# B\n\nTiny.\n\n# C\n\n{numbered(12, 50)}\n"
    _, chunks = run(text, 40, 60, min_tokens=20)
    for chunk in chunks:
        titles = [line for line in chunk.markdown.splitlines() if line.startswith("# ")]
        assert len(titles) <= 1 or chunk.breadcrumb == ["d.md"], chunk.markdown[:80]


def test_min_tokens_rejoins_pieces_of_a_cut_code_block_into_one_fence() -> None:
    """The small last piece of a code block joins the piece before it; the inner close and re-open fall away."""
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(17)) + "\n```"
    _, plain = run(f"# A\n\n{code}\n", 40, 60)
    _, merged = run(f"# A\n\n{code}\n", 40, 60, min_tokens=30)
    assert plain[-1].token_count < 30 and plain[-1].added_prefix.startswith("```python")
    last = merged[-1]
    assert len(merged) < len(plain)
    assert last.char_span == (plain[-2].char_span[0], plain[-1].char_span[1])
    assert last.markdown.count("```") == 2 and unclosed_fences(last.markdown) == 0


def test_min_tokens_rejoins_table_pieces_without_the_repeated_header() -> None:
    """Two pieces of one table joined read as the source: the header appears once."""
    rows = "\n".join(f"| r{i} | v{i} |" for i in range(13))
    table = f"| name | value |\n|---|---|\n{rows}"
    _, plain = run(f"# A\n\n{table}\n", 40, 60)
    _, merged = run(f"# A\n\n{table}\n", 40, 60, min_tokens=32)
    assert plain[-1].token_count < 32 and plain[-1].added_prefix
    assert len(merged) < len(plain)
    assert all(c.markdown.count("| name | value |") == 1 for c in merged)


# -- breadcrumb_in_budget ------------------------------------------------------------


def _deep(title: str) -> str:
    return f"# {title} one\n\n## {title} two\n\n### {title} three\n\n{numbered(30)}\n"


def test_breadcrumb_in_budget_caps_contextualize() -> None:
    """With the option, every chunk's contextualize() is within the cap, counted exactly."""
    text = _deep("A rather long heading title that costs tokens")
    _, plain = run(text, 60, 64)
    assert any(COUNT(c.contextualize()) > 64 for c in plain)
    _, chunks = run(text, 60, 64, breadcrumb_in_budget=True)
    for chunk in chunks:
        assert chunk.context_tokens == COUNT(chunk.contextualize()) <= 64
        assert chunk.token_count == COUNT(chunk.markdown)


def test_long_breadcrumb_is_shortened_and_flagged() -> None:
    """A breadcrumb over half the cap is shortened for contextualize(); the breadcrumb field keeps the full path."""
    text = _deep("An extremely long heading title that goes on and on about many things")
    _, chunks = run(text, 40, 64, breadcrumb_in_budget=True)
    deep = [c for c in chunks if len(c.breadcrumb) == 4]
    assert deep
    for chunk in deep:
        assert "breadcrumb_shortened" in chunk.flags
        assert chunk.breadcrumb_line is not None and "…" in chunk.breadcrumb_line
        assert chunk.breadcrumb[-1].endswith("three")
        assert chunk.contextualize() == f"{chunk.breadcrumb_line}\n\n{chunk.markdown}"
        assert COUNT(chunk.breadcrumb_line + "\n\n") <= 32


def test_breadcrumb_shortening_drops_middle_titles_first_then_truncates() -> None:
    """name › … › deepest, shallowest titles dropped first; truncated with … only when that is not enough."""
    tokenizer = chunker.get_tokenizer("cl100k_base")
    crumbs = ["d.md", "Alpha " * 10, "Beta " * 10, "Gamma"]
    assert breadcrumb_line(crumbs, tokenizer, 100) == (" › ".join(crumbs), False)
    assert breadcrumb_line(crumbs, tokenizer, 20) == (
        "d.md › … › Beta Beta Beta Beta Beta Beta Beta Beta Beta Beta  › Gamma",
        True,
    )
    assert breadcrumb_line(crumbs, tokenizer, 8) == ("d.md › … › Gamma", True)
    line, shortened = breadcrumb_line(["d.md", "Word " * 40], tokenizer, 10)
    assert shortened and line.endswith("…") and line.startswith("d.md › Word") and COUNT(line + "\n\n") <= 10


def test_breadcrumb_in_budget_works_with_a_counting_callable() -> None:
    """A plain callable (characters) gets the same guarantee."""
    text = _deep("Heading")
    doc = chunker.parse(text, name="d.md", tokenizer=len)
    chunks = chunker.chunk(doc, target=100, hard_cap=160, breadcrumb_in_budget=True)
    check_chunk_set(doc, chunks, 160)
    assert all(len(c.contextualize()) <= 160 for c in chunks)


# -- clause numbers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "clause"),
    [
        ("5.1.2 Scope", "5.1.2"),
        ("5.1.2. Scope", "5.1.2"),
        ("5. Scope", "5"),
        ("12.3", "12.3"),
        ("§ 5.1 Definitions", "5.1"),
        ("§5 Scope", "5"),
        ("A.1 General", "A.1"),
        ("B.2.3. Tests", "B.2.3"),
        ("2024 roadmap", None),
        ("2024.1 release", None),
        ("2024. A year", None),
        ("3 ways to cook", None),
        ("1.5x faster", None),
        ("A. Smith", None),
        ("Scope 5.1", None),
        ("5.1.2Scope", None),
        ("", None),
    ],
)
def test_clause_number_patterns(title: str, clause: str | None) -> None:
    """Dotted numbers (or a number with its dot, or after §) open a title; years and counts do not."""
    assert clause_number(title) == clause


def test_clause_number_comes_from_nearest_numbered_heading() -> None:
    """A chunk's clause is the number of the deepest numbered heading in its breadcrumb."""
    text = (
        f"# 5. Requirements\n\n{numbered(8)}\n\n## 5.1 General\n\n{numbered(8, 20)}\n\n"
        f"### Notes\n\n{numbered(8, 40)}\n\n# Annex\n\n{numbered(8, 60)}\n"
    )
    _, chunks = run(text, 40, 60)
    by_path = {tuple(c.breadcrumb[1:]): c.clause for c in chunks}
    assert by_path[("5. Requirements",)] == "5"
    assert by_path[("5. Requirements", "5.1 General")] == "5.1"
    assert by_path[("5. Requirements", "5.1 General", "Notes")] == "5.1"
    assert by_path[("Annex",)] is None


def test_document_name_is_not_a_clause() -> None:
    """Only heading titles count: a document named like a clause gives no clause."""
    chunks = chunker.chunk_markdown("# Intro\n\nText.", name="5.1 notes.md")
    assert chunks[0].clause is None
