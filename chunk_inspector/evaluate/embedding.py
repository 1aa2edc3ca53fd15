"""Retrieval by embeddings, whatever embeds (docs/evaluation.md §3): cosine similarity, best first.

- :class:`EmbeddingRetriever`: ranks texts for queries by the cosine of their embeddings; a subclass
  says how a list of strings is embedded (:meth:`EmbeddingRetriever.embed_batch`). Each text's embedding
  is kept (the last ``cache_bytes`` of them), so a text met again is not embedded again: ranking several
  query sets over the same chunks, or the chunks of a new setting, most of which the last setting made too
  (a hard cap move keeps nearly all of them). Equal texts are embedded once, so they tie exactly (ties go
  to the lower index). ``rank`` takes a ``progress`` (:data:`~chunk_inspector.evaluate.progress.ProgressFn`):
  the texts not kept, then the queries, reported batch by batch ("embedding chunks: 1,216 of 3,400").
- :class:`CallableRetriever`: any function that embeds a list of strings, one vector each: an API
  model (OpenAI, Cohere, Voyage, a local server), called in batches of ``batch_size``. Its vectors
  need not be normalized. The sentence-transformers retriever
  (:class:`chunk_inspector.evaluate.dense.DenseRetriever`) is the other subclass.

Nothing here imports torch or a client library: the callable brings its own.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chunk_inspector.evaluate.progress import ProgressFn, accepts_progress, scaled
from chunk_inspector.evaluate.ranking import top_indexes
from chunker.errors import ChunkerError

__all__ = ["CallableRetriever", "Embed", "EmbeddingRetriever", "report_embedded"]

Embed = Callable[[list[str]], Any]  # a list of strings -> one vector each (a list of lists, or a 2-D array)


class EmbeddingRetriever:
    """Cosine similarity of embeddings: ``rank(texts, queries, depth)`` gives each query's ``depth`` most similar
    texts' indexes, best first, ties to the lower index. Subclasses implement :meth:`embed_batch`."""

    name = "embedding"

    def __init__(self, batch_size: int = 64, cache_bytes: int = 64 << 20) -> None:
        if batch_size < 1:
            raise ChunkerError(f"batch_size must be at least 1, not {batch_size}")
        if cache_bytes < 0:
            raise ChunkerError(f"cache_bytes must be at least 0, not {cache_bytes}")
        self.batch_size = batch_size
        # Each text's unit-length embedding by the text's digest (not the text: the chunks' texts would stay in
        # memory), the least recently used first; at most cache_bytes of vectors (64 MiB: about 43,000 of
        # MiniLM's 384 floats). The lock keeps the order whole when sessions of the app rank at once.
        self.cache_bytes = cache_bytes
        self._vectors: OrderedDict[bytes, Any] = OrderedDict()
        self._cached_bytes = 0
        self._lock = threading.Lock()

    def embed_batch(self, texts: list[str]) -> Any:
        """The embeddings of ``texts`` (distinct, at most ``batch_size``): one row each."""
        raise NotImplementedError

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Any:
        """Unit-length embeddings of ``texts``, one row each (float32, ``len(texts) x dim``); each distinct
        text is embedded once, and a text whose embedding is kept (module docstring) not at all. ``progress``
        hears of every batch of the texts embedded (see :meth:`embed_unique`).

        A kept embedding was made in another batch than a fresh one would be; a model pads a batch to its
        longest text, so the two may differ in the last bits of a float (MiniLM: about 1e-7), which could
        only swap two chunks that score within that of each other.
        """
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        keys = [_digest(text) for text in texts]
        with self._lock:
            kept = {key: self._vectors[key] for key in dict.fromkeys(keys) if key in self._vectors}
            for key in kept:
                self._vectors.move_to_end(key)
        todo = {key: text for text, key in zip(texts, keys, strict=True) if key not in kept}  # each text's digest once
        missing = list(todo.values())
        if missing:
            if progress is not None and accepts_progress(self.embed_unique):
                rows = self.embed_unique(missing, progress=progress)
            else:  # (a subclass's embed_unique of its own may not take it)
                rows = self.embed_unique(missing)
            made = dict(zip(todo, rows, strict=True))
            self._keep(made)
            kept.update(made)
        return np.stack([kept[key] for key in keys])

    def _keep(self, made: dict[bytes, Any]) -> None:
        """Keep new embeddings, each its own array (a row would hold its whole batch), dropping the least
        recently used past ``cache_bytes``."""
        with self._lock:
            for key, row in made.items():
                if key not in self._vectors:
                    self._vectors[key] = np.array(row, dtype=np.float32)
                    self._cached_bytes += self._vectors[key].nbytes
            while self._cached_bytes > self.cache_bytes and self._vectors:
                self._cached_bytes -= self._vectors.popitem(last=False)[1].nbytes

    def embed_unique(self, texts: list[str], progress: ProgressFn | None = None) -> Any:
        """Unit-length embeddings of distinct ``texts``: :meth:`embed_batch` on batches of ``batch_size``,
        each checked, the rows normalized (a zero vector stays zero: similar to nothing).

        ``progress`` is called before the first batch and after each one with the share of ``texts``
        embedded and its count, ``"1,216 of 3,400"``."""
        batches = []
        for start in range(0, len(texts), self.batch_size):
            report_embedded(progress, start, len(texts))
            batches.append(self._rows(texts[start : start + self.batch_size]))
        report_embedded(progress, len(texts), len(texts))
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

    def _embed_reporting(self, texts: Sequence[str], progress: ProgressFn | None) -> Any:
        """:meth:`embed`, with ``progress`` where there is one and ``embed`` takes it (a subclass's own may not)."""
        if progress is not None and accepts_progress(self.embed):
            return self.embed(texts, progress=progress)
        return self.embed(texts)

    def rank(
        self, texts: Sequence[str], queries: Sequence[str], depth: int, progress: ProgressFn | None = None
    ) -> list[list[int]]:
        """Each query's ``depth`` best texts. ``progress`` hears of the texts' batches, then the queries'
        (their shares by count of distinct texts; kept texts are not embedded again, nor reported)."""
        if not texts or depth <= 0:
            return [[] for _ in queries]
        if not queries:
            return []
        distinct = len(set(texts))
        part = distinct / (distinct + len(set(queries)))
        chunks = self._embed_reporting(texts, scaled(progress, 0.0, part, "embedding chunks: "))
        asked = self._embed_reporting(queries, scaled(progress, part, 1.0, "embedding questions: "))
        if asked.shape[1] != chunks.shape[1]:
            raise ChunkerError(f"{self.name}: queries embed to {asked.shape[1]} dimensions, texts to {chunks.shape[1]}")
        scores = asked @ chunks.T  # cosine: rows are unit length
        depth = min(depth, len(texts))
        return [top_indexes(row, depth) for row in scores]


