"""The Revisions page's two columns: each revision's chunks as cards, marked kept, added or removed.

In: the two revisions' chunks and their :class:`~chunk_inspector.revisions.DocumentDiff`. Out: HTML (for
``st.html``) in which every piece of a document (its text, its breadcrumb) is escaped: the chunks' text is
shown as text, never rendered as Markdown or HTML (docs/SECURITY.md).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import chunker
from chunk_inspector.app.view import PAGE_ROWS, plural, preview_box_css
from chunk_inspector.revisions import DocumentDiff
from chunker.wording import shorten

__all__ = ["PREVIEW_LINES", "Card", "cards", "cards_html"]

PREVIEW_LINES = 4  # lines of a kept chunk shown on its card
CHANGED_CHARS = 4_000  # characters of an added or removed chunk shown on its card (it scrolls); the page stays small
BOX_LINES = 10  # lines a card's text box shows before it scrolls

State = Literal["kept", "added", "removed"]
_STYLE: dict[State, tuple[str, str, str]] = {  # background, edge, mark
    "kept": ("#f4f4f5", "#9aa0a6", "= kept"),
    "added": ("#e6f4ea", "#1e8e3e", "+ added"),
    "removed": ("#fce8e6", "#d93025", "− removed"),
}


@dataclass(frozen=True, slots=True)
class Card:
    """One chunk of a revision, its state, and for a kept chunk the other revision's chunk with its content."""

    chunk: chunker.Chunk
    state: State
    partner: str | None = None


def cards(old: Sequence[chunker.Chunk], new: Sequence[chunker.Chunk], diff: DocumentDiff) -> tuple[list[Card], ...]:
    """The old revision's cards (kept or removed) and the new one's (kept or added), in document order."""
    first_old: dict[str, str] = {}
    for c in old:
        first_old.setdefault(c.content_sha256, c.id)
    first_new: dict[str, str] = {}
    for c in new:
        first_new.setdefault(c.content_sha256, c.id)
    removed = {c.id for c in diff.removed}
    added = {c.id for c in diff.added}
    old_cards = [
        Card(c, "removed") if c.id in removed else Card(c, "kept", first_new.get(c.content_sha256)) for c in old
    ]
    new_cards = [Card(c, "added") if c.id in added else Card(c, "kept", first_old.get(c.content_sha256)) for c in new]
    return old_cards, new_cards


_CSS = f"""<style>
.rv-card {{ margin: 0 0 4px 0; padding: 3px 8px; border-radius: 3px; font-size: 12.5px; }}
.rv-card pre {{ margin: 2px 0 0 0; padding: 0; white-space: pre-wrap; word-break: break-word; font-size: 11.5px;
  color: #333; background: none; {preview_box_css(BOX_LINES)} overflow-y: auto; }}
.rv-mark {{ font-weight: 600; }}
.rv-where {{ color: #5f6368; }}
.rv-more {{ color: #5f6368; font-style: italic; padding: 4px 8px; }}
</style>"""


def cards_html(items: Sequence[Card], *, side: Literal["old", "new"], changes_only: bool = False) -> str:
    """The cards as HTML: state, id, tokens, lines, the breadcrumb's last heading and the text (of a kept chunk
    its first lines, of an added or removed one up to ``CHANGED_CHARS``), all escaped; the kept ones only when
    not ``changes_only``; at most ``PAGE_ROWS`` of them."""
    shown = [card for card in items if not (changes_only and card.state == "kept")]
    parts = [_CSS]
    for card in shown[:PAGE_ROWS]:
        chunk = card.chunk
        bg, edge, mark = _STYLE[card.state]
        if card.partner is not None and card.partner != chunk.id:
            mark += f" ({'now' if side == 'old' else 'was'} {card.partner})"
        heading = chunk.breadcrumb[-1] if len(chunk.breadcrumb) > 1 else ""
        where = f' · <span class="rv-where">{html.escape(heading)}</span>' if heading else ""
        if card.state == "kept":
            preview = "\n".join(chunk.markdown.splitlines()[:PREVIEW_LINES])
        else:
            preview = shorten(chunk.markdown, CHANGED_CHARS)
        parts.append(
            f'<div class="rv-card rv-{card.state}" data-chunk="{chunk.id}" data-state="{card.state}" '
            f'style="background:{bg};border-left:5px solid {edge}">'
            f'<div><span class="rv-mark" style="color:{edge}">{html.escape(mark)}</span> · <b>{chunk.id}</b> · '
            f"{chunk.token_count} tokens · lines {chunk.line_span[0]}–{chunk.line_span[1]}{where}</div>"
            f"<pre>{html.escape(preview)}</pre></div>"
        )
    if len(shown) > PAGE_ROWS:
        parts.append(f'<div class="rv-more">… and {plural(len(shown) - PAGE_ROWS, "more chunk")}, not drawn</div>')
    if not shown:
        parts.append(f'<div class="rv-more">No chunk {"removed" if side == "old" else "added"}.</div>')
    return "".join(parts)
