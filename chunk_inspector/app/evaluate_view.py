"""What the Evaluate page shows, computed without Streamlit: question sets, runs, tables, the miss view.

The page (``pages/evaluate.py``) reads the sidebar's settings, calls these through its
cached wrappers and renders what they return; tests call them directly. The evaluation
itself is :mod:`chunk_inspector.evaluate.metrics` (docs/evaluation.md §2); this module feeds it the app's
parsed documents and chunk sets, so a slider move re-uses the app's caches:

- :func:`load_bundled` / :func:`read_upload`: the bundled question set over the samples, or
  an uploaded one (JSONL or Chroma's CSV) over the open document, the sidebar's uploads and the samples
  (:func:`upload_documents`, which a set written on the page names too);
- :func:`model_path`: the dense model the page's model field names;
- :func:`run_engine`: every document of the set parsed and chunked through the given
  callables (the app's caches), indexed together, evaluated: an :class:`EngineRun`;
- :class:`ProgressBar`: a run's progress (``progress(share, line)``) drawn on a Streamlit bar, with the
  time left (:func:`~chunk_inspector.evaluate.progress.time_left`), emptied at the end;
- :func:`metrics_table`, :func:`kind_table`, :func:`question_table`: the page's tables;
- :func:`miss_detail`: one question's answer, the chunk it fell into, what was retrieved
  instead, and the source with the reference excerpts highlighted (escaped, through
  :func:`chunk_inspector.view.source_html`);
- :func:`recall_sweep`: recall within the budget over Tune's grid.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

import chunker
from chunk_inspector.app.view import Outline, md_escape, megabytes, plural, section_path, source_html
from chunk_inspector.evaluate.metrics import (
    BUDGET,
    Contender,
    Evaluation,
    Index,
    IndexedChunk,
    K,
    QuestionResult,
    chunking_share,
    evaluate,
)
from chunk_inspector.evaluate.progress import WINDOW, ProgressFn, scaled, time_left
from chunk_inspector.evaluate.questions import (
    QuestionSet,
    QuestionSetError,
    format_of,
    load_question_set,
    read_question_set,
)
from chunk_inspector.evaluate.ranking import Retriever
from chunk_inspector.files import has_control

__all__ = [
    "BUNDLED",
    "INDEXES",
    "MAX_SET_BYTES",
    "MODELS_ENV",
    "EngineRun",
    "MissDetail",
    "Parse",
    "ProgressBar",
    "Repack",
    "documents_key",
    "engine_chunks",
    "kind_table",
    "load_bundled",
    "metrics_table",
    "miss_detail",
    "model_path",
    "ordered_results",
    "peer_part",
    "peer_progress",
    "question_table",
    "read_upload",
    "recall_sweep",
    "run_engine",
    "score_columns",
    "set_key",
    "upload_documents",
    "upload_too_large",
]

MODELS_ENV = "CHUNK_INSPECTOR_MODELS"  # where set, the page's model field takes folders inside this one only
BUNDLED = "questions.jsonl"  # the bundled set's file name, in the samples folder
MAX_SET_BYTES = 20 * 1000 * 1000  # an uploaded question set, refused above this before it is read
INDEXES: dict[str, Index] = {"markdown": "markdown", "contextualize()": "context"}

Parse = Callable[[str, str], chunker.Document]  # (name, text) -> the parsed document
Repack = Callable[
    [str, chunker.Document, chunker.ChunkOptions], chunker.ChunkSet
]  # (name, document, settings) -> chunks


# -- question sets --------------------------------------------------------------


def load_bundled(samples_dir: Path) -> QuestionSet:
    """The bundled question set over the sample documents; :class:`QuestionSetError` when there is none."""
    path = samples_dir / BUNDLED
    if not path.is_file():
        raise QuestionSetError(f"no bundled question set: {path.name} is not in {samples_dir.name}/")
    return load_question_set(path, samples_dir)


def upload_documents(
    samples_dir: Path,
    open_name: str | None,
    open_text: str | None,
    uploads: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The documents a set (uploaded, or written on the page) may name: every sample by its file name, the
    sidebar's uploads by theirs (``uploads``: name -> text, as decoded, line endings kept; an upload replaces a
    sample of its name), and the open document by its name (it replaces a sample of that name unless it is
    that sample as the sidebar read it)."""
    documents: dict[str, str] = {}
    for path in sorted(samples_dir.glob("*.md")):
        if path.name == "README.md":  # the samples' attribution, not a sample
            continue
        with open(path, encoding="utf-8", newline="") as handle:  # the offsets' convention (docs/evaluation.md §1)
            documents[path.name] = handle.read()
    documents.update(uploads or {})
    if open_name and open_text is not None:
        sample = documents.get(open_name)
        if sample is None or sample.replace("\r\n", "\n").replace("\r", "\n") != open_text:
            documents[open_name] = open_text
    return documents


