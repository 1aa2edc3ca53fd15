"""Peer adapters (chunk_inspector.peers.chunkers): import-safe without peers, clean errors, valid chunks."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import chunker
from chunk_inspector.peers import chunkers as peers
from chunk_inspector.peers.chunkers import (
    PEERS,
    PeerChunk,
    PeerError,
    available_peers,
    engine_chunks,
    peer_version,
    run_peer,
)

from .conftest import ROOT, SAMPLES

PEER_MODULES = ("langchain_text_splitters", "llama_index", "chonkie", "semchunk", "semantic_text_splitter")


@pytest.fixture
def no_peer_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every peer distribution looks absent, whatever this environment holds."""
    real = metadata.distribution

    def distribution(name: str) -> metadata.Distribution:
        if name in {info.distribution for info in PEERS.values()}:
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", distribution)
    monkeypatch.setattr(metadata, "version", lambda name: distribution(name).version)


def test_importing_and_listing_peers_imports_no_peer_package() -> None:
    code = (
        "import sys, chunk_inspector.peers.chunkers as p, chunk_inspector.peers.metrics; p.available_peers(); "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {PEER_MODULES!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.usefixtures("no_peer_installed")
class TestWithoutPeers:
    def test_available_peers_is_empty(self) -> None:
        assert available_peers() == []

    def test_run_peer_raises_peer_error_naming_the_install(self) -> None:
        with pytest.raises(PeerError, match=r"semchunk is not installed: pip install semchunk"):
            run_peer("semchunk", "# Title\n\nText.")

    def test_peer_version_is_none(self) -> None:
        assert peer_version("chonkie") is None


def test_available_peers_never_raises_on_a_broken_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(name: str) -> None:
        raise ValueError(f"{name}.__spec__ is None")

    monkeypatch.setattr(peers.importlib.util, "find_spec", broken)
    assert available_peers() == []


def test_unknown_peer_raises_peer_error_listing_the_names() -> None:
    with pytest.raises(PeerError, match=r"unknown peer 'nope': choose one of langchain, llamaindex"):
        run_peer("nope", "text")
    assert peer_version("nope") is None


def test_limits_the_engine_refuses_are_refused() -> None:
    with pytest.raises(chunker.ConfigError, match="target=600, hard_cap=512"):
        run_peer("semchunk", "text", target=600, hard_cap=512)


def test_a_failing_peer_is_reported_as_peer_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(text: str) -> list[PeerChunk]:
        raise RuntimeError("boom")

    monkeypatch.setattr(peers, "_installed", lambda info: True)
    monkeypatch.setattr(peers, "_cached_splitter", lambda name, hard_cap, target: explode)
    with pytest.raises(PeerError, match=r"chonkie failed: RuntimeError: boom"):
        run_peer("chonkie", "text")


def test_engine_chunks_carry_markdown_span_and_breadcrumb() -> None:
    text = "# Guide\n\n" + "Intro words. " * 8 + "\n\n## Install\n\n" + "Run it now. " * 8 + "\n"
    chunks = chunker.chunk_markdown(text, name="g.md", target=32, hard_cap=32)
    assert len(chunks) > 1
    mine = engine_chunks(chunks)
    assert [c.text for c in mine] == [c.markdown for c in chunks]
    assert all(c.char_span is not None and text[c.char_span[0] : c.char_span[1]] in c.text for c in mine)
    assert mine[-1].headings == tuple(chunks[-1].breadcrumb[1:]) != ()


def test_peer_chunk_embeds_its_text_unless_told_otherwise() -> None:
    assert PeerChunk("body").embedded == "body"
    assert PeerChunk("body", embed_text="meta\n\nbody").embedded == "meta\n\nbody"
    with pytest.raises(ValueError, match="bad char_span"):
        PeerChunk("x", char_span=(3, 1))


@pytest.mark.parametrize("name", list(PEERS))
def test_installed_peer_chunks_a_sample_in_order_with_true_spans(name: str) -> None:
    if name not in available_peers():
        pytest.skip(f"{name} is not installed here (make bench-peers installs the peers into .venv-peers)")
    text = Path(SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")
    chunks = run_peer(name, text, hard_cap=512, target=256)
    assert chunks and all(c.text.strip() for c in chunks)
    spans = [c.char_span for c in chunks if c.char_span is not None]
    for c in chunks:
        if c.char_span is not None:  # the source slice, or (a re-flowing peer) the same words in order
            s, e = c.char_span
            assert text[s:e] == c.text or text[s:e].split() == c.text.split()
    assert spans == sorted(spans)
    assert len(spans) == len(chunks)  # every chunk is found, LangChain's re-flowed ones by their words


def test_a_chunk_whose_white_space_was_reflowed_is_found_by_its_words() -> None:
    """LangChain's header splitter joins stripped lines with '  \\n': the chunk is located all the same."""
    from chunk_inspector.peers.chunkers import _locate

    source = "# Title\n\nFirst line\nsecond line.\n\n## Next\n\nMore text.\n"
    reflowed = "# Title  \nFirst line  \nsecond line."
    (chunk,) = _locate(source, [(reflowed, None, ("Title",))])
    assert chunk.char_span == (0, source.index("second line.") + len("second line."))
    (missing,) = _locate(source, [("words that are not there", None, None)])
    assert missing.char_span is None
