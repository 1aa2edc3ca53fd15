"""What the app shows, computed without Streamlit: tables, the source view's HTML, summaries.

Pages call these and render the result; tests call them directly. Every piece of
document text that reaches HTML goes through :func:`html.escape` here, so a
document containing ``<script>`` shows it as text.
"""

from __future__ import annotations

import html
import io
import itertools
import math
import os
import re
import statistics
import unicodedata
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import chunker
from chunk_inspector.evaluate.progress import ProgressFn
from chunk_inspector.files import cut_name
from chunker.chunkset import BREADCRUMB_SEPARATOR
from chunker.optimal import CostTerms
from chunker.tokens import HF_MEMORY_PREFIX
from chunker.wording import plural

__all__ = [
    "CHUNK_TOKENS_HELP",
    "PAGE_ROWS",
    "PALETTE",
    "RENDERED_CSS",
    "ChunkSpans",
    "Outline",
    "archive_names",
    "boundary_diff",
    "chunk_html",
    "chunk_label",
    "chunk_rows",
    "chunk_sets_zip",
    "chunk_spans",
    "cli_command",
    "display_flags",
    "heading_tree",
    "md_escape",
    "megabytes",
    "nearest_point",
    "page_spans",
    "plural",
    "preview_box_css",
    "python_snippet",
    "rows_matching",
    "section_path",
    "size_histogram",
    "source_html",
    "summary",
    "sweep",
    "table_height",
    "tiny_below",
    "tokenizer_label",
    "tree_rows",
]

# Rows of a table sent to the browser at once: a 5 MB document has 11,000 chunks and 18,000 sections, and
# the whole of both tables, sent again at every move, cost the server and the browser more than the re-pack.
PAGE_ROWS = 1_000
TABLE_ROW_PX = 35  # the height of a row (and of the header) of st.dataframe at its default row height

# (background, border) pairs; neighbours differ because consecutive indexes differ mod len.
PALETTE = (
    ("#e7f0fb", "#3b7dd8"),
    ("#fdeedd", "#d9822b"),
    ("#e4f5ea", "#2e9e5b"),
    ("#f3e8fa", "#9b59c6"),
    ("#fde8e8", "#d64545"),
    ("#e3f4f6", "#1f93a8"),
)


# What a sum of the chunks' tokens counts, and why it is not the document's count (the metrics' help).
CHUNK_TOKENS_HELP = (
    "The chunks' token counts added up: what an index embeds. It differs from the document's token count: "
    "front matter is not chunked; each piece of a cut code block gets its fence lines again, and each piece "
    "of a cut table its header; overlap counts its tokens again; and the text is counted piece by piece."
)

PREVIEW_LINE_EM = 1.4  # line height of a card's preview box, in ems of its font


def preview_box_css(lines: int) -> str:
    """CSS for a card's preview box (a ``<pre>``) that shows at most ``lines`` whole lines: a set line height
    and a height of exactly that many lines, so the last line shown is never cut in half."""
    return f"line-height: {PREVIEW_LINE_EM}em; max-height: {PREVIEW_LINE_EM * lines:g}em;"


def tiny_below(options: chunker.ChunkOptions) -> int:
    """The size under which the app calls a chunk tiny: the options' minimum chunk, else the small size."""
    return options.min_tokens or chunker.SMALL_TOKENS


# -- untrusted text in Markdown ---------------------------------------------------

# Every ASCII punctuation character: CommonMark lets each be backslash-escaped, which makes it plain text.
_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# Control characters and the bidirectional overrides (which could make a name read as another).
_AUTOLINK = re.compile(r"(?i)(https?:|\bwww(?=\.))")  # what GFM's literal autolinks start with
_UNPRINTED = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+")


def megabytes(nbytes: int, limit: int | None = None) -> str:
    """A file size as the app gives every file size and limit: in MB of 10**6 bytes, to one decimal (``"5 MB"``,
    ``"5.3 MB"``), or in bytes where one decimal would hide that ``nbytes`` is over ``limit``
    (``"5,000,001 bytes"`` against 5 MB)."""
    shown = f"{nbytes / 1e6:.1f}".removesuffix(".0")
    if limit is not None and nbytes > limit and float(shown) * 1e6 <= limit:
        return f"{nbytes:,} bytes"
    return f"{shown} MB"


def md_escape(text: object) -> str:
    """``text`` for Streamlit's Markdown (``st.markdown``, ``st.caption``, alerts, widget labels and help,
    ``st.metric`` labels): shown as the characters it is, on one line, never as Markdown (an image
    ``![](http://host/x.png)`` there would make the browser fetch that host), HTML or a heading.

    Document names, breadcrumbs, question text and ids, file names and error messages that quote them are
    untrusted: they reach Markdown only through this. (Selectbox options are plain text already.)

    Streamlit also turns any ``http://``, ``https://`` or ``www.`` in the text into a link after parsing (GFM's
    literal autolinks), escaped or not: a word joiner (U+2060, invisible) after the scheme's colon or ``www``
    keeps such an address text."""
    text = _UNPRINTED.sub(" ", str(text))
    text = _AUTOLINK.sub("\\1\u2060", text)
    return _MD_PUNCTUATION.sub(r"\\\1", text)


