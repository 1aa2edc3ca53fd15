"""The retrievers of the evaluation by name (docs/evaluation.md §3).

- ``"bm25"`` (:class:`~chunk_inspector.evaluate.bm25.BM25Retriever`): always available;
- ``"dense"`` (:class:`~chunk_inspector.evaluate.dense.DenseRetriever`): a sentence-transformers
  model, the bundled MiniLM or a model folder on disk, when the ``[dense]`` extra is installed
  (imported only when asked for).

Any other embedding (an API model) is a :class:`~chunk_inspector.evaluate.embedding.CallableRetriever`
built in Python: it has no name here.
"""

from __future__ import annotations

from chunk_inspector.evaluate.bm25 import BM25Retriever
from chunk_inspector.evaluate.ranking import Retriever, top_indexes
from chunker.errors import ChunkerError

__all__ = ["RETRIEVERS", "BM25Retriever", "Retriever", "get_retriever", "top_indexes"]

RETRIEVERS = ("bm25", "dense")


def get_retriever(name: str, model: str | None = None) -> Retriever:
    """The retriever called ``name`` (one of :data:`RETRIEVERS`); for ``"dense"``, ``model`` is a model folder
    on disk (default: the bundled MiniLM). A clear error when it cannot be had."""
    if name == "bm25":
        if model is not None:
            raise ChunkerError("a model is for the dense retriever; bm25 has none")
        return BM25Retriever()
    if name == "dense":
        from chunk_inspector.evaluate.dense import DEFAULT_MODEL, DenseRetriever

        return DenseRetriever(model or DEFAULT_MODEL)
    raise ChunkerError(f"unknown retriever {name!r}: choose one of {', '.join(RETRIEVERS)}")
