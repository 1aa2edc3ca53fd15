"""``chunker diff OLD NEW``: chunk two revisions (two files, or two folders) and say what re-indexing costs.

The comparison itself is :func:`chunk_inspector.revisions.diff_chunks` (pure); this module reads and
chunks the files and prints the result. Two folders are walked like a directory run
(:func:`~chunk_inspector.cli.corpus.find_markdown`, each file read with
:func:`~chunk_inspector.cli.corpus.read_document`: a regular file inside its folder, within the size
limit) and their documents matched by relative path: a document only in OLD is all removed, one only in
NEW all added. A document that cannot be read, decoded or chunked on either side is skipped with its
reason and left out of the totals. Reading a single file is the caller's (``read_markdown`` in
:mod:`chunk_inspector.cli.commands`), so that a bad file is a usage error as for ``chunker FILE``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import chunker
from chunk_inspector.cli.corpus import find_markdown, read_document
from chunk_inspector.files import display, printable
from chunk_inspector.revisions import DocumentDiff, diff_chunks, total
from chunker.decode import decode_markdown

__all__ = ["Pair", "chunk_text", "diff_json", "diff_trees", "find_pairs", "format_diff"]


def chunk_text(text: str, name: str, options: chunker.ChunkOptions) -> chunker.ChunkSet:
    """The chunk set of one revision's text, named ``name`` (both revisions of a document get one name,
    so that a breadcrumb counted in the budget is the same on both sides)."""
    return chunker.chunk_with(chunker.parse(text, name=name, tokenizer=options.tokenizer), options)


def _chunk_file(root: Path, rel: Path, options: chunker.ChunkOptions, max_bytes: int) -> chunker.ChunkSet:
    """Read, decode and chunk ``root / rel``; raises :class:`chunker.ChunkerError` (FileRefused is one)."""
    data = read_document(root, rel, max_bytes)
    return chunk_text(decode_markdown(data, display(root / rel)), rel.as_posix(), options)


Pair = tuple[Path, bool, bool]  # a relative path, whether OLD has it, whether NEW has it


def find_pairs(old_root: Path, new_root: Path) -> list[Pair]:
    """Every Markdown document under either folder, in path order, with the sides that have it. Neither
    folder's walk enters the other when one holds the other."""
    old_files = set(find_markdown(old_root, exclude=new_root))
    new_files = set(find_markdown(new_root, exclude=old_root))
    names = sorted(old_files | new_files, key=lambda p: os.fsencode(p.as_posix()))
    return [(rel, rel in old_files, rel in new_files) for rel in names]


def diff_trees(
    old_root: Path,
    new_root: Path,
    pairs: list[Pair],
    options: chunker.ChunkOptions,
    max_bytes: int,
    *,
    on_done: Callable[[str], None] = lambda name: None,
    on_skip: Callable[[str], None] = lambda message: None,
) -> tuple[list[DocumentDiff], list[str]]:
    """The diffs of the documents of ``pairs`` (:func:`find_pairs`), in order, and the skip messages.

    ``on_done(name)`` is called after each document, ``on_skip(message)`` for each one skipped.
    """
    diffs: list[DocumentDiff] = []
    skipped: list[str] = []
    for rel, in_old, in_new in pairs:
        name = display(rel)
        try:
            old = _chunk_file(old_root, rel, options, max_bytes) if in_old else None
            new = _chunk_file(new_root, rel, options, max_bytes) if in_new else None
        except chunker.ChunkerError as exc:  # FileRefused, a decode error, a document the engine refuses
            skipped.append(str(exc))
            on_skip(str(exc))
        except (RecursionError, MemoryError) as exc:  # one document must not stop the run
            message = f"{name}: cannot chunk it ({type(exc).__name__})"
            skipped.append(message)
            on_skip(message)
        else:
            diffs.append(diff_chunks(old, new, name))
        on_done(name)
    return diffs, skipped


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def format_diff(diffs: list[DocumentDiff]) -> str:
    """The human table: a line per document (status, kept/added/removed chunks, re-embed tokens, share of the
    new revision's tokens), then the total."""
    columns = ["document", "status", "kept", "added", "removed", "re-embed tokens", "share"]
    rows = [
        [
            printable(d.name),
            d.status,
            str(len(d.kept)),
            str(len(d.added)),
            str(len(d.removed)),
            f"{d.reembed_tokens:,}",
            _share(d.share),
        ]
        for d in diffs
    ]
    t = total(diffs)
    label = f"total ({t.documents} document{'' if t.documents == 1 else 's'})"
    rows.append([label, "", str(t.kept), str(t.added), str(t.removed), f"{t.reembed_tokens:,}", _share(t.share)])
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]

    def line(values: list[str]) -> str:
        cells = [v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths, strict=True))]
        return "  ".join(cells).rstrip()

    out = [line(columns), *(line(r) for r in rows[:-1]), line(["-" * w for w in widths]), line(rows[-1])]
    return "\n".join(out) + "\n"


def diff_json(old: Path, new: Path, diffs: list[DocumentDiff], skipped: list[str]) -> str:
    """``--format json``: the two paths, each document (its status, the ``kept``, ``added`` and ``removed``
    chunk ids, counts and tokens), the total, and the messages of the documents skipped."""
    data = {
        "old": display(old),
        "new": display(new),
        "documents": [d.to_dict() for d in diffs],
        "total": total(diffs).to_dict(),
        "skipped": skipped,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
