"""Tune: sweep target x hard cap, plot the trade-offs, apply a point."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from chunk_inspector import frame, view

TARGETS = [64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048]
CAPS = [128, 256, 512, 768, 1024, 2048, 4096]


def _sweep(opened: frame.Opened, targets: tuple[int, ...], caps: tuple[int, ...]) -> pd.DataFrame:
    """The sweep for this document and grid, kept per session (the last few), with a progress bar."""
    settings = opened.settings
    cache: dict[Any, pd.DataFrame] = st.session_state.setdefault("sweeps", {})
    key = (opened.key, targets, caps, settings)
    if key not in cache:
        bar = st.progress(0.0, text="Sweeping…")

        def progress(done: float, what: str) -> None:
            bar.progress(done, text=f"Chunking at {what}")

        cache[key] = view.sweep(opened.doc, targets, caps, settings.options(), settings.tiny_below, progress)
        bar.empty()
        while len(cache) > 8:
            cache.pop(next(iter(cache)))
    return cache[key]


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
st.subheader(f"Tune · {opened.doc.name}")
st.caption(
    "Each point chunks the document at one target and hard cap (with the other options as set in the "
    "sidebar). Click a point, or pick it below, to apply it."
)
c1, c2 = st.columns(2)
targets = c1.multiselect("Targets", TARGETS, default=[128, 256, 384, 512, 768, 1024], key="sweep_targets")
caps = c2.multiselect("Hard caps", CAPS, default=[256, 512, 1024, 2048], key="sweep_caps")
if not targets or not caps:
    st.info("Choose at least one target and one hard cap.")
    st.stop()

data = _sweep(opened, tuple(sorted(targets)), tuple(sorted(caps)))
if data.empty:
    st.warning("No grid point has target ≤ hard cap: add a larger cap or a smaller target.")
    st.stop()

metrics = [
    ("chunks", "Chunk count"),
    ("spread", "Size spread (std dev, tokens)"),
    ("tiny_share", f"Tiny-chunk share (< {settings.tiny_below} tokens)"),
    ("total_tokens", "Total tokens embedded (cost)"),
]
fig = make_subplots(rows=2, cols=2, subplot_titles=[title for _, title in metrics], vertical_spacing=0.2)
palette = ["#3b7dd8", "#d9822b", "#2e9e5b", "#9b59c6", "#d64545", "#1f93a8", "#7f8c8d"]
for n, cap in enumerate(sorted(data["hard_cap"].unique())):
    part = data[data["hard_cap"] == cap]
    for m, (column, _) in enumerate(metrics):
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
    for m, (column, _) in enumerate(metrics):
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
fig.update_layout(height=620, margin={"l": 10, "r": 10, "t": 40, "b": 10}, clickmode="event+select")
st.plotly_chart(fig, key="sweep_chart", on_select=_apply_from_chart, selection_mode="points")

labels = [f"target {t} · cap {c}" for t, c in zip(data["target"], data["hard_cap"], strict=True)]
pick_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
choice = pick_col.selectbox("Grid point", range(len(labels)), format_func=lambda i: labels[i], key="sweep_point")
row = data.iloc[int(choice)]
button_col.button(
    "Apply this point",
    on_click=_apply,
    args=(int(row["target"]), int(row["hard_cap"])),
    type="primary",
    key="apply_point",
)
st.dataframe(data, hide_index=True, key="sweep_table")
