"""Ray Data: chunk a dataset of Markdown documents on a cluster, one output row per chunk.

In: rows with the document's ``path`` and its ``text`` (a str) or ``bytes`` (what
``ray.data.read_binary_files(..., include_paths=True)`` gives, decoded as the CLI decodes a
file), and optionally ``name`` (the document name, the first element of its breadcrumbs;
default: the path). Out: one row per chunk with the document name, every chunk field
(``Chunk.to_dict()``: id, index, breadcrumb, markdown, token_count, spans, headings, flags, …),
``document_tokens`` (the document's own count) and ``error`` (None). A document that cannot
be decoded or chunked becomes one row with ``error`` set to the reason and every chunk field
null; the run goes on. A row that arrives with ``error`` already set passes through as such a
row (the CLI uses this for a file it could not read).

- :class:`ChunkRows` is the callable: ``ds.flat_map(ChunkRows(...))`` (row in, rows out) or
  ``ds.map_batches(ChunkRows(...), batch_format="pyarrow")`` (a table in, a table out, with
  the fixed :func:`schema`, so Parquet files agree whatever each block holds);
- :func:`run_ray` is ``chunker DIR -o OUT --ray [ADDRESS]``: the files of ``--jobs``, the same
  chunks, ids and order, written to ``OUT/chunks.parquet`` and ``OUT/chunks.jsonl``.

Ray and pyarrow come with the ``[ray]`` extra and are imported only when used.
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
from chunk_inspector.corpus import (
    LAYER_FILES,
    CorpusSettings,
    CorpusSummary,
    DocumentResult,
    OutputWriter,
    chunk_document,
    find_markdown,
    read_document,
)
from chunk_inspector.extras import require
from chunk_inspector.files import AtomicFile, FileRefused, display
from chunker.decode import decode_markdown

__all__ = ["JSONL_FILE", "PARQUET_FILE", "ROW_FIELDS", "ChunkRows", "check_reachable", "error_row", "run_ray", "schema"]

PARQUET_FILE = "chunks.parquet"
JSONL_FILE = "chunks.jsonl"

# (name, arrow type) of every output row: the document name, Chunk.to_dict()'s fields in its order, then ours.
_STR, _INT, _STRS, _SPAN = "string", "int64", "list<string>", "list<int64>"
_FIELDS: tuple[tuple[str, str], ...] = (
    ("document", _STR),
    ("id", _STR),
    ("index", _INT),
    ("breadcrumb", _STRS),
    ("markdown", _STR),
    ("content_sha256", _STR),
    ("token_count", _INT),
    ("byte_span", _SPAN),
    ("char_span", _SPAN),
    ("line_span", _SPAN),
    ("headings", _STRS),
    ("flags", _STRS),
    ("added_prefix", _STR),
    ("added_suffix", _STR),
    ("clause", _STR),
    ("overlap_span", _SPAN),
    ("breadcrumb_line", _STR),
    ("context_tokens", _INT),
    ("document_tokens", _INT),
    ("error", _STR),
)
ROW_FIELDS = tuple(name for name, _ in _FIELDS)


def _arrow() -> Any:
    return require("pyarrow", "ray", "Ray Data output")


def schema() -> Any:
    """The pyarrow schema of the output rows (every field nullable: error rows hold only document and error)."""
    pa = _arrow()
    types = {_STR: pa.string(), _INT: pa.int64(), _STRS: pa.list_(pa.string()), _SPAN: pa.list_(pa.int64())}
    return pa.schema([pa.field(name, types[kind]) for name, kind in _FIELDS])


def error_row(name: str, reason: str) -> dict[str, Any]:
    """The row of a document that could not be chunked: its name, the reason, nulls elsewhere."""
    row: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
    row["document"] = name
    row["error"] = reason
    return row


class ChunkRows:
    """Chunks documents for Ray Data; the engine options are checked here, on the driver.

    ``ChunkRows(target=384, hard_cap=1024, tokenizer="cl100k_base", overlap=…, min_tokens=…, …)``
    takes ``chunker.chunk_markdown``'s keywords. Called with one row (a dict of scalars, as
    ``flat_map`` passes it) it returns a list of row dicts; called with a batch (a
    ``pyarrow.Table``, or a dict of columns as ``map_batches`` passes by default) it returns a
    ``pyarrow.Table`` of :func:`schema`.
    """

    def __init__(
        self,
        *,
        target: int = chunker.DEFAULT_TARGET,
        hard_cap: int = chunker.DEFAULT_HARD_CAP,
        tokenizer: Any = "cl100k_base",
        **options: Any,
    ) -> None:
        chunker.chunk_markdown("", name="check.md", tokenizer=tokenizer, target=target, hard_cap=hard_cap, **options)
        self.target = target
        self.hard_cap = hard_cap
        self.tokenizer = tokenizer
        self.options = dict(options)

    @classmethod
    def from_settings(cls, settings: CorpusSettings) -> ChunkRows:
        """The callable for the CLI's settings (those of ``--jobs``)."""
        return cls(tokenizer=settings.tokenizer, **settings.options.keywords())

    def __call__(self, data: Any) -> Any:
        if isinstance(data, Mapping) and not _is_batch(data):
            return self.rows(data)
        table = data if hasattr(data, "to_pylist") else _arrow().table(dict(data))
        out = [row for item in table.to_pylist() for row in self.rows(item)]
        return _arrow().Table.from_pylist(out, schema=schema())

    def rows(self, row: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One document's rows: one per chunk in order, or one error row; never raises for its content."""
        path = str(row.get("path") or "")
        name = str(row.get("name") or path)
        if row.get("error"):
            return [error_row(name, str(row["error"]))]
        try:
            text = _text(row, path)
            chunks = chunker.chunk_markdown(
                text, name=name, tokenizer=self.tokenizer, target=self.target, hard_cap=self.hard_cap, **self.options
            )
        except chunker.ChunkerError as exc:
            return [error_row(name, str(exc))]
        except Exception as exc:  # an engine bug on one document must not stop the dataset
            return [error_row(name, f"{path or name}: internal error while chunking: {type(exc).__name__}: {exc}")]
        tokens = int(chunks.document["token_count"])
        return [{"document": name, **c.to_dict(), "document_tokens": tokens, "error": None} for c in chunks]


def _is_batch(data: Mapping[str, Any]) -> bool:
    """A dict of columns (``map_batches``' default format) rather than one row."""
    path = data.get("path")
    return path is not None and not isinstance(path, str | bytes) and hasattr(path, "__len__")


def _text(row: Mapping[str, Any], path: str) -> str:
    text = row.get("text")
    if isinstance(text, str):
        return text
    data = row.get("bytes")
    if isinstance(data, bytes | bytearray | memoryview):
        return decode_markdown(bytes(data), path)
    raise chunker.ChunkerError(f"{path or 'a row'}: no 'text' (str) or 'bytes' column to chunk")


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
    settings: CorpusSettings,
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
    chunker.chunk_with(chunker.parse("", tokenizer=settings.tokenizer), settings.options)  # fail before Ray starts
    if address is not None:
        check_reachable(address)  # ray.init retries an unreachable address for minutes
    ray = _ray()
    ray_data = require("ray.data", "ray", "--ray (Ray Data)")
    pq = require("pyarrow.parquet", "ray", "Ray Data output")
    items = [_item(n, root, rel, settings) for n, rel in enumerate(rels)]
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
        ds = ds.map_batches(_ChunkDocuments(settings), batch_format="pyarrow", batch_size=None)
        parquet_tmp = AtomicFile(out / PARQUET_FILE)
        with (
            OutputWriter(out, settings.layers, len(rels), on_failure) as writer,
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

    def __init__(self, settings: CorpusSettings) -> None:
        self.settings = settings

    def __call__(self, table: Any) -> Any:
        rows = []
        for item in table.to_pylist():
            if item["error"] is not None:
                result = DocumentResult(item["index"], item["name"], error=item["error"])
            else:
                result = chunk_document(item["index"], item["name"], item["bytes"], self.settings, item["where"])
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


def _item(index: int, root: Path, rel: Path, settings: CorpusSettings) -> dict[str, Any]:
    """One document for the dataset: its bytes, read here with ``--jobs``' checks, or why it cannot be."""
    try:
        data = read_document(root, rel, settings.max_bytes)
    except FileRefused as exc:
        return {"index": index, "name": display(rel), "where": display(root / rel), "bytes": None, "error": str(exc)}
    return {"index": index, "name": rel.as_posix(), "where": display(root / rel), "bytes": data, "error": None}
