"""``chunker DIR -o OUT --ray [ADDRESS]``: a directory run on Ray Data, the same files as ``--jobs``.

The files are read on the driver with ``--jobs``' checks, each document is chunked on the cluster by
:func:`chunk_inspector.cli.corpus.chunk_document` (the function ``--jobs`` runs), and the results come
back in path order to ``--jobs``' writer (:class:`chunk_inspector.cli.corpus.OutputWriter`); Parquet rows
(:func:`chunk_inspector.pipelines.ray_data.schema`) in addition. Ray comes with the ``[ray]`` extra.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Callable, Mapping
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

__all__ = ["check_reachable", "run_ray"]


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
        ds = ds.map_batches(_ChunkDocuments(options, output.layers), batch_format="pyarrow", batch_size=None)
        parquet_tmp = AtomicFile(out / PARQUET_FILE)
        with (
            OutputWriter(out, output.layers, len(rels), on_failure) as writer,
            parquet_tmp as parquet_text,
        ):
            parquet_text.close()  # the Parquet writer opens the temporary file by name
            with pq.ParquetWriter(str(parquet_tmp.temporary), schema()) as parquet:
                for batch in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
                    for row in batch.to_pylist():
                        result = _result(row)
                        on_done(result.name)
                        writer.add(result)
                        parquet.write_table(_parquet_rows(result))
    finally:
        quiet()
        if started:
            ray.shutdown()
    return writer.summary


_RESULT_FIELDS = ("index", "name", "error", "json", "jsonl", "layer_documents", "layer_sections", "layer_chunks")


class _ChunkDocuments:
    """The cluster's work: each item's bytes to a :class:`DocumentResult`, as an Arrow row of strings."""

    def __init__(self, options: chunker.ChunkOptions, layers: bool) -> None:
        self.options = options
        self.layers = layers

    def __call__(self, table: Any) -> Any:
        rows = []
        for item in table.to_pylist():
            if item["error"] is not None:
                result = DocumentResult(item["index"], item["name"], error=item["error"])
            else:
                result = chunk_document(
                    item["index"], item["name"], item["bytes"], self.options, self.layers, item["where"]
                )
            rows.append(
                {
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
            )
        pa = _arrow()
        fields = [pa.field(name, pa.large_string()) for name in _RESULT_FIELDS[1:]]
        types = pa.schema([pa.field("index", pa.int64()), *fields, *(pa.field(k, pa.int64()) for k in _COUNTS)])
        return pa.Table.from_pylist(rows, schema=types)


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
