"""chunker.fastparse: the compiled fast path gives markdown-it-py's blocks, spans, titles and counts.

markdown-it-py is the parser of record; markdown-it-pyrs may stand in for it only where
these tests show the same answer: every corpus document, every CommonMark spec example,
generated Markdown, and the inner structure of every block the cutter may descend into.
"""

from __future__ import annotations

import importlib
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
    """The inner structure of every block the cutter may descend into, as the cutter (chunker/cut/) asks for it."""
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
    """A Rust string cannot hold a lone surrogate: the fast path declines it instead of raising (parse refuses
    such a text before it gets here, tests/test_parse.py)."""
    text = "# T\ud800\n\npara \udc00\n"
    assert fastparse.top_level_blocks(text) is None


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


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["-", " -", "- ", "|", ":", " ", "\t", ">", "x", "=", "\n"]), max_size=10))
def test_dash_line_pattern_is_the_plain_pattern_read_without_backtracking(parts: list[str]) -> None:
    """_DASH_LINE (its dash checked ahead, the rest possessive) matches the lines the plain pattern matches."""
    import re

    written_before = re.compile(r"\n[ \t>]*[|:\- \t]*-[|:\- \t]*(?=\n)")
    text = "\n" + "".join(parts) + "\n"
    assert [m.span() for m in fastparse._DASH_LINE.finditer(text)] == [m.span() for m in written_before.finditer(text)]


def test_a_line_of_dashes_and_spaces_that_ends_otherwise_is_read_in_linear_time() -> None:
    """`| a |` over `| - - - … - x`: the dash-line pattern tried each dash as its one dash and read to the line's
    end from each, so 80 KB took 43 s to chunk (160 KB, four times that)."""
    import time

    text = "| a |\n|" + " -" * 80_000 + "x\n"
    started = time.process_time()
    assert fastparse.constructs(text) == []
    chunks = chunker.chunk_markdown(text, name="dashes.md")
    assert len(chunks) > 1 and max(c.token_count for c in chunks) <= chunker.DEFAULT_HARD_CAP
    assert time.process_time() - started < 20


# --- The fast path per region: markdown-it-py parses only the blocks around a divergent construct.

PARSE = importlib.import_module("chunker.parse")

# Each construct on which the parsers may part ways (test_each_known_divergence_falls_back_to_markdown_it_py),
# and the one in the corpus (public-docs/rustbook_ch02.md: a paragraph's last line "38.", an empty item).
DIVERGENT = [
    "> quote\n2. item",
    ">m\n0.",
    "> note\ntext\n3) step",
    "| a | b |\n|---|---|\n| 1 | 2 |\n2. x",
    "- >\n- ||\n-|-",
    "title | sub\n---",
    ">- >\n>",
    "the user has guessed 50 and the number is\n38.",
]
# A document of every kind of top-level block, and blocks that stay open across blank lines
# (a list with a loose item, indented code, a fence, an HTML block), to insert constructs into.
HOST = """# Title

Intro paragraph
over two lines.

- item one
- item two

  continued item

> a quote
> over lines

| a | b |
|---|---|
| 1 | 2 |

```py
code

more code
```

    indented code

    more

<div>
html
</div>

<!-- a comment

over a blank line -->

Setext
------

[ref]: /url

1. one
2. two

***
tail paragraph
"""


@contextmanager
def regions(chars: int, dense: int = 1 << 60) -> Iterator[list[str]]:
    """The regions that markdown-it-py parses, recorded; regions ``chars`` past their constructs (1: smallest),
    the rest of the text one region once they have parsed ``dense`` characters (by default: never)."""
    seen: list[str] = []
    original, old_chars, old_dense = PARSE._markdown_it_raw, fastparse.REGION_CHARS, fastparse.DENSE_CHARS

    def spy(region: str) -> list[Any]:
        seen.append(region)
        return original(region)  # type: ignore[no-any-return]

    PARSE._markdown_it_raw, fastparse.REGION_CHARS, fastparse.DENSE_CHARS = spy, chars, dense
    try:
        yield seen
    finally:
        PARSE._markdown_it_raw, fastparse.REGION_CHARS, fastparse.DENSE_CHARS = original, old_chars, old_dense


def same_on_both_paths(text: str, chars: int = 1, dense: int = 1 << 60) -> list[str]:
    """Assert the fast path (regions ``chars`` past their constructs, see :func:`regions`) answers like
    markdown-it-py; the regions."""
    with regions(chars, dense) as seen:
        fast, ref = both_paths(text)
    assert fast == ref
    return seen


def inserted(host: str, construct: str, line: int, sep: str = "\n") -> str:
    """``construct`` as lines of their own before ``host``'s line ``line`` (0-based)."""
    lines = host.split("\n")
    return "\n".join([*lines[:line], *construct.split(sep), *lines[line:]])


IN_CONTAINERS = {
    "alone": lambda c: c,
    "blank lines around": lambda c: "\n" + c + "\n",
    "in a quote": lambda c: "\n".join("> " + line for line in c.split("\n")),
    "in a list item": lambda c: "\n".join(("- " if n == 0 else "  ") + line for n, line in enumerate(c.split("\n"))),
}


