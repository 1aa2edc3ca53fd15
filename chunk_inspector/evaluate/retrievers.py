"""The retrievers of the evaluation by name (docs/evaluation.md §3).

- ``"bm25"`` (:class:`~chunk_inspector.evaluate.bm25.BM25Retriever`): always available;
- ``"dense"`` (:class:`~chunk_inspector.evaluate.dense.DenseRetriever`): a sentence-transformers
  model, when the ``[dense]`` extra is installed (imported only when asked for).
"""

from __future__ import annotations

from chunk_inspector.evaluate.bm25 import BM25Retriever
from chunk_inspector.evaluate.ranking import Retriever, top_indexes
from chunker.errors import ChunkerError

__all__ = ["RETRIEVERS", "BM25Retriever", "Retriever", "get_retriever", "top_indexes"]

RETRIEVERS = ("bm25", "dense")


def get_retriever(name: str) -> Retriever:
    """The retriever called ``name`` (one of :data:`RETRIEVERS`); a clear error when it cannot be had."""
    if name == "bm25":
        return BM25Retriever()
    if name == "dense":
        from chunk_inspector.evaluate.dense import DenseRetriever

        return DenseRetriever()
    raise ChunkerError(f"unknown retriever {name!r}: choose one of {', '.join(RETRIEVERS)}")
