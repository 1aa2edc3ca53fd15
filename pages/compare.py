"""Compare: two settings side by side on one document, differing boundaries marked; peers as a third column."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import fields

import streamlit as st

import chunker
from chunk_inspector.app import frame, view
from chunk_inspector.peers import chunkers as peers
from chunk_inspector.peers import metrics as peer_metrics


def _column_html(chunks: Sequence[chunker.Chunk], differs: set[int], tiny_below: int) -> str:
    """One card per chunk (the first ``view.PAGE_ROWS``): id, tokens, lines, flags, the first lines; a red edge
    where the other side differs."""
    cards = []
    for chunk in chunks[: view.PAGE_ROWS]:
        bg, bd = view.PALETTE[chunk.index % len(view.PALETTE)]
        edge = "#d64545" if chunk.index in differs else bd
        mark = '<b class="cmp-diff">◆ boundary differs</b> ' if chunk.index in differs else ""
        flags = view.display_flags(chunk, tiny_below)
        flag_html = f' · <span class="cmp-flag">{html.escape(", ".join(flags))}</span>' if flags else ""
        preview = "\n".join(chunk.markdown.splitlines()[:PREVIEW_LINES])
        cards.append(
            f'<div class="cmp-card" style="background:{bg};border-left:5px solid {edge}">'
            f'<div class="cmp-head">{mark}<b>{chunk.id}</b> · {chunk.token_count} tokens · '
            f"lines {chunk.line_span[0]}–{chunk.line_span[1]}{flag_html}</div>"
            f"<pre>{html.escape(preview)}</pre></div>"
        )
    return _CSS + "".join(cards) + _more(len(chunks))


def _more(count: int) -> str:
    """The line under a column of ``count`` chunks of which only the first ``view.PAGE_ROWS`` are drawn."""
    if count <= view.PAGE_ROWS:
        return ""
    return f'<div class="cmp-more">… and {view.plural(count - view.PAGE_ROWS, "more chunk")}, not drawn</div>'


def _window(a: Sequence[chunker.Chunk]) -> tuple[int, int, int | None]:
    """The chunks of A drawn, ``[first, stop)``, and where the text they start in ends (None: the document's
    end): all of them up to ``view.PAGE_ROWS``, else the page of A chosen here. The other columns draw the
    chunks that start in the same text [A's first's start, the end), so that the three stay side by side."""
    if len(a) <= view.PAGE_ROWS:
        return 0, len(a), None
    spans = view.page_spans(len(a))
    page = st.selectbox(
        "Chunks shown",
        range(len(spans)),
        format_func=lambda i: f"A's {spans[i][0] + 1:,}–{spans[i][1]:,} of {len(a):,}, and B's beside them",
        key="cmp_page",
        help=f"A long document's columns show {view.PAGE_ROWS:,} of A's chunks at a time: a page of every chunk "
        "would take the browser a minute to draw.",
    )
    first, stop = spans[min(page or 0, len(spans) - 1)]
    return first, stop, a[stop].char_span[0] if stop < len(a) else None


def _starting_in(spans: Sequence[tuple[int, int] | None], low: int, high: int | None) -> list[int]:
    """The indexes of ``spans`` that start in ``[low, high)`` (``high`` None: to the end); a span not known
    (None) in none but the whole text's."""
    whole = low == 0 and high is None
    return [
        i
        for i, span in enumerate(spans)
        if (span is None and whole) or (span is not None and span[0] >= low and (high is None or span[0] < high))
    ]


def _peer_html(pieces: Sequence[tuple[int, peers.PeerChunk]], cap: int) -> str:
    """One card per peer chunk (the first ``view.PAGE_ROWS``), each ``(index, chunk)``: number, tokens, the
    first lines."""
    count = chunker.get_tokenizer("cl100k_base").count
    cards = []
    for n, piece in pieces[: view.PAGE_ROWS]:
        text = piece.embedded
        tokens = count(text)
        over = ' · <span class="cmp-flag">over the cap</span>' if tokens > cap else ""
        preview = "\n".join(text.splitlines()[:PREVIEW_LINES])
        cards.append(
            f'<div class="cmp-card" style="background:#f4f4f5;border-left:5px solid #7f8c8d">'
            f'<div class="cmp-head"><b>#{n + 1}</b> · {tokens} tokens{over}</div>'
            f"<pre>{html.escape(preview)}</pre></div>"
        )
    return _CSS + "".join(cards) + _more(len(pieces))


def _quality(text: str, pieces: Sequence[peers.PeerChunk], count: Callable[[str], int], cap: int) -> str:
    """The peers benchmark's defect counts for one column (0 is best everywhere), sizes by ``count``."""
    m = peer_metrics.defects(text, pieces, [count(p.embedded) for p in pieces], hard_cap=cap)
    parts = [
        ("over the cap", m.over_cap),
        ("open fences", m.unbalanced_fence),
        ("table pieces without header", m.headless_table),
        ("heading only", m.heading_only),
        (f"under {chunker.SMALL_TOKENS} tokens", m.small),
    ]
    return " · ".join(f"⚠ {n} {what}" if n else f"0 {what}" for what, n in parts)


PREVIEW_LINES = 4  # lines of a chunk shown on its card

