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
- :func:`schema` and :func:`error_row` are the rows' types; ``chunker DIR -o OUT --ray [ADDRESS]``
  (:mod:`chunk_inspector.cli.ray_run`) writes its Parquet rows with them.

Ray and pyarrow come with the ``[ray]`` extra and are imported only when used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import chunker
from chunk_inspector.pipelines.extras import check_keywords, require
from chunker.decode import decode_markdown

__all__ = ["JSONL_FILE", "PARQUET_FILE", "ROW_FIELDS", "ChunkRows", "error_row", "schema"]

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
    """Chunks documents for Ray Data; the options are checked here, on the driver.

    ``ChunkRows(chunker.ChunkOptions(...))``, or the options' keywords (``ChunkRows(target=384,
    hard_cap=1024, tokenizer="cl100k_base", overlap=…, …)``); ``tokenizer`` may also be a callable
    ``str -> int`` or a :class:`chunker.Tokenizer`. Called with one row (a dict of scalars, as
    ``flat_map`` passes it) it returns a list of row dicts; called with a batch (a
    ``pyarrow.Table``, or a dict of columns as ``map_batches`` passes by default) it returns a
    ``pyarrow.Table`` of :func:`schema`.
    """

    def __init__(
        self, options: chunker.ChunkOptions | None = None, *, tokenizer: chunker.TokenizerLike = None, **keywords: Any
    ) -> None:
        if options is not None and (keywords or tokenizer is not None):
            raise chunker.ConfigError("give either a ChunkOptions or its keywords, not both")
        check_keywords(keywords)
        named = tokenizer if isinstance(tokenizer, str) else None
        self.options = options or chunker.ChunkOptions(tokenizer=named, **keywords)
        # What parses on the workers (a name travels better than a loaded tokenizer): checked here, loaded there.
        self.tokenizer: chunker.TokenizerLike = tokenizer if tokenizer is not None else self.options.tokenizer
        chunker.get_tokenizer(self.tokenizer)

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
            chunks = chunker.chunk_with(chunker.parse(text, name=name, tokenizer=self.tokenizer), self.options)
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
