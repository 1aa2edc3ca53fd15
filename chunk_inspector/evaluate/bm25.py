"""BM25 (docs/evaluation.md §3): weight-free, fast, deterministic, always available.

``bm25s``, Lucene's BM25 with k1=1.5, b=0.75, over lower-cased words of two or more
characters, English stop words removed, Snowball-stemmed (PyStemmer).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from chunk_inspector.evaluate.ranking import top_indexes

__all__ = ["BM25Retriever"]


@functools.cache
def _stemmer() -> Any:
    import Stemmer  # PyStemmer, a dependency of this package

    return Stemmer.Stemmer("english")


class BM25Retriever:
    """BM25 over the texts through ``bm25s``; one index per call of :meth:`rank`."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b

    def words(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms BM25 sees in each text (lower-cased, stop words out, stemmed)."""
        import bm25s

        tokens: list[list[str]] = bm25s.tokenize(
            list(texts), stopwords="en", stemmer=_stemmer(), return_ids=False, show_progress=False
        )
        return tokens

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
        import bm25s

        if not texts:
            return [[] for _ in queries]
        index = bm25s.BM25(k1=self.k1, b=self.b)
        index.index(self.words(texts), show_progress=False)
        depth = min(depth, len(texts))
        out: list[list[int]] = []
        for query in self.words(queries):
            terms = [t for t in query if t in index.vocab_dict]
            scores = index.get_scores(terms) if terms else np.zeros(len(texts))
            out.append(top_indexes(scores, depth))
        return out
