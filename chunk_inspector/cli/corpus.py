"""Directory mode: chunk every Markdown file under a folder, on one or several processes (or on Ray).

In: a folder, an output folder, the engine options. Out, under the output folder:

- one chunk-set JSON per document, at its relative path plus ``.json``
  (``docs/guide.md`` -> ``OUT/docs/guide.md.json``), named by that relative path;
- ``chunks.jsonl``: every chunk of every document, each with its ``document``;
- with ``layers``: ``layers/documents.jsonl``, ``layers/sections.jsonl``,
  ``layers/chunks.jsonl`` (records keyed by ``document`` and ``id``).

Files are found by walking the tree for ``.md`` / ``.markdown`` (any case), skipping
hidden names and the output folder, in sorted relative-path order. Work is handed
out largest file first (so one big document does not finish last on its own), and
every file is written here, in the driving process, in path order whatever order the
work completes in: the output is byte-identical for any number of processes, and
``--ray`` (:mod:`chunk_inspector.pipelines.ray_data`) writes the same files through the same
:class:`OutputWriter`.

Every file is untrusted (docs/SECURITY.md). A document that cannot be named (its name is not
UTF-8), read (a FIFO, a device, a socket, a link that leaves the folder, over the size limit,
unreadable) or decoded is skipped with its reason, and every other document is still written.
Each output file is written atomically (a temporary file renamed into place), so an interrupted
or failed run leaves no empty or half-written file.
"""

from __future__ import annotations

import os
import signal
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import chunker
from chunk_inspector.files import (
    DEFAULT_MAX_BYTES,
    AtomicFile,
    FileRefused,
    check_name,
    display,
    file_id,
    read_bytes,
    under_root,
    write_text,
)
from chunk_inspector.pipelines.ray_data import PARQUET_FILE
from chunker.decode import decode_markdown
from chunker.wording import plural

__all__ = [
    "LAYER_FILES",
    "MARKDOWN_SUFFIXES",
    "CorpusSummary",
    "DocumentResult",
    "Output",
    "OutputWriter",
    "chunk_document",
    "find_markdown",
    "output_path",
    "read_document",
    "resolve_jobs",
    "run_corpus",
]

MARKDOWN_SUFFIXES = (".md", ".markdown")
LAYER_FILES = {"documents": "documents.jsonl", "sections": "sections.jsonl", "chunks": "chunks.jsonl"}
LAYERS_DIR = "layers"
CHUNKS_FILE = "chunks.jsonl"


@dataclass(frozen=True, slots=True)
class Output:
    """What a run writes beyond the chunk sets, and the largest file it reads."""

    layers: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES


@dataclass(frozen=True, slots=True)
class DocumentResult:
    """One document's outcome: its chunk set as the text of each output file, or why it was skipped."""

    index: int
    name: str
    error: str | None = None
    json: str = ""
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
            f"summary: {plural(self.documents, 'document')}, {plural(self.chunks, 'chunk')}, "
            f"{plural(self.tokens, 'token')}, "
            f"{plural(self.warnings, 'warning')} (chunks with flags), {plural(len(self.failures), 'failure')}; "
            f"written to {display(out)}"
        )


