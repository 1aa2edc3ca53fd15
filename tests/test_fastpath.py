"""chunker.fastparse: the compiled fast path gives markdown-it-py's blocks, spans, titles and counts.

markdown-it-py is the parser of record; markdown-it-pyrs may stand in for it only where
these tests show the same answer: every corpus document, every CommonMark spec example,
generated Markdown, and the inner structure of every block the cutter may descend into.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunker
from chunker import fastparse
from chunker.parse import InnerNode, inner_structure
from tests.conftest import CORPUS, ROOT, commonmark_examples, corpus_files, requires_corpus

pytestmark = pytest.mark.skipif(not fastparse.AVAILABLE, reason="markdown-it-pyrs is not installed")

CUTTABLE = ("list", "blockquote", "table", "code", "html")


@contextmanager
def parser_of_record() -> Iterator[None]:
    """Force markdown-it-py, as ``CHUNKER_PARSER=markdown-it`` does."""
    old = os.environ.get(fastparse.PARSER_ENV)
    os.environ[fastparse.PARSER_ENV] = "markdown-it"
    try:
        yield
    finally:
        if old is None:
            del os.environ[fastparse.PARSER_ENV]
        else:
            os.environ[fastparse.PARSER_ENV] = old


def inner_of(doc: chunker.Document) -> list[list[InnerNode]]:
    """The inner structure of every block the cutter may descend into, as split.py asks for it."""
    out = []
    for block in doc.blocks:
        if block.kind in CUTTABLE:
            first_line = block.line_span[0] - 1
            out.append(inner_structure(doc.text[doc.source.line_starts[first_line] : block.end], first_line))
    return out


def both_paths(text: str, name: str = "doc.md") -> tuple[Any, Any]:
    """(document JSON, inner structures) from the fast path and from markdown-it-py."""
    assert fastparse.enabled()
    fast = chunker.parse(text, name=name)
    fast_result = (fast.to_dict(), inner_of(fast))
    with parser_of_record():
        assert not fastparse.enabled()
        ref = chunker.parse(text, name=name)
        ref_result = (ref.to_dict(), inner_of(ref))
    return fast_result, ref_result


@requires_corpus
@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_document_parses_the_same_on_both_paths(path: Path) -> None:
    """Blocks, spans, titles, counts, the section tree and every inner structure agree, and so do the chunks."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    fast, ref = both_paths(text, path.name)
    assert fast[0] == ref[0]
    assert fast[1] == ref[1]
    fast_chunks = chunker.chunk_markdown(text, name=path.name, target=256, hard_cap=512).to_json()
    with parser_of_record():
        assert chunker.chunk_markdown(text, name=path.name, target=256, hard_cap=512).to_json() == fast_chunks


@requires_corpus
def test_the_fast_path_serves_the_corpus() -> None:
    """Guard against a vacuous proof: nearly every corpus document really takes the fast path, inner blocks too."""
    texts = [p.read_bytes().decode("utf-8", errors="replace") for p in corpus_files()]
    fallbacks = [t for t in texts if fastparse.top_level_blocks(t) is None]
    assert len(texts) >= 100 and len(fallbacks) <= 5
    slices = []
    for text in texts:
        doc = chunker.parse(text)
        for block in doc.blocks:
            if block.kind in CUTTABLE:
                slices.append(text[doc.source.line_starts[block.line_span[0] - 1] : block.end])
    served = sum(fastparse.inner_blocks(piece) is not None for piece in slices)
    assert len(slices) > 1000 and served >= 0.75 * len(slices)


@requires_corpus
@pytest.mark.parametrize("example", commonmark_examples(), ids=lambda e: f"example-{e.get('example', '?')}")
def test_commonmark_example_parses_the_same_on_both_paths(example: dict[str, str]) -> None:
    """Every construct of the syntax gives the same blocks and inner structure on both paths."""
    fast, ref = both_paths(example["markdown"])
    assert fast == ref