# Characters no file name in an archive should hold: path separators, what Windows refuses, the unprinted, and
# surrogates (an undecodable byte of a name, JSON's "\ud800"), which UTF-8, a zip member's encoding, cannot hold.
_UNSAFE_IN_NAME = re.compile(
    r'[\x00-\x1f\x7f-\x9f<>:"/\\|?*\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]+'
)
_WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(10)), *(f"LPT{n}" for n in range(10))]
)
NAME_CHARS = 120  # longest name kept of a document, before its suffix
# ...and at most this many bytes of UTF-8 (120 emoji are 480): a name, its "-99" and a suffix such as ".json"
# fit the 255 bytes a file name may take where the archive is unpacked.
NAME_BYTES = 200


def archive_names(names: Sequence[str], suffix: str = "", reserved: Iterable[str] = ()) -> list[str]:
    """One file name per document name, for the members of a zip archive: a plain name (no folder, no ``..``,
    no absolute path, no control character or NUL, nothing Windows refuses), ``suffix`` appended, each one
    unique in any case (the second ``dup.md`` is ``dup-2.md``, the third ``dup-3.md``) and none of ``reserved``.
    Uploads are named by whoever sends them: ``../../x.md`` or ``/etc/cron.d/evil.md`` must not become paths
    where the archive is unpacked."""
    taken = {name.casefold() for name in reserved}
    out: list[str] = []
    for name in names:
        base = unicodedata.normalize("NFC", re.split(r"[/\\]", str(name))[-1])
        base = _UNSAFE_IN_NAME.sub("_", base).strip(" .")[:NAME_CHARS]
        base = cut_name(base, NAME_BYTES).strip(" .") or "document"
        stem, ext = os.path.splitext(base)
        if stem.split(".")[0].upper() in _WINDOWS_DEVICES:
            stem = f"_{stem}"
        candidate, n = f"{stem}{ext}{suffix}", 1
        while candidate.casefold() in taken:
            n += 1
            candidate = f"{stem}-{n}{ext}{suffix}"
        taken.add(candidate.casefold())
        out.append(candidate)
    return out


def chunk_sets_zip(items: Sequence[tuple[str, str, str]]) -> bytes:
    """A zip of chunk sets, from ``(document name, chunk-set JSON, its JSONL)`` each: one ``<name>.json`` member
    per document, named by :func:`archive_names`, and ``chunks.jsonl``, every document's chunks one a line."""
    buffer = io.BytesIO()
    names = archive_names([name for name, _, _ in items], ".json", reserved=["chunks.jsonl"])
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, (_, data, _) in zip(names, items, strict=True):
            archive.writestr(member, data)
        archive.writestr("chunks.jsonl", "".join(lines for _, _, lines in items))
    return buffer.getvalue()


# -- tables -------------------------------------------------------------------


def display_flags(chunk: chunker.Chunk, tiny_below: int) -> list[str]:
    """The engine's flags, plus ``tiny`` for a chunk under ``tiny_below`` tokens."""
    flags = list(chunk.flags)
    if chunk.token_count < tiny_below and "tiny" not in flags:
        flags.append("tiny")
    return flags


def chunk_label(chunk: chunker.Chunk) -> str:
    """One line a person can read: id, tokens, spans and breadcrumb."""
    (b0, b1), (c0, c1), (l0, l1) = chunk.byte_span, chunk.char_span, chunk.line_span
    clause = f" · clause {chunk.clause}" if chunk.clause else ""
    return (
        f"{chunk.id} · {chunk.token_count} tokens · bytes {b0}–{b1} · chars {c0}–{c1} · "
        f"lines {l0}–{l1} · {BREADCRUMB_SEPARATOR.join(chunk.breadcrumb)}{clause}"
    )


def chunk_rows(
    doc: chunker.Document, chunks: Sequence[chunker.Chunk], tiny_below: int = chunker.SMALL_TOKENS
) -> pd.DataFrame:
    """One row per chunk of ``doc``: id, section (:func:`section_path`), tokens, flags, lines, bytes: the flags
    next to the tokens, so a half-width table shows them without scrolling sideways."""
    outline = Outline.of(doc)
    return pd.DataFrame(
        {
            "id": [c.id for c in chunks],
            "breadcrumb": [section_path(c, outline) for c in chunks],
            "tokens": [c.token_count for c in chunks],
            "flags": [", ".join(display_flags(c, tiny_below)) for c in chunks],
            "lines": [f"{c.line_span[0]}–{c.line_span[1]}" for c in chunks],
            "bytes": [f"{c.byte_span[0]}–{c.byte_span[1]}" for c in chunks],
        }
    )


