"""Shared fixtures: the shared corpus (skipped cleanly when absent) and the default tokenizer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import chunker

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
SAMPLES = ROOT / "sample_docs"


def corpus_files() -> list[Path]:
    return sorted((CORPUS / "real").rglob("*.md")) if CORPUS.is_dir() else []


def commonmark_examples() -> list[dict[str, str]]:
    path = CORPUS / "commonmark" / "commonmark_spec_examples.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


requires_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS} (only CI and developers have ../shared)"
)


@pytest.fixture(scope="session")
def counter() -> chunker.Tokenizer:
    return chunker.get_tokenizer("cl100k_base")


# CI runs a fixed, reproducible set of examples; local runs explore new ones each time.
from hypothesis import settings as _settings  # noqa: E402

_settings.register_profile("ci", derandomize=True, print_blob=True)
if __import__("os").environ.get("CI"):
    _settings.load_profile("ci")