# Lines built to collide: container prefixes, tabs, lazy lines, empty items, tables
# next to quotes and lists, HTML starts, fences, setext underlines, CR and CRLF breaks.
_FRAGMENTS = [
    "alpha beta", "# Head", "## Sub *em*", "Title", "===", "---", "***", "- item", "* item", "+ item", "1. one",
    "2) two", "> quote", ">", "```", "```py", "~~~", "    code", "\tcode", "| a | b |", "|---|---|", "| 1 | 2 |",
    "a | b", "--- | ---", "<div>", "</div>", "<!-- c -->", "<pre>", "</pre>", "<custom>", "[x]: /url",
    "[x]: /url 'title'", "text [x]", "", "", "", "  ", "\\# not", "`code`", "- [ ] task", "1.", "-", "<?php", "?>",
    "<![CDATA[", "]]>", "<script>", "</script>", "| only |", "|:-|-:|", "éß 日本", "**b**", "_i_", "~~s~~", "\\",
]  # fmt: skip
_PREFIXES = [
    "",
    "",
    "",
    " ",
    "  ",
    "   ",
    "    ",
    "\t",
    "> ",
    "- ",
    "1. ",
    "  - ",
    "> > ",
    ">  ",
    " > ",
    "-   ",
    "10. ",
]


