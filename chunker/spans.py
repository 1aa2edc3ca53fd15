"""The one place that does offset arithmetic.

Conventions (docs/method.md §3): ``char_span`` indexes the ``str`` as passed in,
``byte_span`` its UTF-8 encoding; both are 0-based and half-open. ``line_span``
is 1-based and inclusive; ``\\n``, ``\\r\\n`` and ``\\r`` each end a line.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate
from operator import add
from typing import Any

__all__ = ["SourceMap", "Span", "line_arrays", "line_bounds"]

Span = tuple[int, int]

_np: Any
try:
    import numpy as _np
except ImportError:  # pragma: no cover - a dependency; without it SourceMap.locate looks spans up one by one
    _np = None


def _numbers(values: array[int]) -> Any:
    """An array of machine integers as a numpy array, without a copy."""
    return _np.frombuffer(values, dtype=_np.uint32 if values.itemsize == 4 else _np.uint64)


_LINE_END = re.compile(r"\r\n?|\n")
_LINE_END_BYTES = re.compile(rb"\r\n?|\n")
_STRIDE = 512  # characters between byte-offset checkpoints in non-ASCII text


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def line_bounds(text: str | bytes) -> tuple[list[int], list[int]]:
    """Start offsets of the lines of ``text`` and where each line's content ends (before its break).

    A final line break ends the last line: no empty line follows it. The empty text has
    one empty line. For ``bytes``, byte offsets.
    """
    starts: list[int]
    ends: list[int]
    lines: list[str] | list[bytes] | None
    if isinstance(text, str):
        lines = None if "\r" in text else text.split("\n")
    else:
        lines = None if b"\r" in text else text.split(b"\n")
    if lines is not None:
        # Linear in C: the lengths of the lines, summed (str.split is far faster than a regex).
        summed = list(accumulate(map(len, lines)))
        starts = [0, *map(add, summed[:-1], range(1, len(lines)))]
        ends = list(map(add, summed, range(len(lines))))
    else:
        breaks = (
            [m.span() for m in _LINE_END.finditer(text)]
            if isinstance(text, str)
            else [m.span() for m in _LINE_END_BYTES.finditer(text)]
        )
        starts = [0, *(end for _, end in breaks)]
        ends = [*(start for start, _ in breaks), len(text)]
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final line break ends the last line; no empty line after it
        ends.pop()
    return starts, ends


# Characters per piece of a text read by line_arrays: the temporary lists of one piece stay
# small (a whole text split at once costs a copy of it in line strings, and more).
_PIECE_CHARS = 1 << 16


def line_arrays(text: str, utf8: bool = False) -> tuple[array[int], array[int]]:
    """:func:`line_bounds` of ``text`` (of its UTF-8 encoding when ``utf8``) as arrays of machine integers.

    Four bytes a line start instead of a Python int and a list slot (36): a document keeps
    these. The text is read in pieces that end after a ``\\n`` (a ``\\r\\n`` stays whole), so
    no copy of the whole text is made, nor of its encoding.
    """
    typecode = "I" if len(text) < 2**30 else "Q"  # a character is at most 4 bytes
    starts, ends = array(typecode), array(typecode)
    if not text:
        starts.append(0)
        ends.append(0)
        return starts, ends
    base = 0
    for first, stop in _pieces(text):
        # a piece that ends with a line break has no empty line after it (line_bounds): the next piece starts there
        piece = text[first:stop].encode("utf-8", "surrogatepass") if utf8 else text[first:stop]
        piece_starts, piece_ends = line_bounds(piece)
        if base:
            starts.extend(map(base.__add__, piece_starts))
            ends.extend(map(base.__add__, piece_ends))
        else:
            starts.extend(piece_starts)
            ends.extend(piece_ends)
        base += len(piece)
    return starts, ends


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    """``[first, stop)`` spans that cover ``text``, each of at least _PIECE_CHARS characters and
    ending just after a ``\\n`` (but the last)."""
    first, length = 0, len(text)
    while first < length:
        stop = text.find("\n", first + _PIECE_CHARS) + 1
        if stop <= 0:
            stop = length
        yield first, stop
        first = stop


class SourceMap:
    """Line and byte lookups over one text, built once in linear time (byte lookups on first use)."""

    __slots__ = ("_byte_lines", "_byte_marks", "_content_ends", "ascii", "line_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts, ends = line_arrays(text)
        self.line_starts: array[int] = starts
        self._content_ends: array[int] = ends
        self.ascii = text.isascii()  # then byte offsets are char offsets
        self._byte_lines: tuple[array[int], array[int]] | None = None
        self._byte_marks: array[int] | None = None

    @property
    def line_count(self) -> int:
        """Number of lines; 0 for the empty text."""
        return len(self.line_starts) if self.text else 0

    @property
    def line_ends(self) -> array[int]:
        """Char offset where the content of each line ends (before its line break)."""
        return self._content_ends

    def byte_lines(self) -> tuple[array[int], array[int]]:
        """UTF-8 offsets of the line starts and of where each line's content ends (:func:`line_bounds` of the bytes)."""
        if self.ascii:
            return self.line_starts, self._content_ends
        if self._byte_lines is None:
            self._byte_lines = line_arrays(self.text, utf8=True)
        return self._byte_lines

    def line_end(self, line: int) -> int:
        """Char offset where the content of 0-based ``line`` ends (before its line break)."""
        return self._content_ends[line]

    def line_index(self, offset: int) -> int:
        """0-based index of the line holding char ``offset``."""
        return bisect_right(self.line_starts, offset) - 1

    def byte_offset(self, offset: int) -> int:
        """UTF-8 byte offset of char ``offset``."""
        if self.ascii:
            return offset
        starts = self.line_starts
        line = bisect_right(starts, offset) - 1
        start = starts[line]
        if offset - start <= _STRIDE:  # from the start of its line
            return self.byte_lines()[0][line] + _utf8_len(self.text[start:offset])
        marks = self._byte_marks
        if marks is None:  # in a long line: from a checkpoint every _STRIDE characters
            text = self.text
            marks = array(
                "Q", accumulate((_utf8_len(text[i : i + _STRIDE]) for i in range(0, len(text), _STRIDE)), initial=0)
            )
            self._byte_marks = marks
        mark = offset // _STRIDE
        return marks[mark] + _utf8_len(self.text[mark * _STRIDE : offset])

    def lines_to_chars(self, first: int, stop: int) -> Span:
        """Char span of 0-based lines ``first`` to ``stop`` (exclusive), without the last break."""
        return self.line_starts[first], self._content_ends[stop - 1]

    def byte_span(self, span: Span) -> Span:
        return self.byte_offset(span[0]), self.byte_offset(span[1])

    def line_span(self, span: Span) -> Span:
        """1-based inclusive lines touched by a char span (an empty span: its own line)."""
        first = self.line_index(span[0])
        last = self.line_index(span[1] - 1) if span[1] > span[0] else first
        return first + 1, last + 1

    def locate(self, spans: Sequence[Span]) -> tuple[list[Span], list[Span]]:
        """:meth:`byte_span` and :meth:`line_span` of each of ``spans``, all at once.

        With numpy, the lines are found by one search of the line starts for all spans, and a
        span that starts a line and ends at its last line's content (most chunks) takes its byte
        offsets from the table of byte line starts and ends, which a parse of a non-ASCII text
        has made; only the others are measured.
        """
        if _np is None or not spans:
            return [self.byte_span(span) for span in spans], [self.line_span(span) for span in spans]
        pairs = _np.array(spans, dtype=_np.int64).reshape(-1, 2)
        starts, ends = pairs[:, 0], pairs[:, 1]
        line_starts = _numbers(self.line_starts)
        first = _np.searchsorted(line_starts, starts, "right") - 1  # 0-based
        last = _np.where(ends > starts, _np.searchsorted(line_starts, ends - 1, "right") - 1, first)
        line_spans = list(zip((first + 1).tolist(), (last + 1).tolist(), strict=True))
        if self.ascii:
            return list(spans), line_spans
        byte_starts, byte_ends = map(_numbers, self.byte_lines())
        unknown = _np.int64(-1)  # a signed -1: the tables are unsigned
        byte_first = _np.where(starts == line_starts[first], byte_starts[first], unknown).tolist()
        byte_last = _np.where(ends == _numbers(self._content_ends)[last], byte_ends[last], unknown).tolist()
        byte_spans = [
            (self.byte_offset(start) if b0 < 0 else b0, self.byte_offset(end) if b1 < 0 else b1)
            for (start, end), b0, b1 in zip(spans, byte_first, byte_last, strict=True)
        ]
        return byte_spans, line_spans