def find_markdown(root: Path, exclude: Path | None = None) -> list[Path]:
    """Markdown files under ``root`` as relative paths, sorted; hidden names and ``exclude`` are skipped.

    Symbolic links to folders are not followed (no cycles); a link to a file is listed, and read only
    if it stays inside ``root`` (:func:`read_document`). Names that are not UTF-8 are listed too, and so
    is a folder that cannot be read (its permissions), so that the run reports them rather than losing
    them silently. Raises :class:`FileRefused` when ``root`` itself cannot be read.
    """
    skip = file_id(exclude) if exclude is not None else None
    found: list[Path] = []

    def unreadable(error: OSError) -> None:
        if error.filename is None or Path(error.filename) == root:
            raise FileRefused(f"cannot read the folder {display(root)}: {error.strerror or error}")
        found.append(Path(error.filename).relative_to(root))  # read_document gives the reason

    # A stack of folders, not os.walk, which recurses once per level: a tree nested 1,200 deep (an archive
    # unpacked) once ended the whole run with "nested too deeply", nothing written.
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as error:
            unreadable(error)
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if _is_folder(entry):  # a link to a folder is not followed (no cycles)
                # Known by its inode (as the listing gives it), not by resolving its path: a path as long as the
                # tree is deep, resolved at each level, took time in the square of the depth (2,500: 97 s).
                excluded = skip is not None and entry.inode() == skip[1] and file_id(Path(entry.path)) == skip
                if not entry.is_symlink() and not excluded:
                    folders.append(Path(entry.path))
            elif entry.name.lower().endswith(MARKDOWN_SUFFIXES):
                found.append(Path(entry.path).relative_to(root))
    return sorted(found, key=lambda p: os.fsencode(p.as_posix()))


def _make_folders(folder: Path) -> None:
    """``folder`` and the folders above it that are missing, made one by one from the top (Path.mkdir(parents=True)
    recurses once per level: a document 1,200 folders deep ended the run with "nested too deeply")."""
    missing: list[Path] = []
    while not folder.is_dir() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir(exist_ok=True)


def _is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder; False for a path the system cannot look up (Path.is_dir() raises for one
    longer than it takes, deep in a tree nested thousands of folders deep: the reading then says why)."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """Whether ``entry`` is a folder or a link to one, as os.walk sorts them (one it cannot tell is a file)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def output_path(out: Path, rel: Path) -> Path:
    """Where a document's chunk-set JSON goes: ``OUT/<relative path>.json``."""
    return out / rel.parent / f"{rel.name}.json"


