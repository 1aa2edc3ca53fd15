"""``chunker DIR -o OUT --ray [ADDRESS]``: a directory run on Ray Data, the same files as ``--jobs``.

The files are read on the driver with ``--jobs``' checks, each document is chunked on the cluster by
:func:`chunk_inspector.cli.corpus.chunk_document` (the function ``--jobs`` runs), and the results come
back in path order to ``--jobs``' writer (:class:`chunk_inspector.cli.corpus.OutputWriter`); Parquet rows
(:func:`chunk_inspector.pipelines.ray_data.schema`) in addition. Ray comes with the ``[ray]`` extra.

A cluster loses workers and nodes: each document's task runs again when its worker or node is lost
(up to :data:`TASK_RETRIES` times), and a document whose task cannot be completed is skipped with
its reason like any other; none goes missing (docs/pipelines.md, "On a Ray cluster").
"""

from __future__ import annotations

import json
import logging
import os
import socket
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import chunker
from chunk_inspector.cli.corpus import (
    LAYER_FILES,
    CorpusSummary,
    DocumentResult,
    Output,
    OutputWriter,
    chunk_document,
    find_markdown,
    read_document,
)
from chunk_inspector.files import AtomicFile, FileRefused, display
from chunk_inspector.pipelines.extras import require
from chunk_inspector.pipelines.ray_data import PARQUET_FILE, error_row, schema
from chunker.wording import shorten

__all__ = ["TASK_RETRIES", "check_reachable", "run_ray"]

# How often a document's task runs again after its worker process or node is lost. Ray Data's own
# default is forever: a document that crashes its worker every time would hold the run for ever.
TASK_RETRIES = 3


def _arrow() -> Any:
    return require("pyarrow", "ray", "Ray Data output")


