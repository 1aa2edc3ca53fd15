"""chunk_inspector.app.view: the heading tree's chunk lists against their definition."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import chunker
from chunk_inspector.app import view
from tests.app.conftest import box_lines

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"


def brute_force(doc: chunker.Document, chunks: chunker.ChunkSet) -> list[str]:
    """Each section's chunks by testing every chunk (the definition the tree's bisection must match)."""
    spans = []
    if doc.preamble:
        spans.append((doc.preamble[0].start, doc.preamble[-1].end))
    spans += [section.char_span for section in doc.sections_in_order()]
    return [
        view._id_ranges([c.index + 1 for c in chunks if c.char_span[0] < end and c.char_span[1] > start])
        for start, end in spans
    ]


@pytest.mark.parametrize("name", ["jest_changelog.md", "asyncapi_spec.md", "poetry_cli.md", "rust_blog_gccrs.md"])
@pytest.mark.parametrize("options", [{}, {"overlap": 40, "min_tokens": 30}], ids=["plain", "overlap"])
def test_tree_rows_list_every_chunk_that_holds_a_sections_text(name: str, options: dict[str, int]) -> None:
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    chunks = chunker.chunk(doc, target=128, hard_cap=256, **options)
    rows = view.tree_rows(doc, chunks, 256)
    assert list(rows["chunks"]) == brute_force(doc, chunks)
    assert rows["chunks"].str.len().gt(0).all(), "every section's text is in some chunk"


@pytest.mark.parametrize("name", ["asyncapi_spec.md", "poetry_cli.md"])
def test_tree_rows_read_each_sections_spans_and_any_chunks_given(name: str) -> None:
    """Spans and lines are each section's own; chunks not numbered 0..n-1 (a subset) are listed by their ids."""
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    chunks = chunker.chunk(doc, target=128, hard_cap=256)
    rows = view.tree_rows(doc, chunks, 256)
    sections = doc.sections_in_order()
    tail = rows.iloc[len(rows) - len(sections) :]
    assert list(zip(tail["start"], tail["end"], strict=True)) == [s.char_span for s in sections]
    assert list(tail["line"]) == [s.line_span[0] for s in sections]
    assert list(tail["over cap"]) == ["⚠" if s.tokens > 256 else "" for s in sections]
    every_other = chunks[1::2]
    assert list(view.tree_rows(doc, every_other, 256)["chunks"]) == brute_force(doc, every_other)
    assert set(view.tree_rows(doc, [], 256)["chunks"]) == {""}


@pytest.mark.parametrize("name", ["jest_changelog.md", "asyncapi_spec.md"])
def test_chunk_spans_made_once_give_the_tree_the_same_chunk_columns(name: str) -> None:
    """The app keeps each chunk set's spans (view.chunk_spans) and passes them to tree_rows at every run: the
    table is the one tree_rows makes from the chunks alone, for the whole set and for a subset."""
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    chunks = chunker.chunk(doc, target=128, hard_cap=256, overlap=40)
    spans = view.chunk_spans(chunks)
    assert spans.in_order and spans.numbered
    assert list(zip(spans.starts.tolist(), spans.ends.tolist(), strict=True)) == [c.char_span for c in chunks]
    assert view.tree_rows(doc, chunks, 256, spans=spans).equals(view.tree_rows(doc, chunks, 256))
    every_other = chunks[1::2]
    some = view.chunk_spans(every_other)
    assert some.in_order and not some.numbered
    assert list(view.tree_rows(doc, every_other, 256, spans=some)["chunks"]) == brute_force(doc, every_other)
    assert view.chunk_spans([]).numbered and set(
        view.tree_rows(doc, [], 256, spans=view.chunk_spans([]))["chunks"]
    ) == {""}


