"""The app under memory pressure, with a small cache budget (CHUNK_INSPECTOR_CACHE_MB): older documents make
room for a new one, the one on screen is never evicted, and a document larger than the whole budget is shown
with a warning, not an exception or a blank page."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import chunker
from chunk_inspector.app import cache, frame
from tests.app.conftest import APP, plain

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
BIG = "jest_changelog.md"  # the largest sample, uploaded as a file
SMALL = ("redux_modern_redux.md", "asyncapi_spec.md", "poetry_cli.md")


def footprint(name: str) -> int:
    """What the app caches for a sample at its default settings: the document, its caches after the first
    re-pack, and the chunk set (measured as the app measures them)."""
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    size = cache.document_size(doc)
    before = cache.caches_size(doc)
    settings = chunker.ChunkOptions(tokenizer="cl100k_base")
    chunks = chunker.chunk_with(doc, settings)
    return size + cache.caches_size(doc) - before + cache.chunk_set_size(chunks, doc)


def doc_key(name: str) -> Hashable:
    return frame.document_key(frame.digest((SAMPLES / name).read_text(encoding="utf-8")), name, "cl100k_base")


def chunk_count(name: str, target: int = 384, cap: int = 1024) -> str:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    return f"{len(chunker.chunk_markdown(text, name=name, target=target, hard_cap=cap)):,}"


def documents(store: cache.MemoryCache) -> list[Hashable]:
    """The documents' keys in the cache, least recently used first (chunk sets and the rest left out)."""
    return [k for k in store.order() if isinstance(k, tuple) and k[0] == "doc"]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture
def budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Set CHUNK_INSPECTOR_CACHE_MB with ``budget.setenv``; the app's shared cache is made afresh with it
    (and again, with the default, after the test)."""
    cache.shared.clear()
    yield monkeypatch
    monkeypatch.delenv(cache.ENV_BUDGET, raising=False)
    cache.shared.clear()


def open_sample(at: AppTest, name: str) -> None:
    at.segmented_control(key="source").set_value("Sample").run()
    at.selectbox(key="sample").set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    assert plain(at.subheader[0].value) == name and metric(at, "Chunks") == chunk_count(name)


def upload_big(at: AppTest) -> None:
    at.segmented_control(key="source").set_value("Upload").run()
    at.file_uploader(key="uploads").set_value((BIG, (SAMPLES / BIG).read_bytes(), "text/markdown")).run()


def test_an_upload_into_a_full_cache_evicts_the_least_recently_used_never_a_document_in_use(
    budget: pytest.MonkeyPatch,
) -> None:
    small = {name: footprint(name) for name in SMALL}
    big = footprint(BIG)
    limit = big + sum(small.values()) // 2  # the big one fits alone, not beside all the others
    assert big < limit < big + sum(small.values())
    budget.setenv(cache.ENV_BUDGET, str(limit / cache.MB))
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    for name in SMALL:  # poetry_cli.md (the default) was open first, and is used again last
        open_sample(at, name)
    store = cache.shared()
    assert store.budget == limit
    assert documents(store) == [doc_key(n) for n in SMALL], "least recently used first"
    assert store.pinned() == set(), "a run's pins end with the run"
    # another session's run is using the least recently used document right now
    assert store.pin(doc_key(SMALL[0]), ("session", "someone else"))

    upload_big(at)
    assert not at.exception, [e.value for e in at.exception]
    assert plain(at.subheader[0].value) == BIG and metric(at, "Chunks") == chunk_count(BIG)
    assert not at.warning, "it fits the budget alone: no warning"
    docs = documents(store)
    big_key = frame.document_key(frame.digest((SAMPLES / BIG).read_text(encoding="utf-8")), BIG, "cl100k_base")
    assert big_key in docs, "the document on screen is cached"
    assert doc_key(SMALL[0]) in docs, "pinned by the other session's run: not evicted"
    assert doc_key(SMALL[1]) not in docs, "the least recently used unpinned document went first"
    assert store.evictions > 0 and store.used <= store.budget

    store.release(("session", "someone else"))
    open_sample(at, SMALL[1])  # evicted earlier: parsed again, the same numbers
    assert doc_key(SMALL[1]) in store and store.used <= store.budget


def test_a_document_larger_than_the_whole_budget_is_shown_with_a_warning_and_not_cached(
    budget: pytest.MonkeyPatch,
) -> None:
    text = (SAMPLES / BIG).read_text(encoding="utf-8")
    alone = cache.document_size(chunker.parse(text, name=BIG))
    limit = alone * 2 // 3
    assert footprint("poetry_cli.md") < limit < alone
    budget.setenv(cache.ENV_BUDGET, str(limit / cache.MB))
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    store = cache.shared()
    assert store.order() and store.used <= limit  # poetry_cli.md, the default

    upload_big(at)
    assert not at.exception, [e.value for e in at.exception]
    assert plain(at.subheader[0].value) == BIG and metric(at, "Chunks") == chunk_count(BIG), "shown all the same"
    warning = " ".join(plain(w.value) for w in at.warning)
    assert BIG in warning and "more than the app's whole cache" in warning and "not kept" in warning
    assert cache.ENV_BUDGET in warning
    big_key = frame.document_key(frame.digest(text), BIG, "cl100k_base")
    assert big_key not in store
    assert doc_key("poetry_cli.md") in store, "a document too big to keep does not flush the others"
    assert store.used <= limit

    at.select_slider(key="hard_cap").set_value(2048).run()  # every change parses it again, and works
    assert not at.exception
    assert metric(at, "Chunks") == chunk_count(BIG, 384, 2048)
    assert at.warning and big_key not in store
