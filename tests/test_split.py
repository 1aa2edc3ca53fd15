"""chunker.cut: cutting one block over the cap into pieces.

Piece counts are summed from counts of lines and inner blocks where the tokenizer
allows it; these tests check every summed count against a real count (corpus and
generated text) and that each line is counted once, not once per candidate piece.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunker
import chunker.cut.code as cut_code
import chunker.cut.cutter as cutter
from chunker.parse import unclosed_fence
from chunker.tokens import Tokenizer
from tests.conftest import CORPUS, corpus_files, requires_corpus
from tests.invariants import check_chunk_set
from tests.test_properties import documents


class _Recount:
    """Wraps ``chunker.cut.cutter.Piece`` (in every module of the cutter) so that every piece made, kept or
    not, is recounted."""

    def __init__(self) -> None:
        self.doc: chunker.Document | None = None
        self.pieces = 0
        self.summed = 0

    def piece(self, *args: Any, **kwargs: Any) -> cutter.Piece:
        made = _PIECE(*args, **kwargs)
        assert self.doc is not None
        markdown = made.prefix + self.doc.text[made.start : made.end] + made.suffix
        assert made.tokens == self.doc.tokenizer.count(markdown), (self.doc.name, markdown)
        self.pieces += 1
        return made

    def run_tokens(self, run: Any, i: int, j: int) -> int | None:
        found = _RUN_TOKENS(run, i, j)
        self.summed += found is not None and j - i > 1
        return found

    def patch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        for module in _CUT_MODULES:
            monkeypatch.setattr(module, "Piece", self.piece)
        monkeypatch.setattr(cutter.Run, "tokens", lambda run, i, j: self.run_tokens(run, i, j))

    def chunk(self, doc: chunker.Document, target: int, hard_cap: int, *, check: bool = True) -> chunker.ChunkSet:
        self.doc = doc
        chunks = chunker.chunk(doc, target=target, hard_cap=hard_cap)
        if check:
            check_chunk_set(doc, chunks, hard_cap)
        return chunks


_PIECE = cutter.Piece
_RUN_TOKENS = cutter.Run.tokens
# Every module of the cutter that makes pieces (each names Piece itself).
_CUT_MODULES = [m for name, m in sorted(sys.modules.items()) if name.startswith("chunker.cut") and hasattr(m, "Piece")]


@pytest.fixture
def recount(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Recount]:
    checker = _Recount()
    checker.patch(monkeypatch)
    yield checker


@pytest.mark.corpus
@requires_corpus
def test_summed_piece_counts_equal_recounts_over_the_corpus(recount: _Recount) -> None:
    """Every piece the cutter makes (kept or shrunk away) has its exact count, over the whole corpus."""
    for path in corpus_files():
        doc = chunker.parse(path.read_bytes().decode("utf-8", errors="replace"), name=str(path.relative_to(CORPUS)))
        for target, cap in [(256, 512), (40, 64)]:
            recount.chunk(doc, target, cap)
    assert recount.summed > 3_000 and recount.pieces > 10_000  # the sums were really used


# Line ends the join cost must get right: trailing spaces and tabs, punctuation, white
# space it does not read (a no-break space, U+2028, U+001C: never summed), fence and table rows.
_ENDINGS = ["", " ", "  ", "\t", ".", " .", "...", " |", "|", "```", ":", " -", "\xa0", "\u2028", "\x1c", "é", "日"]


@st.composite
def _odd_lines(draw: st.DrawFn) -> str:
    """Generated Markdown whose lines end in the endings above, with odd blank lines between."""
    text = draw(documents())
    lines = text.split("\n")
    endings = draw(st.lists(st.sampled_from(_ENDINGS), min_size=len(lines), max_size=len(lines)))
    blank = draw(st.sampled_from(["", " ", "\t", "\xa0"]))
    out = [line + end if line.strip() else blank for line, end in zip(lines, endings, strict=True)]
    return "\n".join(out)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=st.one_of(documents(), _odd_lines()), target=st.integers(1, 200), cap=st.integers(16, 200))
def test_summed_piece_counts_equal_recounts_on_generated_text(text: str, target: int, cap: int) -> None:
    """The same on generated Markdown: code, tables, lists, quotes, CRLF, odd line endings.

    Whole chunks are checked too (a block ending in a no-break space was summed one token
    high until ``pretoken_tail`` learnt tiktoken's white space), except with U+2028 or
    U+001C, which the fence check's ``splitlines`` takes for line breaks.
    """
    checker = _Recount()
    with pytest.MonkeyPatch.context() as patch:
        checker.patch(patch)
        check = not any(c in text for c in "\u2028\x1c")
        checker.chunk(chunker.parse(text, name="gen.md"), min(target, cap), cap, check=check)


def _counting_tokenizer() -> tuple[Tokenizer, list[str]]:
    """cl100k_base, still line-additive, recording every text it counts."""
    base = chunker.get_tokenizer("cl100k_base")
    seen: list[str] = []

    def count(text: str) -> int:
        seen.append(text)
        return base.count(text)

    return Tokenizer(base.name, count, base.line_additive, base._encoding), seen


def _big_blocks() -> str:
    code = "\n".join(f"    value_{n} = compute({n}, 'row {n}')  # step {n}" for n in range(300))
    rows = [f"| n{n} | {n * 7} | row {n}. |" for n in range(300)]
    table = "\n".join(["| name | value | note |", "|---|---|---|", *rows])
    items = "\n".join(f"- item {n}: a short line of text that ends here." for n in range(300))
    prose = " ".join(f"Sentence {n} of the paragraph ends here." for n in range(40))
    lines = "\n".join(f"Wrapped line {n} of a long paragraph, kept as written," for n in range(200))
    return f"# Doc\n\n```python\n{code}\n```\n\n{table}\n\n{items}\n\n{prose}\n\n{lines}\n"


def test_each_line_is_counted_once_and_re_chunking_reuses_the_counts() -> None:
    """Cutting counts each line (atom) once; pieces are summed, not counted; a re-chunk counts almost nothing."""
    tokenizer, seen = _counting_tokenizer()
    text = _big_blocks()
    doc = chunker.parse(text, name="big.md", tokenizer=tokenizer)
    lines = sum(1 for line in text.split("\n") if line.strip())
    seen.clear()
    first = chunker.chunk(doc, target=200, hard_cap=400)
    calls, chars = len(seen), sum(map(len, seen))
    seen.clear()
    again = chunker.chunk(doc, target=150, hard_cap=300)
    calls_again, chars_again = len(seen), sum(map(len, seen))
    check_chunk_set(doc, first, 400)
    check_chunk_set(doc, again, 300)
    assert len(first) > 20
    # Each line once, the sentences of the one-line paragraph once (cut inside a line, its
    # pieces are counted on their text), and a few added lines (fences, header). Counting
    # every candidate piece, as the cutter once did, encoded the cut text two to three times.
    assert calls <= lines + 60, calls
    assert chars < 1.1 * len(text), chars
    # New limits, same lines: only pieces cut inside the paragraph's one line are counted.
    assert calls_again <= 60 and chars_again < 0.1 * len(text), (calls_again, chars_again)


def test_a_callable_tokenizer_is_never_summed(recount: _Recount) -> None:
    """A plain callable is not line-additive: every piece is counted on its text."""
    doc = chunker.parse(_big_blocks(), name="big.md", tokenizer=len)
    recount.chunk(doc, 400, 800)
    assert recount.summed == 0 and recount.pieces > 10


@pytest.mark.parametrize("ending", ["\xa0", " ", "\t"])
def test_odd_white_space_before_a_line_break_keeps_counts_exact(recount: _Recount, ending: str) -> None:
    """A no-break space before a line break merges with it in cl100k_base: such a join is counted, not summed."""
    text = "\n".join(f"line {n} of text{ending}" for n in range(200))
    recount.chunk(chunker.parse(f"```\n{text}\n```\n\n{text}\n", name="odd.md"), 64, 128)


def test_code_table_and_list_pieces_are_summed_with_their_added_lines(recount: _Recount) -> None:
    """Re-opened fences, closing fences and repeated headers are summed exactly too."""
    chunks = recount.chunk(chunker.parse(_big_blocks(), name="big.md"), 100, 200)
    assert any(c.added_prefix.startswith("```") for c in chunks)
    assert any(c.added_prefix.startswith("| name") for c in chunks)
    assert recount.summed > 100


# -- balanced cuts ---------------------------------------------------------------------


def _pieces(text: str, target: int, cap: int) -> list[chunker.Chunk]:
    """Chunks of a document that is one heading and one block over the cap: each chunk past the first is a piece."""
    doc = chunker.parse(text, name="cut.md")
    chunks = chunker.chunk(doc, target=target, hard_cap=cap)
    check_chunk_set(doc, chunks, cap)
    return list(chunks)


def _spread(sizes: list[int]) -> float:
    return max(sizes) / min(sizes)


def test_code_is_cut_into_even_pieces_not_full_ones_and_a_sliver() -> None:
    """About 500 tokens at target 200: three pieces of about 170, not 200 + 200 + 100."""
    lines = "\n".join(f"value_{n} = {n} + {n}" for n in range(48))
    chunks = _pieces(f"```python\n{lines}\n```\n", 200, 400)
    sizes = [c.token_count for c in chunks]
    assert len(chunks) == 3 and all(c.flags == ["split_code"] for c in chunks), sizes
    assert _spread(sizes) < 1.2 and max(sizes) <= 200, sizes


def test_paragraph_sentences_are_cut_into_even_pieces() -> None:
    """19 sentences of 11 tokens at target 100: 7 + 6 + 6 sentences, not 8 + 8 + 3."""
    text = " ".join(f"Sentence number {n} says a few plain words here." for n in range(19))
    chunks = _pieces(text + "\n", 100, 200)
    sizes = [c.token_count for c in chunks]
    assert len(chunks) == 3 and _spread(sizes) < 1.25, sizes
    assert all(c.markdown.endswith(".") for c in chunks)


def test_table_rows_are_cut_into_even_pieces_each_with_the_header() -> None:
    rows = "\n".join(f"| key_{n} | {n * 13} | a short note |" for n in range(40))
    chunks = _pieces(f"| key | value | note |\n|---|---|---|\n{rows}\n", 150, 300)
    sizes = [c.token_count for c in chunks]
    assert len(chunks) >= 3 and _spread(sizes) < 1.25, sizes
    assert all(c.markdown.startswith("| key | value | note |\n|---|---|---|\n") for c in chunks)


def test_an_unbreakable_line_is_cut_at_token_boundaries_into_even_pieces() -> None:
    """810 tokens without a space (base64, a minified line) at target 100: nine of 90, not eight of 100 and 10."""
    blob = "".join(f"{n:04x}QmFzZTY0{n * 7 % 97:02d}" for n in range(90))
    chunks = _pieces(blob + "\n", 100, 200)
    sizes = [c.token_count for c in chunks]
    assert len(chunks) == 9 and all("hard_cut" in c.flags for c in chunks), sizes
    assert _spread(sizes) < 1.1, sizes


def test_code_is_cut_before_a_blank_line_near_the_even_share() -> None:
    """Functions separated by blank lines: each cut falls between two functions."""
    functions = "\n\n".join(
        f"def step_{n}(value):\n    result = value * {n}\n    result += {n * 3}\n    return result" for n in range(30)
    )
    chunks = _pieces(f"```python\n{functions}\n```\n", 150, 300)
    assert len(chunks) >= 3
    for chunk in chunks[:-1]:
        assert chunk.markdown.endswith("    return result\n```"), chunk.markdown[-60:]
    for chunk in chunks[1:]:
        assert chunk.markdown.startswith("```python\ndef step_"), chunk.markdown[:40]


def test_code_without_blank_lines_is_cut_before_its_shallowest_lines() -> None:
    """A YAML file with no blank line, keys of 45 tokens: each piece starts at a top-level key
    (before: at the line nearest the even share, five of seven inside a key's list)."""
    keys = "\n".join(
        f"section_{n}:\n  name: part {n}\n  items:\n" + "\n".join(f"    - item_{n}_{k}" for k in range(4))
        for n in range(16)
    )
    chunks = _pieces(f"```yaml\n{keys}\n```\n", 120, 240)
    assert len(chunks) >= 3
    for chunk in chunks[1:]:
        assert chunk.markdown.startswith("```yaml\nsection_"), chunk.markdown[:40]


def test_line_ends_in_code_are_ranked_by_the_indentation_of_the_next_line() -> None:
    """Before a top-level line: strongest; before a shallower or equal line: by its depth;
    before a closing bracket or the first line of a deeper block: a plain line end."""
    source = "function a() {\n  if (x) {\n    y();\n    z();\n  }\n  w();\n}\nfunction b() {\n  v();\n}"
    starts = [0]
    for line in source.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    atoms = [
        cutter.Atom(start, source.index("\n", start) if "\n" in source[start:] else len(source), cutter.LINE)
        for start in starts
    ]
    ranked = [atom.strength for atom in cut_code._by_indentation(source, atoms)]
    line = cutter.LINE
    assert ranked == [
        line,  # "function a() {" then a deeper block
        line,  # "  if (x) {" then a deeper block
        line + 1 / 4,  # "    y();" then "    z();", the deepest level
        line,  # "    z();" then "  }": a closing bracket
        line + 1 / 3,  # "  }" then "  w();", the second level
        line,  # "  w();" then "}": a closing bracket
        line + 1 / 2,  # "}" then "function b() {", top level
        line,  # "function b() {" then a deeper block
        line,  # "  v();" then "}"
        line,  # the last line: no cut after it
    ]


def test_a_list_item_line_before_its_big_nested_list_is_not_left_alone() -> None:
    """A table of contents: an item's link line joins the first piece of its nested list."""
    nested = "\n".join(f"  - [Subsection number {n} of the proposal](#subsection-{n})" for n in range(60))
    text = f"- [Summary](#summary)\n- [Proposal](#proposal)\n{nested}\n- [Alternatives](#alternatives)\n"
    chunks = _pieces(text, 256, 512)
    assert len(chunks) >= 3
    assert all(c.token_count >= 50 for c in chunks), [c.token_count for c in chunks]
    assert not any(c.markdown.strip() == "- [Proposal](#proposal)" for c in chunks)


def test_a_sliver_that_cannot_join_within_the_cap_stays() -> None:
    """target == hard_cap and a full piece before it: the short last piece stays on its own, within the cap."""
    text = f"{' '.join(['word'] * 37)}.\n{' '.join(['end'] * 4)}.\n"
    chunks = _pieces(text, 40, 40)
    assert [c.token_count for c in chunks] == [38, 5]


@pytest.mark.corpus
@requires_corpus
def test_no_cut_piece_under_50_tokens_over_the_corpus() -> None:
    """At 256/512 no chunk holding a cut piece is under 50 tokens (documents of one chunk aside).

    Before balanced cuts there were 15 (list items cut from their nested lists, "(KBTC)"
    at the end of a hard-cut line, short last pieces of code and text).
    """
    small = []
    for path in corpus_files():
        chunks = chunker.chunk_markdown(path.read_bytes().decode("utf-8", errors="replace"), target=256, hard_cap=512)
        if len(chunks) > 1:
            small += [(path.name, c.id, c.token_count) for c in chunks if c.token_count < 50 and c.flags]
    assert not small, small


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
def test_a_fence_with_a_blank_body_is_never_cut_into_bare_fence_lines(strategy: str) -> None:
    """Found by the generated-document tests: headings left 1 token of room, and the block "```\\n\\n```"
    was cut between its lines into two pieces that each opened a fence. It stays whole; the headings,
    which then fill the cap by themselves, are a heading-only chunk (the exception of step 9)."""
    text = "alpha alpha alpha délta\n===\n\n## alpha alpha alpha\n\n```\n\n```"
    doc = chunker.parse(text, name="gen.md")
    for target in (1, 2):
        chunks = chunker.chunk(doc, target, 16, strategy=strategy)
        assert chunks[-1].markdown.endswith("```\n\n```")
        assert all(unclosed_fence(c.markdown) == "" for c in chunks), [c.markdown for c in chunks]
        assert "heading_only" in chunks[0].flags


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
def test_a_block_of_no_break_spaces_cut_below_its_count_keeps_them(strategy: str) -> None:
    """Found by Hypothesis: a paragraph of no-break spaces ("\\xa0\\n\\xa0", 2 tokens: content to
    Markdown) cut at target 1 gave no piece at all, since the cutter read its lines and pieces as
    blank with Python's notion of white space (str.strip, \\s), and the packing failed on the
    empty cut (IndexError). Blank is now Markdown's: spaces, tabs, form feeds, line breaks."""
    for text in ["\xa0\n\xa0", "Alpha.\n\n\xa0\n\xa0\n\n> Beta.", "\xa0 \xa0 \xa0 \xa0 \xa0"]:
        doc = chunker.parse(text, name="gen.md")
        for target, cap in [(1, 16), (1, 47), (2, 16)]:
            chunks = chunker.chunk(doc, target, cap, strategy=strategy)
            check_chunk_set(doc, chunks, cap)
            assert "\xa0" in "".join(c.markdown for c in chunks)
