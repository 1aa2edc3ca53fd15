"""Inspect: summary and histogram, heading tree, chunk table, and the source coloured by chunk."""

from __future__ import annotations

import streamlit as st

from chunk_inspector.app import frame, view
from chunker.optimal import cost_terms

WINDOW = 40  # chunks drawn at once in the source view of a long document


def rows_shown(what: str, count: int, key: str) -> tuple[int, int]:
    """The rows ``[first, stop)`` of a table to send: all of them up to ``view.PAGE_ROWS``, else the page
    chosen here (a 5 MB document has 11,000 chunks and 18,000 sections)."""
    if count <= view.PAGE_ROWS:
        return 0, count
    spans = view.page_spans(count)
    page = st.selectbox(
        f"{what} shown",
        range(len(spans)),
        format_func=lambda i: f"{spans[i][0] + 1:,}–{spans[i][1]:,} of {count:,}",
        key=key,
        help=f"A long document's table shows {view.PAGE_ROWS:,} rows at a time.",
    )
    return spans[min(page or 0, len(spans) - 1)]


opened = frame.current()
if opened is None:
    st.stop()
doc, chunks, settings = opened.doc, opened.chunks, opened.settings
stats = view.summary(chunks, view.tiny_below(settings))

st.subheader(view.md_escape(doc.name))
tokenizer = view.tokenizer_label(settings.tokenizer_name, frame.uploaded_tokenizer(settings.tokenizer_name))
st.caption(
    f"{doc.byte_count:,} bytes · {doc.line_count:,} lines · "
    f"{doc.token_count:,} tokens ({view.md_escape(tokenizer)}) · "
    f"target {settings.target} · hard cap {settings.hard_cap}"
    + (f" · overlap {settings.overlap}" if settings.overlap else "")
    + (f" · min {settings.min_tokens}" if settings.min_tokens else "")
)

# A row that wraps: in columns, a narrow window cut the numbers to '1…'.
metrics = st.container(horizontal=True)
metrics.metric("Chunks", f"{stats['chunks']:,}")
metrics.metric(
    "Total tokens", f"{stats['total']:,}", help=f"{view.CHUNK_TOKENS_HELP} (This document: {doc.token_count:,}.)"
)
metrics.metric("Min", f"{stats['min']:,}")
metrics.metric("Median", f"{stats['median']:,}", help=f"target {settings.target}")
metrics.metric("p95", f"{stats['p95']:,}")
metrics.metric("Max", f"{stats['max']:,}", help=f"hard cap {settings.hard_cap}")
metrics.metric("Warnings", f"{stats['warnings']:,}", help="Chunks with a flag: split code/table/text, tiny, …")

left, right = st.columns([5, 6], gap="medium")
with left:
    st.plotly_chart(
        view.size_histogram([c.token_count for c in chunks], settings.target, settings.hard_cap), key="histogram"
    )
with right:
    st.markdown("**Heading tree** · own and subtree tokens; choose a section to show it in the source")
    tree = frame.heading_tree_cached(opened)
    query = ""
    first_row, stop_row = 0, len(tree)
    if len(tree) > view.PAGE_ROWS:  # a small tree is searched in the table itself (its toolbar)
        find_col, page_col = st.columns([3, 2])
        query = find_col.text_input(
            "Find a section", key=f"tree-find-{opened.key[:12]}", placeholder="a word in a heading"
        ).strip()
        if query:
            every = len(tree)
            tree = view.rows_matching(tree, query, ["section"])
            find_col.caption(f"Sections holding “{view.md_escape(query)}”: {len(tree):,} of {every:,}.")
        with page_col:
            first_row, stop_row = rows_shown("Sections", len(tree), f"tree-page-{opened.key[:12]}")
    tree = view.tree_rows(
        doc, chunks, settings.hard_cap, tree.iloc[first_row:stop_row], frame.chunk_spans_cached(opened)
    )
    tree_event = st.dataframe(
        tree,
        key=f"tree-{opened.key[:12]}-{first_row}-{query.lower()}",  # a selection belongs to its page
        hide_index=True,
        height=view.table_height(len(tree), 300),
        on_select="rerun",
        selection_mode="single-row",
        column_order=["section", "own", "subtree", "over cap", "chunks"],
        column_config={
            "section": st.column_config.TextColumn("section", width="medium"),
            "own": st.column_config.NumberColumn("own", help="Heading and direct content"),
            "subtree": st.column_config.NumberColumn("subtree", help="The whole section with its subsections"),
            "over cap": st.column_config.TextColumn(
                "> cap", width="small", help="⚠: the subtree is larger than the hard cap, so it is split"
            ),
            "chunks": st.column_config.TextColumn("chunks", help="Chunks holding text of this section"),
        },
    )