def read_document(root: Path, rel: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of ``root / rel``: a regular file inside ``root``, within ``max_bytes``; else
    :class:`FileRefused` naming the file and the reason (for a folder :func:`find_markdown` could not
    read, why)."""
    check_name(rel, rel.as_posix())
    path = under_root(root, rel.as_posix())
    if _is_dir(path):
        try:
            os.scandir(path).close()
        except OSError as exc:
            raise FileRefused(
                f"{display(root / rel)}: cannot read the folder ({exc.strerror or exc}): its files were not chunked"
            ) from None
        raise FileRefused(f"{display(root / rel)} is a folder that could not be read when the files were listed")
    listed = path == Path(os.path.realpath(root)) / rel  # not a link: named as the walk listed it, not resolved
    try:
        return read_bytes(path, max_bytes=max_bytes, shown=root / rel if listed else None)
    except FileRefused as exc:
        if listed:
            raise
        raise FileRefused(f"{display(root / rel)} → {exc}") from None  # a link: named as listed, then its target


def chunk_document(
    index: int, name: str, data: bytes, options: chunker.ChunkOptions, layers: bool = False, where: str | None = None
) -> DocumentResult:
    """Decode and chunk one document's bytes into the text of its output files; never raises for its content.

    ``name`` is the document's name in its chunk set; ``where`` (default: the name) is how a message names it.
    """
    where = where or name
    try:
        text = decode_markdown(data, where)
    except chunker.ChunkerError as exc:  # its message names the document
        return DocumentResult(index, name, error=str(exc))
    try:
        doc = chunker.parse(text, name=name, tokenizer=options.tokenizer)
        chunks = chunker.chunk_with(doc, options)
    except chunker.ChunkerError as exc:
        return DocumentResult(index, name, error=f"{where}: {exc}")
    except Exception as exc:  # an engine bug on one document must not stop a corpus run
        return DocumentResult(index, name, error=f"{where}: internal error while chunking: {type(exc).__name__}: {exc}")
    return DocumentResult(
        index,
        name,
        json=chunks.to_json(),
        jsonl=chunks.to_jsonl(),
        layers=chunks.layers_jsonl() if layers else {},
        chunks=len(chunks),
        tokens=int(chunks.document["token_count"]),
        flagged=sum(1 for c in chunks if c.flags),
    )


_Job = tuple[int, str, str, chunker.ChunkOptions, Output]


def _chunk_file(job: _Job) -> DocumentResult:
    """Worker: read and chunk one file (nothing is written here; the driver writes)."""
    index, root, rel, options, output = job
    path = Path(rel)
    try:
        data = read_document(Path(root), path, output.max_bytes)
    except FileRefused as exc:
        return DocumentResult(index, display(path), error=str(exc))
    return chunk_document(index, path.as_posix(), data, options, output.layers, where=display(Path(root) / path))


def resolve_jobs(jobs: int, work: int | None = None) -> int:
    """``--jobs``: 0 means every core this process may use; never more processes than cores or documents."""
    cores = _cores()
    wanted = cores if jobs <= 0 else min(jobs, cores)
    return max(1, min(wanted, work)) if work is not None else wanted


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def run_corpus(
    root: Path,
    out: Path,
    options: chunker.ChunkOptions,
    output: Output = Output(),
    *,
    jobs: int = 1,
    on_done: Callable[[str], None] = lambda name: None,
    on_failure: Callable[[str], None] = lambda message: None,
    files: list[Path] | None = None,
) -> CorpusSummary:
    """Chunk every Markdown file under ``root`` into ``out`` with ``options``; returns the totals.

    ``on_done(name)`` is called as each document finishes (in completion order),
    ``on_failure(message)`` for each file skipped (in document order). ``files`` (relative paths) may be
    given when the caller already walked the tree.
    """
    rels = find_markdown(root, exclude=out) if files is None else files
    jobs_list: list[_Job] = [(n, str(root), str(rel), options, output) for n, rel in enumerate(rels)]
    with OutputWriter(out, output.layers, len(rels), on_failure) as writer:
        for result in _results(jobs_list, resolve_jobs(jobs, len(jobs_list))):
            on_done(result.name)
            writer.add(result)
    return writer.summary


def _results(jobs_list: list[_Job], jobs: int) -> Iterator[DocumentResult]:
    """Each document's result, in completion order; largest files are started first."""
    if jobs <= 1 or len(jobs_list) <= 1:
        for job in jobs_list:
            yield _chunk_file(job)
        return
    by_size = sorted(jobs_list, key=lambda job: (-_size(os.path.join(job[1], job[2])), job[0]))
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_signals)
    try:
        futures: list[Future[DocumentResult]] = [pool.submit(_chunk_file, job) for job in by_size]
        for future in as_completed(futures):
            yield future.result()
    except BaseException:  # Ctrl-C or a dead worker: stop now rather than finish the queued work
        _stop(pool)
        raise
    pool.shutdown()