def test_the_summary_counts_as_warnings_the_chunks_shown_with_a_flag() -> None:
    doc = chunker.parse((SAMPLES / "jest_changelog.md").read_text(encoding="utf-8"), name="jest_changelog.md")
    chunks = chunker.chunk(doc, target=128, hard_cap=256)
    for tiny_below in (1, 50, 120):
        stats = view.summary(chunks, tiny_below)
        assert stats["warnings"] == sum(1 for c in chunks if view.display_flags(c, tiny_below))
        assert stats["tiny"] == sum(1 for c in chunks if c.token_count < tiny_below)
    assert 0 < view.summary(chunks, 1)["warnings"] < view.summary(chunks, 120)["warnings"]


def test_a_page_of_the_tree_gets_the_same_chunk_columns_as_the_whole_tree() -> None:
    """The app sends a page of the heading tree: its rows, made from the document's heading_tree, are those
    rows of the whole table."""
    doc = chunker.parse((SAMPLES / "jest_changelog.md").read_text(encoding="utf-8"), name="jest_changelog.md")
    chunks = chunker.chunk(doc, target=128, hard_cap=256)
    whole = view.tree_rows(doc, chunks, 256)
    assert len(whole) > 100
    tree = view.heading_tree(doc)
    assert list(tree.columns) == ["section", "level", "own", "subtree", "line", "start", "end"]
    for first, stop in view.page_spans(len(tree), 40):
        page = view.tree_rows(doc, chunks, 256, tree.iloc[first:stop])
        assert page.reset_index(drop=True).equals(whole.iloc[first:stop].reset_index(drop=True))
    assert list(tree.columns) == ["section", "level", "own", "subtree", "line", "start", "end"], "left as it was"


def test_page_spans_cover_every_row_once() -> None:
    assert view.page_spans(0) == [(0, 0)]
    assert view.page_spans(view.PAGE_ROWS) == [(0, view.PAGE_ROWS)]
    assert view.page_spans(2_500, 1_000) == [(0, 1_000), (1_000, 2_000), (2_000, 2_500)]


def test_rows_matching_finds_the_query_in_any_case_and_as_plain_text() -> None:
    table = pd.DataFrame(
        {"section": ["# Install", "## install (pip)", "## Usage [a-z]+", "## Other"], "n": [1, 2, 3, 4]}
    )
    assert list(view.rows_matching(table, "INSTALL", ["section"])["n"]) == [1, 2]
    assert list(view.rows_matching(table, "(pip)", ["section"])["n"]) == [2], "parentheses are text, not a group"
    assert list(view.rows_matching(table, "[a-z]+", ["section"])["n"]) == [3], "brackets are text, not a class"
    assert list(view.rows_matching(table, "", ["section"])["n"]) == [1, 2, 3, 4]
    assert view.rows_matching(table, "absent", ["section"]).empty