@dataclass(frozen=True, slots=True)
class Outline:
    """Where a document's text starts and ends (front matter left out) and where its first heading starts
    (None without a heading): what tells a preamble chunk from a chunk of the whole document."""

    start: int
    end: int
    first_heading: int | None

    @classmethod
    def of(cls, doc: chunker.Document) -> Outline:
        sections = doc.root.children
        first = sections[0].char_span[0] if sections else None
        if not doc.blocks:
            return cls(0, 0, first)
        return cls(doc.blocks[0].start, doc.blocks[-1].end, first)


def section_path(chunk: chunker.Chunk, outline: Outline, last: int | None = 2) -> str:
    """Where a chunk sits: the ``last`` titles of its breadcrumb (the document name left out; None: all of
    them), '…' marking what is cut. A chunk under the document itself is ``(preamble)`` only when it ends
    before the first heading; one holding all the text is ``(whole document)``; one holding headings, its
    first two of them (after ``(preamble)`` when it starts before the first heading); one in a document
    without a heading, ``(no heading)``."""
    titles = chunk.breadcrumb[1:]
    if titles:
        if last is None or len(titles) <= last:
            return " › ".join(titles)
        return "… › " + " › ".join(titles[-last:])
    start, end = chunk.char_span
    first = outline.first_heading
    if start <= outline.start and end >= outline.end:
        return "(whole document)"
    if first is not None and end <= first:
        return "(preamble)"
    if chunk.headings:
        parts = (["(preamble)"] if first is not None and start < first else []) + chunk.headings[:2]
        return " + ".join(parts) + (" + …" if len(chunk.headings) > 2 else "")
    return "(no heading)"


def _id_ranges(ids: list[int]) -> str:
    """[3, 4, 5, 9] -> 'c3–c5, c9'."""
    out: list[str] = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(f"c{ids[i]}" if i == j else f"c{ids[i]}–c{ids[j]}")
        i = j + 1
    return ", ".join(out)


def heading_tree(doc: chunker.Document) -> pd.DataFrame:
    """The heading tree's columns that depend on the document alone, one row per section in document order
    (the preamble first when there is one): ``section`` (indented title), ``level``, ``own`` (the heading
    and its direct content, in tokens), ``subtree`` (everything under it), ``line``, ``start`` and ``end``
    (its character span). The app makes it once per document; :func:`tree_rows` adds the chunk set's columns.
    """
    indent = "\u2003"  # em spaces keep the indent in a table cell
    prefixes = [f"{indent * (level - 1)}{'#' * level} " for level in range(7)]  # by heading level, 1 to 6
    sections = doc.sections_in_order()
    spans = [s.char_span for s in sections]
    columns: dict[str, list[Any]] = {
        "section": [prefixes[s.level] + (s.title or "(untitled)") for s in sections],
        "level": list(map(_level_of, sections)),
        "own": list(map(_own_of, sections)),
        "subtree": list(map(_tokens_of, sections)),
        "line": [s.line_span[0] for s in sections],
        "start": [start for start, _ in spans],
        "end": [end for _, end in spans],
    }
    if doc.preamble:
        first, last = doc.preamble[0], doc.preamble[-1]
        tokens = doc.root.own_tokens
        for name, value in zip(
            columns, ("(preamble)", 0, tokens, tokens, first.line_span[0], first.start, last.end), strict=True
        ):
            columns[name].insert(0, value)
    return pd.DataFrame(columns)


def tree_rows(
    doc: chunker.Document,
    chunks: Sequence[chunker.Chunk],
    hard_cap: int,
    tree: pd.DataFrame | None = None,
    spans: ChunkSpans | None = None,
) -> pd.DataFrame:
    """The heading tree (:func:`heading_tree`) with the columns of a chunk set: ``over cap`` (⚠ where the
    subtree is larger than ``hard_cap``) and ``chunks``, the chunks that hold any of the section's text,
    found for all rows at once. ``tree`` is the document's :func:`heading_tree` or some of its rows (the
    page on screen), and ``spans`` the chunks' :func:`chunk_spans`, when the caller has them: a 5 MB document
    has 18,000 sections and 10,000 chunks, and the page builds this table again at every run."""
    table = heading_tree(doc) if tree is None else tree.copy(deep=False)
    table.insert(4, "over cap", np.where(table["subtree"].to_numpy() > hard_cap, "⚠", "").tolist())
    holding = _chunks_holding(chunks, table["start"].tolist(), table["end"].tolist(), spans or chunk_spans(chunks))
    table.insert(5, "chunks", holding)
    return table


@dataclass(frozen=True, slots=True)
class ChunkSpans:
    """Where each chunk of a set starts and ends (character offsets, in the set's order), whether they are
    in order (each starts and ends no earlier than the one before) and numbered 0..n-1 in it: what
    :func:`tree_rows` bisects. The app makes it once per chunk set and keeps it with the set."""

    starts: np.ndarray
    ends: np.ndarray
    in_order: bool
    numbered: bool


