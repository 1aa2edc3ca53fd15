"""How a message words what it shows: a value cut short (:func:`shorten` for text, :func:`quoted` for any
value's ``repr``) and a count with its word (:func:`plural`).

``shorten`` and ``quoted`` take a text (or any value) and a length in characters and give a text of at most
that many characters, ``"…"`` marking where it was cut. The engine's messages and every layer above it
(the CLI, the evaluation, the app) word what they quote and count through here.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["ELLIPSIS", "QUOTED", "plural", "quoted", "shorten"]

ELLIPSIS = "…"
QUOTED = 60  # characters of a value a message quotes by default (:func:`quoted`)


def shorten(text: str, limit: int, *, keep: Literal["start", "end", "both"] = "start") -> str:
    """``text`` when it has at most ``limit`` characters; else ``limit`` characters of it, ``"…"`` among them
    where text was left out: the ``start`` kept (``"abcdefgh"``, 5 -> ``"abcd…"``), the ``end`` (``"…efgh"``) or
    ``both`` (``"ab…gh"``). A limit of 0 gives ``""``, of 1 ``"…"``; a negative one is a ``ValueError``.

    A character is a code point: one beyond the BMP (an emoji) is one, never split; a surrogate pair that
    decoding with ``surrogatepass`` left as two is not split either (the cut moves before it).
    """
    if limit < 0:
        raise ValueError(f"a text is shortened to 0 characters or more, not {limit}")
    if len(text) <= limit:
        return text
    if limit == 0:
        return ""
    room = limit - 1
    if keep == "start":
        return text[: _before_pair(text, room)] + ELLIPSIS
    if keep == "end":
        return ELLIPSIS + text[_after_pair(text, len(text) - room) :]
    head = (room + 1) // 2
    return text[: _before_pair(text, head)] + ELLIPSIS + text[_after_pair(text, len(text) - (room - head)) :]


def quoted(value: object, limit: int = QUOTED) -> str:
    """``repr(value)`` shortened to ``limit`` characters (:func:`shorten`), for a message that quotes a value
    from untrusted input; a value nested too deeply to ``repr`` is named as such."""
    try:
        shown = repr(value)
    except RecursionError:
        return "(a value nested too deeply)"
    return shorten(shown, limit)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the word that counts it, one or many (``many``, else ``word`` + "s"), the number with thousands
    separators: ``1 chunk``, ``0 chunks``, ``3,275 chunks``."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def _splits_pair(text: str, cut: int) -> bool:
    """Whether cutting ``text`` at ``cut`` would part a high surrogate from the low one after it."""
    return 0 < cut < len(text) and "\ud800" <= text[cut - 1] <= "\udbff" and "\udc00" <= text[cut] <= "\udfff"


def _before_pair(text: str, cut: int) -> int:
    """``cut``, or one before it when it falls inside a surrogate pair (a prefix that ends before it)."""
    return cut - 1 if _splits_pair(text, cut) else cut


def _after_pair(text: str, cut: int) -> int:
    """``cut``, or one after it when it falls inside a surrogate pair (a suffix that starts after it)."""
    return cut + 1 if _splits_pair(text, cut) else cut
