"""Retrieval by embeddings, whatever embeds (docs/evaluation.md §3): cosine similarity, best first.

- :class:`EmbeddingRetriever`: ranks texts for queries by the cosine of their embeddings; a subclass
  says how a list of strings is embedded (:meth:`EmbeddingRetriever.embed_batch`). The texts' embeddings
  of the last few text sets are kept, so ranking several query sets over the same chunks embeds them once,
  and equal texts are embedded once, so they tie exactly (ties go to the lower index).
- :class:`CallableRetriever`: any function that embeds a list of strings, one vector each: an API
  model (OpenAI, Cohere, Voyage, a local server), called in batches of ``batch_size``. Its vectors
  need not be normalized. The sentence-transformers retriever
  (:class:`chunk_inspector.evaluate.dense.DenseRetriever`) is the other subclass.

Nothing here imports torch or a client library: the callable brings its own.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chunk_inspector.evaluate.ranking import top_indexes
from chunker.errors import ChunkerError

__all__ = ["CallableRetriever", "Embed", "EmbeddingRetriever"]

Embed = Callable[[list[str]], Any]  # a list of strings -> one vector each (a list of lists, or a 2-D array)


class EmbeddingRetriever:
    """Cosine similarity of embeddings: ``rank(texts, queries, depth)`` gives each query's ``depth`` most similar
    texts' indexes, best first, ties to the lower index. Subclasses implement :meth:`embed_batch`."""

    name = "embedding"
    _KEEP = 4  # text sets whose embeddings are kept

    def __init__(self, batch_size: int = 64) -> None:
        if batch_size < 1:
            raise ChunkerError(f"batch_size must be at least 1, not {batch_size}")
        self.batch_size = batch_size
        self._embedded: OrderedDict[tuple[str, ...], Any] = OrderedDict()

    def embed_batch(self, texts: list[str]) -> Any:
        """The embeddings of ``texts`` (distinct, at most ``batch_size``): one row each."""
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length embeddings of ``texts``, one row each (float32, ``len(texts) x dim``); each distinct
        text is embedded once."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        unique = list(dict.fromkeys(texts))
        rows = self.embed_unique(unique)
        if len(unique) == len(texts):
            return rows
        where = {text: i for i, text in enumerate(unique)}
        return rows[[where[text] for text in texts]]

    def embed_unique(self, texts: list[str]) -> Any:
        """Unit-length embeddings of distinct ``texts``: :meth:`embed_batch` on batches of ``batch_size``,
        each checked, the rows normalized (a zero vector stays zero: similar to nothing)."""
        batches = [self._rows(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        rows = np.concatenate(batches) if len(batches) > 1 else batches[0]
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)

    def _rows(self, batch: list[str]) -> Any:
        """One batch embedded and checked: a finite 2-D float array with a row per text."""
        try:
            rows = np.asarray(self.embed_batch(batch), dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise ChunkerError(f"{self.name}: the embeddings are not a list of number vectors ({exc})") from None
        if rows.ndim != 2 or rows.shape[0] != len(batch) or rows.shape[1] == 0:
            raise ChunkerError(
                f"{self.name}: {len(batch)} texts gave embeddings of shape {rows.shape}, not one vector per text"
            )
        if not np.isfinite(rows).all():
            raise ChunkerError(f"{self.name}: the embeddings hold NaN or infinite values")
        return rows

    def _text_embeddings(self, texts: Sequence[str]) -> Any:
        key = tuple(texts)
        rows = self._embedded.get(key)
        if rows is None:
            rows = self.embed(key)
            self._embedded[key] = rows
            while len(self._embedded) > self._KEEP:
                self._embedded.popitem(last=False)
        else:
            self._embedded.move_to_end(key)
        return rows

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
        if not texts or depth <= 0:
            return [[] for _ in queries]
        if not queries:
            return []
        chunks = self._text_embeddings(texts)
        asked = self.embed(queries)
        if asked.shape[1] != chunks.shape[1]:
            raise ChunkerError(f"{self.name}: queries embed to {asked.shape[1]} dimensions, texts to {chunks.shape[1]}")
        scores = asked @ chunks.T  # cosine: rows are unit length
        depth = min(depth, len(texts))
        return [top_indexes(row, depth) for row in scores]


class CallableRetriever(EmbeddingRetriever):
    """Retrieval with your own embedding function: ``embed(list_of_strings)`` returns one vector per string.

    ``name`` labels the results (the ``retriever`` of an :class:`~chunk_inspector.evaluate.metrics.Evaluation`);
    ``batch_size`` is the most strings passed in one call (an API's limit per request).
    """

    def __init__(self, embed: Embed, name: str = "callable", batch_size: int = 64) -> None:
        if not callable(embed):
            raise ChunkerError(f"embed must be a function of a list of strings, not {type(embed).__name__}")
        super().__init__(batch_size)
        self._embed = embed
        self.name = name

    def embed_batch(self, texts: list[str]) -> Any:
        return self._embed(texts)
