"""Bytes -> text, with a clear error for what is not UTF-8 text. Pure: no file access."""

from __future__ import annotations

from chunker.errors import ChunkerError

__all__ = ["InputError", "decode_markdown"]


class InputError(ChunkerError):
    """The input is not text this engine can chunk (binary, not UTF-8)."""


def decode_markdown(data: bytes, name: str = "input") -> str:
    """Decode UTF-8 bytes (a leading BOM is dropped; line endings are kept as they are).

    Raises :class:`InputError` naming the file and the offending byte when the
    data is binary or not UTF-8.
    """
    if b"\x00" in data[:8192]:
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