@pytest.mark.parametrize(
    "sizes", [[1], [0, 0, 3], [511, 512, 1, 40], list(range(1, 1025)), [7] * 50 + [2048], []], ids=str
)
def test_size_bins_count_every_chunk_once_in_round_bins(sizes: list[int]) -> None:
    """The histogram is drawn from these bins: at most 40 from 0, each 1, 2 or 5 times a power of ten wide."""
    counts, edges = view.size_bins(sizes)
    assert len(counts) <= 40 and edges[0] == 0 and len(edges) == len(counts) + 1
    width = int(edges[1] - edges[0])
    assert (np.diff(edges) == width).all() and str(width).strip("0") in {"1", "2", "5"}
    assert int(counts.sum()) == len(sizes)
    for size in sizes:  # each in the bin [edge, next edge)
        assert counts[size // width] > 0
    if sizes:
        assert counts[max(sizes) // width] > 0 and len(counts) == max(sizes) // width + 1


def test_the_size_histogram_draws_the_bins_with_the_target_and_cap_marked() -> None:
    figure = view.size_histogram([10, 20, 20, 300], target=256, hard_cap=512)
    bars = figure["data"][0]
    counts, edges = view.size_bins([10, 20, 20, 300])
    assert bars["type"] == "bar" and list(bars["y"]) == list(counts)
    assert list(bars["width"]) == [b - a for a, b in itertools.pairwise(edges)]
    assert list(bars["x"]) == [(a + b) / 2 - 0.5 for a, b in itertools.pairwise(edges)], "size s over s ± 0.5"
    assert [shape["x0"] for shape in figure["layout"]["shapes"]] == [256, 512.5]
    notes = {note["text"]: note for note in figure["layout"]["annotations"]}
    assert notes["hard cap"]["x"] == 512.5 and notes["hard cap"]["xanchor"] == "right", "inside the chart, not cut off"
    assert notes["target"]["xanchor"] == "left", "apart from the cap's label when the target is the cap"


@pytest.mark.parametrize(
    ("sizes", "cap"), [([4, 9, 16, 16, 16], 16), ([380, 1000, 1010, 1024], 1024), ([12, 500, 512], 512)], ids=str
)
def test_no_bar_of_chunks_within_the_cap_stands_past_its_line(sizes: list[int], cap: int) -> None:
    """At target 16 and hard cap 16, the chunks of 16 tokens were a bar wholly right of the cap's line, and at cap
    1024 the bar of 1000–1049 crossed it: chunks the engine never makes over the cap looked as if they were. Each
    bar now covers its sizes (size s over s ± 0.5) and no more, its hover saying which, the line just past the cap."""
    figure = view.size_histogram(sizes, target=cap, hard_cap=cap)
    bars = figure["data"][0]
    line = next(shape["x0"] for shape in figure["layout"]["shapes"] if shape["line"]["color"] == "#d64545")
    for x, width, (first, last, _), n in zip(bars["x"], bars["width"], bars["customdata"], bars["y"], strict=True):
        left, right = x - width / 2, x + width / 2
        assert right <= line, (first, last, right, line)
        assert left == first - 0.5 and right == last + 0.5, "the bar spans the sizes its hover names"
        assert n == sum(first <= size <= last for size in sizes)
    assert bars["customdata"][-1][1] == cap, "the last bar ends at the cap"


def test_the_size_histograms_hover_counts_one_chunk_and_many_chunks() -> None:
    figure = view.size_histogram([10, 20, 20, 300], target=256, hard_cap=512)
    bars = figure["data"][0]
    shown = {row[2] for row in bars["customdata"]}
    assert {"1 chunk", "2 chunks", "0 chunks"} <= shown and "1 chunks" not in shown
    assert [row[2] for row in bars["customdata"]] == [view.plural(int(n), "chunk") for n in bars["y"]]
    assert "%{customdata[2]}" in bars["hovertemplate"] and "%{y} chunks" not in bars["hovertemplate"]
    first = bars["customdata"][0]
    assert first[:2] == [0, 9] and bars["hovertemplate"].startswith("%{customdata[0]}–%{customdata[1]} tokens")


# -- untrusted text: Markdown, archive names, a chunk rendered ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "![](http://198.51.100.9/q.png)",
        "[x](http://198.51.100.9/)",
        "<img src=http://198.51.100.9/i.png>",
        "# heading\n\n- list\n1. item\n===",
        "**bold** _em_ `code` ~~s~~ $x$ :red[red] |a|b|",
        "a\\b\x00c\u202ed",
    ],
)
def test_md_escape_leaves_no_markdown_to_interpret(text: str) -> None:
    """Every ASCII punctuation character is backslash-escaped (CommonMark then shows it as itself), and the
    text is one line with no control or bidi-override character: no image, link, heading, HTML or emphasis."""
    from markdown_it import MarkdownIt

    escaped = view.md_escape(text)
    assert "\n" not in escaped and "\x00" not in escaped and "\u202e" not in escaped
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(escaped)
    assert rendered.startswith("<p>") and rendered.count("<") == 2, rendered  # one paragraph of text
    assert "<img" not in rendered and "<a " not in rendered


def test_md_escape_keeps_web_addresses_from_becoming_links() -> None:
    """Streamlit links any http://, https:// or www. in Markdown text after parsing, escaped or not: a word
    joiner after the scheme (invisible) keeps them text."""
    text = "see http://198.51.100.9/x, HTTPS://a.b and www.c.d; awww.e stays"
    shown = view.md_escape(text).replace("\\", "")
    assert "http://" not in shown.lower() and "www." not in shown.replace("awww.", "")
    assert shown.replace("\u2060", "") == text


