"""Tune: sweep target x hard cap, plot the trade-offs, apply a point."""

from __future__ import annotations

import html
from dataclasses import asdict
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from chunk_inspector.app import evaluate_view, frame, view
from chunk_inspector.evaluate.metrics import BUDGET
from chunk_inspector.evaluate.retrievers import get_retriever

TARGETS = [64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
CAPS = [128, 256, 512, 768, 1024, 2048, 4096]


# The sweep table's headers as read (its columns keep their names: the tests and the code read those).
TABLE_HEADERS = {
    "hard_cap": "hard cap",
    "total_tokens": "total tokens",
    "median": "median tokens",
    "spread": "spread (std dev)",
    "tiny_share": "tiny share",
    "recall_budget": f"recall within {BUDGET:,}",
}


def _sweep(opened: frame.Opened, targets: tuple[int, ...], caps: tuple[int, ...]) -> pd.DataFrame:
    """The sweep for this document and grid, kept per session (the last few), with a progress bar."""
    settings = opened.settings
    cache: dict[Any, pd.DataFrame] = st.session_state.setdefault("sweeps", {})
    key = (opened.key, targets, caps, settings)
    if key not in cache:
        bar = st.progress(0.0, text="Sweeping…")

        def progress(done: float, what: str) -> None:
            bar.progress(done, text=f"Chunking at {what}")

        cache[key] = view.sweep(opened.doc, targets, caps, settings, view.tiny_below(settings), progress)
        bar.empty()
        while len(cache) > 8:
            cache.pop(next(iter(cache)))
    return cache[key]


def _with_recall(opened: frame.Opened, data: pd.DataFrame, loaded: Any) -> pd.DataFrame:
    """``data`` with a ``recall_budget`` column: recall within the budget at every grid point, on the
    question set loaded on the Evaluate page (with its indexed text), kept per session. BM25 ranks: the dense
    model takes tens of seconds per point on a CPU, minutes over a grid."""
    key, questions, _, index_label = loaded
    retriever = "bm25"
    settings = opened.settings
    grid = tuple((int(t), int(c)) for t, c in zip(data["target"], data["hard_cap"], strict=True))
    cache: dict[Any, list[float | None]] = st.session_state.setdefault("sweep_recalls", {})
    # the grid's own target and cap replace the sidebar's; everything else of the settings counts
    others = tuple((name, value) for name, value in asdict(settings).items() if name not in ("target", "hard_cap"))
    cache_key = (key, retriever, index_label, grid, others)
    if cache_key not in cache:
        docs = {
            name: frame.parse_cached(frame.digest(text), name, settings.tokenizer_name, text)
            for name, text in questions.documents.items()
        }
        bar = st.progress(0.0, text="Evaluating…")

        def progress(done: float, what: str) -> None:
            bar.progress(done, text=f"Evaluating the {retriever} recall {what.removeprefix('recall ')}")

        cache[cache_key] = evaluate_view.recall_sweep(
            questions,
            docs,
            grid,
            settings,
            get_retriever(retriever),
            evaluate_view.INDEXES[index_label],
            progress,
        )
        bar.empty()
        while len(cache) > 8:
            cache.pop(next(iter(cache)))
    recalls = [None if r is None else round(r, 3) for r in cache[cache_key]]
    return data.assign(recall_budget=recalls)


def _apply(target: int, cap: int) -> None:
    """Callback: set the frame's sliders (allowed before the script re-runs)."""
    st.session_state.hard_cap = cap
    st.session_state.target = min(target, cap)
    st.session_state.clamp_note = ""


def _apply_from_chart() -> None:
    state: Any = st.session_state.get("sweep_chart")
    points = state.selection.points if state is not None else []
    if points:
        target, cap = points[0]["customdata"][:2]
        _apply(int(target), int(cap))


opened = frame.current()
if opened is None:
    st.stop()
settings = opened.settings
st.subheader(f"Tune · {view.md_escape(opened.doc.name)}")
st.caption(
    "Each point chunks the document at one target and hard cap (with the other options as set in the "
    "sidebar). Click a point, or pick it below, to apply it."
)
c1, c2 = st.columns(2)
# The grid is kept while another page is shown (persist_state): it went back to its defaults on the way back.
targets = c1.multiselect(
    "Targets", TARGETS, default=[128, 256, 384, 512, 768, 1024], key="sweep_targets", persist_state="session"
)
caps = c2.multiselect("Hard caps", CAPS, default=[256, 512, 1024, 2048], key="sweep_caps", persist_state="session")
if not targets or not caps:
    st.info("Choose at least one target and one hard cap.")
    st.stop()

data = _sweep(opened, tuple(sorted(targets)), tuple(sorted(caps)))
unfit = view.unfit_caps(sorted(caps), settings)
if unfit:
    caps_left_out, why = ", ".join(map(str, unfit)), view.md_escape(next(iter(unfit.values())))
    st.caption(f"Left out: hard cap {caps_left_out}, too small for the sidebar's other options ({why}).")
if data.empty:
    st.warning("No grid point has target ≤ hard cap and fits the other options: add a larger cap or a smaller target.")
    st.stop()

metrics = [  # column, chart title, y-axis title
    ("chunks", "Chunk count", "chunks"),
    ("spread", "Size spread (std dev, tokens)", "std dev (tokens)"),
    ("tiny_share", f"Tiny-chunk share (< {view.tiny_below(settings)} tokens)", "share of chunks"),
    ("total_tokens", "Total tokens embedded (cost)", "tokens"),
]
loaded = st.session_state.get("eval_loaded")  # the question set chosen on the Evaluate page
if loaded is not None:
    data = _with_recall(opened, data, loaded)
    # plotly reads tags in titles (<a href>, <span style>): the set's name, an upload's, goes in escaped
    metrics.append(
        ("recall_budget", f"Recall within {BUDGET:,} tokens (BM25, {html.escape(loaded[1].name)})", "recall")
    )
rows = (len(metrics) + 1) // 2
fig = make_subplots(rows=rows, cols=2, subplot_titles=[title for _, title, _ in metrics], vertical_spacing=0.4 / rows)
palette = ["#3b7dd8", "#d9822b", "#2e9e5b", "#9b59c6", "#d64545", "#1f93a8", "#7f8c8d"]
for n, cap in enumerate(sorted(data["hard_cap"].unique())):
    part = data[data["hard_cap"] == cap]
    for m, (column, _, _) in enumerate(metrics):
        fig.add_trace(
            go.Scatter(
                x=part["target"],
                y=part[column],
                mode="lines+markers",
                name=f"cap {cap}",
                legendgroup=str(cap),
                showlegend=m == 0,
                line={"color": palette[n % len(palette)]},
                customdata=part[["target", "hard_cap"]].to_numpy(),
                hovertemplate="target %{customdata[0]} · cap %{customdata[1]}<br>%{y}<extra></extra>",
            ),
            row=m // 2 + 1,
            col=m % 2 + 1,
        )
here = data[(data["target"] == settings.target) & (data["hard_cap"] == settings.hard_cap)]
if not here.empty:
    for m, (column, _, _) in enumerate(metrics):
        fig.add_trace(
            go.Scatter(
                x=here["target"],
                y=here[column],
                mode="markers",
                marker={"size": 14, "symbol": "circle-open", "color": "#111", "line": {"width": 2}},
                name="current",
                showlegend=m == 0,
                hoverinfo="skip",
            ),
            row=m // 2 + 1,
            col=m % 2 + 1,
        )
fig.update_xaxes(title_text="target (tokens)", type="log", tickvals=sorted(data["target"].unique()))
for m, (column, _, y_title) in enumerate(metrics):
    # The cost from zero: a 0.3% change between two points must not fill the chart.
    fig.update_yaxes(
        title_text=y_title, rangemode="tozero" if column == "total_tokens" else "normal", row=m // 2 + 1, col=m % 2 + 1
    )
fig.update_layout(height=310 * rows, margin={"l": 10, "r": 10, "t": 40, "b": 10}, clickmode="event+select")
st.plotly_chart(fig, key="sweep_chart", on_select=_apply_from_chart, selection_mode="points")
if loaded is None:
    st.caption(
        f"Load a question set on the Evaluate page to add recall within the {BUDGET:,}-token budget as a fifth chart."
    )
else:
    st.caption(
        f"Recall within the budget chunks every document of {view.md_escape(loaded[1].name)} at each point (the "
        f"other charts: {view.md_escape(opened.doc.name)} only) and ranks them with BM25, indexing {loaded[3]} as "
        "set on the Evaluate page"
        + (", not the dense model chosen there: it would take minutes over the grid." if loaded[2] != "bm25" else ".")
    )

points = [(int(t), int(c)) for t, c in zip(data["target"], data["hard_cap"], strict=True)]
labels = [f"target {t} · cap {c}" for t, c in points]
# The picker opens at the grid point nearest the sidebar's settings (the very point when it is one), and goes
# there again whenever the sidebar or the grid changes; in between it keeps what was picked.
opened_at = (settings.target, settings.hard_cap, tuple(points))
if "sweep_point" not in st.session_state or st.session_state.get("sweep_point_for") != opened_at:
    st.session_state.sweep_point = view.nearest_point(points, settings.target, settings.hard_cap)
    st.session_state.sweep_point_for = opened_at
# A row, not columns [3, 1]: the button keeps its own width (a quarter of a narrow window cut it to "Apply this p…")
picker = st.container(horizontal=True, vertical_alignment="bottom")
choice = picker.selectbox("Grid point", range(len(labels)), format_func=lambda i: labels[i], key="sweep_point")
row = data.iloc[int(choice)]
picker.button(
    "Apply this point",
    on_click=_apply,
    args=(int(row["target"]), int(row["hard_cap"])),
    type="primary",
    key="apply_point",
)
st.dataframe(
    data,
    hide_index=True,
    key="sweep_table",
    column_config={column: label for column, label in TABLE_HEADERS.items() if column in data.columns},
)
