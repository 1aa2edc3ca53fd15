"""chunker.spans: line and byte arithmetic over the text as passed in."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from chunker.spans import SourceMap, line_bounds


def test_every_line_ending_style_ends_a_line() -> None:
    """\\n, \\r\\n and \\r each end a line; the text after the last break is the last line."""
    src = SourceMap("a\nb\r\nc\rd")
    assert list(src.line_starts) == [0, 2, 5, 7]
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


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab\n\r é日")), max_size=30))
def test_line_bounds_split_at_every_kind_of_line_break(text: str) -> None:
    """line_bounds agrees with a plain scan for \\n, \\r\\n and \\r, on str and on its UTF-8 bytes."""
    starts, ends = [0], []
    for match in re.finditer(r"\r\n?|\n", text):
        ends.append(match.start())
        starts.append(match.end())
    ends.append(len(text))
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()
        ends.pop()
    assert line_bounds(text) == (starts, ends)
    data = text.encode()
    assert line_bounds(data)[0] == [len(text[:s].encode()) for s in starts]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab é日😀")), max_size=700), max_size=4), st.data())
def test_byte_lookups_agree_with_encoding_the_prefix(lines: list[str], data: st.DataObject) -> None:
    """byte_offset (within a line's first 512 characters or past them) and byte_lines count UTF-8 bytes."""
    text = data.draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)
    source = SourceMap(text)
    for offset in data.draw(st.lists(st.integers(0, len(text)), max_size=8)):
        assert source.byte_offset(offset) == len(text[:offset].encode())
    assert tuple(map(list, source.byte_lines())) == line_bounds(text.encode())
    assert source.byte_offset(len(text)) == len(text.encode())


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab\n\r é日😀")), max_size=60),
    st.data(),
    st.booleans(),
)
def test_locate_gives_each_spans_bytes_and_lines(text: str, data: st.DataObject, with_numpy: bool) -> None:
    """SourceMap.locate of many spans (with numpy, or one by one without) is byte_span and line_span of each."""
    import chunker.spans

    bounds = data.draw(st.lists(st.tuples(st.integers(0, len(text)), st.integers(0, len(text))), max_size=10))
    spans = [(min(a, b), max(a, b)) for a, b in bounds]
    source = SourceMap(text)
    starts, ends = source.line_starts, source.line_ends
    # chunks mostly start a line and end at the content of their last: those bytes come from the table
    spans += [(starts[i], ends[j]) for i in range(len(starts)) for j in range(i, len(starts))]
    source.byte_lines()  # as a parse of a non-ASCII text leaves it
    saved = chunker.spans._np
    if not with_numpy:
        chunker.spans._np = None
    try:
        located = source.locate(spans)
    finally:
        chunker.spans._np = saved
    assert located == ([source.byte_span(s) for s in spans], [source.line_span(s) for s in spans])
    assert located[0] == [(len(text[:a].encode()), len(text[:b].encode())) for a, b in spans]
