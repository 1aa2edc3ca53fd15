"""The fields of the engine's JSON read back (chunk sets, outlines, documents): each of the type it was written as.

JSON read back may come from anywhere (docs/SECURITY.md): a field of another type, a number JSON writes as
``1e400`` (infinity once read), or a span that runs backwards is refused here with a ``TypeError`` or a
``ValueError``, which each reader turns into its :class:`~chunker.errors.ChunkerError`. A value is quoted in a
message cut short (:func:`chunker.wording.quoted`).
"""

from __future__ import annotations

from typing import Any

from chunker.decode import lone_surrogate
from chunker.spans import Span
from chunker.wording import quoted

__all__ = ["optional_text", "span", "text", "texts", "whole"]


def text(value: Any) -> str:
    """A string, else ``TypeError``; one holding a lone surrogate (JSON's ``"\\ud800"``), which no chunk set
    could be written with, is a ``ValueError`` (:func:`chunker.decode.lone_surrogate`)."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {quoted(value)}")
    found = lone_surrogate(value)
    if found is not None:
        raise ValueError(f"a string is not Unicode text: {found}")
    return value


def optional_text(value: Any) -> str | None:
    """A string or None (JSON's null), else ``TypeError``."""
    return None if value is None else text(value)


def texts(value: Any) -> list[str]:
    """A list of strings, else ``TypeError``."""
    if not isinstance(value, list):
        raise TypeError(f"expected a list of strings, got {quoted(value)}")
    return [text(item) for item in value]


def whole(value: Any) -> int:
    """A whole number, else ``TypeError``: not a bool, not a float (``1e400`` reads as infinity), not a string."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number, got {quoted(value)}")
    return value


def span(value: Any) -> Span:
    """A two-element array of whole numbers ``[start, end]`` with ``0 <= start <= end``, else ``ValueError``."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(f"a span is a two-element array, got {quoted(value)}")
    start, end = whole(value[0]), whole(value[1])
    if not 0 <= start <= end:
        raise ValueError(f"a span runs forward from 0, got {quoted(value)}")
    return start, end
