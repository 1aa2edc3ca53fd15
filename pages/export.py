"""Export: the chunk set as JSON and JSONL, the three layers, the document tree, and how to reproduce it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import streamlit as st

import chunker
from chunk_inspector.app import frame, view

opened = frame.current()
if opened is None:
    st.stop()
doc, chunks, settings = opened.doc, opened.chunks, opened.settings
stem = view.archive_names([doc.name.rsplit(".", 1)[0]])[0]  # a plain file name, whatever the document's


# What each download holds, written only when its button is clicked (Streamlit's deferred download): a 5 MB
# document's five files are 270 MB of text, which took 20 s to write at every run of this page and stayed in
# the server's memory, outside the cache's budget, until the session's next run.
_SOURCE = (opened.key, doc.name, settings, doc.text, frame.tokenizer_for(settings.tokenizer_name))


def _when_clicked(write: Callable[[chunker.Document, chunker.ChunkSet], str]) -> Callable[[], str]:
    """The download's data as Streamlit calls it on a click: the document and chunk set taken again from the
    shared cache (:func:`frame.reopen`), then written."""

    def data() -> str:
        return write(*frame.reopen(*_SOURCE))

    return data


def _layer(name: str) -> Callable[[chunker.Document, chunker.ChunkSet], str]:
    return lambda _, made: made.layers_jsonl()[name]


st.subheader(f"Export · {view.md_escape(doc.name)}")
uploaded_as = frame.uploaded_tokenizer(settings.tokenizer_name)  # the reproducers name the user's own file
tokenizer = view.md_escape(view.tokenizer_label(settings.tokenizer_name, uploaded_as))
st.caption(
    f"{view.plural(len(chunks), 'chunk')} at target {settings.target}, hard cap {settings.hard_cap} ({tokenizer})."
)

st.markdown("**Chunk set**")
with st.container(horizontal=True):
    st.download_button(
        "JSON",
        _when_clicked(lambda _, made: made.to_json()),
        file_name=f"{stem}.chunks.json",
        mime="application/json",
        key="dl_json",
        type="primary",
        icon=":material/download:",
    )
    st.download_button(
        "JSONL",
        _when_clicked(lambda _, made: made.to_jsonl()),
        file_name=f"{stem}.chunks.jsonl",
        mime="application/jsonl",
        key="dl_jsonl",
        icon=":material/download:",
    )
    st.download_button(
        "Document tree (JSON)",
        _when_clicked(lambda parsed, _: parsed.to_json()),
        file_name=f"{stem}.tree.json",
        mime="application/json",
        key="dl_tree",
        icon=":material/account_tree:",
    )

st.markdown("**Three layers** · documents, sections and chunks, each record with its parent id")
records = Counter(f"{node.kind}s" for node in chunks.hierarchy().nodes())  # one line per record in each layer
with st.container(horizontal=True):
    for layer in ("documents", "sections", "chunks"):
        st.download_button(
            f"{layer}.jsonl ({view.plural(records[layer], 'record')})",
            _when_clicked(_layer(layer)),
            file_name=f"{stem}.layers.{layer}.jsonl",  # not {stem}.chunks.jsonl: the chunk set's JSONL has that
            mime="application/jsonl",
            key=f"dl_layer_{layer}",
            icon=":material/layers:",
        )

left, right = st.columns(2, gap="medium")
with left:
    st.markdown("**Python** · reproduces this chunk set exactly")
    st.code(view.python_snippet(doc.name, settings, uploaded_as), language="python", wrap_lines=True)
with right:
    st.markdown("**Command line**")
    st.code(view.cli_command(doc.name, settings, uploaded_as), language="bash", wrap_lines=True)
    st.markdown("**The first chunk, as in the JSON**")
    if len(chunks):
        st.json(chunks[0].to_dict(), expanded=False)
