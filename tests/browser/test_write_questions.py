"""A user with no question set writes one on the Evaluate page, in a real headless Chromium: from an uploaded CRLF
document to a recall figure for their own questions, edited and trimmed in the table, downloaded, uploaded again.

The screenshots it takes (the answer's occurrences to choose from, the written set with its results, the set
uploaded again) are in pytest's temporary folder: run with ``--basetemp DIR`` to keep and look at them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

import chunker
from chunk_inspector.evaluate.metrics import Contender, evaluate
from chunk_inspector.evaluate.questions import load_question_set, read_question_set
from chunk_inspector.evaluate.retrievers import get_retriever
from tests.browser.harness import IDLE, metric, open_app

SECTIONS = [
    ("Lamp", "The lamp is lit at dusk and put out at dawn. Its wick is trimmed each morning by the keeper on duty."),
    ("Fog", "In fog the horn sounds every minute.\r\nThe horn can be heard ten miles away on a calm night."),
    ("Keepers", "Two keepers share the watch and log the weather every hour.\r\nIn fog the horn sounds every minute."),
    ("Supplies", "Oil, wicks and food arrive by boat on the first Monday of each month, weather permitting."),
]
TABLE = "| Shift | Hours |\r\n|-------|-------|\r\n| First | 18-24 |\r\n| Second | 0-6 |"
DOC = "# Lighthouse notes\r\n\r\n" + "".join(f"## {t}\r\n\r\n{body}\r\n\r\n" for t, body in SECTIONS) + TABLE + "\r\n"
OPTIONS = chunker.ChunkOptions(16, 32)  # the link's settings: more than 5 chunks from this small document


def expected_jsonl() -> str:
    """The three questions as docs/evaluation.md §1 writes them, offsets found here in the CRLF text."""
    horn = "In fog the horn sounds every minute."
    second = DOC.index(horn, DOC.index(horn) + 1)
    lamp = DOC.index("The lamp is lit at dusk")
    table = DOC.index(TABLE)
    records = [
        {
            "id": "q1",
            "document": "lighthouse.md",
            "question": "When is the lighthouse lamp lit?",
            "kind": "prose",
            "references": [{"content": DOC[lamp : lamp + 44], "start_index": lamp, "end_index": lamp + 44}],
        },
        {
            "id": "q2",
            "document": "lighthouse.md",
            "question": "What do the keepers hear every minute in fog?",
            "kind": "heading_context",
            "references": [{"content": horn, "start_index": second, "end_index": second + len(horn)}],
        },
        {
            "id": "q3",
            "document": "lighthouse.md",
            "question": "What are the hours of the second shift?",
            "kind": "table",
            "references": [{"content": TABLE, "start_index": table, "end_index": table + len(TABLE)}],
        },
    ]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def click(page: Page, where: Locator, label: str) -> None:
    where.locator("button").filter(has_text=re.compile(f"^{re.escape(label)}$")).first.click()
    page.wait_for_selector(IDLE)


def fill(page: Page, box: Locator, text: str, key: str = "Control+Enter") -> None:
    box.fill(text)
    box.press(key)
    page.wait_for_selector(IDLE)


def write(page: Page, main: Locator, question: str, kind: str, added: str) -> None:
    fill(page, main.get_by_label("Question", exact=True), question)
    main.locator('[data-testid="stSelectbox"]').filter(has_text="Kind").click()
    page.get_by_role("option", name=kind, exact=True).click()
    page.wait_for_selector(IDLE)
    click(page, main, "Add the question")
    expect(main.get_by_text(f"Added {added}.")).to_be_visible()
    expect(main.get_by_label("Question", exact=True)).to_have_value("")  # emptied for the next one


def test_write_three_questions_evaluate_them_and_upload_the_download_again(
    page: Page, app_url: str, tmp_path: Path
) -> None:
    page.set_viewport_size({"width": 1600, "height": 2400})  # the main column scrolls: a tall page shows it all
    (tmp_path / "lighthouse.md").write_bytes(DOC.encode("utf-8"))
    open_app(page, app_url, f"evaluate?hard_cap={OPTIONS.hard_cap}&target={OPTIONS.target}")
    sidebar, main = page.locator('[data-testid="stSidebar"]'), page.locator('[data-testid="stMain"]')
    click(page, sidebar, "Upload")
    sidebar.locator('input[type="file"][accept*=".md"]').set_input_files(str(tmp_path / "lighthouse.md"))
    expect(main.get_by_text("lighthouse.md is not among them")).to_be_visible()
    peers = main.get_by_role("switch", name="Peers")
    if peers.count():  # the engine alone: the peers would only slow every question down
        main.get_by_text("Peers", exact=True).click()
        expect(peers).not_to_be_checked()
        page.wait_for_selector(IDLE)

    click(page, main, "Write your own")
    expect(main.get_by_text("No question yet")).to_be_visible()
    expect(main.get_by_role("combobox", name="Document")).to_have_value("lighthouse.md (open)")
    # 1: paste the answer; it occurs once
    fill(page, main.get_by_label("The answer, as the document has it"), "The lamp is lit at dusk and put out at dawn.")
    expect(main.get_by_text(re.compile(r"^Found once, at line 5 "))).to_be_visible()
    write(page, main, "When is the lamp lit?", "prose", "q1")  # reworded in the table below
    # 2: it occurs twice: choose the second, under Keepers
    fill(page, main.get_by_label("The answer, as the document has it"), "In fog the horn sounds every minute.")
    main.locator('[data-testid="stMultiSelect"]').click()
    expect(page.get_by_role("option", name=re.compile(r"^line \d+: …\[In fog"))).to_have_count(2)
    page.screenshot(path=str(tmp_path / "1-occurrences.png"))
    page.get_by_role("option", name=re.compile(r"^line 15: ")).click()
    page.keyboard.press("Escape")
    page.wait_for_selector(IDLE)
    write(page, main, "What do the keepers hear every minute in fog?", "heading_context", "q2")
    # 3: choose the table's lines
    click(page, main, "Choose lines")
    fill(page, main.get_by_label("First line"), "21", "Enter")
    fill(page, main.get_by_label("Last line"), "24", "Enter")
    expect(main.locator('[data-testid="stCode"]').filter(has_text=re.compile(r"^\| Shift[^│]*0-6 \|$"))).to_be_visible()
    write(page, main, "What are the hours of the second shift?", "table", "q3")
    # 4: a scratch question, deleted again in the table; q1's wording edited in place
    fill(page, main.get_by_label("First line"), "3", "Enter")
    fill(page, main.get_by_label("Last line"), "3", "Enter")
    write(page, main, "Scratch?", "list", "q4")
    grid = main.locator('[class*="st-key-write_table_"] [data-testid="stDataFrame"]')  # the set's editor
    expect(grid).to_contain_text("Scratch?")  # drawn with the fourth row
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.dblclick(box["x"] + 500, box["y"] + 35 + 17)  # q1's question cell (after id and kind): its editor
    editor = page.locator("textarea.gdg-input")
    expect(editor).to_have_value("When is the lamp lit?")
    editor.fill("When is the lighthouse lamp lit?")
    editor.press("Enter")
    expect(main.locator(".st-key-write_table_1")).to_be_attached()  # the edit applied: the table drawn afresh
    expect(main.get_by_text("Added q4.")).to_be_hidden()  # the layout has settled: measure the table again
    page.wait_for_selector(IDLE)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 3 * 35 + 17)  # row 4's marker
    grid.hover()
    page.locator('[data-testid="stElementToolbarButton"] button[aria-label="Delete row(s)"]').click()
    expect(main.locator(".st-key-write_table_2")).to_be_attached()
    expect(main.get_by_role("button", name=re.compile("Download the set"))).to_have_text(
        "Download the set (3 questions, JSONL)"
    )
    page.wait_for_selector(IDLE)

    want = expected_jsonl()
    questions = read_question_set(want, "jsonl", {"lighthouse.md": DOC})
    result = evaluate(questions, Contender.engine(OPTIONS), get_retriever("bm25"))
    recall, at_5, chunks = result.mean()["recall@budget"], result.mean()["recall@k"], len(result.chunks)
    assert chunks > 5  # so that recall at 5 is a choice
    expect(main.get_by_text("3 questions over 1 document (lighthouse.md)")).to_be_visible()
    assert metric(page, "Recall in budget") == f"{recall:.3f}"
    assert metric(page, "Recall at 5") == f"{at_5:.3f}" and metric(page, "Chunks") == f"{chunks}"
    page.screenshot(path=str(tmp_path / "2-written.png"))

    with page.expect_download() as download:
        main.get_by_role("button", name=re.compile("Download the set")).click()
    data = Path(download.value.path()).read_text(encoding="utf-8")
    assert data == want
    (tmp_path / "questions.jsonl").write_text(data, encoding="utf-8")
    assert load_question_set(tmp_path / "questions.jsonl").questions == questions.questions  # the CLI reads it too

    click(page, main, "Upload")
    main.locator('input[type="file"][accept*=".jsonl"]').set_input_files(str(tmp_path / "questions.jsonl"))
    expect(main.get_by_text(re.compile(r"^questions\.jsonl: 3 questions over 1 document"))).to_be_visible()
    page.wait_for_selector(IDLE)
    assert metric(page, "Recall in budget") == f"{recall:.3f}"
    page.screenshot(path=str(tmp_path / "3-uploaded-again.png"))

    page.get_by_role("link", name="Tune").click()  # away and back: the written set is still there
    page.wait_for_selector(IDLE)
    page.get_by_role("link", name="Evaluate").click()
    expect(main.get_by_text("3 questions over 1 document (lighthouse.md)")).to_be_visible()
    page.wait_for_selector(IDLE)
    assert metric(page, "Recall in budget") == f"{recall:.3f}"
