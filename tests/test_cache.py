"""chunk_inspector.app.cache: the app's memory-bounded LRU cache (order, pins, accounting, eviction, threads)
and the measured sizes it budgets with, checked against tracemalloc on real parses."""

from __future__ import annotations

import gc
import random
import sys
import threading
import time
import tracemalloc
from collections.abc import Hashable
from pathlib import Path

import pytest

import chunker
from chunk_inspector.app import cache
from chunk_inspector.app.cache import MemoryCache

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"


class Blob:
    """A value of a stated size (the tests' ``size`` callable reads it)."""

    def __init__(self, name: str, nbytes: int) -> None:
        self.name, self.nbytes = name, nbytes


def put(c: MemoryCache, key: Hashable, nbytes: int, **kwargs: object) -> cache.Got[Blob]:
    return c.get(key, lambda: Blob(str(key), nbytes), lambda b: b.nbytes, **kwargs)  # type: ignore[arg-type]


def test_least_recently_used_goes_first_and_a_hit_counts_as_a_use() -> None:
    c = MemoryCache(300)
    for key in "abc":
        put(c, key, 100)
    assert c.order() == ["a", "b", "c"] and c.used == 300
    hit = put(c, "a", 999)  # a hit: nothing made, the cached value and size come back
    assert (hit.made, hit.kept, hit.size, hit.value.nbytes) == (False, True, 100, 100)
    assert c.order() == ["b", "c", "a"]
    put(c, "d", 100)
    assert c.order() == ["c", "a", "d"], "b was the least recently used"
    put(c, "e", 150)  # needs two evictions: c, then a
    assert c.order() == ["d", "e"] and c.used == 250 and c.evictions == 3


def test_pinned_entries_are_never_evicted_and_release_brings_the_cache_back_to_budget() -> None:
    c = MemoryCache(300)
    put(c, "mine", 100, pin="session-1")  # the document on screen in session 1's run
    put(c, "b", 100)
    put(c, "c", 100)
    put(c, "d", 100)  # over budget: the LRU is "mine", pinned, so b goes
    assert c.order() == ["mine", "c", "d"] and c.pinned() == {"mine"}
    # a pinned newcomer that does not fit beside other pins is kept over budget for its run ...
    put(c, "big", 250, pin="session-2")
    assert "mine" in c and "big" in c and c.used == 350 > c.budget
    # ... an unpinned one is not (it would only push out what is in use)
    got = put(c, "loose", 10)
    assert got.made and not got.kept and "loose" not in c
    c.release("session-2")  # its run ended: back to the budget, least recently used first
    assert c.used <= c.budget and "mine" in c and "big" not in c
    c.release("session-1")
    put(c, "x", 300)
    assert c.order() == ["x"], "unpinned, 'mine' goes like any other"


def test_a_value_larger_than_the_whole_budget_is_returned_but_not_kept_and_evicts_nothing() -> None:
    c = MemoryCache(300)
    put(c, "a", 100)
    put(c, "b", 100)
    got = put(c, "huge", 301, pin="s", room=301)
    assert got.value.nbytes == 301 and got.size == 301 and got.made and not got.kept
    assert c.order() == ["a", "b"] and c.used == 200 and c.pinned() == set()


def test_room_evicts_before_making_and_the_measured_size_decides_after() -> None:
    c = MemoryCache(300)
    for key in "abc":
        put(c, key, 100)
    seen: list[list[Hashable]] = []

    def make() -> Blob:
        seen.append(c.order())  # what the cache held while the value was being made
        return Blob("new", 50)

    c.get("new", make, lambda b: b.nbytes, room=150)
    assert seen == [["c"]], "room for 150 bytes was made before the parse: a and b evicted"
    assert c.order() == ["c", "new"] and c.used == 150


