"""Two revisions of a document, chunk by chunk: what an index that skips seen content must re-embed.

In: the chunks of the old revision and of the new one (two :class:`chunker.ChunkSet`\\ s, either may be
missing: a document added or deleted). Out: a :class:`DocumentDiff` saying which chunks of the new
revision are *kept* (some chunk of the old one has the same ``content_sha256``: its embedding already
exists), which are *added* (their content is new: they must be embedded) and which chunks of the old
revision are *removed* (no chunk of the new one has their content: their vectors should go), with the
tokens to re-embed. :func:`total` adds documents up. Pure: no files, no output; ``chunker diff`` and the
app's Revisions page both use it, so they agree.

Content is compared as a set, as a content-addressed index stores it: a new chunk whose text appears
anywhere in the old revision is kept, whatever its position or id; chunk ids (``c3``) are positions,
so the lists name the kept and added chunks by the new revision's ids and the removed ones by the old's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import chunker

__all__ = ["DocumentDiff", "Status", "Totals", "diff_chunks", "total"]

Status = Literal["changed", "unchanged", "added", "removed"]


@dataclass(frozen=True, slots=True)
class DocumentDiff:
    """One document's diff: ``kept`` and ``added`` are chunks of the new revision, ``removed`` of the old."""

    name: str
    kept: tuple[chunker.Chunk, ...]
    added: tuple[chunker.Chunk, ...]
    removed: tuple[chunker.Chunk, ...]
    in_old: bool = True
    in_new: bool = True

    @property
    def status(self) -> Status:
        """``added`` (only in the new tree), ``removed`` (only in the old), else ``changed`` or ``unchanged``."""
        if not self.in_old:
            return "added"
        if not self.in_new:
            return "removed"
        return "changed" if self.added or self.removed else "unchanged"

    @property
    def new_tokens(self) -> int:
        """The tokens of all the new revision's chunks (what embedding it from scratch costs)."""
        return sum(c.token_count for c in (*self.kept, *self.added))

    @property
    def reembed_tokens(self) -> int:
        """The tokens of the added chunks: what re-indexing the new revision embeds."""
        return sum(c.token_count for c in self.added)

    @property
    def share(self) -> float | None:
        """``reembed_tokens / new_tokens``; None when the new revision has no tokens (or is missing)."""
        return self.reembed_tokens / self.new_tokens if self.new_tokens else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the name, the status, the three lists of chunk ids, their counts and the tokens."""
        return {
            "document": self.name,
            "status": self.status,
            "kept": [c.id for c in self.kept],
            "added": [c.id for c in self.added],
            "removed": [c.id for c in self.removed],
            **_counts(len(self.kept), len(self.added), len(self.removed), self.new_tokens, self.reembed_tokens),
        }


@dataclass(frozen=True, slots=True)
class Totals:
    """Several documents' diffs added up."""

    documents: int
    kept: int
    added: int
    removed: int
    new_tokens: int
    reembed_tokens: int

    @property
    def share(self) -> float | None:
        return self.reembed_tokens / self.new_tokens if self.new_tokens else None

    def to_dict(self) -> dict[str, Any]:
        counts = _counts(self.kept, self.added, self.removed, self.new_tokens, self.reembed_tokens)
        return {"documents": self.documents, **counts}


def _counts(kept: int, added: int, removed: int, new_tokens: int, reembed: int) -> dict[str, Any]:
    share = round(reembed / new_tokens, 6) if new_tokens else None
    return {
        "counts": {"kept": kept, "added": added, "removed": removed},
        "tokens": {"new": new_tokens, "reembed": reembed, "share": share},
    }


def diff_chunks(old: Sequence[chunker.Chunk] | None, new: Sequence[chunker.Chunk] | None, name: str) -> DocumentDiff:
    """The diff of two revisions' chunks (a ChunkSet is a sequence of chunks); None for a missing revision.

    A new chunk is kept when an old chunk has its ``content_sha256``, else added; an old chunk is removed
    when no new chunk has its ``content_sha256``. Both lists keep document order.
    """
    old_chunks = tuple(old or ())
    new_chunks = tuple(new or ())
    old_ids = {c.content_sha256 for c in old_chunks}
    new_ids = {c.content_sha256 for c in new_chunks}
    return DocumentDiff(
        name,
        kept=tuple(c for c in new_chunks if c.content_sha256 in old_ids),
        added=tuple(c for c in new_chunks if c.content_sha256 not in old_ids),
        removed=tuple(c for c in old_chunks if c.content_sha256 not in new_ids),
        in_old=old is not None,
        in_new=new is not None,
    )


def total(diffs: Iterable[DocumentDiff]) -> Totals:
    """The documents' counts and tokens added up; the share is pooled (all re-embedded over all new tokens)."""
    items = list(diffs)
    return Totals(
        documents=len(items),
        kept=sum(len(d.kept) for d in items),
        added=sum(len(d.added) for d in items),
        removed=sum(len(d.removed) for d in items),
        new_tokens=sum(d.new_tokens for d in items),
        reembed_tokens=sum(d.reembed_tokens for d in items),
    )