def _worker_signals() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (a worker would report it as a result and go on),
    and end at SIGTERM (the parent's handler, forked with them, would raise it as a result too)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


# Whether this process ended a pool's workers mid-run (_stop). A worker ended while it sent its result leaves the
# pool's own thread waiting forever on the rest of the message, and Python waits for that thread at exit: the
# command line then ends without waiting for it (commands.main), its own clean-up already done. Seen: 3 runs
# of 40 hung after SIGTERM at a random moment of a --jobs 2 run.
workers_stopped = False


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel queued work and end the workers without waiting for the documents they are on."""
    global workers_stopped
    workers_stopped = True
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
        return os.lstat(path).st_size
    except (OSError, ValueError):
        return 0


class OutputWriter:
    """Writes results into ``out`` in document order, holding back those that finish early.

    Each document's JSON is written atomically as its turn comes; the combined files
    (``chunks.jsonl``, the layers) are written under temporary names and renamed into place when the
    run ends normally, so an interrupted run leaves the previous ones (or none), never a part.
    ``with OutputWriter(...) as writer: writer.add(result)``; ``writer.summary`` holds the totals.
    """

    def __init__(self, out: Path, layers: bool, files: int, on_failure: Callable[[str], None]) -> None:
        self.out = out
        self.layers = layers
        self.summary = CorpusSummary(files=files)
        self.on_failure = on_failure
        self.pending: dict[int, DocumentResult] = {}
        self.next = 0
        self._stack = ExitStack()
        self.streams: dict[str, TextIO] = {}
        self.written: dict[tuple[int, int], str] = {}  # (device, inode) of each JSON written -> its document
        # What the run writes besides each document's JSON (and Ray's Parquet file): no document's JSON goes there.
        self.own_files = {out / CHUNKS_FILE, out / PARQUET_FILE}
        if layers:
            self.own_files.update(out / LAYERS_DIR / filename for filename in LAYER_FILES.values())

    def __enter__(self) -> OutputWriter:
        self.out.mkdir(parents=True, exist_ok=True)
        with ExitStack() as stack:
            self.streams["chunks"] = stack.enter_context(AtomicFile(self.out / CHUNKS_FILE))
            if self.layers:
                (self.out / LAYERS_DIR).mkdir(exist_ok=True)
                for key, filename in LAYER_FILES.items():
                    self.streams[f"layer:{key}"] = stack.enter_context(AtomicFile(self.out / LAYERS_DIR / filename))
            self._stack = stack.pop_all()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.__exit__(*exc)  # type: ignore[arg-type]

    def add(self, result: DocumentResult) -> None:
        self.pending[result.index] = result
        while self.next in self.pending:
            self._write(self.pending.pop(self.next))
            self.next += 1

    def add_all(self, results: Iterable[DocumentResult]) -> None:
        for result in results:
            self.add(result)

    def _fail(self, message: str) -> None:
        # Reported here, in document order, so the log is deterministic too.
        self.summary.failures.append(message)
        self.on_failure(message)

    def _write(self, result: DocumentResult) -> None:
        if result.error is not None:
            self._fail(result.error)
            return
        target = output_path(self.out, Path(result.name))
        taken = next((own for own in self.own_files if _lands_on(target, own)), None)
        if taken is not None:  # a folder of the input named as one of the run's own files (chunks.jsonl/)
            self._fail(
                f"{result.name}: its JSON would go to {display(target)}, where the run writes "
                f"{display(taken)}: rename its folder to chunk it"
            )
            return
        first = self.written.get(file_id(target) or (-1, -1))
        if first is not None:  # Guide.md beside guide.md, written to a file system that takes them as one name
            self._fail(
                f"{result.name}: its JSON would go to {display(target)}, the file {first}'s JSON was written to "
                "(the output's file system takes the two names as one: letter case, Unicode normalisation): "
                "rename one to chunk both"
            )
            return
        try:
            _make_folders(target.parent)
            write_text(target, result.json)
        except OSError as exc:
            self._fail(f"{result.name}: cannot write {display(target)}: {exc.strerror or exc}")
            return
        written = file_id(target)
        if written is not None:
            self.written[written] = result.name
        self.summary.documents += 1
        self.summary.chunks += result.chunks
        self.summary.tokens += result.tokens
        self.summary.warnings += result.flagged
        self.streams["chunks"].write(result.jsonl)
        for key, text in result.layers.items():
            self.streams[f"layer:{key}"].write(text)


def _lands_on(target: Path, own: Path) -> bool:
    """Whether ``target`` is ``own`` or lies under it, as a file system that folds letter case and Unicode
    normalisation may take the names (macOS, Windows): only ``target``'s ancestor at ``own``'s depth is compared
    (folding every ancestor of a path thousands of folders deep, for each document, took time in the square of
    the depth)."""
    return _folded(Path(*target.parts[: len(own.parts)])) == _folded(own)


def _folded(path: Path) -> str:
    """``path`` as a file system that folds letter case and Unicode normalisation may take it."""
    return unicodedata.normalize("NFC", str(path)).casefold()