def chunk_spans(chunks: Sequence[chunker.Chunk]) -> ChunkSpans:
    """The :class:`ChunkSpans` of ``chunks``."""
    starts = np.fromiter((c.char_span[0] for c in chunks), dtype=np.int64, count=len(chunks))
    ends = np.fromiter((c.char_span[1] for c in chunks), dtype=np.int64, count=len(chunks))
    in_order = bool(np.all(starts[1:] >= starts[:-1]) and np.all(ends[1:] >= ends[:-1]))
    return ChunkSpans(starts, ends, in_order, all(c.index == i for i, c in enumerate(chunks)))


def rows_matching(table: pd.DataFrame, query: str, columns: Sequence[str]) -> pd.DataFrame:
    """The rows of ``table`` whose text in any of ``columns`` holds ``query``, in any case (all rows for an
    empty query)."""
    if not query:
        return table
    hits = np.zeros(len(table), dtype=bool)
    for column in columns:
        hits |= table[column].str.contains(query, case=False, regex=False).to_numpy(dtype=bool)
    return table[hits]


def page_spans(count: int, size: int = PAGE_ROWS) -> list[tuple[int, int]]:
    """``[first, stop)`` of each page of a table of ``count`` rows, ``size`` rows a page (one page if empty)."""
    return [(first, min(first + size, count)) for first in range(0, count, size)] or [(0, 0)]


_level_of, _own_of, _tokens_of = (attrgetter(name) for name in ("level", "own_tokens", "tokens"))


def _chunks_holding(
    chunks: Sequence[chunker.Chunk], starts: list[int], ends: list[int], spans: ChunkSpans
) -> list[str]:
    """For each span ``[starts[i], ends[i])``, the ids of the chunks overlapping it ('c3–c5', 'c9', '');
    ``spans`` are the chunks' :func:`chunk_spans`."""
    chunk_starts, chunk_ends = spans.starts, spans.ends
    if not spans.in_order:  # pragma: no cover - the engine's chunks are in order; anything else, one by one
        return [
            _id_ranges([c.index + 1 for c in chunks if c.char_span[0] < end and c.char_span[1] > start])
            for start, end in zip(starts, ends, strict=True)
        ]
    # In order, the chunks overlapping a span are a run: from the first ending after its start to the
    # last starting before its end (one bisection each, for all spans at once).
    firsts = np.searchsorted(chunk_ends, np.asarray(starts, dtype=np.int64), side="right").tolist()
    stops = np.searchsorted(chunk_starts, np.asarray(ends, dtype=np.int64), side="left").tolist()
    if spans.numbered:  # the run is c{first + 1}–c{stop}
        return [
            "" if stop <= first else f"c{stop}" if stop - first == 1 else f"c{first + 1}–c{stop}"
            for first, stop in zip(firsts, stops, strict=True)
        ]
    return [
        _id_ranges([chunks[i].index + 1 for i in range(first, stop)]) for first, stop in zip(firsts, stops, strict=True)
    ]


def summary(chunks: Sequence[chunker.Chunk], tiny_below: int = chunker.SMALL_TOKENS) -> dict[str, int]:
    """Chunk count, total tokens, min/median/p95/max tokens, chunks with warnings, tiny chunks."""
    sizes = sorted(c.token_count for c in chunks)
    if not sizes:
        return {"chunks": 0, "total": 0, "min": 0, "median": 0, "p95": 0, "max": 0, "warnings": 0, "tiny": 0}
    p95 = sizes[min(len(sizes) - 1, max(0, round(0.95 * len(sizes)) - 1))]
    return {
        "chunks": len(sizes),
        "total": sum(sizes),
        "min": sizes[0],
        "median": round(statistics.median(sizes)),
        "p95": p95,
        "max": sizes[-1],
        "warnings": sum(1 for c in chunks if c.flags or c.token_count < tiny_below),  # has display_flags
        "tiny": sum(1 for c in chunks if c.token_count < tiny_below),
    }


def cost_chart(terms: CostTerms) -> dict[str, Any]:
    """A plotly figure (a plain dict) of one chunk's cost under the optimal packing, term by term."""
    rows = terms.rows()
    return {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "y": [name for name, _, _ in rows],
                "x": [round(cost, 4) for _, cost, _ in rows],
                "text": [why for _, _, why in rows],
                "textposition": "auto",
                "marker": {"color": ["#3b7dd8", "#8c8c8c", "#e08a1e", "#9b59b6", "#d64545"]},
                "hovertemplate": "%{y}: %{x}<br>%{text}<extra></extra>",
            }
        ],
        "layout": {
            "height": 240,
            "margin": {"l": 10, "r": 10, "t": 36, "b": 10},
            "title": {"text": f"Cost of this chunk: {terms.total:.3f}", "font": {"size": 13}},
            "xaxis": {"title": {"text": "cost"}, "rangemode": "tozero"},
            "yaxis": {"autorange": "reversed"},
        },
    }