st.markdown("**Chunks** · choose a row to see its text and highlight it in the source")
table_col, source_col = st.columns([1, 1], gap="medium")
with table_col:
    first_chunk, stop_chunk = rows_shown("Chunks", len(chunks), f"chunks-page-{opened.key[:12]}")
    table = view.chunk_rows(doc, chunks[first_chunk:stop_chunk], view.tiny_below(settings))
    event = st.dataframe(
        table,
        key=f"chunks-{opened.key[:12]}-{first_chunk}",  # a selection belongs to its page
        hide_index=True,
        height=view.table_height(len(table), 420),
        on_select="rerun",
        selection_mode="single-row",
        column_config={
            # Set widths, narrow enough that the flags after them are in sight in the half-width table of a
            # 1400 px window (id, breadcrumb and tokens take 300 px).
            "tokens": st.column_config.ProgressColumn(
                "tokens", min_value=0, max_value=settings.hard_cap, format="%d", help="Against the hard cap", width=100
            ),
            "id": st.column_config.TextColumn("id", width=50),
            "breadcrumb": st.column_config.TextColumn(
                "breadcrumb", width=150, help="The last two headings; choose the row to read them all under the table"
            ),
            "lines": st.column_config.TextColumn("lines", width=80),
            "bytes": st.column_config.TextColumn("bytes", width=100),
            "flags": st.column_config.TextColumn("flags", width="medium"),
        },
    )
rows = event.selection.rows if event is not None else []
# a row of the page shown; kept across re-packs (the same row, the chunk now there)
selected = first_chunk + rows[0] if rows and first_chunk + rows[0] < len(chunks) else None
if selected is not None:
    # The whole breadcrumb, under the table where the row was chosen: its column is narrow (the flags after it
    # stay in sight), so a long one is cut there.
    table_col.markdown(
        f"**{chunks[selected].id}** · {view.md_escape(view.section_path(chunks[selected], view.Outline.of(doc), None))}"
    )
tree_rows_selected = tree_event.selection.rows if tree_event is not None else []
highlight = None
if tree_rows_selected and tree_rows_selected[0] < len(tree):
    row = tree.iloc[tree_rows_selected[0]]
    highlight = (int(row["start"]), int(row["end"]))

with source_col:
    # The view starts at the chosen chunk (or the first chunk of the chosen section), so it is in
    # sight without scrolling; a long document shows WINDOW chunks at a time.
    focus = selected
    if focus is None and highlight is not None:
        focus = next((c.index for c in chunks if c.char_span[1] > highlight[0]), 0)
    first, last = 0, len(chunks) - 1
    if focus is not None:
        first, last = focus, min(len(chunks) - 1, focus + WINDOW - 1)
    elif len(chunks) > WINDOW * 3 // 2:
        first = (
            st.slider(
                "Source view: first chunk shown",
                1,
                len(chunks),
                1,
                key=f"window-{opened.key[:12]}",
                help=f"A long document shows {WINDOW} chunks at a time; choosing a chunk or a section jumps to it.",
            )
            - 1
        )
        last = min(len(chunks) - 1, first + WINDOW - 1)
    if first > 0 or last < len(chunks) - 1:
        st.caption(
            f"Source of c{first + 1}–c{last + 1} of {len(chunks):,} (lines {chunks[first].line_span[0]:,}–"
            f"{chunks[last].line_span[1]:,}); clear the selection to browse."
        )
    if chunks:
        st.html(
            view.source_html(
                doc,
                chunks,
                first=first,
                last=last,
                selected=selected,
                highlight=highlight,
                tiny_below=view.tiny_below(settings),
            )
        )
    else:
        st.info("This document has no text to chunk.")

if selected is not None:
    chunk = chunks[selected]
    st.markdown(f"**Selected:** {view.md_escape(view.chunk_label(chunk))}")
    flags = view.display_flags(chunk, view.tiny_below(settings))
    if flags:
        st.warning("Flags: " + view.md_escape(", ".join(flags)))
    names = ["Raw markdown", "Rendered", "contextualize()"]
    if settings.strategy == "optimal":
        names.append("Why this chunk")
    raw, rendered, context, *why = st.tabs(names)
    with raw:
        st.code(chunk.markdown, language="markdown", wrap_lines=True)
    with rendered, st.container(border=True):
        st.html(view.chunk_html(chunk.markdown))  # images and links inert, HTML as text: nothing fetched or run
    with context:
        st.code(chunk.contextualize(), language="markdown", wrap_lines=True)
    if why:
        with why[0]:
            terms = cost_terms(doc, settings, chunk)
            if terms is None:
                st.info("This chunk does not start and end at boundaries of the optimal packing: no cost to show.")
            else:
                st.caption(
                    "The optimal packing chose the boundaries of least total cost over the whole document "
                    "(docs/method.md §5a). This chunk's share of that cost, term by term:"
                )
                st.plotly_chart(view.cost_chart(terms), key="cost-terms")
                st.dataframe(
                    [{"term": name, "cost": round(cost, 4), "why": reason} for name, cost, reason in terms.rows()],
                    hide_index=True,
                )