_CSS = f"""<style>
.cmp-card {{ margin: 0 0 4px 0; padding: 3px 8px; border-radius: 3px; font-size: 12.5px; }}
.cmp-card pre {{ margin: 2px 0 0 0; padding: 0; white-space: pre-wrap; word-break: break-word; font-size: 11.5px;
  color: #333; background: none; {view.preview_box_css(PREVIEW_LINES)} overflow: hidden; }}
.cmp-diff {{ color: #d64545; }}
.cmp-flag {{ color: #b03a2e; font-weight: 600; }}
.cmp-more {{ color: #5f6368; font-style: italic; padding: 4px 8px; }}
</style>"""


opened = frame.current()
if opened is None:
    st.stop()
doc, a, settings = opened.doc, opened.chunks, opened.settings
st.subheader(f"Compare · {view.md_escape(doc.name)}")
st.caption(
    "A is the sidebar's setting; choose B here. Chunks whose start is not a boundary on the other side are "
    "marked ◆ in red."
)

installed = peers.available_peers()
with st.container(horizontal=True, vertical_alignment="bottom"):
    # B is kept while another page is shown (persist_state): it went back to its defaults on the way back.
    target_b = st.number_input(
        "B: target", 16, 8192, min(settings.target * 2, 8192), step=16, key="cmp_target", persist_state="session"
    )
    cap_b = st.number_input(
        "B: hard cap", 16, 8192, min(settings.hard_cap * 2, 8192), step=16, key="cmp_cap", persist_state="session"
    )
    strategy_b = st.selectbox(
        "B: packing",
        chunker.STRATEGIES,
        index=chunker.STRATEGIES.index(settings.strategy),
        key="cmp_strategy",
        persist_state="session",
        help="Compare the two strategies at the same limits by setting B's target and cap to A's.",
    )
    peer = st.selectbox(
        "Third column",
        ["(none)", *installed],
        key="cmp_peer",
        persist_state="session",
        help="Peers installed in this environment (pip install '.[peers]'): LangChain, LlamaIndex, chonkie, "
        "semchunk, semantic-text-splitter.",
    )
# B: A's settings with B's target, cap and packing, moved where its cap cannot hold them by the sidebar's rules
# (the target to the cap, the overlap under half of it, the breadcrumb out of the budget of a cap under 32).
settings_b, moved = chunker.ChunkOptions.nearest(
    **{f.name: getattr(settings, f.name) for f in fields(settings)}
    | {"target": int(target_b), "hard_cap": int(cap_b), "strategy": str(strategy_b)}
)
if moved:
    st.caption(view.md_escape("⚠ B uses " + "; ".join(moved) + "."))
b = frame.chunk_cached(opened.key, doc.name, settings_b, doc)
only_a, only_b = view.boundary_diff(a, b)
first_a, stop_a, window_end = _window(a)
window_start = a[first_a].char_span[0] if first_a else 0
drawn = (
    list(a[first_a:stop_a]),
    [b[i] for i in _starting_in([c.char_span for c in b], window_start, window_end)],
)
columns = st.columns(3 if peer != "(none)" else 2, gap="medium")
for column, label, chunks, shown, differs, (target, cap, strategy) in (
    (columns[0], "A", a, drawn[0], only_a, (settings.target, settings.hard_cap, settings.strategy)),
    (columns[1], "B", b, drawn[1], only_b, (settings_b.target, settings_b.hard_cap, settings_b.strategy)),
):
    with column:
        stats = view.summary(chunks, view.tiny_below(settings))
        st.markdown(f"**{label}: target {target} · cap {cap} · {strategy}**")
        st.caption(
            f"{view.plural(stats['chunks'], 'chunk')} · {stats['total']:,} tokens · median {stats['median']:,} · "
            f"max {stats['max']:,} · {len(differs):,} boundaries not in the other"
        )
        st.caption(_quality(doc.text, peers.engine_chunks(chunks), doc.tokenizer.count, cap))
        with st.container(height=640, border=True, key=f"cmp-{label}"):
            st.html(_column_html(shown, differs, view.tiny_below(settings)))
if peer != "(none)":
    with columns[2]:
        info = peers.PEERS.get(peer)
        st.markdown(f"**{info.label if info else peer}: hard cap {settings.hard_cap}**")
        try:
            with st.spinner(f"Running {peer}…"):
                pieces = peers.run_peer(peer, doc.text, hard_cap=settings.hard_cap, target=settings.target)
        except chunker.ChunkerError as exc:
            st.error(view.md_escape(exc))
        else:
            recipe = info.recipe if info else "its Markdown recipe"
            st.caption(f"{view.plural(len(pieces), 'chunk')} · same tokenizer (cl100k_base) · {recipe}")
            # The peers run with cl100k_base whatever the sidebar says (see peers.py).
            cl100k = chunker.get_tokenizer("cl100k_base").count
            st.caption(_quality(doc.text, pieces, cl100k, settings.hard_cap))
            with st.container(height=640, border=True, key="cmp-peer"):
                near = _starting_in([piece.char_span for piece in pieces], window_start, window_end)
                st.html(_peer_html([(i, pieces[i]) for i in near], settings.hard_cap))
elif not installed:
    st.caption("No peer chunker is installed here; `pip install '.[peers]'` adds them as a third column.")