def documents_key(documents: Mapping[str, str]) -> str:
    """A digest of the documents' names and texts: what an uploaded set was checked against."""
    h = hashlib.sha256()
    for name in sorted(documents):
        h.update(name.encode("utf-8", "surrogatepass") + b"\0")
        h.update(hashlib.sha256(documents[name].encode("utf-8", "surrogatepass")).digest())
    return h.hexdigest()


def model_path(typed: str, root: str | None = None) -> str | None:
    """The dense model the page's model field names: None for an empty field (the bundled MiniLM), else the
    folder typed (``~`` expanded). Where the server set a models folder (``root``, from
    :data:`MODELS_ENV`), the typed path is taken inside it (a link the server put there is followed) and refused, with
    :class:`~chunk_inspector.evaluate.dense.DenseUnavailable`, when it resolves outside it."""
    from chunk_inspector.evaluate.dense import DenseUnavailable

    typed = typed.strip()
    if not typed:
        return None
    if has_control(typed):
        raise DenseUnavailable("a model folder's path holds no control characters")
    if not root:
        return os.path.expanduser(typed)
    # Lexically, not through links: the folder's links are the server's choice, a typed ``..`` is not.
    base = os.path.normpath(os.path.abspath(os.path.expanduser(root)))
    path = os.path.normpath(os.path.join(base, typed))
    if path != base and not path.startswith(base.rstrip(os.sep) + os.sep):
        raise DenseUnavailable(
            f"{typed} is outside the server's models folder: give a folder inside it (the server set {MODELS_ENV})"
        )
    return path


def peer_progress(done: int, names: Sequence[str], hard_cap: int) -> tuple[float, str]:
    """The progress bar's share and line while the peers are evaluated one after the other (each takes a
    while): which peer of how many runs now, ``done`` of them finished."""
    return done / len(names), f"Peer {done + 1} of {len(names)}: evaluating {names[done]} at hard cap {hard_cap:,}…"


def peer_part(progress: ProgressFn | None, done: int, peers: int, line: str) -> ProgressFn | None:
    """The progress of peer ``done`` of ``peers`` within all the peers' run: an equal part of the bar each, its
    lines after the peer's :func:`peer_progress` ``line`` ("Peer 1 of 2: evaluating langchain at hard cap
    768… embedding chunks: 640 of 3,400")."""
    return scaled(progress, done / peers, (done + 1) / peers, f"{line} ")


