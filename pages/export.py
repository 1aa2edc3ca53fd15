"""Export: the chunk set as JSON and JSONL, the three layers, the document tree, and how to reproduce it."""

from __future__ import annotations

import streamlit as st

from chunk_inspector.app import frame, view

opened = frame.current()
if opened is None:
    st.stop()
doc, chunks, settings = opened.doc, opened.chunks, opened.settings
stem = view.archive_names([doc.name.rsplit(".", 1)[0]])[0]  # a plain file name, whatever the document's


def _records(n: int) -> str:
    return f"{n} record" if n == 1 else f"{n} records"


st.subheader(f"Export · {view.md_escape(doc.name)}")
tokenizer = view.md_escape(view.tokenizer_label(settings.tokenizer_name))
st.caption(
    f"{view.plural(len(chunks), 'chunk')} at target {settings.target}, hard cap {settings.hard_cap} ({tokenizer})."
)

st.markdown("**Chunk set**")
with st.container(horizontal=True):
    st.download_button(
        "JSON",
        chunks.to_json(),
        file_name=f"{stem}.chunks.json",
        mime="application/json",
        key="dl_json",
        type="primary",
        icon=":material/download:",
    )
    st.download_button(
        "JSONL",
        chunks.to_jsonl(),
        file_name=f"{stem}.chunks.jsonl",
        mime="application/jsonl",
        key="dl_jsonl",
        icon=":material/download:",
    )
    st.download_button(
        "Document tree (JSON)",
        doc.to_json(),
        file_name=f"{stem}.tree.json",
        mime="application/json",
        key="dl_tree",
        icon=":material/account_tree:",
    )

st.markdown("**Three layers** · documents, sections and chunks, each record with its parent id")
layers = chunks.layers_jsonl()
with st.container(horizontal=True):
    for layer, text in layers.items():
        st.download_button(
            f"{layer}.jsonl ({_records(text.count(chr(10)))})",
            text,
            file_name=f"{stem}.{layer}.jsonl",
            mime="application/jsonl",
            key=f"dl_layer_{layer}",
            icon=":material/layers:",
        )

left, right = st.columns(2, gap="medium")
with left:
    st.markdown("**Python** · reproduces this chunk set exactly")
    st.code(view.python_snippet(doc.name, settings), language="python", wrap_lines=True)
with right:
    st.markdown("**Command line**")
    st.code(view.cli_command(doc.name, settings), language="bash", wrap_lines=True)
    st.markdown("**The first chunk, as in the JSON**")
    if len(chunks):
        st.json(chunks[0].to_dict(), expanded=False)
