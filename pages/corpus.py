"""Corpus: many documents at once: per-document stats, the size histogram, the worst chunks, batch export."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

import chunker
from chunk_inspector.app import frame, view

opened = frame.current()
if opened is None:
    st.stop()
settings = opened.settings
st.subheader("Corpus")
uploaded = frame.sidebar_uploads()
SIDEBAR = "Sidebar uploads"
source = st.segmented_control(
    "Documents",
    ["Bundled samples", SIDEBAR, "Upload files"],
    default=SIDEBAR if uploaded else "Bundled samples",  # what the user has just uploaded, where there is any
    format_func=lambda choice: f"{SIDEBAR} ({len(uploaded)})" if choice == SIDEBAR else choice,
    required=True,
    key="corpus_source",
    help="Bundled samples: the documents shipped with the app. Sidebar uploads: the files uploaded under "
    "Document in the sidebar. Upload files: an upload for this page only.",
)
inputs: list[tuple[str, bytes]] = []
if source == SIDEBAR:
    inputs = [(f.name, f.getvalue()) for f in uploaded]
    if not inputs:
        st.info(
            "The sidebar holds no uploads: choose Upload under Document in the sidebar and add your files there "
            "(several at once), or upload them here under Upload files."
        )
        st.stop()
elif source == "Upload files":
    files = st.file_uploader(
        f"Markdown files {frame.MARKDOWN_KINDS}, {frame.UPLOAD_LIMIT} each",
        type=frame.MARKDOWN_TYPES,
        accept_multiple_files=True,
        key="corpus_uploads",
    )
    inputs = [(f.name, f.getvalue()) for f in files or []]
    if not inputs:
        st.info("Upload several Markdown files to review them together.")
        st.stop()
else:
    inputs = [(name, (frame.SAMPLES_DIR / name).read_bytes()) for name in frame.samples()]

results: list[tuple[str, chunker.ChunkSet]] = []
failures: list[tuple[str, str]] = []
bar = st.progress(0.0, text="Chunking…")
for n, (name, data) in enumerate(inputs):
    bar.progress(n / len(inputs), text=f"Chunking {view.md_escape(name)} ({n + 1}/{len(inputs)})")
    try:
        text = frame.load_upload(name, data)
        key = frame.digest(text)
        doc = frame.parse_cached(key, name, settings.tokenizer_name, text)
        results.append((name, frame.chunk_cached(key, name, settings, doc)))
    except chunker.ChunkerError as exc:
        failures.append((name, frame.readable(exc)))
bar.empty()
for name, reason in failures:
    st.error(view.md_escape(f"Skipped {name}: {reason}"))
if not results:
    st.stop()

rows: list[dict[str, Any]] = []
for name, chunks in results:
    stats = view.summary(chunks, view.tiny_below(settings))
    rows.append(
        {
            "document": name,
            "chunks": stats["chunks"],
            "warnings": stats["warnings"],  # before the wide columns: in sight on a narrow page
            "tiny": stats["tiny"],
            "tokens": chunks.document.get("token_count", 0),
            "median": stats["median"],
            "max": stats["max"],
        }
    )
table = pd.DataFrame(rows)
total = int(table["chunks"].sum())
# A row that wraps: in columns, a narrow window cut the numbers to '1…'.
metrics = st.container(horizontal=True)
metrics.metric("Documents", f"{len(results):,}")
metrics.metric("Chunks", f"{total:,}")
metrics.metric(
    "Tokens embedded",
    f"{sum(c.token_count for _, cs in results for c in cs):,}",
    help=f"{view.CHUNK_TOKENS_HELP} (The documents: {int(table['tokens'].sum()):,}.)",
)
metrics.metric("Warnings", f"{int(table['warnings'].sum()):,}")
metrics.metric("Failed", f"{len(failures):,}")

left, right = st.columns([3, 2], gap="medium")
with left:
    st.markdown("**Per document**")
    st.dataframe(
        table,
        hide_index=True,
        key="corpus_table",
        # Widths that leave the last column's numbers in sight in the left 3/5 of a 1400 px window (550 px): at
        # their own widths the columns took 630, and the max's figures were cut off, its bars alone in sight.
        column_config={
            "document": st.column_config.TextColumn("document", width=170),
            "chunks": st.column_config.NumberColumn("chunks", width=55),
            "warnings": st.column_config.NumberColumn("warnings", width=65),
            "tiny": st.column_config.NumberColumn("tiny", width=40),
            "tokens": st.column_config.NumberColumn("tokens", width=55, help="The document's tokens"),
            "median": st.column_config.NumberColumn("median", width=55),
            "max": st.column_config.ProgressColumn(
                "max", min_value=0, max_value=settings.hard_cap, format="%d", width=95, help="Against the hard cap"
            ),
        },
    )
with right:
    sizes = [c.token_count for _, cs in results for c in cs]
    st.plotly_chart(
        view.size_histogram(sizes, settings.target, settings.hard_cap, "Chunk sizes across the corpus (tokens)"),
        key="corpus_hist",
    )


def _badness(chunk: chunker.Chunk) -> tuple[int, float]:
    """Worst first: flagged chunks (hard cuts above all), then the farthest from the target."""
    flags = view.display_flags(chunk, view.tiny_below(settings))
    severity = 3 * ("hard_cut" in flags) + 2 * ("unbalanced_fence" in flags) + ("tiny" in flags) + bool(flags)
    return severity, abs(chunk.token_count - settings.target) / settings.target


worst = sorted(((name, c) for name, cs in results for c in cs), key=lambda item: _badness(item[1]), reverse=True)[:25]
st.markdown("**The worst chunks** · flagged first (hard cuts, open fences, tiny), then farthest from the target")
st.dataframe(
    pd.DataFrame(
        {
            "document": [name for name, _ in worst],
            "id": [c.id for _, c in worst],
            "tokens": [c.token_count for _, c in worst],
            "flags": [", ".join(view.display_flags(c, view.tiny_below(settings))) for _, c in worst],
            "lines": [f"{c.line_span[0]}–{c.line_span[1]}" for _, c in worst],
            "starts with": [c.markdown.strip().splitlines()[0][:80] if c.markdown.strip() else "" for _, c in worst],
        }
    ),
    hide_index=True,
    key="corpus_worst",
)


def _archive() -> bytes:
    """The zip, written when its button is clicked (Streamlit's deferred download): every document's JSON and
    JSONL, written at every run of the page, took seconds per 5 MB upload and, kept with the zip, hundreds of MB
    of the server's memory outside the cache's budget."""
    return view.chunk_sets_zip([(name, cs.to_json(), cs.to_jsonl()) for name, cs in results])


st.download_button(
    f"Download all ({len(results)} JSON files + chunks.jsonl, zip)",
    _archive,
    file_name="chunk-sets.zip",
    mime="application/zip",
    key="corpus_download",
    type="primary",
)
