"""chunker.wording: the one way a message cuts what it shows to a length."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunker.wording import ELLIPSIS, plural, quoted, shorten


def test_a_text_within_the_limit_is_returned_as_it_is() -> None:
    """Short text, and text of exactly the limit, are not cut and get no ellipsis."""
    assert shorten("", 0) == ""
    assert shorten("abc", 10) == "abc"
    assert shorten("abcde", 5) == "abcde"


def test_a_longer_text_is_cut_to_the_limit_with_the_ellipsis_where_text_was_left_out() -> None:
    """One over the limit is cut: the result has exactly ``limit`` characters, the last one the ellipsis."""
    assert shorten("abcdef", 5) == "abcd…"
    assert shorten("abcdef", 5, keep="end") == "…cdef"
    assert shorten("abcdefgh", 5, keep="both") == "ab…gh"
    assert shorten("abcdefgh", 6, keep="both") == "abc…gh"


def test_limits_of_zero_one_and_two() -> None:
    """Limit 0 leaves nothing, 1 only the ellipsis, 2 one character and the ellipsis, whatever is kept."""
    for keep in ("start", "end", "both"):
        assert shorten("abc", 0, keep=keep) == ""
        assert shorten("abc", 1, keep=keep) == ELLIPSIS
    assert shorten("abc", 2) == "a…"
    assert shorten("abc", 2, keep="end") == "…c"
    assert shorten("abc", 2, keep="both") == "a…"


def test_a_negative_limit_is_a_caller_mistake() -> None:
    with pytest.raises(ValueError, match="-1"):
        shorten("abc", -1)


def test_a_character_beyond_the_bmp_counts_as_one_and_is_never_split() -> None:
    """An emoji is one character: 😀 * 10 cut to 4 keeps three whole ones."""
    assert shorten("😀" * 10, 4) == "😀😀😀…"
    assert shorten("😀" * 10, 4, keep="end") == "…😀😀😀"
    assert shorten("a😀b", 3) == "a😀b"


def test_a_surrogate_pair_left_as_two_code_points_is_not_parted() -> None:
    """Text decoded with ``surrogatepass`` may hold 😀 as a high and a low surrogate: a cut between them would
    leave a lone half, so the cut moves to before (or after) the pair and the result is shorter by one."""
    pair = "😀".encode("utf-16-le").decode("utf-16-le", "surrogatepass")
    split = b"\xed\xa0\xbd\xed\xb8\x80".decode("utf-8", "surrogatepass")  # 😀 as two surrogates
    assert len(split) == 2 and pair == "😀"
    text = "ab" + split + "cd"
    assert shorten(text, 4) == "ab…"  # not "ab\ud83d…"
    assert shorten(text, 5) == "ab" + split + "…"
    assert shorten(text, 4, keep="end") == "…cd"  # not "…\ude00cd"
    assert shorten(text, 5, keep="end") == "…" + split + "cd"
    assert shorten(text, 5, keep="both") == "ab…cd"
    lone = "ab\udcffcdef"  # an undecodable byte kept as a surrogate escape is a character like any other
    assert shorten(lone, 4) == "ab\udcff…"


@given(st.text(), st.integers(min_value=0, max_value=40), st.sampled_from(["start", "end", "both"]))
def test_the_result_fits_and_keeps_text_from_the_ends_it_was_asked_to(text: str, limit: int, keep: str) -> None:
    """Whatever the text: at most ``limit`` characters; uncut when it fits; else the ellipsis stands where text
    was left out and the rest is the text's own start, end, or both."""
    shown = shorten(text, limit, keep=keep)  # type: ignore[arg-type]
    assert len(shown) <= limit
    if len(text) <= limit:
        assert shown == text
        return
    if limit == 0:
        assert shown == ""
        return
    if keep == "start":
        assert shown.endswith(ELLIPSIS) and text.startswith(shown[:-1])
    elif keep == "end":
        assert shown.startswith(ELLIPSIS) and text.endswith(shown[1:])
    else:
        assert any(
            mark == ELLIPSIS and text.startswith(shown[:i]) and text.endswith(shown[i + 1 :])
            for i, mark in enumerate(shown)
        )


def test_quoted_shows_the_repr_cut_to_sixty_characters_by_default() -> None:
    assert quoted("x") == "'x'"
    assert quoted("x" * 58) == "'" + "x" * 58 + "'"  # 60: exactly the limit
    assert quoted("x" * 59) == "'" + "x" * 58 + "…"
    assert quoted([1, 2] * 100, 10) == "[1, 2, 1,…"


def test_quoted_names_a_value_too_deep_to_repr_without_raising() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert quoted(deep) == "(a value nested too deeply)"


def test_plural_counts_one_or_many_with_thousands_separators() -> None:
    assert plural(1, "chunk") == "1 chunk"
    assert plural(0, "chunk") == "0 chunks"
    assert plural(3275, "chunk") == "3,275 chunks"
    assert plural(2, "query", "queries") == "2 queries"
