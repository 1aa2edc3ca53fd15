"""Directory mode: chunk every Markdown file under a folder, on one or several processes.

In: a folder, an output folder, the engine options. Out, under the output folder:

- one chunk-set JSON per document, at its relative path plus ``.json``
  (``docs/guide.md`` -> ``OUT/docs/guide.md.json``), named by that relative path;
- ``chunks.jsonl``: every chunk of every document, each with its ``document``;
- with ``layers``: ``layers/documents.jsonl``, ``layers/sections.jsonl``,
  ``layers/chunks.jsonl`` (records keyed by ``document`` and ``id``).

Files are found by walking the tree for ``.md`` / ``.markdown`` (any case), skipping
hidden names and the output folder, in sorted relative-path order. Work is handed
out largest file first (so one big document does not finish last on its own), and
the combined files are written in path order whatever order the work completes in:
the output is byte-identical for any number of processes. A file that cannot be
read or decoded is reported and skipped; the rest go on.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import chunker
from chunker.decode import decode_markdown

__all__ = ["LAYER_FILES", "MARKDOWN_SUFFIXES", "CorpusSettings", "CorpusSummary", "find_markdown", "run_corpus"]

MARKDOWN_SUFFIXES = (".md", ".markdown")
LAYER_FILES = {"documents": "documents.jsonl", "sections": "sections.jsonl", "chunks": "chunks.jsonl"}
LAYERS_DIR = "layers"


@dataclass(frozen=True, slots=True)
class CorpusSettings:
    """What every document is chunked with; sent to the worker processes."""

    tokenizer: str
    options: chunker.ChunkOptions = field(default_factory=chunker.ChunkOptions)
    layers: bool = False


@dataclass(frozen=True, slots=True)
class _Result:
    """One document's outcome: the text to append to the combined files, or why it failed."""

    index: int
    name: str
    error: str | None = None
    jsonl: str = ""
    layers: dict[str, str] = field(default_factory=dict)
    chunks: int = 0
    tokens: int = 0
    flagged: int = 0


@dataclass(slots=True)
class CorpusSummary:
    """Totals of a run: files found, documents chunked, chunks, tokens, flagged chunks, failures."""

    files: int = 0
    documents: int = 0
    chunks: int = 0
    tokens: int = 0
    warnings: int = 0
    failures: list[str] = field(default_factory=list)

    def line(self, out: Path) -> str:
        return (
            f"summary: {_n(self.documents, 'document')}, {_n(self.chunks, 'chunk')}, {_n(self.tokens, 'token')}, "
            f"{_n(self.warnings, 'warning')} (chunks with flags), {_n(len(self.failures), 'failure')}; "
            f"written to {out}"
        )


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def find_markdown(root: Path, exclude: Path | None = None) -> list[Path]:
    """Markdown files under ``root`` as relative paths, sorted; hidden names and ``exclude`` are skipped.

    Symbolic links to folders are not followed (no cycles); links to files are read.
    """
    skip = exclude.resolve() if exclude is not None else None
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = [d for d in dirs if not d.startswith(".") and (skip is None or (here / d).resolve() != skip)]
        for name in files:
            if not name.startswith(".") and name.lower().endswith(MARKDOWN_SUFFIXES):
                found.append((here / name).relative_to(root))
    return sorted(found, key=lambda p: p.as_posix())


def output_path(out: Path, rel: Path) -> Path:
    """Where a document's chunk-set JSON goes: ``OUT/<relative path>.json``."""
    return out / rel.parent / f"{rel.name}.json"