def test_a_document_goes_with_its_chunk_sets_and_a_chunk_set_keeps_its_document() -> None:
    c = MemoryCache(1000)
    put(c, "doc1", 300)
    put(c, ("cs", 1, "a"), 100, depends_on=["doc1"])
    put(c, ("cs", 1, "b"), 100, depends_on=["doc1"])
    put(c, "doc2", 300)
    assert c.order() == [("cs", 1, "a"), ("cs", 1, "b"), "doc1", "doc2"], "a document sits behind its chunk sets"
    put(c, ("cs", 1, "a"), 100, depends_on=["doc1"])  # using a chunk set is using its document
    assert c.order()[-2:] == [("cs", 1, "a"), "doc1"] and c.order()[0] == ("cs", 1, "b")
    put(c, "doc3", 350)  # 150 over: the oldest chunk set goes, then doc2 (doc1 was used since)
    assert c.order() == [("cs", 1, "a"), "doc1", "doc3"] and c.used == 750
    c.make_room(c.budget)  # everything unpinned: the chunk set and its document together
    assert c.order() == [] and c.used == 0
    # a chunk set whose document is not cached is not kept (it would keep the document alive unseen)
    assert not put(c, ("cs", 9, "a"), 10, depends_on=["doc9"]).kept
    # a pinned chunk set holds its (unpinned) document too
    put(c, "doc4", 300)
    put(c, ("cs", 4, "a"), 100, depends_on=["doc4"], pin="run")
    c.make_room(c.budget)
    assert c.order() == [("cs", 4, "a"), "doc4"]


def test_growth_is_accounted_and_evicts_others() -> None:
    c = MemoryCache(300)
    put(c, "old", 100)
    put(c, "doc", 100, pin="run")
    c.grow("doc", 150)  # its caches filled at the first re-pack
    assert c.size_of("doc") == 250 and c.order() == ["doc"] and c.used == 250
    c.grow("absent", 10)
    assert c.used == 250


def test_a_failed_make_caches_nothing_and_the_error_reaches_the_caller() -> None:
    c = MemoryCache(300)

    def boom() -> Blob:
        raise chunker.ChunkerError("bad input")

    with pytest.raises(chunker.ChunkerError, match="bad input"):
        c.get("k", boom, lambda b: b.nbytes, pin="s")
    assert "k" not in c and c.used == 0 and c.pinned() == set()
    assert put(c, "k", 10).made, "the next caller makes it"


def test_concurrent_callers_of_one_key_make_it_once() -> None:
    c = MemoryCache(10_000)
    made: list[int] = []
    start = threading.Barrier(8)

    def make() -> Blob:
        made.append(1)
        time.sleep(0.2)  # a parse in progress while the others ask
        return Blob("doc", 100)

    results: list[cache.Got[Blob]] = []

    def ask() -> None:
        start.wait()
        results.append(c.get("doc", make, lambda b: b.nbytes, pin=threading.get_ident()))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and len(results) == 8
    assert len({id(r.value) for r in results}) == 1 and sum(r.made for r in results) == 1


