"""What every retriever shares: the :class:`Retriever` interface and a deterministic top-k.

A retriever has one method, ``rank(texts, queries, depth)``: for each query, the indexes
of the ``depth`` best texts, best first, ties broken by the lower index so that every run
gives the same ranking (:func:`top_indexes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["Retriever", "top_indexes"]


class Retriever(Protocol):
    """Ranks texts for queries: ``rank(texts, queries, depth)[q]`` is the best ``depth`` indexes for query ``q``."""

    name: str

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]: ...


def top_indexes(scores: Any, depth: int) -> list[int]:
    """The indexes of the ``depth`` highest scores, best first, ties to the lower index."""
    order = np.lexsort((np.arange(len(scores)), -np.asarray(scores, dtype=np.float64)))
    return [int(i) for i in order[:depth]]
