"""The app's journeys (docs/app.md) in a real headless Chromium against `streamlit run` on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

import chunker
from chunk_inspector.app.evaluate_view import load_bundled
from chunk_inspector.evaluate.metrics import Contender, evaluate
from chunk_inspector.evaluate.retrievers import get_retriever
from tests.browser.harness import IDLE, metric, open_app, serve_app

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"


def engine(name: str, target: int = chunker.DEFAULT_TARGET, cap: int = chunker.DEFAULT_HARD_CAP) -> chunker.ChunkSet:
    """The engine's chunks of a sample (at the defaults, which the app opens at)."""
    text = (SAMPLES / name).read_text(encoding="utf-8")
    return chunker.chunk_markdown(text, name=name, target=target, hard_cap=cap)


def choose_source(page: Page, label: str, widget: str) -> Locator:
    """Pick the document source in the sidebar and wait until its widget is there and the app is idle."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator("button").filter(has_text=re.compile(f"^{label}$")).first.click()
    control = sidebar.locator(widget)
    control.wait_for(state="attached")
    page.wait_for_selector(IDLE)
    return control


def test_open_pick_a_sample_and_move_the_hard_cap(page: Page, app_url: str) -> None:
    """Open the app, pick another sample, then move the hard cap with the keyboard: the count follows."""
    open_app(page, app_url)
    assert metric(page, "Chunks") == str(len(engine("poetry_cli.md")))
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="redux_modern_redux.md").click()
    expect(page.get_by_role("heading", name="redux_modern_redux.md")).to_be_visible()
    expect(page.locator('[data-testid="stMetric"]').first).to_contain_text(str(len(engine("redux_modern_redux.md"))))
    before = metric(page, "Chunks")
    thumb = page.get_by_role("slider").first  # the hard cap: the first slider of the sidebar
    thumb.focus()
    for _ in range(5):  # 1024 -> 1000 -> 800 -> 768 -> 600 -> 512
        thumb.press("ArrowLeft")
    expected = str(len(engine("redux_modern_redux.md", cap=512)))
    assert expected != before
    expect(page.locator('[data-testid="stMetric"]').first).to_contain_text(expected, timeout=30_000)
    assert "hard_cap=512" in page.url, "the setting is in the URL"


def test_hovering_a_chunk_shows_its_id_tokens_and_spans(page: Page, app_url: str) -> None:
    open_app(page, app_url)
    c2 = engine("poetry_cli.md")[1]
    region = page.locator('.ci-chunk[data-chunk="c2"]')
    info = region.locator(".ci-info")
    expect(info).to_be_hidden()
    region.hover()
    expect(info).to_be_visible()
    text = info.inner_text()
    b0, b1 = c2.byte_span
    c0, c1 = c2.char_span
    l0, l1 = c2.line_span
    assert f"c2 · {c2.token_count} tokens" in text
    assert f"bytes {b0}–{b1}" in text and f"chars {c0}–{c1}" in text and f"lines {l0}–{l1}" in text
    assert " › ".join(c2.breadcrumb) in text


def test_upload_a_file_and_see_it_chunked(page: Page, app_url: str, tmp_path: Path) -> None:
    open_app(page, app_url)
    file_input = choose_source(page, "Upload", 'input[type="file"][accept*=".md"]')
    upload = tmp_path / "notes.md"
    upload.write_text("# Notes\n\nFirst paragraph.\n\n## Details\n\nSecond paragraph.\n", encoding="utf-8")
    file_input.set_input_files(str(upload))
    expect(page.get_by_role("heading", name="notes.md")).to_be_visible(timeout=30_000)
    expect(page.locator(".ci-chunk").first).to_contain_text("First paragraph.")


def test_a_binary_upload_gets_a_message_and_the_app_keeps_working(page: Page, app_url: str, tmp_path: Path) -> None:
    open_app(page, app_url)
    file_input = choose_source(page, "Upload", 'input[type="file"][accept*=".md"]')
    binary = tmp_path / "photo.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    file_input.set_input_files(str(binary))
    expect(page.locator('[data-testid="stSidebar"] [data-testid="stAlert"]').filter(has_text="binary")).to_be_visible(
        timeout=30_000
    )
    expect(page.get_by_role("heading", name="poetry_cli.md")).to_be_visible()


def test_html_in_a_document_is_shown_as_text_and_never_runs(page: Page, app_url: str) -> None:
    open_app(page, app_url)
    area = choose_source(page, "Paste", "textarea")
    area.fill('# Trap\n\n<img src=x onerror="window.__pwned = 1">\n\n<script>window.__pwned = 2</script>\n')
    area.press("Control+Enter")
    # While the page re-runs, the previous document's source view can still be on screen: take the new one.
    source = page.locator(".ci-src").filter(has_text="window.__pwned = 2").first
    expect(source).to_contain_text('<img src=x onerror="window.__pwned = 1">')
    expect(source).to_contain_text("<script>window.__pwned = 2</script>")
    page.wait_for_selector(IDLE)
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator(".ci-src img, .ci-src script").count() == 0


def test_download_json_and_read_it_back_with_the_engine(page: Page, app_url: str) -> None:
    open_app(page, app_url, "export")
    expect(page.get_by_role("heading", name=re.compile("Export"))).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("button", name="JSON", exact=True).click()
    data = Path(download.value.path()).read_text(encoding="utf-8")
    chunks = chunker.ChunkSet.from_json(data)
    assert data == engine("poetry_cli.md").to_json()
    assert len(chunks) == len(engine("poetry_cli.md"))


def test_a_link_to_a_page_works_as_the_first_request_of_a_fresh_server(page: Page) -> None:
    """A fresh server first treats pages/ as an old-style page folder: the page must still run inside app.py."""
    with serve_app() as url:
        open_app(page, url, "export?sample=redux_modern_redux.md&hard_cap=2048")
        expect(page.get_by_role("heading", name="Export · redux_modern_redux.md")).to_be_visible()
        # app.py's top navigation, not the old-style list of pages/ files ("inspect chunks") in the sidebar
        expect(page.get_by_role("link", name=re.compile(r"\bTune$"))).to_have_attribute("href", f"{url}/tune")
        expect(page.get_by_role("link", name="inspect chunks")).to_have_count(0)
        chunks = engine("redux_modern_redux.md", cap=2048)
        expect(
            page.get_by_text(f"{len(chunks)} chunks at target {chunker.DEFAULT_TARGET}, hard cap 2048")
        ).to_be_visible()


def test_the_documented_inspect_path_opens_inspect_with_the_links_settings(page: Page, app_url: str) -> None:
    """/inspect is the Inspect page's path in docs/app.md, but Streamlit serves the default page at the root only:
    the link said "Page not found" and showed Inspect at the default settings' URL. It goes to the root now, with
    its settings."""
    open_app(page, app_url)  # not the first request of a fresh server (which knows only pages/*.py by name)
    open_app(page, app_url, "inspect?sample=redux_modern_redux.md&hard_cap=2048")
    expect(page.get_by_role("heading", name="redux_modern_redux.md")).to_be_visible()
    expect(page).to_have_url(f"{app_url}/?sample=redux_modern_redux.md&hard_cap=2048")
    page.wait_for_selector(IDLE)
    assert page.get_by_text("Page not found").count() == 0
    expect(page.get_by_text("hard cap 2048").first).to_be_visible()
    expect(page.locator('[data-testid="stMetric"]').first).to_contain_text(
        str(len(engine("redux_modern_redux.md", cap=2048)))
    )


def test_evaluate_with_the_bundled_set_and_open_a_miss(page: Page, app_url: str) -> None:
    """Open Evaluate: recall at the sidebar's settings on the bundled set; choose a miss: its excerpt is highlighted."""
    questions = load_bundled(SAMPLES)
    result = evaluate(questions, Contender.engine(chunker.ChunkOptions()), get_retriever("bm25"))
    open_app(page, app_url, "evaluate")
    expect(page.get_by_role("heading", name="Evaluate · retrieval")).to_be_visible()
    recall = page.locator('[data-testid="stMetric"]').first  # a cold server parses every document first
    expect(recall).to_contain_text(f"{result.mean()['recall@budget']:.3f}", timeout=90_000)
    assert metric(page, "Recall at 5") == f"{result.mean()['recall@k']:.3f}"
    miss = result.misses()[-1]  # not the one open at first
    page.wait_for_selector(IDLE)
    page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(has_text="Question").click()
    page.keyboard.type(f" {miss.question.id} · ")  # the list filters as one types
    page.get_by_role("option", name=re.compile(f" {miss.question.id} · ")).click()
    first_line = next(line for line in miss.question.references[0].content.splitlines() if line.strip())
    highlighted = page.locator(".ci-src .ci-ref").first
    expect(highlighted).to_be_visible(timeout=30_000)
    expect(page.locator(".ci-src .ci-ref")).to_contain_text([first_line.strip()[:40]])
    expect(page.locator("strong", has_text=miss.question.question)).to_be_visible()
    expect(page.get_by_text("The chunk it fell into")).to_be_visible()


