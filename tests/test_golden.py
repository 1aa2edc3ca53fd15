"""Golden JSON for every document in sample_docs/ (target 256, hard cap 512).

Regenerate after an intended change with `make golden` (UPDATE_GOLDEN=1), then
read the diff before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import chunker
from tests.conftest import SAMPLES
from tests.invariants import check_chunk_set

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
TARGET, HARD_CAP = 256, 512


def samples() -> list[Path]:
    """Every sample but the 289 KB changelog (too big for a golden file); README.md is attribution, not a sample."""
    return sorted(p for p in SAMPLES.glob("*.md") if p.stat().st_size < 150_000 and p.name != "README.md")


def test_update_flag_is_off_in_ci() -> None:
    """Guard: CI never rewrites the golden files it is meant to check."""
    assert not (UPDATE and os.environ.get("CI")), "UPDATE_GOLDEN=1 must not be set in CI"


def test_every_sample_has_a_golden_file() -> None:
    """Each sample document is covered; no golden file is left without its sample."""
    assert len(samples()) >= 5
    assert {p.stem for p in samples()} == {p.stem for p in GOLDEN.glob("*.json")} or UPDATE


@pytest.mark.parametrize("path", samples(), ids=lambda p: p.name)
def test_sample_matches_its_golden_json(path: Path) -> None:
    """The chunk set of each sample is byte-identical to the reviewed golden JSON."""
    text = path.read_bytes().decode("utf-8")
    doc = chunker.parse(text, name=path.name)
    chunks = chunker.chunk(doc, target=TARGET, hard_cap=HARD_CAP)
    check_chunk_set(doc, chunks, HARD_CAP)
    golden = GOLDEN / f"{path.stem}.json"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(chunks.to_json(), encoding="utf-8")
    assert golden.read_text(encoding="utf-8") == chunks.to_json()
