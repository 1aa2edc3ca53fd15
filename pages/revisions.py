"""Revisions: a second revision of the open document beside it, its chunks kept, added or removed."""

from __future__ import annotations

import streamlit as st

import chunker
from chunk_inspector import revisions
from chunk_inspector.app import frame, revisions_view, view


def new_revision() -> tuple[str, str] | None:
    """The (name, text) of the new revision, uploaded or pasted here; None with a message when there is none.
    Untrusted like the sidebar's document: the same 5 MB limit and decoding (``frame.load_upload``)."""
    source = st.segmented_control(
        "New revision", ["Upload", "Paste"], key="rev_source", default="Upload", required=True
    )
    if source == "Paste":
        pasted = st.text_area(
            "Paste the new revision",
            key="rev_paste",
            height=160,
            placeholder="# Title\n\n…",
            persist_state="session",  # kept across Upload and other pages: it went when the box was not drawn
        )
        if not pasted.strip():
            st.info("Paste the new revision of the document to compare its chunks with these.")
            return None
        return "pasted.md", frame.load_paste(pasted)
    upload = st.file_uploader(
        f"The new revision {frame.MARKDOWN_KINDS}, {frame.UPLOAD_LIMIT}",
        type=frame.MARKDOWN_TYPES,
        key="rev_upload",
    )
    if upload is None:
        st.info("Upload the new revision of the document to compare its chunks with these.")
        return None
    return upload.name, frame.load_upload(upload.name, upload.getvalue())


opened = frame.current()
if opened is None:
    st.stop()
doc, old, settings = opened.doc, opened.chunks, opened.settings
st.subheader(f"Revisions · {view.md_escape(doc.name)}")
st.caption(
    "The open document is the old revision; give the new one here. A chunk of the new revision is **kept** "
    "when the old one has a chunk with the same text (the same content_sha256: an index that skips content it "
    "has seen does not embed it again), else **added**; a chunk of the old revision that the new one no longer "
    "has is **removed**. Both are chunked with the sidebar's settings; `chunker diff OLD NEW` gives the same."
)
try:
    picked = new_revision()
except chunker.ChunkerError as exc:
    st.error(view.md_escape(exc))
    st.stop()
if picked is None:
    st.stop()
new_name, text = picked
key = frame.digest(text)
try:
    # Named as the open document: one document, two revisions (the name starts every breadcrumb).
    new_doc = frame.parse_cached(key, doc.name, settings.tokenizer_name, text)
    new = frame.chunk_cached(key, doc.name, settings, new_doc)
except chunker.ChunkerError as exc:
    st.error(view.md_escape(f"{new_name}: {frame.readable(exc)}"))
    st.stop()

diff = revisions.diff_chunks(old, new, doc.name)
# A row that wraps: in columns, a narrow window cut the numbers to '1…'.
metrics = st.container(horizontal=True)
metrics.metric(
    "Kept", f"{len(diff.kept):,}", help="Chunks of the new revision whose text the old one has: not re-embedded."
)
metrics.metric("Added", f"{len(diff.added):,}", help="Chunks of the new revision with new text: embedded.")
metrics.metric(
    "Removed", f"{len(diff.removed):,}", help="Chunks of the old revision the new one no longer has: deleted."
)
metrics.metric("Re-embed tokens", f"{diff.reembed_tokens:,}", help="The added chunks' tokens.")
share = "–" if diff.share is None else f"{diff.share:.1%}"
metrics.metric("Re-embed share", share, help=f"Of the new revision's {diff.new_tokens:,} tokens in chunks.")

changes_only = st.toggle("Changed chunks only", key="rev_changes_only")
old_cards, new_cards = revisions_view.cards(old, new, diff)
left, right = st.columns(2, gap="medium")
with left:
    st.markdown(f"**Old: {view.md_escape(doc.name)}** (the open document)")
    st.caption(f"{view.plural(len(old), 'chunk')} · {len(diff.removed):,} removed")
    with st.container(height=640, border=True, key="rev-old"):
        st.html(revisions_view.cards_html(old_cards, side="old", changes_only=changes_only))
with right:
    st.markdown(f"**New: {view.md_escape(new_name)}**")
    st.caption(f"{view.plural(len(new), 'chunk')} · {len(diff.added):,} added · {len(diff.kept):,} kept")
    with st.container(height=640, border=True, key="rev-new"):
        st.html(revisions_view.cards_html(new_cards, side="new", changes_only=changes_only))
