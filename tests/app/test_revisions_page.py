"""The Revisions page: a second revision of the open document, its chunks kept, added or removed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from chunk_inspector.app import frame
from chunk_inspector.cli.commands import main as chunker_main
from tests.app.conftest import plain

SAMPLE = Path(__file__).resolve().parents[2] / "sample_docs" / "poetry_cli.md"
TEXT = SAMPLE.read_text(encoding="utf-8")
# A day's edit: a few words changed in three places and a section added at the end.
EDITED = TEXT.replace("Poetry", "Poetry (the tool)", 3) + "\n## Changelog\n\nA new section written today.\n"


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def cards(app: AppTest) -> str:
    """The HTML of the page's two columns (the cards), as sent to the browser."""
    return "".join(h.proto.body for h in app.get("html"))


def open_revisions(app: AppTest) -> AppTest:
    app.select_slider(key="hard_cap").set_value(512).run()
    app.select_slider(key="target").set_value(256).run()
    app.switch_page("pages/revisions.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_a_pasted_revision_shows_the_counts_chunker_diff_gives(
    app: AppTest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Paste the new revision: kept, added, removed and the tokens to re-embed are those of `chunker diff` on
    the same two revisions at the same settings; each card is marked by its state and ids match the CLI's."""
    open_revisions(app)
    assert not app.metric and "Upload the new revision" in app.info[0].value
    app.segmented_control(key="rev_source").set_value("Paste").run()
    app.text_area(key="rev_paste").input(EDITED).run()
    assert not app.exception and not app.error
    new = tmp_path / SAMPLE.name
    new.write_text(EDITED, encoding="utf-8")
    assert (
        chunker_main(["diff", str(SAMPLE), str(new), "--format", "json", "--target", "256", "--hard-cap", "512"]) == 0
    )
    (cli,) = json.loads(capsys.readouterr().out)["documents"]
    assert cli["added"] and cli["removed"] and cli["kept"]
    assert metrics(app) == {
        "Kept": str(len(cli["kept"])),
        "Added": str(len(cli["added"])),
        "Removed": str(len(cli["removed"])),
        "Re-embed tokens": f"{cli['tokens']['reembed']:,}",
        "Re-embed share": f"{cli['tokens']['share']:.1%}",
    }
    html = cards(app)
    marked = dict(re.findall(r'data-chunk="(c\d+)" data-state="(added|kept)"', html))
    assert sorted(c for c, state in marked.items() if state == "added") == sorted(cli["added"])
    assert sorted(re.findall(r'data-chunk="(c\d+)" data-state="removed"', html)) == sorted(cli["removed"])

    app.toggle(key="rev_changes_only").set_value(True).run()
    html = cards(app)
    assert 'data-state="kept"' not in html
    assert html.count('data-state="added"') == len(cli["added"])
    assert html.count('data-state="removed"') == len(cli["removed"])


def test_an_uploaded_revision_is_untrusted_input(app: AppTest) -> None:
    """Binary and empty uploads get the frame's messages and no diff; HTML in a good one is shown as text, its
    name escaped."""
    open_revisions(app)
    for name, data, message in (
        ("photo.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary"),
        ("empty.md", b"   \n", "empty"),
    ):
        app.file_uploader(key="rev_upload").set_value((name, data, "text/markdown")).run()
        assert not app.exception
        error = plain(app.error[0].value)
        assert message in error and name in error
        assert not app.metric
    hostile = TEXT + '\n## Trap\n\n<script>window.pwned = 1</script>\n\n<img src=x onerror="window.pwned = 2">\n'
    name = "![x](http://198.51.100.9/x.png).md"  # a name is untrusted too: never Markdown
    app.file_uploader(key="rev_upload").set_value((name, hostile.encode(), "text/markdown")).run()
    assert not app.exception and not app.error
    heading = next(m.value for m in app.markdown if "New: " in m.value)
    assert plain(heading) == f"**New: {name}**" and "![x](" not in heading
    shown = metrics(app)
    assert int(shown["Added"]) >= 1 and int(shown["Kept"]) > int(shown["Added"])  # the end changed, not the rest
    html = cards(app)
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html
    assert "<script>" not in html and "<img" not in html


def test_a_revision_over_the_size_limit_is_refused(app: AppTest) -> None:
    open_revisions(app)
    app.segmented_control(key="rev_source").set_value("Paste").run()
    app.text_area(key="rev_paste").input("# Big\n\n" + "x" * (frame.MAX_UPLOAD_BYTES + 1)).run()
    assert not app.exception and not app.metric
    assert "5 MB" in app.error[0].value


def test_a_pasted_revision_is_still_there_after_a_look_at_upload_and_another_page(app: AppTest) -> None:
    """Choosing Upload (or another page) and then Paste again found the box empty: the revision pasted was gone."""
    open_revisions(app)
    app.segmented_control(key="rev_source").set_value("Paste").run()
    app.text_area(key="rev_paste").input(EDITED).run()
    counts = metrics(app)
    app.segmented_control(key="rev_source").set_value("Upload").run()
    app.switch_page("pages/inspect_chunks.py").run()
    app.switch_page("pages/revisions.py").run()
    app.segmented_control(key="rev_source").set_value("Paste").run()
    assert not app.exception
    assert app.text_area(key="rev_paste").value == EDITED and metrics(app) == counts
