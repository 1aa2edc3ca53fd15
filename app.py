"""Chunk Inspector: see, tune, review and export Markdown chunks.

Run it with ``make app`` (or ``streamlit run app.py``). This script is the frame:
the sidebar (document and settings, kept in the URL) runs first on every page,
then ``st.navigation`` runs the chosen page from ``pages/``. An unexpected error in
either shows one line and goes to the server's log (``frame.run_page``).
"""

from __future__ import annotations

import streamlit as st

from chunk_inspector.app import frame

st.set_page_config(page_title="Chunk Inspector", page_icon="🧩", layout="wide")

inspect = st.Page("pages/inspect_chunks.py", title="Inspect", icon=":material/search:", default=True)
# The default page is served at the root only: /inspect (docs/app.md) is a hidden page that goes there.
inspect_path = st.Page(lambda: None, title="Inspect", url_path="inspect", visibility="hidden")
page = st.navigation(
    [
        inspect,
        st.Page("pages/tune.py", title="Tune", icon=":material/tune:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/compare:"),
        st.Page("pages/revisions.py", title="Revisions", icon=":material/difference:"),
        st.Page("pages/evaluate.py", title="Evaluate", icon=":material/fact_check:"),
        st.Page("pages/corpus.py", title="Corpus", icon=":material/folder_copy:"),
        st.Page("pages/export.py", title="Export", icon=":material/download:"),
        inspect_path,
    ],
    position="top",
)
if page is inspect_path:
    frame.switch_keeping_link(inspect)
frame.run_page(page.run, page.title)