@pytest.mark.parametrize("where", list(IN_CONTAINERS))
@pytest.mark.parametrize("construct", DIVERGENT)
def test_a_divergent_construct_at_every_line_of_a_document(construct: str, where: str) -> None:
    """The construct before every line of a document of every block kind, alone, in a quote, in a list item:
    markdown-it-py's blocks, spans and counts; regions as small as they go; never the whole-text fallback."""
    piece = IN_CONTAINERS[where](construct)
    lines = HOST.count("\n") + 1
    covered = []
    for line in range(lines):
        text = inserted(HOST, piece, line)
        assert PARSE._markdown_it_ranges(text) != []
        seen = same_on_both_paths(text)
        if fastparse.top_level_blocks(text) is None:  # the whole text to markdown-it-py before regions
            assert seen
            assert fastparse.top_level_blocks(text, region_parser=PARSE._markdown_it_raw) is not None
        covered.append(sum(map(len, seen)) / len(text))
    assert max(covered) > 0 and sorted(covered)[len(covered) // 2] < 0.5  # most regions are a small part


@pytest.mark.parametrize("construct", DIVERGENT)
def test_a_divergent_construct_at_the_start_and_the_end(construct: str) -> None:
    """First line, last line with and without a final line break, the whole text; LF, CRLF and CR."""
    for text in [
        construct,
        construct + "\n",
        construct + "\n\n" + HOST,
        construct + "\n" + HOST,
        HOST + construct,
        HOST + construct + "\n",
        HOST + "\n" + construct,
        HOST.rstrip("\n") + "\n" + construct,
    ]:
        for variant in (text, text.replace("\n", "\r\n"), text.replace("\n", "\r")):
            for chars in (1, fastparse.REGION_CHARS):
                same_on_both_paths(variant, chars)


@pytest.mark.parametrize("second", DIVERGENT)
@pytest.mark.parametrize("first", DIVERGENT)
def test_divergent_constructs_next_to_each_other(first: str, second: str) -> None:
    """Two constructs on adjacent lines, or a blank line apart, in the middle of a document, LF and CRLF."""
    middle = HOST.index("> a quote")
    for sep in ("\n", "\n\n", "\n\n\n"):
        text = HOST[:middle] + first + sep + second + "\n\n" + HOST[middle:]
        same_on_both_paths(text)
        same_on_both_paths(text.replace("\n", "\r\n"))


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: x\n---\n> quote\n2. item\n\n# H\n\ntext\n",  # right after front matter
        "---\ntitle: x\n---\n\n# H\n\npara\n\n> quote\n2. item\n\n# After\n\nmore\n",
        "- a\n\n  > quote\n  2. item\n\n- b\n\n# H\n",  # in a loose list that goes on past it
        "<!--\n\n> quote\n2. item\n\n-->\n\n# H\n\n> q\n2. i\n\n# x\n",  # in an HTML block, and after it
        "```\n> quote\n2. item\n\n> quote\n2. item\n",  # in a fence left open: code, no region
        "\ufeff> quote\n2. item\n\n# H\n",
        "> quote\n2. item\n" * 3 + "\n# H\n\n" + "para\n38.\n\n" * 3,  # runs of them
    ],
)
def test_divergent_constructs_in_odd_places(text: str) -> None:
    """After front matter, in a loose list, in an HTML block, in an open fence, after a BOM, runs of them."""
    for variant in (text, text.replace("\n", "\r\n")):
        for chars in (1, fastparse.REGION_CHARS):
            same_on_both_paths(variant, chars)


@pytest.mark.parametrize("dense", [0, 200, fastparse.DENSE_CHARS])
def test_constructs_close_together_leave_the_rest_to_markdown_it_py(dense: int) -> None:
    """Once the regions have parsed more than ``dense`` characters and more than the text before the next one,
    that one runs to the end: at once after the first (0), after a few (200), or region by region (the default)."""
    text = "".join(DIVERGENT[n % len(DIVERGENT)] + "\n\npara\n\n" for n in range(40)) + HOST
    seen = same_on_both_paths(text, fastparse.REGION_CHARS, dense)
    if dense < fastparse.DENSE_CHARS:
        assert text.endswith(seen[-1]) and len(seen) == {0: 2, 200: 6}[dense]
    else:  # region by region (30 for the 40 constructs), the last one ending in HOST
        assert len(seen) == 30 and not text.endswith(seen[-1])


_CONSTRUCTS = st.sampled_from(DIVERGENT)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            colliding_markdown(),
            _CONSTRUCTS,
            _CONSTRUCTS.map(IN_CONTAINERS["in a quote"]),
            _CONSTRUCTS.map(IN_CONTAINERS["in a list item"]),
            st.just(HOST),
        ),
        min_size=1,
        max_size=10,
    ),
    st.lists(st.sampled_from(["", "\n", "\n\n", "\n\n\n", "\n  \n", "\n\t\n"]), min_size=10, max_size=10),
    st.sampled_from([1, 8, 64, 4096]),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_generated_documents_with_divergent_constructs(parts: list[str], seps: list[str], chars: int, nl: str) -> None:
    """Generated Markdown and divergent constructs (alone, in quotes, in list items) in any order, any region
    size, any line break: markdown-it-py's answer."""
    text = "".join(part + sep for part, sep in zip(parts, seps, strict=False)).replace("\n", nl)
    same_on_both_paths(text, chars)


