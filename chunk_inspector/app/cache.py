"""The app's cache of parsed documents, chunk sets and evaluations: shared by every session, bounded by memory.

One :class:`MemoryCache` per server process (:func:`shared`, an ``st.cache_resource``), guarded by a
lock: Streamlit runs each session's script in its own thread. Every entry has a size in bytes,
measured when it is made (:func:`deep_size`, a walk of the objects it holds); the entries together
are kept within a budget (:func:`budget_from_env`: ``CHUNK_INSPECTOR_CACHE_MB``, default
:data:`DEFAULT_BUDGET_MB`).

- **Least recently used first.** When an entry is added beyond the budget, the entries used least
  recently go first. An entry may depend on others (a chunk set on its document, an evaluation on the
  chunk sets it holds): using it counts as using them, and evicting one evicts what depends on it, so
  a document goes with its chunk sets and nothing the cache dropped stays alive through another entry.
- **Pinned while in use.** A run pins what it uses (``pin=`` a holder, one per session:
  :func:`run_holder`) until :meth:`MemoryCache.release` at the end of the run; pinned entries are never
  evicted. The cache can then exceed its budget by what running scripts are using, and by nothing else.
- **Too big alone.** A value larger than the whole budget is returned but not kept
  (:attr:`Got.kept` is False): the caller says so to the user.
- **Made once.** Two sessions asking for the same missing key at once: one makes it, the other waits.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sized
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Generic, TypeVar

import pandas as pd
import streamlit as st

import chunker

__all__ = [
    "DEFAULT_BUDGET_MB",
    "ENV_BUDGET",
    "Got",
    "MemoryCache",
    "budget_from_env",
    "caches_entries",
    "caches_size",
    "chunk_set_size",
    "deep_size",
    "document_size",
    "run_holder",
    "shared",
    "table_size",
]

ENV_BUDGET = "CHUNK_INSPECTOR_CACHE_MB"
# 1 GiB: a 5 MB upload of real Markdown measures about 80 MB parsed (the text as a Python str, its
# blocks, line table and token counts, and the cutting caches the first re-pack adds) and 10-17 MB per
# chunk set; a typical document (100-300 KB) a few MB. So this holds eight 5 MB documents on screen
# with a couple of chunk sets each, or hundreds of typical ones, and with Streamlit itself (~150 MB)
# and a parse in flight per active session it fits a 2 GB server.
DEFAULT_BUDGET_MB = 1024
MB = 1 << 20

V = TypeVar("V")

# What a size walk never enters: shared by everything (classes, modules, code) or not data.
_SKIP = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.CodeType)


def deep_size(root: object, exclude: Iterable[object] = (), shared: tuple[type, ...] = (chunker.Tokenizer,)) -> int:
    """Bytes held by ``root`` and every object reachable from it (``sys.getsizeof`` of each, once),
    not entering ``exclude`` (objects counted elsewhere: the document a chunk set points back to),
    instances of ``shared`` (tokenizers: one per encoding for the whole process), classes, modules or
    functions. Buffers behind numpy views and memoryviews are followed. About 0.1 s per 200,000 objects."""
    skip = (*_SKIP, *shared)
    seen = {id(obj) for obj in exclude}
    total = 0
    todo: list[Any] = [root]
    getsizeof = sys.getsizeof
    while todo:
        fresh: list[Any] = []
        for obj in todo:
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, skip):
                continue
            fresh.append(obj)
            if isinstance(obj, memoryview):
                todo.append(obj.obj)
            elif getattr(type(obj), "__module__", "") == "numpy" and getattr(obj, "base", None) is not None:
                todo.append(obj.base)  # a view: its data is its base's
        total += sum(map(getsizeof, fresh))
        todo = gc.get_referents(*fresh)
    return total


def document_size(doc: chunker.Document) -> int:
    """What a parsed Document holds (its text included), measured; the tokenizer is shared, not counted."""
    return deep_size(doc)


def caches_size(doc: chunker.Document) -> int:
    """What the Document's caches hold (``Document.caches``, each pass's slot: they grow at the first re-pack
    of each kind of cut)."""
    return deep_size(doc.caches, exclude=(doc, doc.text, doc.blocks, doc.root, doc.source, *_document_parts(doc)))


def _document_parts(doc: chunker.Document) -> list[object]:
    """The document's own objects (its sections, blocks, name and titles) that caches and chunk sets point
    to rather than copy: counted with the document, not again."""
    sections = list(doc.sections_in_order())
    return [doc.name, *sections, *(s.title for s in sections), *doc.blocks, *(b.title for b in doc.blocks if b.title)]


def caches_entries(doc: chunker.Document) -> int:
    """How many things the Document's caches hold: a cheap sign of their growth (each collection in
    a cache counts its items, anything else one)."""
    total = 0
    for value in doc.caches.by_name().values():
        parts = [getattr(value, g.name) for g in fields(value)] if is_dataclass(value) else [value]
        total += sum(len(part) if isinstance(part, Sized) else 1 for part in parts)
    return total


CHUNK_SAMPLE = 256  # chunks walked to measure a chunk set's per-chunk overhead (the rest is scaled from them)


def chunk_set_size(chunks: chunker.ChunkSet, doc: chunker.Document) -> int:
    """What a chunk set holds beyond its document: every chunk's text exactly, the rest of a chunk (ids,
    spans, breadcrumb and flag lists) from an even sample of :data:`CHUNK_SAMPLE` chunks scaled to all of
    them (a re-pack of a 5 MB document makes ~10,000 chunks, and this runs at each one: a full walk would
    cost a fifth of the re-pack), and the set's own header."""
    # The set's own tuple (a full slice of a tuple is the tuple itself in CPython; were it a copy, the walk
    # below would count the set's tuple too, and skip its chunks by type all the same).
    members = chunks[:]
    # The document's sections and blocks are skipped by type: listing them (180,000 objects on a 5 MB
    # document) to exclude them one by one cost more than the rest of this measure, at every move.
    document_types = (chunker.Tokenizer, chunker.Section, chunker.Block)
    shared = (doc, doc.text, doc.caches, doc.name)
    # The set's own header, its tuple counted but not entered
    total = sys.getsizeof(members) + deep_size(
        chunks, exclude=(*shared, members), shared=(*document_types, chunker.Chunk)
    )
    total += sum(sys.getsizeof(c.markdown) for c in members)
    if members:
        step = max(1, len(members) // CHUNK_SAMPLE)
        sample = members[::step]
        # The breadcrumbs and headings name the document's sections with the document's own strings: those
        # of the sample are left out, not every title of the document (18,000 on a 5 MB document, listed at
        # every move, were half the cost of this measure).
        titles = [title for c in sample for title in (*c.breadcrumb, *c.headings)]
        texts = [c.markdown for c in sample]
        sampled = deep_size(sample, exclude=(*shared, *texts, *titles), shared=document_types)
        total += sampled * len(members) // len(sample) - sys.getsizeof(sample)
    return total


def table_size(table: pd.DataFrame) -> int:
    """What a table the app made holds: its columns and index, their strings included."""
    return int(table.memory_usage(index=True, deep=True).sum())


def budget_from_env(environ: dict[str, str] | None = None) -> int:
    """The budget in bytes: ``CHUNK_INSPECTOR_CACHE_MB`` (MiB, a positive number) or the default."""
    raw = (os.environ if environ is None else environ).get(ENV_BUDGET, "").strip()
    if not raw:
        return DEFAULT_BUDGET_MB * MB
    try:
        megabytes = float(raw)
    except ValueError:
        megabytes = -1
    if not megabytes > 0:
        raise ValueError(f"{ENV_BUDGET}={raw!r}: give the cache budget in MiB, a positive number (e.g. 1024)")
    return int(megabytes * MB)


@dataclass(frozen=True, slots=True)
class Got(Generic[V]):
    """A value from :meth:`MemoryCache.get`: ``kept`` False when it was made but not cached (larger than
    the whole budget, or something it depends on is not cached); ``size`` its measured bytes."""

    value: V
    size: int
    kept: bool
    made: bool  # made in this call (False: a hit, or made by a concurrent caller)


@dataclass(slots=True)
class _Entry:
    value: Any
    size: int
    depends_on: tuple[Hashable, ...]
    dependents: set[Hashable] = field(default_factory=set)
    pins: set[Hashable] = field(default_factory=set)


class MemoryCache:
    """A thread-safe LRU cache bounded by the bytes of what it holds (see the module's notes)."""

    def __init__(self, budget: int) -> None:
        if budget <= 0:
            raise ValueError("the budget must be positive")
        self.budget = budget
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()  # least recently used first
        self._used = 0
        self._pinned_by: dict[Hashable, set[Hashable]] = {}
        self._making: dict[Hashable, threading.Event] = {}
        self._lock = threading.RLock()
        self.evictions = 0

    # -- reading ---------------------------------------------------------------------------
    @property
    def used(self) -> int:
        """Bytes of everything cached (pinned entries included)."""
        return self._used

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def order(self) -> list[Hashable]:
        """The cached keys, least recently used first."""
        with self._lock:
            return list(self._entries)

    def size_of(self, key: Hashable) -> int | None:
        with self._lock:
            entry = self._entries.get(key)
            return None if entry is None else entry.size

    def pinned(self) -> set[Hashable]:
        """Keys pinned by some holder."""
        with self._lock:
            return {key for key, entry in self._entries.items() if entry.pins}

    # -- using -----------------------------------------------------------------------------
    def get(
        self,
        key: Hashable,
        make: Callable[[], V],
        size: Callable[[V], int],
        *,
        depends_on: Iterable[Hashable] = (),
        pin: Hashable | None = None,
        room: int = 0,
    ) -> Got[V]:
        """The value for ``key``: cached, or ``make()`` measured with ``size`` and cached (evicting the least
        recently used unpinned entries beyond the budget). ``depends_on``: keys this value holds on to;
        it is kept only while they are. ``pin``: pin it (and what it depends on) for that holder until
        :meth:`release`. ``room``: bytes ``make`` is expected to take, evicted for before making it (unless
        more than the whole budget). ``make``'s exceptions propagate (nothing is cached)."""
        parents = tuple(depends_on)
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    self._touch(key)
                    if pin is not None:
                        self._pin(key, pin)
                    return Got(entry.value, entry.size, True, False)
                waiting = self._making.get(key)
                if waiting is None:
                    self._making[key] = threading.Event()
                    if 0 < room <= self.budget:  # (a value expected to exceed the budget alone evicts nothing)
                        self._evict(max(0, self._used + room - self.budget))
                    break
            waiting.wait()  # another session is making it: take theirs (or make it if they failed)
        try:
            value = make()
            nbytes = size(value)
        except BaseException:
            with self._lock:
                self._making.pop(key).set()
            raise
        with self._lock:
            if nbytes <= self.budget and all(p in self._entries for p in parents):
                self._entries[key] = _Entry(value, nbytes, parents)
                self._used += nbytes
                for parent in parents:
                    self._entries[parent].dependents.add(key)
                self._touch(key)
                if pin is not None:
                    self._pin(key, pin)
                # older entries go first; the new one too if it is not pinned and still does not fit
                self._evict(max(0, self._used - self.budget))
            kept = key in self._entries
            self._making.pop(key).set()
        return Got(value, nbytes, kept, True)

    def grow(self, key: Hashable, nbytes: int) -> None:
        """An entry now holds ``nbytes`` more (a Document's caches after a re-pack); evicts others to fit."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or nbytes == 0:
                return
            entry.size += nbytes
            self._used += nbytes
            self._evict(max(0, self._used - self.budget))

    def pin(self, key: Hashable, holder: Hashable) -> bool:
        """Pin a cached entry for ``holder``; False when it is not cached."""
        with self._lock:
            if key not in self._entries:
                return False
            self._pin(key, holder)
            return True

    def release(self, holder: Hashable) -> None:
        """Unpin everything ``holder`` pinned, then evict back to the budget."""
        with self._lock:
            for key in self._pinned_by.pop(holder, set()):
                entry = self._entries.get(key)
                if entry is not None:
                    entry.pins.discard(holder)
            self._evict(max(0, self._used - self.budget))

    def make_room(self, nbytes: int) -> None:
        """Evict least recently used unpinned entries until ``nbytes`` more would fit the budget."""
        with self._lock:
            self._evict(max(0, self._used + nbytes - self.budget))

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._pinned_by.clear()
            self._used = 0

    # -- inside the lock -----------------------------------------------------------------------
    def _touch(self, key: Hashable) -> None:
        """Mark ``key`` and what it depends on as just used: to the back of the queue, each behind what depends
        on it (so a document's older chunk sets are evicted before the document)."""
        self._entries.move_to_end(key)
        for parent in self._entries[key].depends_on:
            if parent in self._entries:
                self._touch(parent)

    def _pin(self, key: Hashable, holder: Hashable) -> None:
        entry = self._entries[key]
        entry.pins.add(holder)
        self._pinned_by.setdefault(holder, set()).add(key)
        for parent in entry.depends_on:
            if parent in self._entries:
                self._pin(parent, holder)

    def _held(self, key: Hashable) -> bool:
        """Pinned, or something that depends on it is (a pinned chunk set keeps its document)."""
        entry = self._entries[key]
        return bool(entry.pins) or any(self._held(child) for child in entry.dependents if child in self._entries)

    def _evict(self, nbytes: int) -> None:
        """Evict least recently used unpinned entries (each with its dependents) until ``nbytes`` are freed
        or only pinned ones are left."""
        freed = 0
        for key in list(self._entries):
            if freed >= nbytes:
                break
            if key in self._entries and not self._held(key):
                freed += self._drop(key)

    def _drop(self, key: Hashable) -> int:
        entry = self._entries.pop(key)
        self._used -= entry.size
        self.evictions += 1
        freed = entry.size
        for parent in entry.depends_on:
            if parent in self._entries:
                self._entries[parent].dependents.discard(key)
        for child in list(entry.dependents):
            if child in self._entries:
                freed += self._drop(child)
        return freed


def run_holder() -> Hashable:
    """Who pins during this script run: the Streamlit session (one run at a time per session), else the thread."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
    except ImportError:  # pragma: no cover - Streamlit is the app's own dependency
        ctx = None
    return ("session", ctx.session_id) if ctx is not None else ("thread", threading.get_ident())


@st.cache_resource(show_spinner=False)
def shared() -> MemoryCache:
    """The server's one cache (made on first use, with the budget of :func:`budget_from_env`)."""
    return MemoryCache(budget_from_env())
