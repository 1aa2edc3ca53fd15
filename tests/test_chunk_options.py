"""chunker.ChunkOptions: the one frozen, validated value of limits and options that chunk(), the app's
settings, the corpus run and the CLI all build."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import chunker
from chunk_inspector.app.view import Settings
from chunk_inspector.cli.commands import main

TEXT = "# Guide\n\nSome words. More words here.\n\n## Part\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"


def test_chunk_with_keywords_is_chunk_with_the_value() -> None:
    doc = chunker.parse(TEXT, name="guide.md")
    keywords = {"overlap": 4, "min_tokens": 3, "strategy": "balanced", "breadcrumb_in_budget": True}
    options = chunker.ChunkOptions(16, 32, **keywords)
    made = chunker.chunk(doc, 16, 32, **keywords)
    assert made.to_json() == chunker.chunk_with(doc, options).to_json()
    assert made.config == options.config(doc.tokenizer.name, made.config["engine"])
    assert chunker.ChunkOptions(**options.keywords()) == options


def test_every_entry_point_has_the_engine_default_limits(tmp_path: Path) -> None:
    """chunk(), chunk_markdown(), ChunkOptions and the CLI default to DEFAULT_TARGET / DEFAULT_HARD_CAP."""
    assert (chunker.DEFAULT_TARGET, chunker.DEFAULT_HARD_CAP) == (
        384,
        1024,
    )  # docs/method.md §5a, "Why the default target is 384"
    doc = chunker.parse(TEXT, name="guide.md")
    limits = {"target": chunker.DEFAULT_TARGET, "hard_cap": chunker.DEFAULT_HARD_CAP}
    assert {k: chunker.chunk(doc).config[k] for k in limits} == limits
    assert {k: chunker.chunk_markdown(TEXT, name="guide.md").config[k] for k in limits} == limits
    assert {k: chunker.ChunkOptions().keywords()[k] for k in limits} == limits
    source, out = tmp_path / "guide.md", tmp_path / "guide.json"
    source.write_text(TEXT, encoding="utf-8")
    assert main([str(source), "-o", str(out), "--quiet"]) == 0
    assert {k: json.loads(out.read_text(encoding="utf-8"))["config"][k] for k in limits} == limits


def test_the_value_is_frozen_and_every_copy_is_validated() -> None:
    options = chunker.ChunkOptions(256, 512)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.target = 1  # type: ignore[misc]
    with pytest.raises(chunker.ConfigError, match=r"hard_cap \(512\) must be at least target \(600\)"):
        dataclasses.replace(options, target=600)
    with pytest.raises(chunker.ConfigError, match="repeat_table_header must be True or False"):
        chunker.ChunkOptions(repeat_table_header=1)  # type: ignore[arg-type]
    with pytest.raises(chunker.ConfigError, match="unknown strategy 'fast'"):
        chunker.ChunkOptions(strategy="fast")


def test_the_app_and_the_cli_build_the_same_value(tmp_path: Path) -> None:
    settings = Settings(target=128, hard_cap=256, overlap=8, strategy="balanced")
    source, out = tmp_path / "doc.md", tmp_path / "doc.json"
    source.write_text(TEXT, encoding="utf-8")
    flags = ["--target", "128", "--hard-cap", "256", "--overlap", "8", "--strategy", "balanced"]
    assert main([str(source), *flags, "-o", str(out), "--quiet"]) == 0
    config = json.loads(out.read_text(encoding="utf-8"))["config"]
    options = settings.chunk_options()
    assert options == chunker.ChunkOptions(128, 256, overlap=8, strategy="balanced")
    assert config == options.config("cl100k_base", config["engine"])
    with pytest.raises(chunker.ConfigError, match="overlap=300 must be less than half the hard cap"):
        Settings(overlap=300).chunk_options()