def table_height(rows: int, most: int) -> int:
    """The height of an ``st.dataframe`` of ``rows`` rows, at most ``most`` pixels: a fixed height larger than the
    rows drew empty rows under them (a two-section document's heading tree was two rows and seven blank ones)."""
    return min(most, (rows + 1) * TABLE_ROW_PX + 3)


def size_histogram(
    sizes: Sequence[int], target: int, hard_cap: int, title: str = "Chunk sizes (tokens)"
) -> dict[str, Any]:
    """A plotly figure (a plain dict) of chunk sizes, with the target and the hard cap marked.

    The sizes go in as a numpy array: ``st.plotly_chart`` validates the figure, an array at once
    and a list value by value (20 ms for the 11,000 chunks of a 5 MB document, at every slider move).
    """

    def line(
        x: float, color: str, dash: str, label: str, side: str, label_x: float | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        shape = {
            "type": "line",
            "x0": x,
            "x1": x,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"color": color, "dash": dash, "width": 2},
        }
        note = {
            "x": x if label_x is None else label_x,
            "yref": "paper",
            "y": 1.02,
            "text": label,
            "showarrow": False,
            "font": {"color": color, "size": 11},
            "xanchor": side,
        }
        return shape, note

    # Size s is drawn over [s - 0.5, s + 0.5], a bar over its bin's sizes, and the cap's line just past the cap: the
    # bin holding the cap ends there (its sizes above the cap cannot be). Drawn from each bin's edge to the next,
    # with the line on the cap, chunks of exactly the cap stood past the line, as if over it.
    cap_line = hard_cap + 0.5
    # The cap's label goes left of its line: to the right, 12% of a narrow chart cut it off. The target's goes right
    # of its own, from the cap's line when the target is the cap (half a token left of it, the two labels overlapped).
    marks = [
        line(target, "#2e9e5b", "dash", "target", "left", cap_line if target >= hard_cap else None),
        line(cap_line, "#d64545", "solid", "hard cap", "right"),
    ]
    counts, edges = size_bins(sizes)
    lows, highs = edges[:-1], edges[1:]
    highs = np.where((lows <= hard_cap) & (highs > hard_cap + 1), hard_cap + 1, highs)  # a bin's sizes: lo to hi - 1
    return {
        "data": [
            {
                "type": "bar",
                "x": (lows + highs) / 2 - 0.5,
                "y": counts,
                "width": (highs - lows).astype(float),
                # Each bar's first and last size and its count in words ("1 chunk", "3 chunks"): a few dozen rows.
                "customdata": [
                    [int(lo), int(hi) - 1, plural(int(n), "chunk")]
                    for lo, hi, n in zip(lows, highs, counts, strict=True)
                ],
                "marker": {"color": "#3b7dd8"},
                "hovertemplate": "%{customdata[0]}–%{customdata[1]} tokens: %{customdata[2]}<extra></extra>",
            }
        ],
        "layout": {
            "height": 300,
            "margin": {"l": 10, "r": 10, "t": 36, "b": 10},
            "title": {"text": title, "font": {"size": 14}},
            "xaxis": {"range": [0, hard_cap * 1.12], "title": {"text": "tokens"}},
            "yaxis": {"title": {"text": "chunks"}},
            "bargap": 0.05,
            "shapes": [shape for shape, _ in marks],
            "annotations": [note for _, note in marks],
        },
    }


