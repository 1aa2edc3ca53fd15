"""The app through streamlit.testing.v1.AppTest: every page from app.py, the main controls, real content."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

import chunker
from tests.app.conftest import APP, box_lines, plain

WINDOW = 40  # chunks drawn at once in the source view of a long document (pages/inspect_chunks.py)

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
GUIDE = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")


def engine_count(text: str, target: int, cap: int, **options: Any) -> int:
    return len(chunker.chunk_markdown(text, name="x.md", target=target, hard_cap=cap, **options))


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def source_view(at: AppTest) -> str:
    return "".join(h.proto.body for h in at.get("html"))


def test_inspect_opens_the_default_sample_with_the_engines_numbers(app: AppTest) -> None:
    """First start: poetry_cli.md at the engine's defaults (384/1024); the summary matches the engine and every
    view is drawn."""
    assert metric(app, "Chunks") == f"{engine_count(GUIDE, 384, 1024):,}"
    assert plain(app.subheader[0].value) == "poetry_cli.md"
    assert len(app.dataframe) == 2  # the heading tree and the chunk table
    assert app.get("plotly_chart"), "the histogram"
    html = source_view(app)
    assert html.count('class="ci-chunk') == min(WINDOW, engine_count(GUIDE, 384, 1024))  # a long document is windowed
    first = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", target=384, hard_cap=1024)[0]
    assert first.byte_span[0] > 0  # the YAML front matter is left out: c1 starts at the heading after it
    assert "c1 · " in html and f"bytes {first.byte_span[0]}–" in html and f"lines {first.line_span[0]}–" in html


def test_the_chunk_tables_columns_before_the_flags_leave_them_in_sight(app: AppTest) -> None:
    """The chunk table is half the page: about 445 px in a 1400 px window, 33 of them the row's checkbox. Each
    column before the flags has a set width (none sized to its longest breadcrumb), together at most 300 px, so
    the flags start in sight with room for one ("split_list")."""
    table = app.dataframe[1]
    names = list(table.value.columns)
    config = json.loads(table.proto.columns)
    named = {"small": 75, "medium": 200, "large": 400}
    widths = [config.get(name, {}).get("width") for name in names[: names.index("flags")]]
    assert None not in widths, dict(zip(names, widths, strict=False))
    assert sum(named.get(w, w) for w in widths) <= 300, dict(zip(names, widths, strict=False))


def test_a_chosen_chunks_whole_breadcrumb_shows_under_the_table() -> None:
    """The table's breadcrumb column is narrow and shows the last two headings; choosing a row shows its whole
    breadcrumb, escaped, under the table (a deep section of the AsyncAPI spec: four levels)."""
    from chunk_inspector.app import frame

    name = "asyncapi_spec.md"
    text = (SAMPLES / name).read_text(encoding="utf-8")
    chunks = chunker.chunk_markdown(text, name=name, target=384, hard_cap=1024)
    deep = next(c for c in chunks if len(c.breadcrumb) > 3)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["sample"] = name
    at.run()
    table = at.dataframe[1]
    assert table.value["breadcrumb"][deep.index].startswith("… › ")
    at.session_state[f"chunks-{frame.digest(text)[:12]}-0"] = {"selection": {"rows": [deep.index], "columns": []}}
    at.run()
    assert not at.exception
    whole = " › ".join(deep.breadcrumb[1:])
    assert any(plain(m.value) == f"**{deep.id}** · {whole}" for m in at.markdown), [m.value for m in at.markdown]


def test_moving_the_hard_cap_repacks_and_changes_the_chunk_count(app: AppTest) -> None:
    """A slider move re-packs the cached document: the count follows the engine at the new cap."""
    before = metric(app, "Chunks")
    app.select_slider(key="hard_cap").set_value(256).run()  # blocks over 256 tokens must now be cut
    assert not app.exception
    after = metric(app, "Chunks")
    assert after == str(engine_count(GUIDE, 256, 256))
    assert after != before
    app.segmented_control(key="strategy").set_value("balanced").run()
    assert metric(app, "Chunks") == f"{engine_count(GUIDE, 256, 256, strategy='balanced'):,}"


def test_target_above_the_cap_is_lowered_and_the_sidebar_says_why(app: AppTest) -> None:
    """Lowering the cap under the target drags the target down, with the reason shown."""
    app.select_slider(key="hard_cap").set_value(128).run()
    assert app.select_slider(key="target").value == 128
    notes = " ".join(c.value for c in app.sidebar.caption)
    assert "cannot exceed the hard cap" in notes
    assert metric(app, "Max") <= "128" or int(metric(app, "Max")) <= 128


def test_the_note_on_a_lowered_target_goes_once_the_user_does_something_else(app: AppTest) -> None:
    """The note says why the target moved, on the run that moved it: it stayed on through another document,
    another page and every later run, long after the move it explained."""
    app.select_slider(key="hard_cap").set_value(128).run()
    assert any("Target lowered to 128" in c.value for c in app.sidebar.caption)
    app.selectbox(key="sample").set_value("redux_modern_redux.md").run()
    assert not any("Target lowered" in c.value for c in app.sidebar.caption)
    assert app.select_slider(key="target").value == 128  # the target stays where the cap put it
    app.switch_page("pages/export.py").run()
    assert not any("Target lowered" in c.value for c in app.sidebar.caption)


def test_pasted_html_is_shown_as_text_never_as_markup(app: AppTest) -> None:
    """<script> and <img onerror> in a document reach the page escaped."""
    app.segmented_control(key="source").set_value("Paste").run()
    app.text_area(key="pasted").input("# Hi\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n").run()
    assert not app.exception
    html = source_view(app)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<script>" not in html and "<img" not in html


def test_pasted_text_is_still_there_after_a_look_at_a_sample(app: AppTest) -> None:
    """Choosing Sample and then Paste again found the box empty: the text pasted was gone, the sample open."""
    app.segmented_control(key="source").set_value("Paste").run()
    app.text_area(key="pasted").input("# Mine\n\nMy own text.\n").run()
    assert plain(app.subheader[0].value) == "pasted.md"
    app.segmented_control(key="source").set_value("Sample").run()
    app.switch_page("pages/export.py").run()  # and another page meanwhile
    app.segmented_control(key="source").set_value("Paste").run()
    assert not app.exception
    assert app.text_area(key="pasted").value == "# Mine\n\nMy own text.\n"
    assert "pasted.md" in plain(app.subheader[0].value)


def test_bad_uploads_get_a_clear_message_and_the_app_keeps_working(app: AppTest) -> None:
    """Empty, binary and non-UTF-8 uploads each get their own message; the sample stays open."""
    app.segmented_control(key="source").set_value("Upload").run()
    cases = [
        ("empty.md", b"", "empty"),
        ("image.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        ("latin1.md", "# Café\n\nNaïve text.\n".encode("latin-1"), "not UTF-8"),
        ("huge.md", b"# Big\n\n" + b"word " * 1_100_000, "up to 5 MB"),
    ]
    for name, data, expected in cases:
        app.file_uploader(key="uploads").set_value((name, data, "text/markdown")).run()
        assert not app.exception, name
        errors = " ".join(plain(e.value) for e in app.sidebar.error)
        assert name in errors and expected in errors, errors
        assert metric(app, "Chunks") == f"{engine_count(GUIDE, 384, 1024):,}", "the sample stays open"


def test_each_upload_is_checked_and_any_readable_one_can_be_opened(app: AppTest) -> None:
    """With several uploads the first readable one opened and the rest went unread: a bad file after it got no
    message, and a file added after it could not be opened (the page kept showing the first). Now each bad one
    is named, and "Open" chooses among the readable ones."""
    app.segmented_control(key="source").set_value("Upload").run()
    files = [
        ("a.md", b"# Alpha\n\nFirst file.\n", "text/markdown"),
        ("bad.md", "# Caf\u00e9\n".encode("latin-1"), "text/markdown"),
        ("b.md", b"# Beta\n\nSecond file.\n\n## More\n\nText.\n", "text/markdown"),
    ]
    app.file_uploader(key="uploads").set_value(files).run()
    assert not app.exception
    assert any("bad.md" in plain(e.value) and "not UTF-8" in plain(e.value) for e in app.sidebar.error)
    assert plain(app.subheader[0].value) == "a.md", "the first readable upload opens"
    opened = app.sidebar.selectbox(key="upload_open")
    assert opened.options == ["a.md", "b.md"]
    opened.select_index(1).run()
    assert not app.exception and plain(app.subheader[0].value) == "b.md"
    assert "Second file." in source_view(app)


def test_a_good_upload_opens_in_inspect(app: AppTest) -> None:
    app.segmented_control(key="source").set_value("Upload").run()
    text = "# Upload\n\nA paragraph.\n\n## Part\n\nMore text here.\n"
    app.file_uploader(key="uploads").set_value(("mine.md", text.encode(), "text/markdown")).run()
    assert not app.exception
    assert plain(app.subheader[0].value) == "mine.md"
    assert metric(app, "Chunks") == f"{engine_count(text, 384, 1024):,}"
    app.select_slider(key="hard_cap").set_value(256).run()  # the upload, decoded once, is still the one open
    assert plain(app.subheader[0].value) == "mine.md" and metric(app, "Chunks") == f"{engine_count(text, 256, 256):,}"
    other = "# Other\n\n" + "Another paragraph, longer than the first one. " * 80 + "\n"
    app.file_uploader(key="uploads").set_value(("other.md", other.encode(), "text/markdown")).run()
    assert plain(app.subheader[0].value) == "other.md" and metric(app, "Chunks") == f"{engine_count(other, 256, 256):,}"


def test_a_long_documents_tables_come_a_page_at_a_time(app: AppTest) -> None:
    """Over a thousand chunks and sections: each table holds one page of rows, the page chosen above it; a
    chosen row of a later page is that chunk; the finder searches every section, not just the page shown."""
    rows = 1_000  # view.PAGE_ROWS
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa " * 4
    text = "".join(f"## Part {i}\n\n{words}{i}.\n\n" for i in range(1, 1_301)) + "## Needle\n\nThe end.\n"
    app.segmented_control(key="source").set_value("Paste").run()
    app.text_area(key="pasted").input(text).run()
    app.select_slider(key="hard_cap").set_value(64).run()  # each part alone: two do not fit the cap
    app.select_slider(key="target").set_value(64).run()
    assert not app.exception, [e.value for e in app.exception]
    count = engine_count(text, 64, 64)
    assert metric(app, "Chunks") == f"{count:,}" and count > rows
    tree, table = app.dataframe[0].value, app.dataframe[1].value
    assert len(tree) == len(table) == rows
    assert table["id"].iloc[0] == "c1" and tree["section"].iloc[0].endswith("Part 1")
    # counts carry thousands separators, as the pager beside them does
    assert any(plain(c.value).startswith(f"Source of c1–c40 of {count:,} (lines ") for c in app.caption)
    chunks_page = next(box for box in app.selectbox if box.label == "Chunks shown")
    assert chunks_page.format_func(1) == f"1,001–{min(2 * rows, count):,} of {count:,}"
    chunks_page.set_value(1).run()
    table = app.dataframe[1].value
    assert table["id"].iloc[0] == "c1001" and len(table) == count - rows
    finder = next(box for box in app.text_input if box.label == "Find a section")
    finder.input("needle").run()
    assert not app.exception
    tree = app.dataframe[0].value
    assert list(tree["section"].str.strip()) == ["## Needle"]
    assert tree["chunks"].iloc[0] == f"c{count}"
    assert any(plain(c.value) == "Sections holding “needle”: 1 of 1,301." for c in app.caption)


def test_settings_come_from_the_url_query() -> None:
    """A shared link reproduces the view: the query string sets the controls."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["hard_cap"] = "1024"
    at.query_params["target"] = "500"
    at.query_params["sample"] = "redux_modern_redux.md"
    at.run()
    assert not at.exception
    assert at.select_slider(key="hard_cap").value == 1024
    assert at.select_slider(key="target").value == 500
    text = (SAMPLES / "redux_modern_redux.md").read_text(encoding="utf-8")
    assert metric(at, "Chunks") == f"{engine_count(text, 500, 1024):,}"