HOSTILE_NAMES = [
    "../../x.md",
    "/etc/cron.d/evil.md",
    "C:\\Windows\\evil.md",
    "dup.md",
    "dup.md",
    "DUP.md",
    "dup-2.md",
    "..",
    "",
    ".hidden.md",
    "a\x00b\nc.md",
    "con.md",
    "chunks.jsonl",
    "x" * 300 + ".md",
    "  spaced .md . ",
]


def test_archive_names_are_plain_unique_names_whatever_the_uploads_are_named() -> None:
    names = view.archive_names(HOSTILE_NAMES, ".json", reserved=["chunks.jsonl"])
    assert len(names) == len(HOSTILE_NAMES)
    assert len({n.casefold() for n in names}) == len(names) and "chunks.jsonl" not in names
    for name in names:
        assert_safe_member(name)
    assert names[:6] == ["x.md.json", "evil.md.json", "evil-2.md.json", "dup.md.json", "dup-2.md.json", "DUP-3.md.json"]


def assert_safe_member(name: str) -> None:
    assert name and "/" not in name and "\\" not in name and ".." not in name.split(".json")[0].split("/")
    assert not name.startswith((".", " ")) and ":" not in name
    assert all(c.isprintable() for c in name), repr(name)
    assert len(name) <= view.NAME_CHARS + len("-99.json")


def test_the_corpus_zip_reads_back_one_plain_member_per_upload_and_chunks_jsonl() -> None:
    """Two uploads named dup.md give dup.md.json and dup-2.md.json; ../../x.md and /etc/cron.d/evil.md stay in
    the archive's top folder; every member is a plain, unique name, one per upload, plus chunks.jsonl."""
    import io
    import zipfile

    items = [(name, f'{{"n": {i}}}', f'{{"line": {i}}}\n') for i, name in enumerate(HOSTILE_NAMES)]
    with zipfile.ZipFile(io.BytesIO(view.chunk_sets_zip(items))) as archive:
        members = archive.namelist()
        assert archive.testzip() is None
        assert members[-1] == "chunks.jsonl" and len(members) == len(HOSTILE_NAMES) + 1
        assert len(set(members)) == len(members)
        for member in members[:-1]:
            assert_safe_member(member)
        assert [archive.read(m).decode() for m in members[:-1]] == [data for _, data, _ in items]
        assert archive.read("chunks.jsonl").decode().count("\n") == len(items)
    assert members[:2] == ["x.md.json", "evil.md.json"] and members[3:5] == ["dup.md.json", "dup-2.md.json"]


REMOTE = """# Title ![logo](http://198.51.100.9/h.png)

![alt text](http://198.51.100.9/a.png "t") and [a link](http://198.51.100.9/l) and <http://198.51.100.9/auto>

![ref image][r]

[r]: http://198.51.100.9/r.png

<img src="http://198.51.100.9/i.png" onerror="window.__pwned = 1">

<iframe src="http://198.51.100.9/f"></iframe>
<link rel="stylesheet" href="http://198.51.100.9/s.css">
<script src="http://198.51.100.9/s.js"></script>
<div style="background: url(http://198.51.100.9/bg.png)">x</div>

| a | b |
|--:|:--|
| <img src=http://198.51.100.9/t.png> | `code` |

```html" onload="x
<img src=http://198.51.100.9/c.png>
```
"""


def test_a_rendered_chunk_fetches_and_runs_nothing() -> None:
    """Markdown rendered for the Inspect page's "Rendered" tab: images become their alt text, links their
    text, raw HTML stays text; no tag or attribute that could fetch (src, href, url(), <link>) or run
    (<script>, on*) is left, and only the tags and attributes of Markdown's own HTML are written."""
    from html.parser import HTMLParser

    out = view.chunk_html(REMOTE)

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append((tag, attrs))

    parser = Tags()
    parser.feed(out.split("</style>", 1)[1])
    names = {tag for tag, _ in parser.tags}
    assert names <= {"div", "h1", "p", "span", "table", "thead", "tbody", "tr", "th", "td", "pre", "code"}, names
    for tag, attrs in parser.tags:
        for name, value in attrs:
            assert name in ("class", "title", "style"), (tag, name)
            assert name != "style" or value in ("text-align:right", "text-align:left"), value
    assert 'title="image not loaded: http://198.51.100.9/a.png">image: alt text</span>' in out
    assert '<span class="ci-link" title="http://198.51.100.9/l">a link</span>' in out
    assert "&lt;script src=" in out and "&lt;iframe" in out and "&lt;img src=" in out  # shown, as text
    assert "url(" not in out.replace("url(http://198.51.100.9/bg.png)", "")  # only inside the escaped text