@st.composite
def colliding_markdown(draw: st.DrawFn) -> str:
    lines = draw(
        st.lists(
            st.tuples(st.sampled_from(_PREFIXES), st.sampled_from(_PREFIXES), st.sampled_from(_FRAGMENTS)).map("".join),
            min_size=1,
            max_size=25,
        )
    )
    sep = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    return sep.join(lines) + draw(st.sampled_from(["", sep]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(colliding_markdown())
def test_generated_markdown_parses_the_same_on_both_paths(text: str) -> None:
    """Differential fuzzing: wherever the fast path answers, it answers like markdown-it-py."""
    fast, ref = both_paths(text)
    assert fast == ref


@pytest.mark.parametrize(
    "text",
    [
        "> quote\n2. item\n",  # markdown-it-py ends the quote; CommonMark and markdown-it.rs go on lazily
        ">m\n0.",  # an empty ordered item after a quote line
        "> note\ntext\n3) step\n",  # the same after lazy lines
        "| a | b |\n|---|---|\n| 1 | 2 |\n2. x\n",  # an item not starting at 1 ends a table only in markdown-it-py
        "- >\n- ||\n-|-\n",  # a table in a list item after a quote
        "title | sub\n---\n",  # a one-column table to markdown-it-py, a heading to markdown-it.rs
        ">- >\n>",  # an empty quote in a list item in a quote: markdown-it-py runs it over the next line
    ],
)
def test_each_known_divergence_falls_back_to_markdown_it_py(text: str) -> None:
    """The two parsers disagree on these; the fast path sees it and leaves them to markdown-it-py."""
    raw = fastparse._md().tree(text)
    assert raw is not None
    assert fastparse.diverges(text)
    assert fastparse.top_level_blocks(text) is None
    fast, ref = both_paths(text)
    assert fast == ref


def test_divergence_check_passes_ordinary_markdown() -> None:
    """Tables, quotes with blank lines, numbered lists and nested lists keep the fast path."""
    text = (
        "# T\n\n> a quote\n>\n> on two paragraphs\n\n1. one\n2. two\n   - nested\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\nSub\n---\n\n- a\n- b\n"
    )
    assert not fastparse.diverges(text)
    assert fastparse.top_level_blocks(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "".join("  " * depth + "- x\n" for depth in range(70)) + "\nafter\n\n# Heading\n",
        ">" * 120 + " deep\n\nafter\n",
        "- > " * 40 + "deep\n\n# after\n",
        "-\t" * 55 + "deep\n\n# after\n",
    ],
)
def test_nesting_past_markdown_it_py_limit_falls_back(text: str) -> None:
    """markdown-it-py stops at its nesting limit, markdown-it.rs does not: such a text takes markdown-it-py."""
    assert fastparse.top_level_blocks(text) is None
    fast, ref = both_paths(text)
    assert fast == ref


def test_nesting_deep_enough_to_overflow_the_compiled_parser_never_reaches_it() -> None:
    """markdown-it.rs recurses per level without a limit (100,000 ">" crash it): such texts go to markdown-it-py."""
    text = ">" * 100_000 + " deep\n\n# after\n"
    assert fastparse._deep_prefixes(text) is None
    assert [b.kind for b in chunker.parse(text).blocks] == ["blockquote", "heading"]


def test_a_long_run_of_link_definitions_goes_to_markdown_it_py() -> None:
    """markdown-it.rs takes quadratic time over consecutive "[x]: ..." lines; a long run of them is not given to it."""
    many = "# Links\n\n" + "".join(f"[r{n}]: https://example.com/{n}\n" for n in range(300))
    assert fastparse.top_level_blocks(many) is None
    assert fastparse.top_level_blocks("# Links\n\n[a]: /a\n[b]: /b\n") is not None
    fast, ref = both_paths(many)
    assert fast == ref


def test_nesting_below_the_limit_keeps_the_fast_path() -> None:
    """Deep but not too deep: measured, and parsed on the fast path with markdown-it-py's answer."""
    text = "".join("  " * depth + "- x\n" for depth in range(44)) + "\nafter\n"
    assert fastparse.top_level_blocks(text) is not None
    fast, ref = both_paths(text)
    assert fast == ref


def test_lone_surrogates_fall_back_without_raising() -> None:
    """A Rust string cannot hold a lone surrogate: markdown-it-py parses, nothing raises."""
    text = "# T\ud800\n\npara \udc00\n"
    assert fastparse.top_level_blocks(text) is None
    fast, ref = both_paths(text)
    assert fast == ref


def test_markdown_it_py_index_error_is_avoided() -> None:
    """markdown-it-py 4.3 raises IndexError on this text without a final line break; the engine does not."""
    with parser_of_record():
        doc = chunker.parse("> - <?php\n>")
        assert [b.kind for b in doc.blocks] == ["blockquote"]
        assert inner_structure("> - <!--\n>", 0)[0].kind == "blockquote"


def test_parser_env_switches_the_fast_path_off() -> None:
    """CHUNKER_PARSER=markdown-it forces the parser of record."""
    assert fastparse.top_level_blocks("# T\n") is not None
    with parser_of_record():
        assert fastparse.top_level_blocks("# T\n") is None
        assert fastparse.inner_blocks("- a\n- b") is None


def test_engine_works_without_markdown_it_pyrs() -> None:
    """The fast path is optional: with the package unimportable, parsing and chunking still work."""
    code = (
        "import sys; sys.modules['markdown_it_pyrs'] = None\n"
        "import chunker\n"
        "from chunker import fastparse\n"
        "assert not fastparse.AVAILABLE and not fastparse.enabled()\n"
        "cs = chunker.chunk_markdown('# T\\n\\n' + 'word ' * 900 + '\\n\\n- a\\n- b\\n', target=64, hard_cap=128)\n"
        "print(len(cs))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["- ", "-", "* ", "1.", "12) ", "> ", ">", " ", "\t", "x", "+\t"]), max_size=6))
def test_empty_item_pattern_is_the_markers_pattern_reordered(parts: list[str]) -> None:
    """_EMPTY_ITEM (marker first) matches the lines that (markers and spaces)* then a marker match."""
    import re

    marker = fastparse._MARKER
    written_before = re.compile(r"\n[ \t>]*(?:" + marker + r"[ \t]+)*" + marker + r"[ \t]*(?=\n)")
    text = "\n" + "".join(parts) + "\n"
    assert [m.span() for m in fastparse._EMPTY_ITEM.finditer(text)] == [m.span() for m in written_before.finditer(text)]