def test_choosing_a_chunk_explains_its_optimal_cost(page: Page, app_url: str) -> None:
    """Choose a chunk in the table: its text shows, and "Why this chunk" draws its cost, term by term,
    with the total the engine computes for it."""
    from chunker.optimal import cost_terms

    open_app(page, app_url)
    text = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")
    doc = chunker.parse(text, name="poetry_cli.md")
    options = chunker.ChunkOptions()
    chunks = chunker.chunk_with(doc, options)
    terms = cost_terms(doc, options, chunks[2])
    assert terms is not None
    table = page.locator('[data-testid="stDataFrame"]').nth(1)  # the chunk table (the heading tree is first)
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 18, box["y"] + 35 * 3 + 17)  # the row marker of the third row (c3)
    expect(page.get_by_text(re.compile(r"^Selected: c3 "))).to_be_visible()
    page.get_by_role("tab", name="Why this chunk").click()
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Cost of this chunk")
    expect(chart).to_contain_text(f"Cost of this chunk: {terms.total:.3f}")


def test_the_question_list_shows_the_question_shown_after_another_set(page: Page, app_url: str) -> None:
    """Choose a question, open "Write your own", come back to the bundled set: the list still names the question
    whose answer the page shows (it used to be drawn at its first option while the page showed the chosen one)."""
    questions = load_bundled(SAMPLES)
    result = evaluate(questions, Contender.engine(chunker.ChunkOptions()), get_retriever("bm25"))
    first, other = result.misses()[0], result.misses()[-1]
    assert first.question.id != other.question.id
    open_app(page, app_url, "evaluate")
    expect(page.locator('[data-testid="stMetric"]').first).to_contain_text(
        f"{result.mean()['recall@budget']:.3f}", timeout=90_000
    )
    page.wait_for_selector(IDLE)
    chooser = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(has_text="Question")
    chooser.click()
    page.keyboard.type(f" {other.question.id} · ")
    page.get_by_role("option", name=re.compile(f" {other.question.id} · ")).click()
    expect(page.locator("strong", has_text=other.question.question)).to_be_visible(timeout=30_000)
    page.wait_for_selector(IDLE)
    for label in ("Write your own", "Bundled (samples)"):
        page.locator("button").filter(has_text=re.compile(f"^{re.escape(label)}$")).first.click()
        page.wait_for_selector(IDLE)
    expect(page.locator("strong", has_text=other.question.question)).to_be_visible(timeout=30_000)
    expect(chooser.locator("input")).to_have_value(re.compile(f" {other.question.id} · "))