def test_tune_sweeps_and_applying_a_point_sets_the_sliders(app: AppTest) -> None:
    app.switch_page("pages/tune.py").run()
    assert not app.exception
    assert app.get("plotly_chart"), "the sweep charts"
    sweep = app.dataframe[0].value
    row = sweep[(sweep["target"] == 128) & (sweep["hard_cap"] == 1024)].iloc[0]
    assert row["chunks"] == engine_count(GUIDE, 128, 1024)
    labels = app.selectbox(key="sweep_point").options
    app.selectbox(key="sweep_point").set_value(labels.index("target 128 · cap 1024")).run()
    app.button(key="apply_point").click().run()
    assert not app.exception
    assert (app.select_slider(key="target").value, app.select_slider(key="hard_cap").value) == (128, 1024)


def picked_point(at: AppTest) -> str:
    picker = at.selectbox(key="sweep_point")
    assert picker.value is not None
    return str(picker.options[int(picker.value)])


def test_tune_picker_opens_at_the_sidebars_point_and_follows_the_sidebar(app: AppTest) -> None:
    """The "Grid point" picker opens at the sidebar's settings (384/1024 is on the default grid), keeps a point
    picked, and goes to the nearest grid point when the sidebar moves off the grid."""
    app.switch_page("pages/tune.py").run()
    assert not app.exception
    assert picked_point(app) == "target 384 · cap 1024"
    labels = app.selectbox(key="sweep_point").options
    app.selectbox(key="sweep_point").set_value(labels.index("target 128 · cap 256")).run()
    assert picked_point(app) == "target 128 · cap 256", "a point picked stays picked"
    app.select_slider(key="hard_cap").set_value(600).run()
    app.select_slider(key="target").set_value(300).run()
    assert not app.exception
    assert picked_point(app) == "target 256 · cap 512", "off the grid: the nearest point"