def test_the_chunk_table_calls_a_chunk_the_preamble_only_when_it_lies_before_the_first_heading() -> None:
    """A chunk whose breadcrumb is just the document: the preamble before the first heading; the whole
    document, or the sections merged under the document, are named as what they are."""
    text = "Intro line.\n\n" + "".join(f"# S{i}\n\nsome words here {i}.\n\n" for i in range(12))
    text += "# Big\n\n" + "word " * 400 + "\n"
    doc = chunker.parse(text, name="d.md")
    merged = list(view.chunk_rows(doc, chunker.chunk(doc, target=64, hard_cap=128, strategy="optimal"))["breadcrumb"])
    assert merged[:3] == ["(preamble) + S0 + S1", "S2 + S3", "S4 + S5"]
    apart = list(view.chunk_rows(doc, chunker.chunk(doc, target=64, hard_cap=128, strategy="reference"))["breadcrumb"])
    assert apart[:3] == ["(preamble)", "S0 + S1 + …", "Big"]
    whole = chunker.parse("Intro.\n\n# A\n\nalpha\n\n## B\n\nbeta\n", name="w.md")
    assert list(view.chunk_rows(whole, chunker.chunk(whole))["breadcrumb"]) == ["(whole document)"]
    flat = chunker.parse("Just text. " * 200 + "\n\nMore text. " * 200, name="f.md")
    labels = set(view.chunk_rows(flat, chunker.chunk(flat, target=64, hard_cap=128))["breadcrumb"])
    assert labels == {"(no heading)"}


def test_a_preview_box_holds_whole_lines() -> None:
    """A card's preview box is a whole number of its lines high: its last line is never a sliver."""
    from chunk_inspector.app import revisions_view

    for lines in (1, 4, 10, 17):
        assert box_lines(f"pre {{ {view.preview_box_css(lines)} }}", "pre") == pytest.approx(lines)
    assert box_lines(revisions_view.cards_html([], side="new"), ".rv-card pre") == pytest.approx(
        revisions_view.BOX_LINES
    )


def test_plural_counts_one_and_many_with_thousands_separators() -> None:
    assert view.plural(1, "chunk") == "1 chunk"
    assert view.plural(0, "chunk") == "0 chunks"
    assert view.plural(3275, "chunk") == "3,275 chunks"
    assert view.plural(2, "query", "queries") == "2 queries"


def test_the_chunk_table_puts_the_flags_right_after_the_tokens() -> None:
    """Inspect's chunk table is half the page wide: the flags a reviewer reads come before lines and bytes."""
    doc = chunker.parse("# T\n\nSome text.\n", name="t.md")
    assert list(view.chunk_rows(doc, chunker.chunk(doc)).columns) == [
        "id",
        "breadcrumb",
        "tokens",
        "flags",
        "lines",
        "bytes",
    ]


def test_nearest_point_is_the_point_itself_on_the_grid_else_the_fewest_doublings_away() -> None:
    grid = [(t, c) for t in (128, 256, 384, 512) for c in (256, 512, 1024) if t <= c]
    for i, (t, c) in enumerate(grid):
        assert view.nearest_point(grid, t, c) == i
    assert grid[view.nearest_point(grid, 300, 600)] == (256, 512)
    assert grid[view.nearest_point(grid, 16, 8192)] == (128, 1024)
    assert grid[view.nearest_point(grid, 500, 500)] == (512, 512)
    assert view.nearest_point([], 384, 1024) == 0
