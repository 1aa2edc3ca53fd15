"""docs/chunk-set.schema.json describes the chunk-set JSON and the JSONL records exactly (docs/json.md).

Every sample document, under every strategy, at two settings and with the options that add fields
(overlap, breadcrumb_in_budget), gives JSON the schema accepts; a chunk set with a field missing or one
too many is refused, so a field added to the engine must be added to the schema (and to docs/json.md).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import chunker

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "docs" / "chunk-set.schema.json"
SAMPLES = sorted(p for p in (ROOT / "sample_docs").glob("*.md") if p.name != "README.md")  # README: attribution
SETTINGS: list[dict[str, Any]] = [
    {"target": 128, "hard_cap": 256},
    {"target": 512, "hard_cap": 1024},
    {"target": 256, "hard_cap": 512, "overlap": 50, "breadcrumb_in_budget": True},
]


@cache
def schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return data


@cache
def validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


@cache
def record_validator() -> Draft202012Validator:
    """The schema's definition of a JSONL line: a chunk plus its ``document``."""
    record = {"$schema": schema()["$schema"], "$defs": schema()["$defs"], "$ref": "#/$defs/chunkRecord"}
    return Draft202012Validator(record)


@cache
def parsed(name: str) -> chunker.Document:
    return chunker.parse((ROOT / "sample_docs" / name).read_text(encoding="utf-8"), name=name)


def errors(instance: Any, check: Draft202012Validator | None = None) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in (check or validator()).iter_errors(instance)]


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(schema())
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_there_are_samples() -> None:
    assert len(SAMPLES) >= 5


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
@pytest.mark.parametrize("sample", [p.name for p in SAMPLES])
def test_every_sample_chunk_set_is_valid(sample: str, strategy: str) -> None:
    for settings in SETTINGS:
        chunks = chunker.chunk(parsed(sample), strategy=strategy, **settings)
        data = json.loads(chunks.to_json())
        assert errors(data) == [], settings
        assert data["config"]["strategy"] == strategy
    # The JSONL lines of the last setting (the one whose options fill overlap_span and context_tokens).
    records = [json.loads(line) for line in chunks.to_jsonl().splitlines()]
    assert len(records) == len(chunks)
    for record in records:
        assert record["document"] == sample
        assert errors(record, record_validator()) == [], record["id"]


def test_the_options_fill_the_optional_fields_and_stay_valid() -> None:
    """The overlap and breadcrumb_in_budget run really sets overlap_span and context_tokens somewhere."""
    chunks = chunker.chunk(parsed("poetry_cli.md"), **SETTINGS[2])
    data = json.loads(chunks.to_json())
    assert errors(data) == []
    assert any(c["overlap_span"] is not None for c in data["chunks"])
    assert all(isinstance(c["context_tokens"], int) for c in data["chunks"])


@pytest.fixture(scope="module")
def valid() -> dict[str, Any]:
    chunks = chunker.chunk(parsed("redux_modern_redux.md"), target=256, hard_cap=512)
    data: dict[str, Any] = json.loads(chunks.to_json())
    assert errors(data) == []
    return data


@pytest.mark.parametrize(
    "where",
    [
        (),  # the chunk set itself
        ("document",),
        ("config",),
        ("outline", 0),
        ("chunks", 0),
    ],
    ids=["top", "document", "config", "outline", "chunk"],
)
def test_an_extra_field_is_invalid(valid: dict[str, Any], where: tuple[Any, ...]) -> None:
    data = copy.deepcopy(valid)
    target: Any = data
    for key in where:
        target = target[key]
    target["surprise"] = 1
    assert any("surprise" in e for e in errors(data))


@pytest.mark.parametrize(
    ("where", "field"),
    [
        ((), "chunks"),
        (("document",), "sha256"),
        (("config",), "strategy"),
        (("outline", 1), "parent_id"),
        (("chunks", 0), "content_sha256"),
        (("chunks", 0), "token_count"),
    ],
)
def test_a_missing_field_is_invalid(valid: dict[str, Any], where: tuple[Any, ...], field: str) -> None:
    data = copy.deepcopy(valid)
    target: Any = data
    for key in where:
        target = target[key]
    del target[field]
    assert any(f"'{field}' is a required property" in e for e in errors(data))


def test_wrong_values_are_invalid(valid: dict[str, Any]) -> None:
    cases: list[tuple[tuple[Any, ...], Any]] = [
        (("chunks", 0, "flags"), ["no_such_flag"]),
        (("chunks", 0, "char_span"), [0, 1, 2]),
        (("chunks", 0, "content_sha256"), "not a hash"),
        (("chunks", 0, "id"), "x1"),
        (("config", "strategy"), "greedy"),
        (("schema",), "document"),
        (("version",), 2),
    ]
    for path, value in cases:
        data = copy.deepcopy(valid)
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        assert errors(data), path


def test_a_jsonl_record_needs_its_document_and_nothing_more(valid: dict[str, Any]) -> None:
    check = record_validator()
    chunk = valid["chunks"][0]
    assert errors({"document": "redux_modern_redux.md", **chunk}, check) == []
    assert errors(chunk, check), "a record without its document"
    assert errors({"document": "d.md", "surprise": 1, **chunk}, check), "a record with an extra field"
