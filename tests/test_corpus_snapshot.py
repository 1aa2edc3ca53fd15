"""The parse of every corpus document is unchanged: a SHA-256 snapshot of its JSON.

``tests/snapshots/corpus_documents.json`` holds, per document of ../shared/corpus/real, the
SHA-256 of its text, of ``Document.to_json()`` (blocks, spans, titles, token counts, the
section tree) and of its outline (what a chunk set writes of the tree), and one for all the
CommonMark examples together. It was written by the engine before the parse was made faster;
speed work must leave every byte as it was. The chunks themselves are compared across
the two parsers by tests/test_fastpath.py. After an intended change of the parse output,
regenerate with ``UPDATE_GOLDEN=1 pytest tests/test_corpus_snapshot.py`` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

import chunker
from chunker.hierarchy import outline
from tests.conftest import CORPUS, commonmark_examples, corpus_files, requires_corpus

SNAPSHOT = Path(__file__).parent / "snapshots" / "corpus_documents.json"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
COMMONMARK = "commonmark_spec_examples"

pytestmark = [pytest.mark.corpus, requires_corpus]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def document_hashes(text: str, name: str) -> dict[str, str]:
    """The hashes kept for one document."""
    doc = chunker.parse(text, name=name)
    entries = json.dumps([entry.to_dict() for entry in outline(doc)], ensure_ascii=False)
    return {"text": _sha(text), "document": _sha(doc.to_json()), "outline": _sha(entries)}


def commonmark_hash() -> str:
    """One hash over the document JSON of every CommonMark example, in order."""
    digest = hashlib.sha256()
    for example in commonmark_examples():
        digest.update(chunker.parse(example["markdown"], name="example.md").to_json().encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def snapshot() -> dict[str, Any]:
    docs = {
        str(path.relative_to(CORPUS / "real")): document_hashes(
            path.read_bytes().decode("utf-8", errors="replace"), path.name
        )
        for path in corpus_files()
    }
    return {"documents": docs, COMMONMARK: commonmark_hash()}


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    if UPDATE:
        SNAPSHOT.write_text(json.dumps(snapshot(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    data: dict[str, Any] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return data


def test_update_flag_is_off_in_ci() -> None:
    """Guard: CI never rewrites the snapshot it is meant to check."""
    assert not (UPDATE and os.environ.get("CI")), "UPDATE_GOLDEN=1 must not be set in CI"


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_corpus_document_parses_to_the_recorded_json(path: Path, recorded: dict[str, Any]) -> None:
    """Document JSON and outline of each corpus document hash as recorded (checked on both parser paths)."""
    key = str(path.relative_to(CORPUS / "real"))
    want = recorded["documents"].get(key)
    text = path.read_bytes().decode("utf-8", errors="replace")
    if want is None or want["text"] != _sha(text):
        pytest.skip(f"{key} is new or changed in the shared corpus: regenerate with UPDATE_GOLDEN=1")
    assert document_hashes(text, path.name) == want
    old = os.environ.get("CHUNKER_PARSER")
    os.environ["CHUNKER_PARSER"] = "markdown-it"
    try:
        assert document_hashes(text, path.name) == want
    finally:
        if old is None:
            del os.environ["CHUNKER_PARSER"]
        else:
            os.environ["CHUNKER_PARSER"] = old


def test_commonmark_examples_parse_to_the_recorded_json(recorded: dict[str, Any]) -> None:
    """Every CommonMark example's document JSON, hashed together, is as recorded."""
    if not commonmark_examples():
        pytest.skip("no CommonMark examples in the shared corpus")
    assert commonmark_hash() == recorded[COMMONMARK]
