"""chunk_inspector.revisions: which chunks of a new revision are kept, added, and which of the old removed."""

from __future__ import annotations

import chunker
from chunk_inspector.revisions import diff_chunks, total

INTRO = "# Guide\n\nThe guide explains the tool.\n\n"
INSTALL = "## Install\n\n" + "Run the installer and wait for it to finish. " * 12 + "\n\n"
USE = "## Use\n\n" + "Call the tool with a file and read what it prints. " * 12 + "\n\n"
FAQ = "## FAQ\n\n" + "Ask on the forum when something is unclear. " * 12 + "\n"


def chunks(text: str) -> chunker.ChunkSet:
    return chunker.chunk_markdown(text, name="guide.md", target=64, hard_cap=128)


def test_an_edit_in_one_section_adds_its_chunks_and_keeps_those_that_moved() -> None:
    """Editing the Use section: its chunks are added and the old ones removed; every other chunk is kept,
    even those after the edit, whose positions (ids, spans) changed."""
    old = chunks(INTRO + INSTALL + USE + FAQ)
    new = chunks(INTRO + INSTALL + USE.replace("the tool", "the new tool") + "An extra sentence. " * 30 + "\n\n" + FAQ)
    diff = diff_chunks(old, new, "guide.md")
    edited = [c for c in new if "Use" in c.breadcrumb]
    assert [c.id for c in diff.added] == [c.id for c in edited] and edited
    assert [c.id for c in diff.removed] == [c.id for c in old if "Use" in c.breadcrumb]
    faq_old = [c for c in old if "FAQ" in c.breadcrumb]
    faq_new = [c for c in new if "FAQ" in c.breadcrumb]
    assert [c.id for c in faq_old] != [c.id for c in faq_new], "the FAQ moved: its ids differ"
    assert {c.id for c in faq_new} <= {c.id for c in diff.kept}
    assert len(diff.kept) + len(diff.added) == len(new)
    assert diff.status == "changed"
    assert diff.reembed_tokens == sum(c.token_count for c in edited)
    assert diff.new_tokens == sum(c.token_count for c in new)
    assert diff.share == diff.reembed_tokens / diff.new_tokens
    record = diff.to_dict()
    assert record["added"] == [c.id for c in edited]
    assert record["counts"] == {"kept": len(new) - len(edited), "added": len(edited), "removed": len(diff.removed)}


def test_content_is_compared_as_a_set_as_an_index_stores_it() -> None:
    """A chunk repeated in the new revision is kept when the old one has its text anywhere; the old copies of a
    text the new revision still has are not removed."""
    para = "## Note\n\nThe same note, word for word, in every place it appears.\n\n"
    old = chunker.chunk_markdown(INTRO + para, name="n.md", target=16, hard_cap=32)
    new = chunker.chunk_markdown(INTRO + para + para + para, name="n.md", target=16, hard_cap=32)
    note = [c for c in new if "word for word" in c.markdown]
    assert len(note) == 3 and len({c.content_sha256 for c in note}) == 1
    diff = diff_chunks(old, new, "n.md")
    assert {c.id for c in note} <= {c.id for c in diff.kept} and not diff.removed
    assert diff_chunks(new, old, "n.md").removed == ()


def test_a_document_on_one_side_only_is_all_added_or_all_removed() -> None:
    doc = chunks(INTRO + INSTALL)
    added = diff_chunks(None, doc, "guide.md")
    assert (added.status, added.added, added.kept, added.removed) == ("added", tuple(doc), (), ())
    assert added.share == 1.0
    removed = diff_chunks(doc, None, "guide.md")
    assert (removed.status, removed.removed, removed.added) == ("removed", tuple(doc), ())
    assert removed.share is None and removed.new_tokens == 0
    same = diff_chunks(doc, chunks(INTRO + INSTALL), "guide.md")
    assert (same.status, len(same.kept), same.share) == ("unchanged", len(doc), 0.0)
    sums = total([added, removed, same])
    assert (sums.documents, sums.kept, sums.added, sums.removed) == (3, len(doc), len(doc), len(doc))
    assert sums.share == 0.5  # the added document's tokens over both new documents' tokens
    assert sums.to_dict()["tokens"] == {"new": 2 * added.new_tokens, "reembed": added.new_tokens, "share": 0.5}


def test_the_revisions_cards_name_where_a_kept_chunk_moved_and_escape_the_text() -> None:
    """A kept chunk whose id changed says where it was (new side) and is now (old side); text is escaped."""
    from chunk_inspector.app.revisions_view import cards, cards_html

    old = chunks(INTRO + INSTALL + FAQ)
    new = chunks(INTRO + "## <b>Added</b>\n\n" + "Fresh words & more. " * 60 + "\n\n" + INSTALL + FAQ)
    diff = diff_chunks(old, new, "guide.md")
    old_cards, new_cards = cards(old, new, diff)
    faq_old = next(c for c in old_cards if "FAQ" in c.chunk.breadcrumb)
    faq_new = next(c for c in new_cards if "FAQ" in c.chunk.breadcrumb)
    assert (faq_old.state, faq_old.partner, faq_new.partner) == ("kept", faq_new.chunk.id, faq_old.chunk.id)
    assert faq_old.chunk.id != faq_new.chunk.id
    assert [c.state for c in new_cards].count("added") == len(diff.added) > 0
    page = cards_html(new_cards, side="new")
    assert f"= kept (was {faq_old.chunk.id})" in page
    assert "&lt;b&gt;Added&lt;/b&gt;" in page and "Fresh words &amp; more." in page and "<b>Added" not in page
    assert f"= kept (now {faq_new.chunk.id})" in cards_html(old_cards, side="old")
    unchanged, _ = cards(old, old, diff_chunks(old, old, "guide.md"))
    assert "No chunk removed." in cards_html(unchanged, side="old", changes_only=True)
    assert 'data-state="kept"' not in cards_html(old_cards, side="old", changes_only=True)