class CallableRetriever(EmbeddingRetriever):
    """Retrieval with your own embedding function: ``embed(list_of_strings)`` returns one vector per string.

    ``name`` labels the results (the ``retriever`` of an :class:`~chunk_inspector.evaluate.metrics.Evaluation`);
    ``batch_size`` is the most strings passed in one call (an API's limit per request); ``cache_bytes`` bounds
    the embeddings kept, so that a text met again is not sent again (0: none kept).
    """

    def __init__(self, embed: Embed, name: str = "callable", batch_size: int = 64, cache_bytes: int = 64 << 20) -> None:
        if not callable(embed):
            raise ChunkerError(f"embed must be a function of a list of strings, not {type(embed).__name__}")
        super().__init__(batch_size, cache_bytes)
        self._embed = embed
        self.name = name

    def embed_batch(self, texts: list[str]) -> Any:
        return self._embed(texts)


def report_embedded(progress: ProgressFn | None, done: int, total: int, share: float | None = None) -> None:
    """``progress`` (when there is one) told that ``done`` texts of ``total`` are embedded: the line counts
    texts; the share is ``share`` where the caller weighs its batches (by the work each is), else by count."""
    if progress is not None:
        if share is None:
            share = done / total if total else 1.0
        progress(share, f"{done:,} of {total:,}")


def _digest(text: str) -> bytes:
    """What a text's embedding is kept under: 16 bytes of BLAKE2b (a lone surrogate, which a text decoded
    leniently may hold, hashed as it is)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
