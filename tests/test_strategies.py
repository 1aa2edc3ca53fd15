"""The strategies' registry (chunker/strategies.py): one row per strategy, and the passes read it."""

from __future__ import annotations

import dataclasses

import pytest

import chunker
from chunker import strategies
from chunker.strategies import REGISTRY


def test_the_registry_holds_every_strategy_the_options_accept() -> None:
    assert tuple(REGISTRY) == chunker.STRATEGIES
    assert all(REGISTRY[name].name == name for name in REGISTRY)


def _titles(text: str, strategy: str, target: int, cap: int) -> list[list[str]]:
    return [c.headings for c in chunker.chunk(chunker.parse(text, name="doc.md"), target, cap, strategy=strategy)]


_TWO_SECTIONS = "# A\n\n" + "word " * 20 + "\n\n# B\n\n" + "word " * 20 + "\n"


def test_the_sibling_merge_runs_where_the_row_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reference, no preamble: each section is packed on its own, then merged (markdown-object)."""
    assert _titles(_TWO_SECTIONS, "reference", 32, 64) == [["A", "B"]]
    monkeypatch.setitem(REGISTRY, "reference", dataclasses.replace(REGISTRY["reference"], merges_siblings=False))
    assert _titles(_TWO_SECTIONS, "reference", 32, 64) == [["A"], ["B"]]


def test_small_chunks_join_where_the_row_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small last section (3 words) stays alone under reference, and joins its neighbour where small chunks join."""
    text = "# A\n\n" + "word " * 60 + "\n\n## B\n\n" + "word " * 60 + "\n\n## C\n\none two three\n"
    alone = _titles(text, "reference", 64, 128)
    assert ["C"] in alone
    monkeypatch.setitem(REGISTRY, "reference", dataclasses.replace(REGISTRY["reference"], joins_small_chunks=True))
    assert ["C"] not in _titles(text, "reference", 64, 128)


def test_a_row_is_all_a_strategy_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """A strategy is its row: balanced's walk in optimal's row (no merges) gives the walk's drafts unmerged."""
    text = "".join(f"# {t}\n\n" + "word " * 20 + "\n\n" for t in "ABC")
    assert _titles(text, "balanced", 24, 48) == [["A", "B"], ["C"]]  # the sibling merge joined A and B
    monkeypatch.setitem(REGISTRY, "optimal", dataclasses.replace(REGISTRY["optimal"], walk=REGISTRY["balanced"].walk))
    assert _titles(text, "optimal", 24, 48) == [["A"], ["B"], ["C"]]
    assert strategies.REGISTRY["optimal"].cost  # the one with a cost says what it weighs
