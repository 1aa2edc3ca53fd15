"""The packing strategies (docs/method.md §5a): each one object, all in one registry.

A strategy is what differs between the packings; everything else (cutting, the hard cap, exact
counts, overlap, spans, every option of docs/method.md §6) is shared by the passes of
:mod:`chunker.pack`. What a strategy says:

- ``walk``: step 1 of the packing, the drafts it makes of the document (its own module);
- ``merges_siblings``: whether the sibling merge (docs/method.md §5 step 6) runs after the walk;
- ``joins_small_preamble``: whether a preamble under the small size then joins the chunk after it;
- ``joins_small_chunks``: whether a chunk under the small size (``min(SMALL_TOKENS, target // 4)``)
  joins a neighbour, or only one under ``min_tokens`` does;
- ``cost``: what its walk minimises, where it minimises one (docs/method.md §5a).

To add a strategy: its walk in a module of its own, one row in :data:`REGISTRY`, and its name in
:data:`chunker.options.STRATEGIES` (the options refuse other names, and sit below the walks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chunker.balanced import balanced_walk
from chunker.drafts import Draft, Packing
from chunker.optimal import optimal_walk
from chunker.reference import reference_walk

__all__ = ["REGISTRY", "Strategy"]


@dataclass(frozen=True, slots=True)
class Strategy:
    """One way to pack a document's sections into chunks; see the module's docstring."""

    name: str
    walk: Callable[[Packing], list[Draft]]
    merges_siblings: bool
    joins_small_preamble: bool
    joins_small_chunks: bool
    cost: str | None = None


REGISTRY: dict[str, Strategy] = {
    s.name: s
    for s in (
        # Hierarchical greedy packing: sections kept whole while they fit, chunks filled to the cap.
        Strategy("balanced", balanced_walk, merges_siblings=True, joins_small_preamble=True, joins_small_chunks=True),
        # Boundaries by dynamic programming; its cost already weighs what the merges would do.
        Strategy(
            "optimal",
            optimal_walk,
            merges_siblings=False,
            joins_small_preamble=False,
            joins_small_chunks=True,
            cost="size against the target, boundaries, headings inside, small chunks (docs/method.md §5a)",
        ),
        # markdown-object's packing less its defects: its sibling merge, and small chunks left alone.
        Strategy(
            "reference", reference_walk, merges_siblings=True, joins_small_preamble=False, joins_small_chunks=False
        ),
    )
}
"""Every strategy by name, in the order of :data:`chunker.options.STRATEGIES` (tests/test_strategies.py)."""