class ProgressBar:
    """``progress(share, line)`` drawn on a Streamlit bar while a run computes, with the time left at the rate
    so far (:func:`~chunk_inspector.evaluate.progress.time_left`), and emptied at the end.

    ``slot`` is where the bar goes (``st.empty()``; anything with ``progress(value, text=...)`` and
    ``empty()``); nothing is drawn until the first call, so a run that is not computed (a cached result)
    shows no bar. As a context manager it empties the slot on the way out, an error included. The share
    drawn never goes back; the line is escaped (it names documents). ``clock`` is for tests.
    """

    def __init__(self, slot: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.slot = slot
        self.clock = clock
        self.samples: deque[tuple[float, float]] = deque(maxlen=WINDOW + 1)
        self.share = 0.0
        self.text = ""

    def __call__(self, share: float, line: str) -> None:
        self.share = max(self.share, min(max(share, 0.0), 1.0))
        self.samples.append((self.clock(), self.share))
        left = time_left(self.samples)
        self.text = md_escape(line) + (f" · {left}" if left else "")
        self.slot.progress(self.share, text=self.text)

    def close(self) -> None:
        """Take the bar away."""
        self.slot.empty()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def upload_too_large(filename: str, nbytes: int) -> QuestionSetError | None:
    """The refusal of an uploaded set of ``nbytes`` over :data:`MAX_SET_BYTES` (None when it is not), to say
    before its bytes are read."""
    if nbytes <= MAX_SET_BYTES:
        return None
    return QuestionSetError(
        f"{filename} is {megabytes(nbytes, MAX_SET_BYTES)}; the app takes question sets up to "
        f"{megabytes(MAX_SET_BYTES)}. "
        "Evaluate bigger sets with the CLI: chunker eval"
    )


def read_upload(filename: str, data: bytes, documents: Mapping[str, str]) -> QuestionSet:
    """An uploaded set (``.jsonl``, or Chroma's ``.csv``) checked against ``documents``.

    The CLI's reader with the app's size limit (:data:`MAX_SET_BYTES`): the two accept and refuse the
    same sets. Raises :class:`QuestionSetError` with the reader's one-line message (naming the question).
    """
    too_large = upload_too_large(filename, len(data))
    if too_large is not None:
        raise too_large
    try:
        return read_question_set(data, format_of(filename), documents, name=filename, max_bytes=MAX_SET_BYTES)
    except QuestionSetError as exc:
        raise QuestionSetError(exc if str(exc).startswith(filename) else f"{filename}: {exc}") from None


def set_key(questions: QuestionSet) -> str:
    """A digest of the questions, their references and their documents' text: the set's cache key."""
    h = hashlib.sha256()
    for q in questions.questions:
        spans = ",".join(f"{r.start}-{r.end}" for r in q.references)
        h.update(f"{q.id}\0{q.document}\0{q.question}\0{q.kind}\0{spans}\n".encode("utf-8", "surrogatepass"))
    for name in sorted(questions.documents):
        h.update(name.encode("utf-8", "surrogatepass") + b"\0")
        h.update(hashlib.sha256(questions.documents[name].encode("utf-8", "surrogatepass")).digest())
    return h.hexdigest()


# -- running the engine -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EngineRun:
    """The engine's evaluation at one setting, with the parsed documents and chunk sets behind it.

    ``evaluation.chunks[i]`` is chunk ``i - offsets[document]`` of ``chunk_sets[document]``
    (documents in the set's order, each one's chunks in order).
    """

    evaluation: Evaluation
    docs: Mapping[str, chunker.Document]
    chunk_sets: Mapping[str, chunker.ChunkSet]
    offsets: Mapping[str, int]

    def chunk(self, i: int) -> chunker.Chunk:
        """The engine chunk behind ``evaluation.chunks[i]``."""
        name = self.evaluation.chunks[i].document
        return self.chunk_sets[name][i - self.offsets[name]]


def engine_chunks(chunk_sets: Mapping[str, chunker.ChunkSet], index: Index) -> list[IndexedChunk]:
    """The chunks of every document as the index holds them, as :func:`~chunk_inspector.evaluate.index_chunks`
    makes them: ``markdown`` or ``contextualize()``, tokens in cl100k_base (the engine's own count when it is that)."""
    count = chunker.get_tokenizer("cl100k_base").count
    out: list[IndexedChunk] = []
    for name, chunks in chunk_sets.items():
        exact = index == "markdown" and chunks.config.get("tokenizer") == "cl100k_base"
        for c in chunks:
            text = c.markdown if index == "markdown" else c.contextualize()
            out.append(
                IndexedChunk(name, (c.char_span[0], c.char_span[1]), text, c.token_count if exact else count(text))
            )
    return out


def run_engine(
    questions: QuestionSet,
    settings: chunker.ChunkOptions,
    retriever: Retriever,
    index: Index,
    parse: Parse,
    repack: Repack,
    *,
    k: int = K,
    budget: int = BUDGET,
    progress: ProgressFn | None = None,
) -> EngineRun:
    """Parse (``parse``) and chunk (``repack``) every document of the set at ``settings``, index them all
    together and evaluate: the same numbers as :func:`evaluate` with ``Contender.engine`` at these settings.
    ``progress`` hears of each document as :func:`evaluate` would (its chunking share), then of the ranking
    (the embedding, batch by batch, with a retriever that embeds)."""
    docs: dict[str, chunker.Document] = {}
    chunk_sets: dict[str, chunker.ChunkSet] = {}
    for n, (name, text) in enumerate(questions.documents.items()):
        if progress is not None:
            share = chunking_share(retriever) * n / len(questions.documents)
            progress(share, f"chunking {name} ({n + 1} of {len(questions.documents)})")
        docs[name] = parse(name, text)
        chunk_sets[name] = repack(name, docs[name], settings)
    offsets: dict[str, int] = {}
    total = 0
    for name, chunks in chunk_sets.items():
        offsets[name] = total
        total += len(chunks)
    contender = Contender.engine(settings, index)
    indexed = engine_chunks(chunk_sets, index)
    evaluation = evaluate(questions, contender, retriever, k=k, budget=budget, chunks=indexed, progress=progress)
    return EngineRun(evaluation, docs, chunk_sets, offsets)


def recall_sweep(
    questions: QuestionSet,
    docs: Mapping[str, chunker.Document],
    grid: Sequence[tuple[int, int]],
    options: chunker.ChunkOptions,
    retriever: Retriever,
    index: Index,
    progress: ProgressFn | None = None,
) -> list[float | None]:
    """Recall within the budget at every ``(target, hard_cap)`` of ``grid``, ``options`` otherwise (None
    where the options do not fit that cap), the documents re-packed from ``docs`` (parsed once). ``progress``
    hears of each point as it starts, then of its ranking (a retriever that embeds, batch by batch)."""
    out: list[float | None] = []
    for n, (target, hard_cap) in enumerate(grid):
        line = f"recall at target {target}, hard cap {hard_cap}"
        if progress is not None:
            progress(n / max(len(grid), 1), line)
        try:
            point = replace(options, target=target, hard_cap=hard_cap)
        except chunker.ConfigError:
            out.append(None)
            continue
        sets = {name: chunker.chunk_with(doc, point) for name, doc in docs.items()}
        contender = Contender.engine(point, index)
        part = scaled(progress, n / len(grid), (n + 1) / len(grid), f"{line}: ")
        evaluation = evaluate(questions, contender, retriever, chunks=engine_chunks(sets, index), progress=part)
        out.append(evaluation.mean()["recall@budget"])
    if progress is not None:
        progress(1.0, "done")
    return out


# -- tables -------------------------------------------------------------------------

_COLUMNS = {
    "recall@k": "recall@{k}",
    "precision@k": "precision@{k}",
    "iou@k": "IoU@{k}",
    "recall@budget": "recall@budget",
    "precision@budget": "precision@budget",
    "iou@budget": "IoU@budget",
    "precision_omega": "precision Ω",
}


def metrics_table(evaluations: Sequence[Evaluation]) -> pd.DataFrame:
    """One row per chunker: its chunk count and the averages of docs/evaluation.md §2, rounded to 3 places."""
    rows = []
    for ev in evaluations:
        row: dict[str, Any] = {"chunker": ev.contender.label, "chunks": len(ev.chunks)}
        mean = ev.mean()
        row.update({title.format(k=ev.k): round(mean[key], 3) for key, title in _COLUMNS.items()})
        rows.append(row)
    return pd.DataFrame(rows)


def kind_table(evaluations: Sequence[Evaluation]) -> pd.DataFrame:
    """Recall within the budget per kind of question: one row per chunker, one column per kind,
    headed with its question count (``"table (5)"``)."""
    if not evaluations:
        return pd.DataFrame()
    first = evaluations[0]
    kinds = list(first.by_kind())
    counts = {kind: sum(1 for r in first.results if r.question.kind == kind) for kind in kinds}
    rows = []
    for ev in evaluations:
        row: dict[str, Any] = {"chunker": ev.contender.label}
        row.update({f"{kind} ({counts[kind]})": round(ev.mean(kind)["recall@budget"], 3) for kind in kinds})
        rows.append(row)
    return pd.DataFrame(rows)


def score_columns(k: int = K) -> list[str]:
    """The score columns of :func:`metrics_table` (for formatting)."""
    return [title.format(k=k) for title in _COLUMNS.values()]


def ordered_results(evaluation: Evaluation) -> list[QuestionResult]:
    """The misses first (worst recall first, as :meth:`Evaluation.misses` orders them), then the rest by rank."""
    misses = evaluation.misses()
    missed = {id(r) for r in misses}
    rest = sorted(
        (r for r in evaluation.results if id(r) not in missed),
        key=lambda r: (r.first_rank or len(evaluation.chunks) + 1, r.question.id),
    )
    return misses + rest


def question_table(evaluation: Evaluation) -> pd.DataFrame:
    """One row per question, misses first: its id, document, kind, rank of the first chunk holding its
    answer, recall within the budget and at k, chunks the budget took, and the question."""
    rows = []
    for r in ordered_results(evaluation):
        recall = r.at_budget.recall
        rows.append(
            {
                "": "✗ miss" if recall == 0 else ("◐ partial" if recall < 1 else "✓"),
                "id": r.question.id,
                "document": r.question.document,
                "kind": r.question.kind or "",
                "first rank": r.first_rank,
                "recall@budget": round(recall, 3),
                f"recall@{evaluation.k}": round(r.at_k.recall, 3),
                "in budget": r.in_budget,
                "question": r.question.question,
            }
        )
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["first rank"] = frame["first rank"].astype("Int64")  # None stays empty, not NaN
    return frame


# -- one question -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MissDetail:
    """One question's answer and where it went.

    ``holders``: the chunks holding some of the answer, best ranked first, as table rows
    (chunk id, indexed tokens, rank, whether the budget took it, share of the answer it holds);
    ``holder_label``: the best-ranked holder's id, indexed tokens, rank and breadcrumb (the tokens of the text the
    index holds, e.g. ``contextualize()``'s breadcrumb line and markdown, which can exceed the chunk's own count);
    ``holder_text``: the best-ranked holder's indexed text; ``retrieved``: the chunks the
    budget took, in rank order; ``source``: HTML of the holders' stretch of the source with
    the reference excerpts highlighted (``None`` when no chunk holds the answer).
    """

    result: QuestionResult
    holders: pd.DataFrame
    holder_text: str | None
    holder_label: str | None
    retrieved: pd.DataFrame
    source: str | None


def _share(span: tuple[int, int], references: Sequence[tuple[int, int]]) -> float:
    total = sum(b - a for a, b in references)
    held = sum(max(0, min(b, span[1]) - max(a, span[0])) for a, b in references)
    return held / total if total else 0.0


def _holders_html(
    run: EngineRun, name: str, local: Sequence[int], references: Sequence[tuple[int, int]], tiny_below: int
) -> str:
    """The source of the holder chunks (indexes into ``name``'s chunk set, the best ranked first), in
    document order, the excerpts highlighted; a line says which chunks between them are left out."""
    chunks = list(run.chunk_sets[name])
    runs: list[list[int]] = []
    for i in sorted(local):
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    parts: list[str] = []
    for n, group in enumerate(runs):
        if n:
            gap = (chunks[runs[n - 1][-1] + 1].id, chunks[group[0] - 1].id)
            between = gap[0] if gap[0] == gap[1] else f"{gap[0]}–{gap[1]}"
            parts.append(f'<div class="ci-gap" style="margin: 4px 0 4px 46px">⋯ {between} not shown</div>')
        parts.append(
            source_html(
                run.docs[name],
                chunks,
                first=group[0],
                last=group[-1],
                selected=local[0] if local[0] in group else None,
                excerpts=references,
                tiny_below=tiny_below,
            )
        )
    return "".join(parts)


def miss_detail(run: EngineRun, result: QuestionResult, tiny_below: int = 50) -> MissDetail:
    """What the page shows for one question (see :class:`MissDetail`)."""
    evaluation = run.evaluation
    rank_of = {i: n for n, i in enumerate(result.ranking, 1)}
    references = [r.span for r in result.question.references]
    holders = sorted(result.holders, key=lambda i: rank_of.get(i, len(rank_of) + 1))
    holder_rows = []
    for i in holders:
        c = run.chunk(i)
        rank = rank_of.get(i)
        holder_rows.append(
            {
                "chunk": c.id,
                "indexed tokens": evaluation.chunks[i].tokens,
                "rank": rank,
                "in budget": "yes" if rank is not None and rank <= result.in_budget else "no",
                "holds of the answer": f"{_share(c.char_span, references):.0%}",
            }
        )
    retrieved_rows = []
    outlines = {name: Outline.of(doc) for name, doc in run.docs.items()}
    for n, i in enumerate(result.ranking[: result.in_budget], 1):
        indexed = evaluation.chunks[i]
        c = run.chunk(i)
        retrieved_rows.append(
            {
                "rank": n,
                "document": indexed.document,
                "chunk": c.id,
                "indexed tokens": indexed.tokens,
                "holds answer": "✓" if i in result.holders else "",
                "section": section_path(c, outlines[indexed.document]),
            }
        )
    holder_text = holder_label = source = None
    if holders:
        best = holders[0]
        c = run.chunk(best)
        holder_text = evaluation.chunks[best].text
        rank = rank_of.get(best)
        where = f"rank {rank}" if rank else "not ranked"
        section = section_path(c, Outline.of(run.docs[result.question.document]))
        holder_label = f"{c.id} · {plural(evaluation.chunks[best].tokens, 'indexed token')} · {where} · {section}"
        name = result.question.document
        source = _holders_html(run, name, [i - run.offsets[name] for i in holders], references, tiny_below)
    return MissDetail(
        result=result,
        holders=pd.DataFrame(
            holder_rows, columns=["chunk", "indexed tokens", "rank", "in budget", "holds of the answer"]
        ),
        holder_text=holder_text,
        holder_label=holder_label,
        retrieved=pd.DataFrame(
            retrieved_rows, columns=["rank", "document", "chunk", "indexed tokens", "holds answer", "section"]
        ),
        source=source,
    )