def _chunk_one(job: tuple[int, str, str, str, CorpusSettings]) -> _Result:
    """Worker: read, decode, chunk one file and write its JSON; never raises for one bad file."""
    index, path, name, json_path, settings = job
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return _Result(index, name, error=f"{path}: cannot read: {exc.strerror or exc}")
    try:
        text = decode_markdown(data, path)
        doc = chunker.parse(text, name=name, tokenizer=settings.tokenizer)
        chunks = chunker.chunk_with(doc, settings.options)
    except chunker.ChunkerError as exc:
        return _Result(index, name, error=str(exc))
    except Exception as exc:  # an engine bug on one document must not stop a corpus run
        return _Result(index, name, error=f"{path}: internal error while chunking: {type(exc).__name__}: {exc}")
    try:
        target = Path(json_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(chunks.to_json(), encoding="utf-8")
    except OSError as exc:
        return _Result(index, name, error=f"{path}: cannot write {json_path}: {exc.strerror or exc}")
    return _Result(
        index,
        name,
        jsonl=chunks.to_jsonl(),
        layers=chunks.layers_jsonl() if settings.layers else {},
        chunks=len(chunks),
        tokens=int(chunks.document["token_count"]),
        flagged=sum(1 for c in chunks if c.flags),
    )


def resolve_jobs(jobs: int) -> int:
    """``--jobs``: 0 means every core this process may use."""
    if jobs > 0:
        return jobs
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def run_corpus(
    root: Path,
    out: Path,
    settings: CorpusSettings,
    *,
    jobs: int = 1,
    on_done: Callable[[str], None] = lambda name: None,
    on_failure: Callable[[str], None] = lambda message: None,
    files: list[Path] | None = None,
) -> CorpusSummary:
    """Chunk every Markdown file under ``root`` into ``out``; returns the totals.

    ``on_done(name)`` is called as each document finishes (in completion order),
    ``on_failure(message)`` for each file skipped (in document order). ``files`` (relative paths) may be
    given when the caller already walked the tree.
    """
    rels = find_markdown(root, exclude=out) if files is None else files
    summary = CorpusSummary(files=len(rels))
    out.mkdir(parents=True, exist_ok=True)
    jobs_list = [
        (n, str(root / rel), rel.as_posix(), str(output_path(out, rel)), settings) for n, rel in enumerate(rels)
    ]
    streams: dict[str, TextIO] = {"chunks": (out / "chunks.jsonl").open("w", encoding="utf-8", newline="")}
    if settings.layers:
        (out / LAYERS_DIR).mkdir(exist_ok=True)
        for key, filename in LAYER_FILES.items():
            streams[f"layer:{key}"] = (out / LAYERS_DIR / filename).open("w", encoding="utf-8", newline="")
    try:
        writer = _OrderedWriter(streams, summary, on_failure)
        for result in _results(jobs_list, resolve_jobs(jobs)):
            on_done(result.name)
            writer.add(result)
    finally:
        for stream in streams.values():
            stream.close()
    return summary


def _results(jobs_list: list[tuple[int, str, str, str, CorpusSettings]], jobs: int) -> Iterator[_Result]:
    """Each document's result, in completion order; largest files are started first."""
    if jobs <= 1 or len(jobs_list) <= 1:
        for job in jobs_list:
            yield _chunk_one(job)
        return
    by_size = sorted(jobs_list, key=lambda job: (-_size(job[1]), job[0]))
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(jobs_list)), initializer=_ignore_sigint)
    try:
        futures: list[Future[_Result]] = [pool.submit(_chunk_one, job) for job in by_size]
        for future in as_completed(futures):
            yield future.result()
    except BaseException:  # Ctrl-C or a dead worker: stop now rather than finish the queued work
        _stop(pool)
        raise
    pool.shutdown()


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (a worker would report it as a result and go on)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel queued work and end the workers without waiting for the documents they are on."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+: cancels, shuts down, terminates
    if terminate is not None:
        terminate()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


class _OrderedWriter:
    """Appends results to the combined files in document order, holding back those that finish early."""

    def __init__(self, streams: dict[str, TextIO], summary: CorpusSummary, on_failure: Callable[[str], None]) -> None:
        self.streams = streams
        self.summary = summary
        self.on_failure = on_failure
        self.pending: dict[int, _Result] = {}
        self.next = 0

    def add(self, result: _Result) -> None:
        self.pending[result.index] = result
        while self.next in self.pending:
            self._write(self.pending.pop(self.next))
            self.next += 1

    def _write(self, result: _Result) -> None:
        if result.error is not None:  # reported here, in document order, so the log is deterministic too
            self.summary.failures.append(result.error)
            self.on_failure(result.error)
            return
        self.summary.documents += 1
        self.summary.chunks += result.chunks
        self.summary.tokens += result.tokens
        self.summary.warnings += result.flagged
        self.streams["chunks"].write(result.jsonl)
        for key, text in result.layers.items():
            self.streams[f"layer:{key}"].write(text)
