"""The Revisions journey in a real headless Chromium: paste a new revision, see what `chunker diff` says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from chunk_inspector.cli.commands import main as chunker_main
from tests.browser.harness import IDLE, metric, open_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_docs" / "redux_modern_redux.md"
TEXT = SAMPLE.read_text(encoding="utf-8")
# A day's edit: a section inserted in the middle (the chunks after it move: other ids, the same text) and a
# line added at the end that holds HTML.
EDITED = (
    TEXT.replace(
        "## Writing Thunks\n",
        "## A Note on Thunks\n\n"
        + "A thunk is a function the store calls with dispatch. " * 40
        + "\n\n## Writing Thunks\n",
        1,
    )
    + "\nA line added in the new revision. <script>window.__pwned = 1</script>\n"
)


def test_paste_a_revision_and_see_the_counts_chunker_diff_gives(
    page: Page, app_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Open Revisions on a sample at 256/512, paste an edited copy: the kept, added and removed counts and the
    tokens to re-embed are `chunker diff`'s on the same two files; added and removed cards are marked, and the
    revision's HTML is shown as text."""
    new = tmp_path / SAMPLE.name
    new.write_text(EDITED, encoding="utf-8")
    assert (
        chunker_main(["diff", str(SAMPLE), str(new), "--format", "json", "--target", "256", "--hard-cap", "512"]) == 0
    )
    (cli,) = json.loads(capsys.readouterr().out)["documents"]
    assert cli["added"] and cli["removed"] and cli["kept"]

    open_app(page, app_url, f"revisions?sample={SAMPLE.name}&hard_cap=512&target=256")
    main = page.locator('[data-testid="stMain"]')
    main.locator("button").filter(has_text=re.compile("^Paste$")).first.click()
    area = main.locator("textarea")
    area.wait_for(state="attached")
    page.wait_for_selector(IDLE)
    area.fill(EDITED)
    area.press("Control+Enter")
    expect(page.locator('[data-testid="stMetric"]').first).to_be_visible(timeout=60_000)
    page.wait_for_selector(IDLE)
    assert metric(page, "Kept") == str(len(cli["kept"]))
    assert metric(page, "Added") == str(len(cli["added"]))
    assert metric(page, "Removed") == str(len(cli["removed"]))
    assert metric(page, "Re-embed tokens") == f"{cli['tokens']['reembed']:,}"
    assert metric(page, "Re-embed share") == f"{cli['tokens']['share']:.1%}"
    added = page.locator('.rv-card[data-state="added"]')
    expect(added).to_have_count(len(cli["added"]))
    expect(page.locator('.rv-card[data-state="removed"]')).to_have_count(len(cli["removed"]))
    expect(added.last).to_contain_text("<script>window.__pwned = 1</script>")
    assert page.evaluate("window.__pwned === undefined")
    expect(page.locator('.rv-card[data-state="kept"]').filter(has_text="(was c").first).to_be_visible()
    page.get_by_text("Changed chunks only").click()
    page.wait_for_selector(IDLE)
    expect(page.locator('.rv-card[data-state="kept"]')).to_have_count(0)
    expect(added).to_have_count(len(cli["added"]))