@requires_corpus
@pytest.mark.corpus
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_document_with_divergent_constructs_inserted(path: Path) -> None:
    """Each corpus document with constructs at its start, before every 40th line (a different one each time,
    ``in a list item`` every other time) and at its end: markdown-it-py's answer, with regions as small as they go."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    lines = text.split("\n")
    out = []
    for n, line in enumerate(lines):
        if n % 40 == 0:
            construct = DIVERGENT[(n // 40) % len(DIVERGENT)]
            out.append(IN_CONTAINERS["in a list item" if n % 80 else "alone"](construct))
        out.append(line)
    out.append(DIVERGENT[len(lines) % len(DIVERGENT)])
    same_on_both_paths("\n".join(out))


@requires_corpus
def test_a_large_concatenation_keeps_the_fast_path_but_around_its_construct() -> None:
    """The corpus joined (2.9 MB, public-docs/rustbook_ch02.md in it): markdown-it-py parses a few KB of it."""
    texts = [p.read_bytes().decode("utf-8", errors="replace") for p in corpus_files()]
    text = "".join(t.rstrip("\n") + "\n\n" for t in texts if fastparse.top_level_blocks(t) is None)
    text += "".join(t.rstrip("\n") + "\n\n" for t in texts)  # the divergent file first, and again later
    assert fastparse.constructs(text)
    seen = same_on_both_paths(text, fastparse.REGION_CHARS)
    assert seen and sum(map(len, seen)) < 0.01 * len(text)


def test_the_region_parser_keeps_divergent_texts_off_the_whole_text_fallback() -> None:
    """With the region parser, the fast path answers for every text the constructs used to send to markdown-it-py."""
    for construct in DIVERGENT:
        assert fastparse.top_level_blocks(construct) is None
        assert fastparse.top_level_blocks(construct, region_parser=PARSE._markdown_it_raw) is not None


class _TreeSpy:
    """markdown-it.rs's parser, noting the length of every text it makes a tree of."""

    def __init__(self, real: Any) -> None:
        self.real, self.lengths = real, []

    def tree(self, text: str) -> Any:
        self.lengths.append(len(text))
        return self.real.tree(text)


@pytest.mark.parametrize(
    "after", ["> a quote ends it\n", "# A heading ends it\n", "- a list ends it\n", "\nA paragraph.\n", ""]
)
def test_a_table_longer_than_a_piece_is_read_without_a_tree_of_its_cells(
    monkeypatch: pytest.MonkeyPatch, after: str
) -> None:
    """A table is one top-level node: pieces doubling until one held it made markdown-it.rs's tree of the whole
    table, two objects a cell (a 5 MB upload of 50,000 columns: 6 GB and 30 s; 1 MB of five columns: 1.1 GB).
    Its end is now markdown-it-py's table rule's, read off its lines; the blocks are those of the parser of
    record."""
    rows = "".join(f"| {n} | cell {n} \\| piped | `a|b` |\n" for n in range(6_000))
    text = f"Intro.\n\n| a | b | c |\n|---|:-:|--:|\n{rows}{after}\nAfter.\n"
    assert len(rows) > 3 * fastparse.PIECE_CHARS
    spy = _TreeSpy(fastparse._md())
    monkeypatch.setattr(fastparse, "_md", lambda: spy)
    blocks = fastparse.top_level_blocks(text)
    assert blocks is not None and [b[0] for b in blocks][:2] == ["paragraph", "table"]
    assert max(spy.lengths) <= 2 * fastparse.PIECE_CHARS, "no tree of the whole table"
    monkeypatch.undo()
    fast, ref = both_paths(text)
    assert fast[0] == ref[0]


@pytest.mark.parametrize("cell", ["x" * 400, "x"], ids=["longer-than-a-piece", "within-a-piece"])
def test_a_table_ends_where_markdown_it_py_stops_filling_in_cells(cell: str) -> None:
    """markdown-it-py ends a table once it would fill in more than 65,536 missing cells (a header of 300
    columns over rows of one); markdown-it.rs went on, and the fast path gave its longer table, whether the
    table was longer than a piece or within one."""
    header = "|" + "|".join(f"h{n}" for n in range(300)) + "|\n|" + "---|" * 300 + "\n"
    text = "Intro.\n\n" + header + ("|" + cell + "|\n") * 400 + "\nAfter.\n"
    assert (len(text) > fastparse.PIECE_CHARS) == (len(cell) > 1)
    fast = chunker.parse(text, name="doc.md")
    with parser_of_record():
        ref = chunker.parse(text, name="doc.md")
    assert [(b.kind, b.line_span) for b in fast.blocks] == [(b.kind, b.line_span) for b in ref.blocks]
    assert [b.kind for b in ref.blocks] == ["paragraph", "table", "paragraph", "paragraph"]