def _ray() -> Any:
    return require("ray", "ray", "--ray (Ray Data)")


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Raise :class:`chunker.ChunkerError` when ``address`` (``host:port`` or ``ray://host:port``)
    does not accept a TCP connection within ``timeout`` seconds; ``"auto"`` and ``"local"`` pass."""
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if address in ("auto", "local") or not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise chunker.ChunkerError(
            f"cannot reach a Ray cluster at {address}: {exc.strerror or exc} (check the address, or leave it "
            "out to start a local Ray)"
        ) from None


def run_ray(
    root: Path,
    out: Path,
    options: chunker.ChunkOptions,
    output: Output = Output(),  # noqa: B008 (a frozen value)
    *,
    address: str | None = None,
    files: list[Path] | None = None,
    on_done: Callable[[str], None] = lambda name: None,
    on_failure: Callable[[str], None] = lambda message: None,
) -> CorpusSummary:
    """Chunk every Markdown file under ``root`` on Ray into ``out``; returns the totals, failures counted.

    ``address`` is passed to ``ray.init`` (``"auto"``, ``"ray://head:10001"``, …); without one
    (and no Ray already running in this process) a local Ray is started on this machine's
    cores and shut down at the end. The files are read here, on the driver, with the same
    checks as ``--jobs`` (:func:`chunk_inspector.corpus.read_document`), and their bytes go into
    the dataset, so the workers need no shared filesystem. Each document is chunked on the
    cluster by :func:`chunk_inspector.corpus.chunk_document`, the function ``--jobs`` runs, and
    its results come back in path order to the writer ``--jobs`` uses
    (:class:`chunk_inspector.corpus.OutputWriter`): the same files with the same bytes (a JSON
    per document, ``chunks.jsonl``, the layers), and the same skipped documents reported the same
    way. In addition, ``OUT/chunks.parquet`` (:func:`schema`): the rows of ``chunks.jsonl`` with
    ``document_tokens``, then one row with ``error`` set for each skipped document.

    When a task fails beyond its retries (a worker crashed on it again and again, a node lost for
    good), Ray Data stops the dataset; the documents not yet received then run again as one task
    each (:func:`_one_by_one`), and any whose task fails too is skipped with the reason.
    """
    rels = find_markdown(root, exclude=out) if files is None else files
    chunker.chunk_with(chunker.parse("", tokenizer=options.tokenizer), options)  # fail before Ray starts
    if address is not None:
        check_reachable(address)  # ray.init retries an unreachable address for minutes
    ray = _ray()
    ray_data = require("ray.data", "ray", "--ray (Ray Data)")
    pq = require("pyarrow.parquet", "ray", "Ray Data output")
    items = [_item(n, root, rel, output) for n, rel in enumerate(rels)]
    started = False
    if not ray.is_initialized():
        if address is None:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a local run reports nowhere
        ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        started = True
    quiet = _quiet_console(ray_data)
    try:
        context = ray_data.DataContext.get_current()
        context.execution_options.preserve_order = True  # documents in path order, as --jobs writes them
        context.enable_progress_bars = False  # our own progress (on_done) instead
        # A block per document (up to 2,000), so that one big file holds no others back in its task.
        ds = ray_data.from_items(items, override_num_blocks=max(1, min(len(items), 2000)))
        chunk = _ChunkDocuments(options, output.layers)
        with warnings.catch_warnings():
            # Ray 2.60 deprecates map_batches' **ray_remote_args (for Ray 2.64) but names no max_retries parameter yet.
            warnings.filterwarnings("ignore", "`ray_remote_args` is deprecated", DeprecationWarning)
            ds = ds.map_batches(chunk, batch_format="pyarrow", batch_size=None, max_retries=TASK_RETRIES)
        parquet_tmp = AtomicFile(out / PARQUET_FILE)
        with (
            OutputWriter(out, output.layers, len(rels), on_failure) as writer,
            parquet_tmp as parquet_text,
        ):
            parquet_text.close()  # the Parquet writer opens the temporary file by name
            with pq.ParquetWriter(str(parquet_tmp.temporary), schema()) as parquet:
                received: set[int] = set()

                def deliver(result: DocumentResult) -> None:
                    received.add(result.index)
                    on_done(result.name)
                    writer.add(result)
                    parquet.write_table(_parquet_rows(result))

                if _each_row(ds, lambda row: deliver(_result(row))) is not None:
                    for result in _one_by_one(ray, chunk, [i for i in items if i["index"] not in received]):
                        deliver(result)
    finally:
        quiet()
        if started:
            ray.shutdown()
    return writer.summary


def _each_row(ds: Any, handle: Callable[[dict[str, Any]], None]) -> Exception | None:
    """Hand each result row of ``ds`` to ``handle``, in order; returns what stopped the dataset, if anything.

    Only the dataset's own failure is returned (a task out of retries, a lost node): one raised by
    ``handle`` (writing the output) goes up as it is.
    """
    batches = iter(ds.iter_batches(batch_size=None, batch_format="pyarrow"))
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return None
        except Exception as exc:  # Ray's errors have no common base outside ray.exceptions (Ray Data wraps some)
            return exc
        for row in batch.to_pylist():
            handle(row)


def _one_by_one(ray: Any, chunk: _ChunkDocuments, items: list[dict[str, Any]]) -> Iterator[DocumentResult]:
    """The documents the dataset did not deliver, each as a task of its own (retried like the dataset's);
    a document whose task fails too is skipped with the reason, so that none goes missing."""
    task = ray.remote(max_retries=TASK_RETRIES)(_chunk_one)
    shared = ray.put(chunk)
    refs = [task.remote(shared, item) for item in items]
    for item, ref in zip(items, refs, strict=True):
        try:
            row = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # raised in the task (a bug: chunk_document catches the rest)
            cause = exc.cause if isinstance(exc.cause, BaseException) else exc
            reason = f"{item['where']}: not chunked: its Ray task raised {_first_line(cause)}"
            yield DocumentResult(item["index"], item["name"], error=reason)
        except Exception as exc:  # the worker or the node lost each time: not retried further
            reason = f"{item['where']}: not chunked: its Ray task failed {TASK_RETRIES + 1} times ({_first_line(exc)})"
            yield DocumentResult(item["index"], item["name"], error=reason)
        else:
            yield _result(row)


def _chunk_one(chunk: _ChunkDocuments, item: dict[str, Any]) -> dict[str, Any]:
    """A Ray task: one document's result row."""
    return chunk.row(item)


def _first_line(exc: BaseException) -> str:
    """An exception as one short line (Ray's messages run to many lines, with tracebacks)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    return shorten(text, 300)


_RESULT_FIELDS = ("index", "name", "error", "json", "jsonl", "layer_documents", "layer_sections", "layer_chunks")


class _ChunkDocuments:
    """The cluster's work: each item's bytes to a :class:`DocumentResult`, as an Arrow row of strings."""

    def __init__(self, options: chunker.ChunkOptions, layers: bool) -> None:
        self.options = options
        self.layers = layers

    def __call__(self, table: Any) -> Any:
        rows = [self.row(item) for item in table.to_pylist()]
        pa = _arrow()
        fields = [pa.field(name, pa.large_string()) for name in _RESULT_FIELDS[1:]]
        types = pa.schema([pa.field("index", pa.int64()), *fields, *(pa.field(k, pa.int64()) for k in _COUNTS)])
        return pa.Table.from_pylist(rows, schema=types)

    def row(self, item: Mapping[str, Any]) -> dict[str, Any]:
        """One item of the dataset (:func:`_item`) to its result row."""
        if item["error"] is not None:
            result = DocumentResult(item["index"], item["name"], error=item["error"])
        else:
            index, name, where = item["index"], item["name"], item["where"]
            result = chunk_document(index, name, item["bytes"], self.options, self.layers, where)
        return {
            "index": result.index,
            "name": result.name,
            "error": result.error,
            "json": result.json,
            "jsonl": result.jsonl,
            **{f"layer_{key}": result.layers.get(key) for key in LAYER_FILES},
            "chunks": result.chunks,
            "tokens": result.tokens,
            "flagged": result.flagged,
        }


_COUNTS = ("chunks", "tokens", "flagged")


def _result(row: Mapping[str, Any]) -> DocumentResult:
    layers = {key: row[f"layer_{key}"] for key in LAYER_FILES if row.get(f"layer_{key}") is not None}
    return DocumentResult(
        index=row["index"],
        name=row["name"],
        error=row["error"],
        json=row["json"] or "",
        jsonl=row["jsonl"] or "",
        layers=layers,
        chunks=row["chunks"],
        tokens=row["tokens"],
        flagged=row["flagged"],
    )


def _parquet_rows(result: DocumentResult) -> Any:
    """A document's Parquet rows: its chunks.jsonl records and its token count, or one error row."""
    pa = _arrow()
    if result.error is not None:
        return pa.Table.from_pylist([error_row(result.name, result.error)], schema=schema())
    rows = [{**json.loads(line), "document_tokens": result.tokens, "error": None} for line in result.jsonl.splitlines()]
    return pa.Table.from_pylist(rows, schema=schema())


def _quiet_console(ray_data: Any) -> Callable[[], None]:
    """Ray Data prints INFO lines on the console on every run: keep its errors only (its log file is untouched).

    Returns the function that puts the levels back. ``ray_data`` is imported first: importing it sets up its logger.
    """
    handlers = [
        h
        for h in logging.getLogger(ray_data.__name__).handlers
        if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)
    ]
    levels = [h.level for h in handlers]
    for handler in handlers:
        handler.setLevel(logging.ERROR)

    def restore() -> None:
        for handler, level in zip(handlers, levels, strict=True):
            handler.setLevel(level)

    return restore


def _item(index: int, root: Path, rel: Path, output: Output) -> dict[str, Any]:
    """One document for the dataset: its bytes, read here with ``--jobs``' checks, or why it cannot be."""
    try:
        data = read_document(root, rel, output.max_bytes)
    except FileRefused as exc:
        return {"index": index, "name": display(rel), "where": display(root / rel), "bytes": None, "error": str(exc)}
    return {"index": index, "name": rel.as_posix(), "where": display(root / rel), "bytes": data, "error": None}