def test_many_threads_keep_the_accounting_exact_and_the_budget() -> None:
    """Sessions in threads: get, pin, grow, release at random; afterwards the books balance and, with every
    pin released, the cache is within its budget."""
    c = MemoryCache(5_000)
    errors: list[BaseException] = []

    def session(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(300):
                doc = f"doc{rng.randrange(12)}"
                put(c, doc, rng.randrange(100, 900), pin=seed, room=500)
                if doc in c and rng.random() < 0.7:
                    put(c, (doc, rng.randrange(4)), rng.randrange(10, 200), depends_on=[doc], pin=seed)
                if rng.random() < 0.2:
                    c.grow(doc, rng.randrange(0, 50))
                if rng.random() < 0.5:
                    c.release(seed)
            c.release(seed)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=session, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    keys = c.order()
    assert c.used == sum(c.size_of(k) or 0 for k in keys)
    assert c.used <= c.budget and c.pinned() == set()
    for key in keys:  # nothing cached without what it depends on
        if isinstance(key, tuple):
            assert key[0] in keys


def test_budget_from_the_environment() -> None:
    assert cache.budget_from_env({}) == cache.DEFAULT_BUDGET_MB * cache.MB
    assert cache.budget_from_env({cache.ENV_BUDGET: "256"}) == 256 * cache.MB
    assert cache.budget_from_env({cache.ENV_BUDGET: "0.5"}) == cache.MB // 2
    for bad in ("0", "-3", "lots"):
        with pytest.raises(ValueError, match=cache.ENV_BUDGET):
            cache.budget_from_env({cache.ENV_BUDGET: bad})


# -- sizes: the estimate against what tracemalloc sees allocated ------------------------------------------
TOLERANCE = 0.15  # the measured size within 15% of tracemalloc's count of the same objects


def _documents() -> list[tuple[str, bytes]]:
    """The largest bundled sample, and (when ../shared is there) a corpus document with non-ASCII text."""
    out = [("jest_changelog.md", (SAMPLES / "jest_changelog.md").read_bytes())]
    if CORPUS.is_dir():
        big = max(CORPUS.rglob("*.md"), key=lambda p: p.stat().st_size)
        out.append((big.name, big.read_bytes()))
    return out


@pytest.mark.parametrize("name,data", _documents(), ids=lambda v: v if isinstance(v, str) else "")
def test_measured_sizes_match_tracemalloc(name: str, data: bytes) -> None:
    """A real parse (text decoded inside the trace, so it counts) retains what document_size says; a re-pack
    adds what chunk_set_size and the caches' growth say."""
    chunker.parse("# warm\n\nup\n", name="warm.md")  # the tokenizer is shared: load it outside the trace
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        doc = chunker.parse(data.decode("utf-8"), name=name)
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - base
        estimate = cache.document_size(doc)
        caches_before = cache.caches_size(doc)
        base = tracemalloc.get_traced_memory()[0]
        chunks = chunker.chunk(doc, target=256, hard_cap=512)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - base
        chunks_estimate = cache.chunk_set_size(chunks, doc) + cache.caches_size(doc) - caches_before
    finally:
        tracemalloc.stop()
    assert len(chunks) > 10
    assert abs(estimate - retained) <= TOLERANCE * retained, (name, estimate, retained)
    assert abs(chunks_estimate - grown) <= TOLERANCE * grown, (name, chunks_estimate, grown)


def test_a_chunk_set_is_measured_as_a_walk_leaving_out_every_title_of_its_document() -> None:
    """chunk_set_size leaves out the titles its sampled chunks name, not every title of the document (listing
    18,000 of them at every move cost as much as the rest of the measure): the bytes are the same."""
    name = "jest_changelog.md"
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    chunks = chunker.chunk(doc, target=128, hard_cap=256)
    members = tuple(chunks)
    texts = [c.markdown for c in members]
    shared = (doc, doc.text, doc.caches, doc.name, *(s.title for s in doc.sections_in_order()))
    document_types = (chunker.Tokenizer, chunker.Section, chunker.Block)
    expected = cache.deep_size(chunks, exclude=(*shared, *members), shared=document_types) + sum(
        map(sys.getsizeof, texts)
    )
    sample = members[:: max(1, len(members) // cache.CHUNK_SAMPLE)]
    sampled = cache.deep_size(sample, exclude=(*shared, *texts), shared=document_types)
    expected += sampled * len(members) // len(sample) - sys.getsizeof(sample)
    assert len(members) > cache.CHUNK_SAMPLE
    assert cache.chunk_set_size(chunks, doc) == expected


def test_the_tokenizer_is_shared_not_counted() -> None:
    small = chunker.parse("# A\n\nOne paragraph.\n", name="a.md")
    assert cache.document_size(small) < 20_000, "a tiny document must not carry the tokenizer's tables"
    assert cache.deep_size([small.tokenizer]) < 200