def test_tune_picker_opens_at_the_point_a_link_sets() -> None:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["hard_cap"] = "2048"
    at.query_params["target"] = "768"
    at.run()
    at.switch_page("pages/tune.py").run()
    assert not at.exception
    assert picked_point(at) == "target 768 · cap 2048"


def test_tune_draws_the_cost_from_zero_with_every_axis_titled_and_readable_headers(app: AppTest) -> None:
    """A 0.3% change in the tokens embedded must not fill its chart: its y-axis starts at zero; each chart's
    y-axis says what it counts; the table's headers read as words (its columns keep their names)."""
    app.switch_page("pages/tune.py").run()
    assert not app.exception
    layout = json.loads(app.get("plotly_chart")[0].proto.spec)["layout"]
    titles = [a["text"] for a in layout["annotations"]]  # the subplots' titles, in order
    cost = titles.index("Total tokens embedded (cost)") + 1
    assert layout[f"yaxis{cost}"]["rangemode"] == "tozero"
    for n in range(1, len(titles) + 1):
        assert layout["yaxis" if n == 1 else f"yaxis{n}"]["title"]["text"], f"chart {n} has no y-axis title"
    headers = json.loads(app.dataframe[0].proto.columns)
    assert {headers[c]["label"] for c in ("hard_cap", "total_tokens", "tiny_share")} == {
        "hard cap",
        "total tokens",
        "tiny share",
    }
    assert {"hard_cap", "total_tokens", "tiny_share"} <= set(app.dataframe[0].value.columns)


def test_tune_leaves_out_the_caps_the_sidebars_overlap_does_not_fit_and_says_so(app: AppTest) -> None:
    """Overlap 128 (fine at the sidebar's cap 1024) once broke the page at the sweep's cap 256: "Something went
    wrong here (ConfigError)" and no chart."""
    app.number_input(key="overlap").set_value(128).run()
    app.switch_page("pages/tune.py").run()
    assert not app.exception and not app.error
    assert app.get("plotly_chart"), "the sweep charts"
    assert sorted(app.dataframe[0].value["hard_cap"].unique()) == [512, 1024, 2048]
    assert any("Left out: hard cap 256," in c.value and "less than half the hard cap" in c.value for c in app.caption)


