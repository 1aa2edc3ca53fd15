"""Bytes -> text, with a clear error for what is not UTF-8 text. Pure: no file access."""

from __future__ import annotations

import re

from chunker.errors import ChunkerError

__all__ = ["InputError", "check_unicode", "decode_markdown", "lone_surrogate"]

_SURROGATE = re.compile("[\ud800-\udfff]")


class InputError(ChunkerError):
    """The input is not text this engine can chunk (binary, not UTF-8, a lone surrogate)."""


def lone_surrogate(text: str) -> str | None:
    """Where ``text`` holds a lone surrogate, which UTF-8 cannot hold (an undecodable byte kept by
    ``errors="surrogateescape"``, JSON's ``"\\ud800"``), as words: ``"a lone surrogate U+D800 at offset 1
    (line 1)"`` (offset 0-based, in characters); None for Unicode text."""
    found = None if text.isascii() else _SURROGATE.search(text)
    if found is None:
        return None
    at = found.start()
    return f"a lone surrogate U+{ord(found.group()):04X} at offset {at:,} (line {text.count(chr(10), 0, at) + 1:,})"


def check_unicode(text: str, what: str) -> None:
    """Refuse, with :class:`InputError`, a ``str`` that holds a lone surrogate (:func:`lone_surrogate`): its
    chunks could not be written as JSON or UTF-8. It is refused where it comes in, naming ``what`` and where the
    surrogate is, rather than replaced: the engine never changes the text it is given (docs/method.md §1)."""
    found = lone_surrogate(text)
    if found is not None:
        raise InputError(
            f"{what} is not Unicode text: {found}, which UTF-8 cannot hold; "
            "decode it as UTF-8 without errors='surrogateescape', or replace it"
        )


def decode_markdown(data: bytes, name: str = "input") -> str:
    """Decode UTF-8 bytes (a leading BOM is dropped; line endings are kept as they are).

    Raises :class:`InputError` naming the file and the offending byte when the
    data is binary or not UTF-8.
    """
    if b"\x00" in data[:8192] or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = _utf16_or_32(data)
        if encoding is not None:
            raise InputError(
                f"{name} is {encoding} text, not UTF-8: convert it first, e.g. `iconv -f {encoding} -t UTF-8`"
            )
        raise InputError(f"{name} looks like a binary file (it contains NUL bytes), not Markdown text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{name} is not UTF-8 text: byte 0x{bad} at offset {exc.start} (line {line}); "
            f"convert it first, e.g. `iconv -f latin1 -t utf-8`"
        ) from None


def _utf16_or_32(data: bytes) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when ``data`` reads as such text (by its byte order mark, or for
    text without one, by where its NUL bytes fall), else None."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    head = data[:8192]
    for encoding, width in (("UTF-32", 4), ("UTF-16", 2)):
        if len(data) % width or len(head) < 4 * width:  # such text is whole code units, and a few of them
            continue
        usable = len(head)
        for order in ("-le", "-be"):
            try:
                text = head[:usable].decode(encoding + order)
            except UnicodeDecodeError:
                continue
            # Without a mark, ask for mostly ASCII text: a few binary bytes decode as printable too.
            if all(c.isprintable() or c in "\t\r\n" for c in text) and sum(c < "\x80" for c in text) * 2 > len(text):
                return encoding
    return None
