"""Retrieval evaluation (docs/evaluation.md §2): how well a chunking retrieves on a question set.

The method, one function a step:

1. :func:`index_chunks`: chunk every document of the set with a :class:`Contender` (the
   engine at some settings, or a peer of :mod:`chunk_inspector.peers.chunkers`) into
   :class:`IndexedChunk` values: the source span, the text to index, its tokens;
2. a retriever (:mod:`chunk_inspector.evaluate.retrievers`) ranks all chunks of all documents for
   each question, as one index would;
3. :func:`span_scores`: recall, precision and IoU of the retrieved spans against the
   reference excerpts, counted in characters, at ``k`` chunks and within a token budget;
4. :func:`evaluate` does 1–3 for a whole set and keeps every question's result
   (:class:`QuestionResult`), averaged over all questions and per kind by :class:`Evaluation`.

Definitions (Chroma's, from exact spans): for references ``R`` and retrieved chunks ``C``,
recall = characters of ``R`` covered by ``C`` / characters of ``R``; precision = covered /
characters of ``C`` (overlapping chunks count twice; a chunk of another document, or one
whose text is not found in the source, counts its length and covers nothing); IoU =
covered / (characters of ``C`` + characters of ``R`` not covered); precision Ω = the
precision if exactly the chunks holding any of ``R`` were retrieved. "Within the budget"
takes chunks in rank order while their tokens (cl100k_base, of the indexed text) add up to
at most ``budget``, and at least one.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import chunker
from chunk_inspector.evaluate.progress import ProgressFn, accepts_progress, scaled
from chunk_inspector.evaluate.questions import Question, QuestionSet
from chunk_inspector.evaluate.ranking import Retriever, rank_with

__all__ = [
    "BUDGET",
    "CHUNKING_SHARE",
    "CHUNKING_SHARE_RANKED_AT_ONCE",
    "DEFAULT_INDEX",
    "METRICS",
    "Contender",
    "Evaluation",
    "IndexedChunk",
    "K",
    "QuestionResult",
    "Scores",
    "chunking_share",
    "evaluate",
    "index_chunks",
    "span_scores",
]

K = 5
BUDGET = 1024
METRICS = ("recall", "precision", "iou")
Span = tuple[int, int]
Index = Literal["markdown", "context"]
# What an engine chunk is indexed as unless asked otherwise: contextualize(), the breadcrumb line and the
# markdown, the text the engine gives an embedder (docs/evaluation.md §3, "What is indexed": it retrieves
# better than the bare markdown with BM25 and with MiniLM).
DEFAULT_INDEX: Index = "context"
# The share of an evaluation's progress its chunking takes (chunking_share); the ranking takes the rest.
# Embedding the chunks is most of a dense evaluation's time (docs/evaluation.md §2, "Progress"), so with a
# retriever that reports its own steps the share by time is near CHUNKING_SHARE. One that does not (BM25)
# ranks in one step, and the chunking is most of the time: on the retrieval set (25 documents, BM25) the
# engine's chunking took 55% of its run, a peer's 87-93%, so the bar sat at a tenth for most of a peer's run.
CHUNKING_SHARE = 0.1
CHUNKING_SHARE_RANKED_AT_ONCE = 0.8


@dataclass(frozen=True, slots=True)
class Contender:
    """A chunking under evaluation: the engine (``peer=None``) with its options, or a peer at their limits.

    ``options`` is the one options value every entry point builds (:class:`chunker.ChunkOptions`, the
    tokenizer included); a peer takes its ``hard_cap`` and ``target``. ``index`` is what the retriever
    sees of an engine chunk: its ``markdown``, or ``contextualize()`` (the breadcrumb line, a blank line,
    the markdown). A peer's chunk is indexed as its pipeline would embed it (:attr:`PeerChunk.embedded`).
    """

    label: str
    options: chunker.ChunkOptions = field(default_factory=chunker.ChunkOptions)
    peer: str | None = None
    index: Index = DEFAULT_INDEX

    @classmethod
    def engine(cls, options: chunker.ChunkOptions | None = None, index: Index = DEFAULT_INDEX) -> Contender:
        """The engine with these options (default: the engine's defaults)."""
        options = options or chunker.ChunkOptions()
        label = f"engine {options.target}/{options.hard_cap}" + (" + breadcrumb" if index == "context" else "")
        return cls(label, options, None, index)

    @classmethod
    def of_peer(cls, name: str, hard_cap: int, target: int | None = None) -> Contender:
        """The peer ``name`` at this hard cap (and ``target`` where it has a second size; default half the cap)."""
        from chunk_inspector.peers.chunkers import PEERS, PeerError

        if name not in PEERS:
            raise PeerError(f"unknown peer {name!r}: choose one of {', '.join(PEERS)}")
        return cls(PEERS[name].label, chunker.ChunkOptions(target or max(1, hard_cap // 2), hard_cap), name)


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """One chunk as the index holds it: its ``document``, source ``char_span`` (None when a peer's
    text is not found verbatim), the ``text`` indexed and its ``tokens`` (what it costs in a prompt)."""

    document: str
    char_span: Span | None
    text: str
    tokens: int


@dataclass(frozen=True, slots=True)
class Scores:
    """Recall, precision and IoU of one retrieval (each in 0..1)."""

    recall: float
    precision: float
    iou: float


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """One question's outcome.

    ``ranking`` is every chunk index (into the evaluation's ``chunks``) best first;
    ``in_budget`` how many of them the budget took; ``first_rank`` the 1-based rank of the
    first chunk that holds any of the answer; ``holders`` the chunks that hold some of it.
    """

    question: Question
    at_k: Scores
    at_budget: Scores
    precision_omega: float
    first_rank: int | None
    in_budget: int
    holders: tuple[int, ...]
    ranking: tuple[int, ...] = field(repr=False)


def _covered(references: Sequence[Span], spans: Iterable[Span]) -> int:
    """Characters of ``references`` that lie inside at least one of ``spans``."""
    merged: list[list[int]] = []
    for start, end in sorted(s for s in spans if s[0] < s[1]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    total = 0
    for r_start, r_end in references:
        for m_start, m_end in merged:
            total += max(0, min(r_end, m_end) - max(r_start, m_start))
    return total


def span_scores(references: Sequence[Span], spans: Sequence[Span], elsewhere: int = 0) -> Scores:
    """Scores of retrieved ``spans`` (in the references' document) against ``references``.

    ``elsewhere`` is the length of retrieved chunks that cannot cover the references (another
    document's, or a peer chunk with no span): it counts in the denominators only.
    """
    ref_chars = sum(end - start for start, end in references)
    covered = _covered(references, spans)
    chunk_chars = sum(end - start for start, end in spans) + elsewhere
    return Scores(
        recall=covered / ref_chars if ref_chars else 0.0,
        precision=covered / chunk_chars if chunk_chars else 0.0,
        iou=covered / (chunk_chars + ref_chars - covered) if chunk_chars + ref_chars else 0.0,
    )


def _length(chunk: IndexedChunk) -> int:
    """A chunk's length in characters: of its source span, or of its text when it has none."""
    return len(chunk.text) if chunk.char_span is None else chunk.char_span[1] - chunk.char_span[0]


def _overlaps(span: Span, references: Sequence[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in references)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """A contender's results on a question set with one retriever."""

    contender: Contender
    retriever: str
    k: int
    budget: int
    chunks: tuple[IndexedChunk, ...] = field(repr=False)
    results: tuple[QuestionResult, ...] = field(repr=False)

    def mean(self, kind: str | None = None) -> dict[str, float]:
        """Averages over the questions (of one ``kind`` when given): ``recall@k``, …, ``recall@budget``, …"""
        rows = [r for r in self.results if kind is None or r.question.kind == kind]
        out: dict[str, float] = {}
        for where in ("k", "budget"):
            for metric in METRICS:
                values = [getattr(r.at_k if where == "k" else r.at_budget, metric) for r in rows]
                out[f"{metric}@{where}"] = statistics.fmean(values) if values else 0.0
        out["precision_omega"] = statistics.fmean(r.precision_omega for r in rows) if rows else 0.0
        return out

    def by_kind(self) -> dict[str, dict[str, float]]:
        """:meth:`mean` for each kind present, in the set's order of kinds."""
        kinds: list[str] = []
        for r in self.results:
            if r.question.kind and r.question.kind not in kinds:
                kinds.append(r.question.kind)
        return {kind: self.mean(kind) for kind in kinds}

    def summary(self) -> dict[str, Any]:
        """One table row: the chunker, its chunk count, and :meth:`mean` (rounded to 3 places)."""
        row: dict[str, Any] = {"chunker": self.contender.label, "chunks": len(self.chunks)}
        row.update({key: round(value, 3) for key, value in self.mean().items()})
        return row

    def misses(self) -> list[QuestionResult]:
        """Questions whose answer is not wholly within the budget, worst recall first, then by rank."""
        missed = [r for r in self.results if r.at_budget.recall < 1.0]
        return sorted(missed, key=lambda r: (r.at_budget.recall, r.first_rank or len(self.chunks) + 1))


def index_chunks(
    contender: Contender,
    documents: Mapping[str, str],
    parsed: Mapping[str, chunker.Document] | None = None,
    progress: ProgressFn | None = None,
) -> list[IndexedChunk]:
    """Chunk every document with ``contender``: the chunks of all documents, in document then chunk order.

    ``parsed`` may hold already parsed documents by name (the engine then only re-packs them); ``progress``
    hears of each document as it starts ("chunking guide.md (2 of 6)") and of the end.
    """
    count = chunker.get_tokenizer("cl100k_base").count
    out: list[IndexedChunk] = []
    for n, (name, text) in enumerate(documents.items()):
        if progress is not None:
            progress(n / len(documents), f"chunking {name} ({n + 1} of {len(documents)})")
        if contender.peer is None:
            if parsed is not None and name in parsed:
                doc = parsed[name]
            else:
                doc = chunker.parse(text, name=name, tokenizer=contender.options.tokenizer)
            chunks = chunker.chunk_with(doc, contender.options)
            exact = contender.index == "markdown" and doc.tokenizer.name == "cl100k_base"
            for c in chunks:
                indexed = c.markdown if contender.index == "markdown" else c.contextualize()
                tokens = c.token_count if exact else count(indexed)
                out.append(IndexedChunk(name, (c.char_span[0], c.char_span[1]), indexed, tokens))
        else:
            from chunk_inspector.peers.chunkers import run_peer

            limits = contender.options
            for p in run_peer(contender.peer, text, hard_cap=limits.hard_cap, target=limits.target):
                out.append(IndexedChunk(name, p.char_span, p.embedded, count(p.embedded)))
    if progress is not None:
        progress(1.0, f"chunked: {len(out):,} chunks")
    return out


def chunking_share(retriever: Retriever) -> float:
    """The share of an evaluation's progress its chunking takes with ``retriever``: :data:`CHUNKING_SHARE` when
    the retriever reports its own steps (an embedding one: its batches are most of the time), else
    :data:`CHUNKING_SHARE_RANKED_AT_ONCE` (BM25 ranks in one step, the chunking document by document is most of
    the time, and the only steps there are to show)."""
    return CHUNKING_SHARE if accepts_progress(retriever.rank) else CHUNKING_SHARE_RANKED_AT_ONCE


def evaluate(
    questions: QuestionSet,
    contender: Contender,
    retriever: Retriever,
    *,
    k: int = K,
    budget: int = BUDGET,
    parsed: Mapping[str, chunker.Document] | None = None,
    chunks: Sequence[IndexedChunk] | None = None,
    progress: ProgressFn | None = None,
) -> Evaluation:
    """Evaluate ``contender`` on ``questions`` with ``retriever``: every document indexed together.

    ``chunks`` skips step 1 when the caller already has them (from :func:`index_chunks`). ``progress``
    (:data:`~chunk_inspector.evaluate.progress.ProgressFn`) hears of the chunking, document by document, in
    the first :func:`chunking_share` of the share (skipped with ``chunks``), then of the ranking: batch by
    batch where the retriever reports its own (an embedding one), else once it starts and once it ends.
    """
    share = chunking_share(retriever)
    if chunks is None:
        chunks = index_chunks(contender, questions.documents, parsed, scaled(progress, 0.0, share))
    if progress is not None:
        progress(share, f"ranking {len(chunks):,} chunks with {retriever.name}")
    rankings = rank_with(
        retriever,
        [c.text for c in chunks],
        [q.question for q in questions.questions],
        len(chunks),
        scaled(progress, share, 1.0),
    )
    results = tuple(
        _question_result(q, ranking, chunks, k, budget)
        for q, ranking in zip(questions.questions, rankings, strict=True)
    )
    return Evaluation(contender, retriever.name, k, budget, tuple(chunks), results)


def _question_result(
    question: Question, ranking: Sequence[int], chunks: Sequence[IndexedChunk], k: int, budget: int
) -> QuestionResult:
    references = [r.span for r in question.references]

    def holds(i: int) -> bool:
        c = chunks[i]
        return c.document == question.document and c.char_span is not None and _overlaps(c.char_span, references)

    def scores(taken: Sequence[int]) -> Scores:
        here = [chunks[i].char_span for i in taken if chunks[i].document == question.document]
        spans = [s for s in here if s is not None]
        elsewhere = sum(_length(chunks[i]) for i in taken) - sum(end - start for start, end in spans)
        return span_scores(references, spans, elsewhere)

    in_budget, used = 0, 0
    for i in ranking:
        if in_budget and used + chunks[i].tokens > budget:
            break
        used += chunks[i].tokens
        in_budget += 1
    holders = tuple(i for i in range(len(chunks)) if holds(i))
    first_rank = next((rank for rank, i in enumerate(ranking, 1) if holds(i)), None)
    omega = scores(holders).precision if holders else 0.0
    return QuestionResult(
        question=question,
        at_k=scores(ranking[:k]),
        at_budget=scores(ranking[:in_budget]),
        precision_omega=omega,
        first_rank=first_rank,
        in_budget=in_budget,
        holders=holders,
        ranking=tuple(ranking),
    )