def test_compare_shows_both_settings_and_marks_differing_boundaries(app: AppTest) -> None:
    app.switch_page("pages/compare.py").run()
    assert not app.exception
    headers = [m.value for m in app.markdown]
    assert "**A: target 384 · cap 1024 · optimal**" in headers and "**B: target 768 · cap 2048 · optimal**" in headers
    html = source_view(app)
    assert "boundary differs" in html
    assert html.count('class="cmp-card"') == engine_count(GUIDE, 384, 1024) + engine_count(GUIDE, 768, 2048)
    # each card's preview box is four whole lines high: no line shows as a sliver at its foot
    assert box_lines(html, ".cmp-card pre") == pytest.approx(4)


def test_compare_draws_a_long_document_a_page_of_chunks_at_a_time(app: AppTest) -> None:
    """A document of thousands of chunks: each column draws at most view.PAGE_ROWS cards, B's beside A's page (the
    chunks starting in the same text); a 5 MB upload at hard cap 16 drew all 61,440 cards, 330,000 elements, for
    47 s in the browser."""
    from chunk_inspector.app import view

    text = "".join(f"## Part {n}\n\nA few words of part {n} here.\n\n" for n in range(2_600))
    app.segmented_control(key="source").set_value("Paste").run()
    app.text_area(key="pasted").input(text).run()
    app.select_slider(key="hard_cap").set_value(16).run()
    app.switch_page("pages/compare.py").run()
    assert not app.exception and not app.error
    a = chunker.chunk_markdown(text, name="pasted.md", target=16, hard_cap=16)
    b = chunker.chunk_markdown(text, name="pasted.md", target=32, hard_cap=32)
    assert len(a) > 2 * view.PAGE_ROWS and len(b) > view.PAGE_ROWS

    def drawn() -> tuple[list[str], list[str]]:
        columns = [h.proto.body for h in app.get("html") if "cmp-card" in h.proto.body]
        assert len(columns) == 2
        ids = [re.findall(r'cmp-head">(?:<b class="cmp-diff">[^<]*</b> )?<b>(c\d+)</b>', c) for c in columns]
        return ids[0], ids[1]

    shown_a, shown_b = drawn()
    assert shown_a == [c.id for c in a[: view.PAGE_ROWS]]
    end = a[view.PAGE_ROWS].char_span[0]
    assert shown_b == [c.id for c in b if c.char_span[0] < end][: view.PAGE_ROWS]
    app.selectbox(key="cmp_page").set_value(1).run()
    shown_a, shown_b = drawn()
    assert shown_a == [c.id for c in a[view.PAGE_ROWS : 2 * view.PAGE_ROWS]]
    start, end = a[view.PAGE_ROWS].char_span[0], a[2 * view.PAGE_ROWS].char_span[0]
    assert shown_b == [c.id for c in b if start <= c.char_span[0] < end]
    assert any(f"of {len(a):,} chunks" in c.value or f"{len(a):,} chunks" in c.value for c in app.caption)


def test_compare_b_moves_what_its_cap_cannot_hold_as_the_sidebar_does() -> None:
    """B's settings go through the rules the sidebar's do: a cap of 16 with the breadcrumb in the budget (which needs
    32) left the page one error in the engine's words ('hard_cap=16 is too small…'), both columns gone; now B
    leaves the breadcrumb out of its budget and says so, and lowers an overlap it cannot hold."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["breadcrumb_in_budget"] = "true"
    at.query_params["overlap"] = "100"
    at.run()
    at.switch_page("pages/compare.py").run()
    at.number_input(key="cmp_cap").set_value(16).run()
    at.number_input(key="cmp_target").set_value(16).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "**B: target 16 · cap 16 · optimal**" in [m.value for m in at.markdown]
    notes = " ".join(c.value for c in at.caption)
    assert "B uses" in notes and "breadcrumb in budget" in notes.lower() and "overlap 100 → 7" in notes
    a = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", overlap=100, breadcrumb_in_budget=True)
    b = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", target=16, hard_cap=16, overlap=7)
    from chunk_inspector.app import view

    # every chunk of A, and B's (over a page: the first view.PAGE_ROWS, a line for the rest)
    assert len(b) > view.PAGE_ROWS
    assert source_view(at).count('class="cmp-card"') == len(a) + view.PAGE_ROWS
    assert f"… and {len(b) - view.PAGE_ROWS:,} more chunks, not drawn" in source_view(at)


def test_the_compare_and_tune_pages_controls_are_as_left_after_a_look_at_another_page(app: AppTest) -> None:
    """B's target, cap and packing, and Tune's grid, went back to their defaults when the user looked at another
    page and came back: the comparison set up was gone."""
    app.switch_page("pages/compare.py").run()
    app.number_input(key="cmp_cap").set_value(512).run()
    app.number_input(key="cmp_target").set_value(128).run()
    app.selectbox(key="cmp_strategy").set_value("balanced").run()
    app.switch_page("pages/tune.py").run()
    app.multiselect(key="sweep_caps").set_value([512, 4096]).run()
    app.switch_page("pages/inspect_chunks.py").run()
    app.switch_page("pages/compare.py").run()
    assert not app.exception
    assert "**B: target 128 · cap 512 · balanced**" in [m.value for m in app.markdown]
    app.switch_page("pages/tune.py").run()
    assert app.multiselect(key="sweep_caps").value == [512, 4096]


def test_compare_counts_the_defects_it_shows_and_no_coverage(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page shows five defect counts a column; it also looked each chunk up in the whole document for a coverage
    it never showed, quadratic in a long table (13 s of the 17 a 2.6 MB table's column took to measure)."""
    from chunk_inspector.peers import metrics

    def no_coverage(*args: object, **kwargs: object) -> float:
        raise AssertionError("the Compare page computed the coverage")

    monkeypatch.setattr(metrics, "coverage", no_coverage)
    app.switch_page("pages/compare.py").run()
    assert not app.exception and not app.error
    shown = [c.value for c in app.caption if "over the cap" in c.value]
    assert len(shown) == 2 and all("open fences" in c and "heading only" in c for c in shown)


