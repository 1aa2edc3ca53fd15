"""chunker.ChunkOptions: the one frozen, validated value of limits and options that chunk(), the app's
settings, the corpus run and the CLI all build."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import chunker
from chunk_inspector.app.url_settings import build_settings
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
    settings, notes = build_settings("cl100k_base", 256, 128, 8, 0, True, False, "balanced")
    assert notes == []
    source, out = tmp_path / "doc.md", tmp_path / "doc.json"
    source.write_text(TEXT, encoding="utf-8")
    flags = ["--target", "128", "--hard-cap", "256", "--overlap", "8", "--strategy", "balanced"]
    assert main([str(source), *flags, "-o", str(out), "--quiet"]) == 0
    config = json.loads(out.read_text(encoding="utf-8"))["config"]
    options = settings
    assert options == chunker.ChunkOptions(128, 256, overlap=8, strategy="balanced", tokenizer="cl100k_base")
    assert config == options.config("cl100k_base", config["engine"])
    with pytest.raises(chunker.ConfigError, match="overlap=600 must be less than half the hard cap"):
        chunker.ChunkOptions(overlap=600)


def test_nearest_moves_each_value_by_the_options_own_rules() -> None:
    """What a control or a link may hold becomes the nearest valid value, each move with a note."""
    options, notes = chunker.ChunkOptions.nearest(
        target=600, hard_cap=512, overlap=400, min_tokens=9999, breadcrumb_in_budget=True, strategy="fast"
    )
    assert options == chunker.ChunkOptions(512, 512, overlap=255, min_tokens=512, breadcrumb_in_budget=True)
    assert notes == [
        "strategy fast → optimal (the default; unknown strategy)",
        "target 600 → 512 (it cannot exceed the hard cap)",
        "overlap 400 → 255 (less than half the hard cap)",
        "minimum chunk 9999 → 512 (the hard cap)",
    ]
    small, notes = chunker.ChunkOptions.nearest(hard_cap=4, breadcrumb_in_budget=True)
    assert (small.hard_cap, small.breadcrumb_in_budget) == (chunker.MIN_HARD_CAP, False) and len(notes) == 3
    assert chunker.ChunkOptions.nearest() == (chunker.ChunkOptions(), [])
    with pytest.raises(chunker.ConfigError, match="unknown option"):
        chunker.ChunkOptions.nearest(colour="red")


def test_options_that_name_another_tokenizer_than_the_documents_are_refused() -> None:
    """A document keeps the tokenizer it was counted with: packing it under another name is a mistake."""
    doc = chunker.parse(TEXT, name="guide.md")
    assert chunker.chunk_with(doc, chunker.ChunkOptions(tokenizer="cl100k_base"))
    counted = chunker.parse(TEXT, name="guide.md", tokenizer=len)
    with pytest.raises(chunker.ConfigError, match="the document was parsed with 'callable:len'"):
        chunker.chunk_with(counted, chunker.ChunkOptions(tokenizer="cl100k_base"))
    assert chunker.chunk(counted, 16, 32)  # options without a tokenizer take the document's own
    one = chunker.ChunkOptions(16, 32, strategy="balanced", tokenizer="cl100k_base")
    assert chunker.chunk_markdown(TEXT, "guide.md", options=one).config["tokenizer"] == "cl100k_base"
    with pytest.raises(chunker.ConfigError, match="either options"):
        chunker.chunk_markdown(TEXT, "guide.md", options=one, overlap=2)


@pytest.mark.parametrize("given", ["# Guide\n\nText.\n", b"# Guide\n", None])
def test_chunk_given_anything_but_a_document_says_what_to_pass(given: object) -> None:
    """chunker.chunk(text), the first thing many try, is refused naming chunk_markdown (it was an AttributeError
    about a missing 'blocks')."""
    with pytest.raises(TypeError, match=r"takes a Document from chunker\.parse\(text\).*chunk_markdown"):
        chunker.chunk(given)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"chunk_markdown"):
        chunker.chunk_with(given, chunker.ChunkOptions())  # type: ignore[arg-type]


def test_a_hard_cap_under_the_default_target_says_to_give_a_target_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--hard-cap 256` alone, the first thing a MiniLM user tries, is refused by the default target (384): the
    message says what to add, not only what is wrong."""
    with pytest.raises(
        chunker.ConfigError,
        match=r"hard_cap \(256\) must be at least target \(384 \(the default target\)\): give a target of at most "
        r"256 too",
    ):
        chunker.ChunkOptions(hard_cap=256)
    source = tmp_path / "guide.md"
    source.write_text(TEXT, encoding="utf-8")
    assert main([str(source), "--hard-cap", "256"]) == 2
    assert "give a target of at most 256 too" in capsys.readouterr().err
    with pytest.raises(chunker.ConfigError, match=r"at least target \(900\): give a target of at most 100 too$"):
        chunker.ChunkOptions(900, 100)
