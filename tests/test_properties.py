"""Property tests: for generated Markdown and every target <= hard_cap, the contract holds,
under every packing strategy (docs/method.md §5a)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunker
from tests.invariants import check_chunk_set

_word = st.sampled_from(
    ["alpha", "beta", "gamma", "délta", "日本語", "x", "2024", "<|endoftext|>", "`tick`", "**b**", "e.g.", "end."]
)
_sentence = st.lists(_word, min_size=1, max_size=25).map(lambda ws: " ".join(ws).capitalize() + ".")
_paragraph = st.lists(_sentence, min_size=1, max_size=12).map(" ".join)
_wrapped = _paragraph.map(lambda p: "\n".join(p[i : i + 60] for i in range(0, len(p), 60)))


@st.composite
def _heading(draw: st.DrawFn) -> str:
    title = draw(st.lists(_word, min_size=0, max_size=5).map(" ".join))
    if draw(st.booleans()):
        return "#" * draw(st.integers(1, 6)) + " " + title
    return (title or "T") + "\n" + draw(st.sampled_from(["===", "---"]))


@st.composite
def _code(draw: st.DrawFn) -> str:
    fence = draw(st.sampled_from(["```", "~~~", "````"]))
    info = draw(st.sampled_from(["", "python", "js title=x"]))
    lines = draw(
        st.lists(st.one_of(_sentence, st.just(""), st.just("``` not a close"), st.just("    indented")), max_size=60)
    )
    closed = draw(st.booleans()) or True
    return f"{fence}{info}\n" + "\n".join(lines) + ("\n" + fence if closed else "")


@st.composite
def _table(draw: st.DrawFn) -> str:
    cols = draw(st.integers(1, 4))
    rows = draw(st.lists(st.lists(_word, min_size=cols, max_size=cols), max_size=40))
    head = "| " + " | ".join(f"h{n}" for n in range(cols)) + " |"
    delim = "|" + "---|" * cols
    return "\n".join([head, delim, *("| " + " | ".join(r) + " |" for r in rows)])


@st.composite
def _list(draw: st.DrawFn) -> str:
    items = draw(st.lists(st.tuples(_sentence, st.booleans(), st.booleans()), min_size=1, max_size=25))
    marker = draw(st.sampled_from(["-", "*", "1."]))
    out = []
    for text, nested, loose in items:
        out.append(f"{marker} {text}")
        if nested:
            out.append(f"   - nested {text}")
        if loose:
            out.append("")
    return "\n".join(out)


_block = st.one_of(
    _heading(),
    _paragraph,
    _wrapped,
    _code(),
    _table(),
    _list(),
    _paragraph.map(lambda p: "> " + p.replace(". ", ".\n> ")),
    st.just("<div>\n<p>html <b>block</b></p>\n</div>"),
    st.just("---"),
    st.just("[ref]: https://example.com"),
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(_block, max_size=30))
    sep = draw(st.sampled_from(["\n\n", "\n", "\n\n\n", "\n  \n"]))
    text = sep.join(blocks)
    if draw(st.booleans()):
        text = "---\ntitle: generated\n---\n" + text
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text + draw(st.sampled_from(["", "\n", "\n\n"]))


@st.composite
def limits(draw: st.DrawFn, smallest: int = chunker.MIN_HARD_CAP) -> tuple[int, int, dict[str, Any]]:
    """target <= hard_cap, and the options of docs/method.md §6, each off or at a value its check accepts."""
    cap = draw(st.integers(smallest, 400))
    target = draw(st.integers(1, cap))
    options = {
        "overlap": draw(st.one_of(st.just(0), st.integers(1, (cap - 1) // 2))),
        "min_tokens": draw(st.one_of(st.just(0), st.integers(1, cap))),
        "breadcrumb_in_budget": cap >= 2 * chunker.MIN_HARD_CAP and draw(st.booleans()),
    }
    return target, cap, options


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=documents(), lim=limits())
def test_generated_markdown_meets_the_contract(strategy: str, text: str, lim: tuple[int, int, dict[str, Any]]) -> None:
    """Cap on recount, exact ordered spans, every non-blank character once, balanced fences, no raise."""
    target, cap, options = lim
    doc = chunker.parse(text, name="gen.md")
    check_chunk_set(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy=strategy, **options), cap)


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=3000), lim=limits())
def test_arbitrary_text_chunks_without_raising(strategy: str, text: str, lim: tuple[int, int, dict[str, Any]]) -> None:
    """Any str at all chunks, and the contract still holds."""
    target, cap, options = lim
    doc = chunker.parse(text, name="any.md")
    check_chunk_set(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy=strategy, **options), cap)


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# 16 *characters* cannot hold a re-opened fence line and its close; 64 is about 16 tokens.
@given(text=documents(), lim=limits(smallest=64))
def test_contract_holds_with_a_plain_counting_callable(
    strategy: str, text: str, lim: tuple[int, int, dict[str, Any]]
) -> None:
    """A character-counting callable (no exact sums) still gives exact, capped chunks."""
    target, cap, options = lim
    doc = chunker.parse(text, name="gen.md", tokenizer=len)
    check_chunk_set(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy=strategy, **options), cap)
