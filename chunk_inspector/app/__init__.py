"""The Streamlit app's helpers (docs/app.md): the frame every page runs in (:mod:`.frame`), what the pages
show computed without Streamlit (:mod:`.view`, :mod:`.evaluate_view`), the settings in the URL
(:mod:`.url_settings`) and the server's memory-bounded cache (:mod:`.cache`)."""
