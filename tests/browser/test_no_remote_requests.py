"""A hostile document, file name and question set through every page in Chromium: the browser asks nothing of
any host but the app's own, and no script of the document runs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import FilePayload, Page, Request, Route, WebSocket, expect

from tests.browser.harness import IDLE, metric, open_app

HOST = "198.51.100.9"  # TEST-NET-2: never a real host
NAME = f"![n](http://{HOST}/name.png) <img src=x onerror=window.__pwned=9>.md"  # a browser sends any name
DOCUMENT = f"""# Harbour ![logo](http://{HOST}/heading.png) guide

![photo](http://{HOST}/photo.png) and [a link](http://{HOST}/link) and <http://{HOST}/auto>

<img src="http://{HOST}/img.png" onerror="window.__pwned = 1">
<iframe src="http://{HOST}/frame"></iframe>
<link rel="stylesheet" href="http://{HOST}/style.css">
<script src="http://{HOST}/script.js"></script>
<script>window.__pwned = 2</script>
<div style="background-image: url(http://{HOST}/bg.png)">styled</div>
<svg onload="window.__pwned = 3"><image href="http://{HOST}/svg.png"/></svg>
<style>@import url(http://{HOST}/import.css); body {{ background: url(http://{HOST}/body.png) }}</style>

## Tides ![tide](http://{HOST}/tide.png)

High tide is at noon. The gate closes an hour later. ![ref image][r]

[r]: http://{HOST}/ref.png

| a | b |
|---|---|
| ![cell](http://{HOST}/cell.png) | <img src=http://{HOST}/cell2.png> |
"""
ANSWER = "High tide is at noon."
LOCAL = re.compile(r"^(https?|wss?)://(127\.0\.0\.1|localhost)(:\d+)?(/|$)")


def question_set() -> bytes:
    start = DOCUMENT.index(ANSWER)
    record = {
        "id": f"![](http://{HOST}/id.png)",
        "document": NAME,
        "question": f"![](http://{HOST}/question.png) When is high tide? <img src=x onerror=window.__pwned=4>",
        "kind": "prose",
        "references": [{"content": ANSWER, "start_index": start, "end_index": start + len(ANSWER)}],
    }
    return (json.dumps(record) + "\n").encode()


def payload(name: str, mime: str, data: bytes) -> FilePayload:
    """A file for an <input type=file>, named as no file on disk could be."""
    return {"name": name, "mimeType": mime, "buffer": data}


class Watch:
    """Every request and web socket the page opens; those to another host are recorded and refused."""

    def __init__(self, page: Page) -> None:
        self.remote: list[str] = []
        page.on("request", self.request)
        page.on("websocket", self.websocket)
        page.route(re.compile(r"^(?!(https?|wss?)://(127\.0\.0\.1|localhost)[:/])[a-z]+://"), self.refuse)

    def request(self, request: Request) -> None:
        if not request.url.startswith(("data:", "blob:", "about:")) and not LOCAL.match(request.url):
            self.remote.append(request.url)

    def websocket(self, socket: WebSocket) -> None:
        if not LOCAL.match(socket.url):
            self.remote.append(socket.url)

    def refuse(self, route: Route) -> None:
        self.remote.append(route.request.url)
        route.abort()


@pytest.fixture
def watched(page: Page) -> Iterator[tuple[Page, Watch]]:
    yield page, Watch(page)


def go(page: Page, title: str) -> None:
    page.get_by_role("link", name=re.compile(rf"\b{title}$")).click()
    page.wait_for_selector(IDLE)


def open_hostile_document(page: Page, app_url: str) -> None:
    """Open the app and upload the document under its hostile name."""
    open_app(page, app_url)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator("button").filter(has_text=re.compile("^Upload$")).first.click()
    file_input = sidebar.locator('input[type="file"][accept*=".md"]')
    file_input.wait_for(state="attached")
    file_input.set_input_files(files=[payload(NAME, "text/markdown", DOCUMENT.encode())])
    expect(page.locator(".ci-src").first).to_contain_text(ANSWER, timeout=60_000)
    page.wait_for_selector(IDLE)


def render_first_chunk(page: Page) -> None:
    """Choose c1 in the chunk table and open its "Rendered" tab."""
    table = page.locator('[data-testid="stDataFrame"]').nth(1)  # the chunk table (the heading tree is first)
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the row marker of the first row
    expect(page.get_by_text(re.compile(r"^Selected: c1 "))).to_be_visible(timeout=30_000)
    page.get_by_role("tab", name="Rendered").click()
    page.wait_for_selector(IDLE)


def evaluate_uploaded_set(page: Page) -> None:
    go(page, "Evaluate")
    page.locator('[data-testid="stMain"] button').filter(has_text=re.compile("^Upload$")).first.click()
    upload = page.locator('[data-testid="stMain"] input[type="file"]')
    upload.wait_for(state="attached")
    name = f"![s](http://{HOST}/set.png).jsonl"
    upload.set_input_files(files=[payload(name, "application/jsonl", question_set())])
    expect(page.locator('[data-testid="stMetric"]').first).to_contain_text("1.000", timeout=60_000)
    page.wait_for_selector(IDLE)
    assert metric(page, "Recall in budget") == "1.000"
    expect(page.locator("strong", has_text="When is high tide?")).to_be_visible()


def corpus_of_the_document(page: Page) -> None:
    go(page, "Corpus")
    page.locator('[data-testid="stMain"] button').filter(has_text=re.compile("^Upload files$")).first.click()
    upload = page.locator('[data-testid="stMain"] input[type="file"]')
    upload.wait_for(state="attached")
    upload.set_input_files(files=[payload(NAME, "text/markdown", DOCUMENT.encode())])
    expect(page.locator('[data-testid="stMetric"]').first).to_contain_text("1", timeout=60_000)
    page.wait_for_selector(IDLE)


def visit_every_page(page: Page, app_url: str, check: Callable[[str], None] = lambda step: None) -> None:
    """Each step, then ``check(step)``: the document opened, a chunk rendered, then each page in turn."""
    open_hostile_document(page, app_url)
    check("Inspect")
    render_first_chunk(page)
    check("Inspect, a chunk rendered")
    expect(page.locator(".ci-md").first).to_contain_text("image: photo")  # images are placeholders, alt text
    for title in ("Tune", "Compare"):
        go(page, title)
        expect(page.get_by_role("heading", name=re.compile(f"^{title} · ")).first).to_be_visible(timeout=60_000)
        check(title)
    evaluate_uploaded_set(page)
    check("Evaluate")
    corpus_of_the_document(page)
    check("Corpus")
    go(page, "Export")
    expect(page.get_by_role("heading", name=re.compile("^Export · ")).first).to_be_visible(timeout=60_000)
    check("Export")


def test_a_hostile_document_name_and_question_set_fetch_nothing_remote_on_any_page(
    watched: tuple[Page, Watch], app_url: str
) -> None:
    """Remote images in headings, text, tables and reference definitions, <img>, <iframe>, <link>, <script src>,
    CSS url() and @import, event handlers; a file name and a question set holding images and HTML: on Inspect
    (a chunk chosen and rendered), Tune, Compare, Evaluate, Corpus and Export, no request leaves 127.0.0.1 and
    no script of theirs runs."""
    page, watch = watched

    def check(step: str) -> None:
        page.wait_for_timeout(300)  # anything lazily loaded has had its moment
        assert watch.remote == [], (step, watch.remote)
        assert page.evaluate("window.__pwned === undefined"), step

    visit_every_page(page, app_url, check)
    sources = page.evaluate(
        "[...document.querySelectorAll('img[src], iframe[src], script[src], link[href], image')]"
        ".map(e => e.getAttribute('src') || e.getAttribute('href') || '')"
    )
    assert not [s for s in sources if HOST in s], sources


def test_an_upload_named_with_a_nul_byte_is_one_line_never_a_traceback(page: Page, app_url: str) -> None:
    """Streamlit refuses a file name holding a NUL byte (what a tampered browser can send) while it reads the
    widgets' values, before the app's script and its error boundary run: the page showed the exception's type,
    message and traceback. The server's configuration (client.showErrorDetails) makes it Streamlit's one
    generic line; reloading the page starts afresh."""
    open_app(page, app_url)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator("button").filter(has_text=re.compile("^Upload$")).first.click()
    file_input = sidebar.locator('input[type="file"][accept*=".md"]')
    file_input.wait_for(state="attached")
    file_input.set_input_files(files=[payload("a\x00b.md", "text/markdown", b"# T\n\nText.\n")])
    shown = page.locator('[data-testid="stException"]')
    expect(shown).to_have_count(1, timeout=60_000)
    text = shown.inner_text()
    assert "has encountered an error" in text
    assert "Traceback" not in text and "null bytes" not in text and "StreamlitAPIException" not in text, text
    page.reload()
    page.wait_for_selector(IDLE)
    expect(page.get_by_role("heading", name="poetry_cli.md")).to_be_visible()