def test_a_one_chunk_document_is_one_chunk_not_one_chunks(app: AppTest) -> None:
    """Counts are worded for one and for many on every page that words them."""
    app.segmented_control(key="source").set_value("Paste").run()
    app.text_area(key="pasted").input("# Hi\n\nOne short paragraph.\n").run()
    seen = []
    for page in ("pages/compare.py", "pages/export.py"):
        app.switch_page(page).run()
        assert not app.exception
        seen += [plain(c.value) for c in app.caption]
    assert any(c.startswith("1 chunk · ") for c in seen) and any(c.startswith("1 chunk at target") for c in seen)
    assert not [c for c in seen if "1 chunks" in c]


def test_compare_offers_an_installed_peer_as_a_third_column(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a peer present (a stand-in here: the real ones live in .venv-peers), its chunks fill a third column."""
    from chunk_inspector.peers import chunkers as peers

    def fake_run(name: str, text: str, *, hard_cap: int = 512, target: int = 256) -> list[peers.PeerChunk]:
        return [peers.PeerChunk(text=part) for part in text.split("\n\n") if part.strip()]

    monkeypatch.setattr(peers, "available_peers", lambda: ["fake-splitter"])
    monkeypatch.setattr(peers, "run_peer", fake_run)
    app.switch_page("pages/compare.py").run()
    app.selectbox(key="cmp_peer").set_value("fake-splitter").run()
    assert not app.exception
    assert "**fake-splitter: hard cap 1024**" in [m.value for m in app.markdown]
    paragraphs = [part for part in GUIDE.split("\n\n") if part.strip()]
    html = source_view(app)
    assert html.count("<b>#1</b>") == 1 and f"<b>#{len(paragraphs)}</b>" in html
    assert any(f"{len(paragraphs)} chunks" in c.value for c in app.caption)


def test_corpus_chunks_every_bundled_sample(app: AppTest) -> None:
    app.switch_page("pages/corpus.py").run()
    assert not app.exception
    samples = sorted(p.name for p in SAMPLES.glob("*.md") if p.name != "README.md")  # README.md: attribution
    assert metric(app, "Documents") == f"{len(samples):,}"
    per_doc = app.dataframe[0].value
    assert sorted(per_doc["document"]) == samples
    expected = sum(engine_count((SAMPLES / n).read_text(encoding="utf-8"), 384, 1024) for n in samples)
    assert metric(app, "Chunks") == f"{expected:,}"
    assert len(app.dataframe[1].value) > 0


def test_corpus_tables_put_warnings_and_flags_before_the_wide_columns(app: AppTest) -> None:
    app.switch_page("pages/corpus.py").run()
    assert not app.exception
    per_document = {tuple(d.value.columns) for d in app.dataframe}
    assert ("document", "chunks", "warnings", "tiny", "tokens", "median", "max") in per_document
    assert ("document", "id", "tokens", "flags", "lines", "starts with") in per_document


def test_corpus_writes_no_chunk_set_json_until_the_zip_is_clicked(
    app: AppTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's run writes no document's JSON or JSONL: the zip is written when its button is clicked (every run
    wrote them all, seconds and hundreds of MB for a few 5 MB uploads, and kept the zip)."""
    written: list[str] = []
    for name in ("to_json", "to_jsonl"):
        real = getattr(chunker.ChunkSet, name)

        def spy(self: Any, *args: Any, _name: str = name, _real: Any = real, **kwargs: Any) -> Any:
            written.append(_name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(chunker.ChunkSet, name, spy)
    app.switch_page("pages/corpus.py").run()
    assert not app.exception and metric(app, "Documents") != "0"
    assert written == []
    assert any(getattr(b, "label", "").startswith("Download all") for b in app.get("download_button"))


def test_corpus_upload_reports_a_bad_file_and_keeps_the_good_ones(app: AppTest) -> None:
    app.switch_page("pages/corpus.py").run()
    app.segmented_control(key="corpus_source").set_value("Upload files").run()
    files = [
        ("a.md", b"# A\n\nText a.\n", "text/markdown"),
        ("b.md", b"\xff\xfe# B in UTF-16?\n", "text/markdown"),
        ("c.md", b"# C\n\nText c.\n", "text/markdown"),
    ]
    app.file_uploader(key="corpus_uploads").set_value(files).run()
    assert not app.exception
    assert metric(app, "Documents") == "2" and metric(app, "Failed") == "1"
    assert any("b.md" in plain(e.value) and "UTF-8" in plain(e.value) for e in app.error)


def test_export_offers_json_that_the_engine_reads_back_and_reproducers(app: AppTest) -> None:
    app.switch_page("pages/export.py").run()
    assert not app.exception
    labels = [getattr(b, "label", "") for b in app.get("download_button")]
    assert {"JSON", "JSONL", "Document tree (JSON)"} <= set(labels)
    assert any(label.startswith("sections.jsonl") for label in labels)
    code = [c.value for c in app.code]
    snippet = next(c for c in code if "chunker.chunk(" in c)
    assert "target=384" in snippet and "hard_cap=1024" in snippet
    command = next(c for c in code if c.startswith("chunker "))
    assert "--target 384 --hard-cap 1024" in command
    first = app.get("json")[0].proto.body
    assert json.loads(first)["id"] == "c1"


def test_export_writes_no_download_until_one_is_clicked(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's run writes none of its five files: each is written when its button is clicked (a 5 MB
    document's were 270 MB of text, written in 20 s at every run and kept in memory until the next). The labels
    still count each layer's records."""
    written: list[str] = []

    def spy(name: str, real: Any) -> Any:
        def write(self: Any, *args: Any, **kwargs: Any) -> Any:
            written.append(name)
            return real(self, *args, **kwargs)

        return write

    for cls, name in [
        (chunker.ChunkSet, "to_json"),
        (chunker.ChunkSet, "to_jsonl"),
        (chunker.ChunkSet, "layers_jsonl"),
        (chunker.Document, "to_json"),
    ]:
        monkeypatch.setattr(cls, name, spy(f"{cls.__name__}.{name}", getattr(cls, name)))
    app.switch_page("pages/export.py").run()
    assert not app.exception
    assert written == []
    engine_layers = chunker.chunk_markdown(GUIDE, name="poetry_cli.md").layers_jsonl()
    labels = [getattr(b, "label", "") for b in app.get("download_button")]
    for layer, text in engine_layers.items():
        count = text.count("\n")
        assert f"{layer}.jsonl ({count} record{'s' * (count != 1)})" in labels, (layer, labels)


def test_a_download_clicked_after_its_document_left_the_cache_is_the_same_file() -> None:
    """frame.reopen, what a clicked download reads: the cached document and chunk set, or, once the cache let
    them go, the same ones made again from the text."""
    from chunk_inspector.app import cache, frame

    settings = chunker.ChunkOptions(tokenizer="cl100k_base", target=256, hard_cap=512)
    key = frame.digest(GUIDE)
    doc, chunks = frame.reopen(key, "poetry_cli.md", settings, GUIDE, "cl100k_base")
    again, same = frame.reopen(key, "poetry_cli.md", settings, GUIDE, "cl100k_base")
    assert again is doc and same is chunks, "taken from the cache"
    cache.shared().clear()
    remade, rechunked = frame.reopen(key, "poetry_cli.md", settings, GUIDE, "cl100k_base")
    assert remade is not doc
    expected = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", target=256, hard_cap=512)
    assert rechunked.to_json() == chunks.to_json() == expected.to_json()
    assert remade.to_json() == doc.to_json()


def test_a_tokenizer_that_cannot_load_says_what_to_do_in_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, o200k_base and p50k_base cannot be fetched: the page said to "pass tokenizer='cl100k_base' or a
    callable str -> int", the engine's words to a Python caller; in the app the way out is the Tokenizer box."""
    import tiktoken

    from chunker import tokens

    fetch = tiktoken.get_encoding

    def offline(name: str) -> Any:
        if name == "p50k_base":
            raise ConnectionError("no network")
        return fetch(name)

    tokens._tiktoken_tokenizer.cache_clear()
    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    try:
        at = AppTest.from_file(str(APP), default_timeout=120)
        at.query_params["tokenizer"] = "p50k_base"
        at.run()
        assert not at.exception
        message = plain(at.error[0].value)
        assert message.startswith("Cannot load the tiktoken encoding 'p50k_base'"), message
        assert "choose cl100k_base under Tokenizer in the sidebar" in message and "pass tokenizer=" not in message
        at.selectbox(key="tokenizer").set_value("cl100k_base").run()  # the way out it names
        assert not at.error and metric(at, "Chunks") == f"{engine_count(GUIDE, 384, 1024):,}"
    finally:
        tokens._tiktoken_tokenizer.cache_clear()


def test_every_export_has_a_file_name_of_its_own(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunk set's JSONL and the chunks layer were both saved as poetry_cli.chunks.jsonl, two different files
    (records of another shape) under one name: the browser kept the second as 'poetry_cli.chunks (1).jsonl'."""
    import streamlit as st

    names: list[str] = []
    button = st.download_button

    def recorded(*args: Any, **kwargs: Any) -> Any:
        names.append(str(kwargs.get("file_name")))
        return button(*args, **kwargs)

    monkeypatch.setattr(st, "download_button", recorded)
    app.switch_page("pages/export.py").run()
    assert not app.exception
    assert len(names) == 6 and len(set(names)) == 6, names
    assert "poetry_cli.chunks.jsonl" in names and "poetry_cli.layers.chunks.jsonl" in names


def test_overlap_is_drawn_hatched_and_min_tokens_flags_tiny_chunks(app: AppTest) -> None:
    """With overlap on, the text a chunk shares with the next is hatched in the source view; with a
    minimum size, chunks the engine could not merge carry the tiny flag in the table."""
    app.number_input(key="overlap").set_value(60).run()
    app.number_input(key="min_tokens").set_value(120).run()
    assert not app.exception
    chunks = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", target=384, hard_cap=1024, overlap=60, min_tokens=120)
    shared = [c for c in chunks if c.overlap_span]
    assert shared, "the sample has sentences to share at this setting"
    html = source_view(app)
    assert 'class="ci-ov"' in html
    assert f"hatched text is also in {shared[0].id}" in html
    table = app.dataframe[1].value
    tiny = [c.id for c in chunks if "tiny" in c.flags]
    assert sorted(table[table["flags"].str.contains("tiny")]["id"]) == sorted(
        c.id for c in chunks if c.token_count < 120
    )
    assert set(tiny) <= set(table[table["flags"].str.contains("tiny")]["id"])
    assert metric(app, "Chunks") == f"{len(chunks):,}"


def _word_level_tokenizer(path: Path, text: str) -> Path:
    """A small Hugging Face tokenizer.json (word level, trained on ``text``) saved at ``path``."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([text], trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False))
    tok.save(str(path))
    return path


def test_an_uploaded_tokenizer_json_counts_the_chunks(app: AppTest, tmp_path: Path) -> None:
    """A Hugging Face tokenizer.json from the sidebar replaces the tiktoken encoding; the snippets name the file."""
    path = _word_level_tokenizer(tmp_path / "tokenizer.json", GUIDE[:5000])
    app.file_uploader(key="hf_tokenizer").set_value(("tokenizer.json", path.read_bytes(), "application/json")).run()
    assert not app.exception
    expected = chunker.chunk_markdown(GUIDE, name="poetry_cli.md", tokenizer=str(path), target=384, hard_cap=1024)
    assert metric(app, "Chunks") == f"{len(expected):,}"
    assert metric(app, "Total tokens") == f"{sum(c.token_count for c in expected):,}"
    app.switch_page("pages/export.py").run()
    snippet = next(c.value for c in app.code if "chunker.chunk(" in c.value)
    assert "tokenizer='tokenizer.json'" in snippet


def test_the_reproducers_name_an_uploaded_tokenizer_json_by_its_own_file_name(app: AppTest, tmp_path: Path) -> None:
    """A tokenizer uploaded as e5-base.json was 'tokenizer.json' in the Python snippet and the command line that
    "reproduce this chunk set exactly": run beside the user's file, both failed (no such file)."""
    path = _word_level_tokenizer(tmp_path / "e5-base.json", GUIDE[:3000])
    app.file_uploader(key="hf_tokenizer").set_value(("-e5-base.json", path.read_bytes(), "application/json")).run()
    assert not app.exception and plain(app.caption[0].value).count("(-e5-base.json)") == 1
    app.switch_page("pages/export.py").run()
    snippet = next(c.value for c in app.code if "chunker.chunk(" in c.value)
    command = next(c.value for c in app.code if c.value.startswith("chunker "))
    assert "tokenizer='-e5-base.json'" in snippet
    assert "--tokenizer ./-e5-base.json " in command, "a name that starts with '-' is a file, not an option"


def test_a_broken_tokenizer_json_gets_a_message_and_the_encoding_stays(app: AppTest) -> None:
    app.file_uploader(key="hf_tokenizer").set_value(("tokenizer.json", b"{not json", "application/json")).run()
    assert not app.exception
    assert any("tokenizer.json" in plain(e.value) for e in app.sidebar.error)
    assert metric(app, "Chunks") == f"{engine_count(GUIDE, 384, 1024):,}"
    # the way out in the app's terms: it said "or pass a tiktoken encoding name such as 'cl100k_base'"
    error = next(plain(e.value) for e in app.sidebar.error if "tokenizer.json" in plain(e.value))
    assert "pass a tiktoken" not in error and error.endswith("or remove the file to count with the Tokenizer above."), (
        error
    )


def test_a_tokenizer_jsons_messages_name_the_uploaded_file_not_its_hash(app: AppTest) -> None:
    """The loaded tokenizer is shared across sessions under its content's name (hf:sha256:…); what the user
    reads names the file they uploaded."""
    app.file_uploader(key="hf_tokenizer").set_value(("e5-tokenizer.json", b"{not json", "application/json")).run()
    assert not app.exception
    errors = [plain(e.value) for e in app.sidebar.error]
    assert any(e.startswith("Cannot load the uploaded tokenizer.json (e5-tokenizer.json): ") for e in errors), errors
    assert not any("sha256" in e for e in errors), errors
    app.file_uploader(key="hf_tokenizer").set_value(("latin.json", b'{"\xe9": 1}', "application/json")).run()
    errors = [plain(e.value) for e in app.sidebar.error]
    assert "The uploaded tokenizer.json (latin.json) is not UTF-8 text: a tokenizer.json is JSON" in errors, errors


def test_a_tokenizer_that_fails_on_the_text_is_named_by_its_file(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tokenizer.json that loads but fails while counting the document: the page's one line names the file,
    not the key it is shared under."""
    import uuid

    from chunk_inspector.app import frame
    from chunker import tokens

    class Failing:
        def no_truncation(self) -> None: ...

        def no_padding(self) -> None: ...

        def encode(self, text: str, add_special_tokens: bool = True) -> Any:
            raise ValueError("the pre-tokenizer's regex gave up")

    monkeypatch.setattr(frame, "hf_tokenizer_from_json", lambda data, key: tokens._hf_counter(Failing(), key))
    unique = f'{{"id": "{uuid.uuid4()}"}}'.encode()  # not one the shared few hold already
    app.file_uploader(key="hf_tokenizer").set_value(("bert-base.json", unique, "application/json")).run()
    assert not app.exception
    errors = [plain(e.value) for e in app.main.error]
    assert any("the uploaded tokenizer.json (bert-base.json) failed on this text" in e for e in errors), errors
    assert not any("sha256" in e for e in errors), errors


def test_options_the_hard_cap_cannot_hold_are_lowered_with_a_warning() -> None:
    """A shared link (or the number inputs) may ask for an overlap of half the cap or more, or a minimum
    chunk above it: the app lowers them, says so, and chunks; it never shows an exception."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["hard_cap"] = "512"
    at.query_params["target"] = "256"
    at.query_params["overlap"] = "1000"
    at.query_params["min_tokens"] = "600"
    at.run()
    assert not at.exception
    warning = " ".join(w.value for w in at.sidebar.warning)
    assert "overlap 1000 → 255" in warning and "minimum chunk 600 → 512" in warning
    assert metric(at, "Chunks") == f"{engine_count(GUIDE, 256, 512, overlap=255, min_tokens=512):,}"


def test_the_corpus_takes_the_sidebars_uploads_and_skips_the_refused_ones(app: AppTest) -> None:
    """Files uploaded in the sidebar are the Corpus page's documents at once ("Sidebar uploads (N)", its default
    then), with no second upload; each file the app refuses (its size, its encoding) is skipped in one line
    naming it and why. The sidebar's uploader says so."""
    from chunk_inspector.app import frame

    big = b"# Big\n\n" + b"word " * (frame.MAX_UPLOAD_BYTES // 5 + 10)
    app.segmented_control(key="source").set_value("Upload").run()
    app.file_uploader(key="uploads").set_value(
        [
            ("a.md", b"# A\n\nText a.\n", "text/markdown"),
            ("b.md", b"\xff\xfe# B in UTF-16?\n", "text/markdown"),
            ("big.md", big, "text/markdown"),
            ("c.md", b"# C\n\nText c.\n", "text/markdown"),
        ]
    ).run()
    help_text = app.file_uploader(key="uploads").proto.help
    assert "Corpus" in help_text and "own upload" not in help_text
    app.switch_page("pages/corpus.py").run()
    assert not app.exception
    choice = app.segmented_control(key="corpus_source")
    assert choice.value == "Sidebar uploads" and "Sidebar uploads (4)" in [o.content for o in choice.proto.options]
    assert metric(app, "Documents") == "2" and metric(app, "Failed") == "2"
    assert sorted(app.dataframe[0].value["document"]) == ["a.md", "c.md"]
    errors = [plain(e.value) for e in app.main.error]  # the page's lines (the sidebar names them too)
    assert len(errors) == 2
    assert any(e.startswith("Skipped b.md:") and "UTF-8" in e for e in errors)
    assert any(e.startswith("Skipped big.md:") and "up to 5 MB" in e for e in errors)
    assert not app.get("file_uploader") or all(f.key != "corpus_uploads" for f in app.get("file_uploader"))


def test_the_corpus_opens_on_the_samples_without_sidebar_uploads_and_says_where_they_come_from(app: AppTest) -> None:
    app.switch_page("pages/corpus.py").run()
    assert not app.exception
    assert app.segmented_control(key="corpus_source").value == "Bundled samples"
    app.segmented_control(key="corpus_source").set_value("Sidebar uploads").run()
    assert not app.exception
    assert any("sidebar holds no uploads" in plain(i.value) for i in app.info)


def test_every_document_uploader_names_the_apps_size_limit(app: AppTest) -> None:
    """Streamlit's box says the server's 50 MB; each uploader of a document says the app's own limit."""
    from chunk_inspector.app import frame

    limit = f"up to {frame.MAX_UPLOAD_BYTES // 10**6} MB"
    app.segmented_control(key="source").set_value("Upload").run()
    assert limit in app.file_uploader(key="uploads").label
    app.switch_page("pages/corpus.py").run()
    app.segmented_control(key="corpus_source").set_value("Upload files").run()
    assert limit in app.file_uploader(key="corpus_uploads").label
    app.segmented_control(key="source").set_value("Sample").run()
    app.switch_page("pages/revisions.py").run()
    assert not app.exception
    assert limit in app.file_uploader(key="rev_upload").label


def test_the_chunks_token_totals_say_why_they_differ_from_the_documents(app: AppTest) -> None:
    """Total tokens (Inspect) and Tokens embedded (Corpus) are not the documents' counts: their help says why."""

    def help_of(label: str) -> str:
        return next(m.proto.help for m in app.metric if m.label == label)

    for page, label in (("pages/inspect_chunks.py", "Total tokens"), ("pages/corpus.py", "Tokens embedded")):
        app.switch_page(page).run()
        assert not app.exception
        text = help_of(label)
        assert "front matter" in text and "overlap" in text and "header" in text, text


def test_an_engine_error_no_page_caught_is_its_own_line_not_something_went_wrong() -> None:
    """A ChunkerError a page does not catch (a tokenizer failing on a chunk at one of Tune's settings, say) is a
    message for the user: the boundary shows it, worded by frame.readable, not the line for a bug."""

    def page() -> None:
        import streamlit as st

        import chunker
        from chunk_inspector.app import frame

        def fail(error: Exception) -> None:
            raise error

        st.session_state["_hf_names"] = {"hf:sha256:" + "ab" * 32: "e5.json"}
        with frame.error_boundary("a page"):
            fail(chunker.TokenizerError("the tokenizer 'hf:sha256:" + "ab" * 32 + "' failed on this text: *boom*"))
        with frame.error_boundary("another page"):
            fail(KeyError("a bug"))

    at = AppTest.from_function(page, default_timeout=30).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert plain(errors[0]) == "the uploaded tokenizer.json (e5.json) failed on this text: *boom*"
    assert r"\*boom\*" in errors[0]  # escaped: shown as text, not read as Markdown
    assert errors[1].startswith("Something went wrong here (KeyError, logged on the server as ")
