"""chunker.spans: line and byte arithmetic over the text as passed in."""

from __future__ import annotations

from chunker.spans import SourceMap


def test_every_line_ending_style_ends_a_line() -> None:
    """\\n, \\r\\n and \\r each end a line; the text after the last break is the last line."""
    src = SourceMap("a\nb\r\nc\rd")
    assert src.line_starts == [0, 2, 5, 7]
    assert [src.line_end(n) for n in range(4)] == [1, 3, 6, 8]
    assert src.line_count == 4


def test_a_final_line_break_adds_no_empty_line() -> None:
    """A trailing break ends the last line; the empty text has no lines."""
    assert SourceMap("a\nb\n").line_count == 2
    assert SourceMap("").line_count == 0


def test_byte_offsets_count_utf8_bytes() -> None:
    """byte_offset converts char offsets to offsets into text.encode('utf-8')."""
    text = ("é日x" * 400) + "tail"
    src = SourceMap(text)
    for offset in (0, 1, 2, 3, 511, 512, 513, 1199, len(text)):
        assert src.byte_offset(offset) == len(text[:offset].encode())


def test_line_span_is_one_based_and_inclusive() -> None:
    """A span's line_span names the first and last lines it touches."""
    src = SourceMap("one\ntwo\nthree\n")
    assert src.line_span((0, 3)) == (1, 1)
    assert src.line_span((4, 13)) == (2, 3)
    assert src.line_span((8, 8)) == (3, 3)


def test_lines_to_chars_excludes_the_last_line_break() -> None:
    """A run of lines maps to a char span without its final line break."""
    src = SourceMap("one\r\ntwo\r\n")
    assert src.lines_to_chars(0, 2) == (0, 8)