def test_the_numbers_on_top_of_a_page_are_whole_in_a_narrow_window(browser: Browser, app_url: str) -> None:
    """In an 800 px window (the sidebar open), each figure of a page's row of metrics shows whole: in columns, seven
    of them were cut to '1…', the Evaluate page's six to '0.…'."""
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        for path, label in (("", "Total tokens"), ("evaluate", "Recall in budget"), ("corpus", "Tokens embedded")):
            open_app(page, app_url, path)
            values = page.locator('[data-testid="stMetricValue"]')
            expect(page.locator('[data-testid="stMetricLabel"]', has_text=label)).to_be_visible()
            cut = values.evaluate_all(
                "els => els.filter(e => [e, ...e.querySelectorAll('*')].some(x => x.scrollWidth > x.clientWidth))"
                ".map(e => e.innerText)"
            )
            assert values.count() >= 5 and cut == [], (path or "inspect", cut)
    finally:
        context.close()


def test_the_corpus_table_shows_every_column_in_a_1400_px_window(browser: Browser, app_url: str) -> None:
    """At their own widths the per-document table's columns took 612 px of the 546 it has beside the histogram: the
    max column's figures were cut off, its bars alone in sight."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_app(page, app_url, "corpus")
        table = page.locator('[data-testid="stDataFrame"]').first
        expect(table).to_be_visible()
        scroll, shown = table.evaluate(
            "el => { const s = el.querySelector('.dvn-scroller'); return [s.scrollWidth, s.clientWidth] }"
        )
        assert scroll <= shown, (scroll, shown)
    finally:
        context.close()


def test_the_tune_pages_apply_button_reads_whole_in_a_narrow_window(browser: Browser, app_url: str) -> None:
    """In a quarter of the row beside the grid point's picker, an 800 px window cut the button to 'Apply this p…'."""
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_app(page, app_url, "tune")
        button = page.get_by_role("button", name="Apply this point")
        expect(button).to_be_visible()
        cut = button.evaluate("b => [b, ...b.querySelectorAll('*')].some(x => x.scrollWidth > x.clientWidth)")
        assert not cut, button.inner_text()
    finally:
        context.close()


def test_a_short_documents_tables_end_with_their_rows(page: Page, app_url: str) -> None:
    """The heading tree (300 px) and the chunk table (420 px) kept their height whatever their rows: a two-section
    document showed its two rows over seven empty ones, as if sections had no title."""
    open_app(page, app_url)
    area = choose_source(page, "Paste", "textarea")
    area.fill("# Alpha\n\nFirst part.\n\n## Beta\n\nSecond part.\n")
    area.press("Control+Enter")
    expect(page.get_by_role("heading", name="pasted.md")).to_be_visible()
    page.wait_for_selector(IDLE)
    tables = page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]')
    expect(tables).to_have_count(2)
    for table, rows in zip(tables.all(), (2, 1), strict=True):  # the tree's two sections; one chunk
        box = table.bounding_box()
        assert box is not None and box["height"] <= (rows + 1) * 35 + 5, (rows, box)
