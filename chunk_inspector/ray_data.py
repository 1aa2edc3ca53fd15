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
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import chunker
from chunk_inspector.corpus import CorpusSettings, CorpusSummary, find_markdown
from chunk_inspector.extras import require
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
    cores and shut down at the end. The files are read here, on the driver, and their bytes go
    into the dataset, so the workers need no shared filesystem; the rows come back in path
    order and are written here: ``OUT/chunks.parquet`` (:func:`schema`) and ``OUT/chunks.jsonl``
    (one row a line, keys in schema order).
    """
    rels = find_markdown(root, exclude=out) if files is None else files
    rows = ChunkRows.from_settings(settings)  # bad options fail before Ray starts
    if address is not None:
        check_reachable(address)  # ray.init retries an unreachable address for minutes
    ray = _ray()
    ray_data = require("ray.data", "ray", "--ray (Ray Data)")
    pq = require("pyarrow.parquet", "ray", "Ray Data output")
    items = [_item(root, rel) for rel in rels]
    started = False
    if not ray.is_initialized():
        if address is None:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a local run reports nowhere
        ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        started = True
    quiet = _quiet_console(ray_data)
    summary = CorpusSummary(files=len(rels))
    try:
        out.mkdir(parents=True, exist_ok=True)
        context = ray_data.DataContext.get_current()
        context.execution_options.preserve_order = True  # rows in document order, as --jobs writes them
        context.enable_progress_bars = False  # our own progress (on_done) instead
        # A block per document (up to 2,000), so that one big file holds no others back in its task.
        ds = ray_data.from_items(items, override_num_blocks=max(1, min(len(items), 2000)))
        ds = ds.map_batches(rows, batch_format="pyarrow", batch_size=None)
        with (
            pq.ParquetWriter(out / PARQUET_FILE, schema()) as parquet,
            (out / JSONL_FILE).open("w", encoding="utf-8", newline="") as jsonl,
        ):
            for batch in _batches(ds):
                parquet.write_table(batch)
                for row in batch.to_pylist():
                    jsonl.write(json.dumps(row, ensure_ascii=False) + "\n")
                    _count(summary, row, on_done, on_failure)
    finally:
        quiet()
        if started:
            ray.shutdown()
    summary.documents = len(rels) - len(summary.failures)
    return summary


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


def _item(root: Path, rel: Path) -> dict[str, Any]:
    path = root / rel
    try:
        return {"path": str(path), "name": rel.as_posix(), "bytes": path.read_bytes(), "error": None}
    except OSError as exc:
        return {
            "path": str(path),
            "name": rel.as_posix(),
            "bytes": None,
            "error": f"{path}: cannot read: {exc.strerror or exc}",
        }


def _batches(ds: Any) -> Iterator[Any]:
    """The dataset's blocks as pyarrow tables, in order, cast to the schema."""
    target = schema()
    for batch in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
        yield batch.select(list(ROW_FIELDS)).cast(target)


def _count(
    summary: CorpusSummary, row: Mapping[str, Any], on_done: Callable[[str], None], on_failure: Callable[[str], None]
) -> None:
    """Adds one output row to the totals; a document's first row (or its error) reports it done."""
    if row["error"] is not None:
        summary.failures.append(row["error"])
        on_failure(row["error"])
        on_done(row["document"])
        return
    summary.chunks += 1
    summary.warnings += bool(row["flags"])
    if row["index"] == 0:
        summary.tokens += row["document_tokens"]
        on_done(row["document"])