def size_bins(sizes: Sequence[int], bins: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Chunk counts per bin of sizes, and the bins' edges: at most ``bins`` bins from 0, each a round width
    (1, 2 or 5 times a power of ten), the last holding the largest size."""
    values = np.asarray(sizes, dtype=np.int64)
    largest = int(values.max()) if len(values) else 1
    width = next(
        step * 10**power for power in itertools.count() for step in (1, 2, 5) if step * 10**power * bins > largest
    )
    edges = np.arange(0, (largest // width + 2) * width, width, dtype=np.int64)  # the last edge past the largest
    counts, _ = np.histogram(values, bins=edges)
    return counts, edges


# -- the source view ----------------------------------------------------------

_CSS = """
<style>
.ci-src { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px;
  line-height: 1.45; }
.ci-src pre { margin: 0; padding: 0 0 0 46px; white-space: pre-wrap; word-break: break-word; background: none;
  font: inherit; }
.ci-chunk { position: relative; background: var(--bg); border-left: 4px solid var(--bd);
  margin: 0 0 3px 0; padding: 2px 6px 2px 0; border-radius: 2px; }
.ci-chunk.ci-sel { outline: 2px solid var(--bd); outline-offset: -1px; box-shadow: 0 0 0 3px rgba(0,0,0,.08); }
.ci-tag { position: absolute; top: 1px; right: 4px; font-size: 11px; color: var(--bd); font-weight: 600;
  background: rgba(255,255,255,.85); padding: 0 4px; border-radius: 3px; }
.ci-info { display: none; font-size: 11.5px; color: #222; background: #fff; border: 1px solid var(--bd);
  padding: 2px 6px; margin: 0 0 2px 44px; border-radius: 3px; }
.ci-chunk:hover .ci-info, .ci-chunk.ci-sel .ci-info { display: block; }
.ci-chunk:hover .ci-tag, .ci-chunk.ci-sel .ci-tag { display: none; }
.ci-scroll { max-height: 520px; overflow-y: auto; padding-right: 4px; }
.ci-flag { color: #b03a2e; font-weight: 600; }
.ci-ln { display: inline-block; width: 38px; margin-left: -46px; margin-right: 8px; text-align: right;
  color: #8a8f98; user-select: none; }
.ci-gap { color: #8a8f98; }
.ci-ov { background: repeating-linear-gradient(135deg, rgba(0,0,0,.10) 0 4px, transparent 4px 8px);
  border-bottom: 2px dashed #555; }
.ci-hl { background: rgba(255, 221, 87, .55); }
</style>
"""


def _lines_html(
    text: str, start: int, end: int, line_of: Callable[[int], int], marks: list[tuple[int, int, str]]
) -> str:
    """``text[start:end]`` escaped, a line number before each line that starts inside it.

    ``marks`` are ``(start, end, css_class)`` ranges inside ``[start, end)`` to wrap in a span.
    """
    out: list[str] = []
    line = line_of(start) + 1
    at_line_start = start == 0 or text[start - 1] == "\n"
    bounds = sorted({start, end, *[m for a, b, _ in marks for m in (a, b) if start < m < end]})
    for seg_start, seg_end in itertools.pairwise(bounds):
        css = next((c for a, b, c in marks if a <= seg_start and seg_end <= b), "")
        parts: list[str] = []
        for piece in text[seg_start:seg_end].splitlines(keepends=True):
            if at_line_start:
                parts.append(f'<span class="ci-ln">{line}</span>')
            parts.append(html.escape(piece))
            at_line_start = piece.endswith(("\n", "\r"))
            if at_line_start:
                line += 1
        body = "".join(parts)
        out.append(f'<span class="{css}">{body}</span>' if css else body)
    return "".join(out)


def source_html(
    doc: chunker.Document,
    chunks: Sequence[chunker.Chunk],
    *,
    first: int = 0,
    last: int | None = None,
    selected: int | None = None,
    highlight: tuple[int, int] | None = None,
    excerpts: Sequence[tuple[int, int]] = (),
    tiny_below: int = chunker.SMALL_TOKENS,
) -> str:
    """The source of chunks ``first..last`` (inclusive), each region coloured, with line numbers.

    Each region shows its id and tokens; on hover (always for ``selected``) a line
    with its spans and breadcrumb. Text another chunk repeats as overlap is hatched.
    ``highlight`` is a char span (e.g. a section chosen in the tree) to mark; ``excerpts`` are
    char spans (a question's reference excerpts) marked the same way, with class ``ci-ref``.
    """
    text = doc.text
    line_of = doc.source.line_index
    last = len(chunks) - 1 if last is None else min(last, len(chunks) - 1)
    parts = [_CSS, '<div class="ci-src ci-scroll">']
    cursor = chunks[first].char_span[0] if chunks and first <= last else 0
    for i in range(first, last + 1):
        chunk = chunks[i]
        start, end = max(chunk.char_span[0], cursor), chunk.char_span[1]
        if start > cursor and text[cursor:start].strip():
            parts.append(f'<pre class="ci-gap">{_lines_html(text, cursor, start, line_of, [])}</pre>')
        marks: list[tuple[int, int, str]] = []
        following = chunks[i + 1] if i + 1 < len(chunks) else None
        overlap = following.overlap_span if following is not None else None
        if overlap:
            marks.append((max(overlap[0], start), min(overlap[1], end), "ci-ov"))
        own_overlap = chunk.overlap_span
        if i == first and own_overlap:  # the chunk it repeats is not drawn: hatch the repeat here
            marks.append((own_overlap[0], own_overlap[1], "ci-ov"))
        if highlight and highlight[0] < end and highlight[1] > start:
            marks.append((max(highlight[0], start), min(highlight[1], end), "ci-hl"))
        for ex0, ex1 in excerpts:  # first in the list: an excerpt shows over overlap hatching
            if ex0 < end and ex1 > start:
                marks.insert(0, (max(ex0, start), min(ex1, end), "ci-hl ci-ref"))
        bg, bd = PALETTE[i % len(PALETTE)]
        flags = display_flags(chunk, tiny_below)
        flag_html = f' · <span class="ci-flag">{html.escape(", ".join(flags))}</span>' if flags else ""
        shared = f" · hatched text is also in {following.id}" if overlap and following is not None else ""
        sel = " ci-sel" if selected == i else ""
        parts.append(
            f'<div class="ci-chunk{sel}" id="ci-{chunk.id}" data-chunk="{chunk.id}" style="--bg:{bg};--bd:{bd}">'
            f'<span class="ci-tag">{chunk.id} · {chunk.token_count} tok</span>'
            f'<div class="ci-info">{html.escape(chunk_label(chunk))}{flag_html}{html.escape(shared)}</div>'
            f"<pre>{_lines_html(text, start, end, line_of, marks)}</pre></div>"
        )
        cursor = max(cursor, end)
    parts.append("</div>")
    return "".join(parts)


# -- a chunk rendered -----------------------------------------------------------

RENDERED_CSS = """<style>
.ci-md { font-size: 14px; line-height: 1.5; overflow-wrap: anywhere; }
.ci-md pre { background: #f6f7f9; padding: 6px 8px; border-radius: 4px; white-space: pre-wrap; }
.ci-md table { border-collapse: collapse; margin: 4px 0; }
.ci-md th, .ci-md td { border: 1px solid #d5d8dc; padding: 2px 6px; }
.ci-md .ci-img { color: #6b7280; background: #f1f2f4; border: 1px dashed #b8bcc3; border-radius: 3px; padding: 0 4px;
  font-size: 12.5px; }
.ci-md .ci-link { text-decoration: underline dotted; color: #1f5fbf; }
</style>"""

_ALLOWED_TAGS = frozenset(
    (
        *("p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "s", "code", "pre", "blockquote", "ul", "ol"),
        *("li", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "span", "div"),
    )
)
_ALIGN = re.compile(r"text-align:(left|right|center)")


class _Checker(HTMLParser):
    """Finds any tag or attribute outside what :func:`chunk_html` writes (a tag that could fetch or run)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _ALLOWED_TAGS:
            self.bad.append(tag)
        for name, value in attrs:
            if name in ("class", "title") or (name == "start" and (value or "").isdigit()):
                continue
            if name == "style" and _ALIGN.fullmatch(value or ""):
                continue
            self.bad.append(f"{tag}[{name}]")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


def _markdown_renderer() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])

    def image(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        alt = renderer.renderInlineAsText(token.children or [], options, env)
        where = html.escape(str(token.attrGet("src") or ""), quote=True)
        shown = html.escape(alt) or "(no alt text)"
        return f'<span class="ci-img" title="image not loaded: {where}">image: {shown}</span>'

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        where = html.escape(str(tokens[idx].attrGet("href") or ""), quote=True)
        return f'<span class="ci-link" title="{where}">'

    def link_close(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return "</span>"

    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    return md


_renderer: Any = None


def chunk_html(markdown: str) -> str:
    """A chunk's Markdown as HTML that fetches and runs nothing, for ``st.html``: raw HTML in it stays text
    (``<script>``, ``<img src=…>``, ``<iframe>``, ``<link>``, ``style="url(…)"``), an image is its alt text
    in a placeholder (its address in the tooltip), a link its text (its address in the tooltip). Anything
    else than the tags and attributes this writes is refused: the Markdown is then shown as text."""
    global _renderer
    if _renderer is None:
        _renderer = _markdown_renderer()
    body = str(_renderer.render(markdown))
    checker = _Checker()
    checker.feed(body)
    checker.close()
    if checker.bad:  # pragma: no cover - markdown-it writes none of them with html off
        body = f"<pre>{html.escape(markdown)}</pre>"
    return f'{RENDERED_CSS}<div class="ci-md">{body}</div>'


# -- tune and compare ---------------------------------------------------------


def unfit_caps(caps: Iterable[int], options: chunker.ChunkOptions) -> dict[int, str]:
    """The hard caps of ``caps`` that the rest of ``options`` (the overlap, the minimum chunk, the breadcrumb in
    the budget) does not fit, at any target, each with the reason."""
    out = {}
    for cap in caps:
        try:
            replace(options, target=min(options.target, cap), hard_cap=cap)
        except chunker.ConfigError as exc:
            out[cap] = str(exc)
    return out


def nearest_point(points: Sequence[tuple[int, int]], target: int, hard_cap: int) -> int:
    """The index of the (target, hard cap) of ``points`` nearest ``target`` and ``hard_cap``: that point itself
    when it is one, else the one the fewest doublings or halvings away (the sizes' ratios, as the sliders' stops
    grow), the first of equals; 0 for no points."""

    def distance(point: tuple[int, int]) -> float:
        return abs(math.log(point[0] / target)) + abs(math.log(point[1] / hard_cap))

    return min(range(len(points)), key=lambda i: distance(points[i]), default=0)


def sweep(
    doc: chunker.Document,
    targets: Iterable[int],
    caps: Iterable[int],
    options: chunker.ChunkOptions,
    tiny_below: int = chunker.SMALL_TOKENS,
    progress: ProgressFn | None = None,
) -> pd.DataFrame:
    """Chunk ``doc`` at every ``target <= hard_cap`` of the grid, with ``options`` otherwise; one row of
    statistics per point. A point where the other options do not fit its cap (an overlap of half the cap or
    more, a minimum chunk over it) is left out, as :func:`~chunk_inspector.app.evaluate_view.recall_sweep`
    leaves it out (:func:`unfit_caps` names them)."""
    caps = list(caps)
    unfit = unfit_caps(caps, options)
    grid = [(t, c) for c in caps if c not in unfit for t in targets if t <= c]
    rows = []
    for n, (target, hard_cap) in enumerate(grid):
        if progress is not None:
            progress(n / len(grid), f"target {target}, hard cap {hard_cap}")
        chunks = chunker.chunk_with(doc, replace(options, target=target, hard_cap=hard_cap))
        sizes = [c.token_count for c in chunks]
        stats = summary(chunks, tiny_below)
        rows.append(
            {
                "target": target,
                "hard_cap": hard_cap,
                "chunks": stats["chunks"],
                "total_tokens": stats["total"],
                "median": stats["median"],
                "spread": round(statistics.pstdev(sizes), 1) if sizes else 0.0,
                "tiny_share": round(stats["tiny"] / max(stats["chunks"], 1), 3),
                "warnings": stats["warnings"],
            }
        )
    if progress is not None:
        progress(1.0, "done")
    return pd.DataFrame(rows)


def boundary_diff(a: Sequence[chunker.Chunk], b: Sequence[chunker.Chunk]) -> tuple[set[int], set[int]]:
    """Indexes of the chunks in ``a`` and in ``b`` whose start is not a chunk start in the other."""
    starts_a = {c.char_span[0] for c in a}
    starts_b = {c.char_span[0] for c in b}
    return (
        {c.index for c in a if c.char_span[0] not in starts_b},
        {c.index for c in b if c.char_span[0] not in starts_a},
    )


# -- reproduce ----------------------------------------------------------------


# The options the app sets, in the order the Python snippet writes them.
_SNIPPET_OPTIONS = ("overlap", "min_tokens", "repeat_table_header", "breadcrumb_in_budget", "strategy")


def python_snippet(name: str, settings: chunker.ChunkOptions, tokenizer_file: str | None = None) -> str:
    """Python that reproduces the current chunk set from the file ``name`` (an uploaded tokenizer.json: the file
    ``tokenizer_file``, :func:`tokenizer_label`)."""
    opts = {k: v for k, v in settings.keywords().items() if k != "tokenizer"}
    tokenizer = tokenizer_label(settings.tokenizer_name, tokenizer_file)
    args = "".join(f",\n    {key}={opts[key]!r}" for key in _SNIPPET_OPTIONS)
    return (
        "from pathlib import Path\n\n"
        "import chunker\n\n"
        f"text = Path({name!r}).read_text(encoding='utf-8')\n"
        f"doc = chunker.parse(text, name={name!r}, tokenizer={tokenizer!r})\n"
        "chunks = chunker.chunk(\n"
        f"    doc,\n    target={settings.target},\n    hard_cap={settings.hard_cap}{args},\n)\n"
        "print(len(chunks), 'chunks')\n"
        "Path('chunks.json').write_text(chunks.to_json(), encoding='utf-8')\n"
    )


def cli_command(name: str, settings: chunker.ChunkOptions, tokenizer_file: str | None = None) -> str:
    """The ``chunker`` command line that writes the same JSON. ``name`` is an upload's: quoted for the shell, and
    one that starts with ``-`` written ``./-…``, so that it is the file and never an option (``--ray=HOST``); so is
    an uploaded tokenizer.json's ``tokenizer_file``."""
    tokenizer = tokenizer_label(settings.tokenizer_name, tokenizer_file)
    parts = [
        "chunker",
        _shell_quote(f"./{name}" if name.startswith("-") else name),  # a name is a file, never an option
        f"--target {settings.target}",
        f"--hard-cap {settings.hard_cap}",
        f"--tokenizer {_shell_quote(f'./{tokenizer}' if tokenizer.startswith('-') else tokenizer)}",
    ]
    if settings.overlap:
        parts.append(f"--overlap {settings.overlap}")
    if settings.min_tokens:
        parts.append(f"--min-tokens {settings.min_tokens}")
    if settings.breadcrumb_in_budget:
        parts.append("--breadcrumb-in-budget")
    if not settings.repeat_table_header:
        parts.append("--no-repeat-table-header")
    if settings.strategy != chunker.DEFAULT_STRATEGY:
        parts.append(f"--strategy {settings.strategy}")
    parts.append("-o chunks.json")
    return " ".join(parts)


def tokenizer_label(tokenizer: str, uploaded_as: str | None = None) -> str:
    """The tokenizer as the user knows it: an uploaded tokenizer.json (kept in memory, named by its content's
    hash, ``hf:sha256:…``) is the file the user uploaded, ``uploaded_as`` (``tokenizer.json`` when not known), a
    path to one the file's name; else the encoding's name."""
    if tokenizer.startswith(HF_MEMORY_PREFIX):
        return uploaded_as or "tokenizer.json"
    return Path(tokenizer).name if tokenizer.endswith(".json") else tokenizer


def _shell_quote(value: str) -> str:
    import shlex

    return shlex.quote(value)
