"""What every retriever shares: the :class:`Retriever` interface and a deterministic top-k.

A retriever has one method, ``rank(texts, queries, depth)``: for each query, the indexes
of the ``depth`` best texts, best first, ties broken by the lower index so that every run
gives the same ranking (:func:`top_indexes`).

A retriever whose ranking takes a while (one that embeds) may also take a ``progress`` keyword,
``rank(texts, queries, depth, progress=None)``, a :data:`~chunk_inspector.evaluate.progress.ProgressFn`
it calls as it goes; :func:`rank_with` passes it only to a retriever whose ``rank`` takes it
(:func:`~chunk_inspector.evaluate.progress.accepts_progress`), so a
retriever without it (BM25, one of yours) works as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from chunk_inspector.evaluate.progress import ProgressFn, accepts_progress

__all__ = ["Retriever", "rank_with", "top_indexes"]


class Retriever(Protocol):
    """Ranks texts for queries: ``rank(texts, queries, depth)[q]`` is the best ``depth`` indexes for query ``q``."""

    name: str

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]: ...


def top_indexes(scores: Any, depth: int) -> list[int]:
    """The indexes of the ``depth`` highest scores, best first, ties to the lower index."""
    order = np.lexsort((np.arange(len(scores)), -np.asarray(scores, dtype=np.float64)))
    return [int(i) for i in order[:depth]]


def rank_with(
    retriever: Retriever, texts: Sequence[str], queries: Sequence[str], depth: int, progress: ProgressFn | None
) -> list[list[int]]:
    """``retriever.rank(texts, queries, depth)``, with ``progress`` when the retriever takes it; one without it
    reports nothing while it ranks, then the share 1 at the end."""
    if progress is None:
        return retriever.rank(texts, queries, depth)
    if accepts_progress(retriever.rank):
        rank: Any = retriever.rank  # the Protocol names the plain signature only
        rankings: list[list[int]] = rank(texts, queries, depth, progress=progress)
    else:
        rankings = retriever.rank(texts, queries, depth)
    progress(1.0, "ranked")
    return rankings
