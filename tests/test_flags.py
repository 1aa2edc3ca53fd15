"""chunker.FLAGS names every flag the engine can put on a chunk, and every list of flags in the docs names each.

The flags the engine can set are read from its source (each string it passes as a piece's flag or adds to a
chunk's flags) and seen on real chunk sets; the lists are docs/method.md's "Flags", docs/json.md's ``flags``
row, the Inspect row of docs/app.md and the schema's ``flag`` enum. A new flag left out of one fails here.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import chunker
from chunker.cut import BLOCK_CUTTERS

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "sample_docs").glob("*.md") if p.name != "README.md")


def _flag_literals_in_source() -> set[str]:
    """Strings the engine passes as a flag: ``flags.add("…")``, ``Piece(…, "…")``/``flag="…"``, a literal
    ``split_*`` anywhere (the cut modules hand their kind's flag down as an argument), and the
    ``(flag, rule)`` pairs of :data:`BLOCK_CUTTERS`."""
    found = {flag for flag, _ in BLOCK_CUTTERS.values()}
    for path in (ROOT / "chunker").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            literal = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
            if re.fullmatch(r"split_\w+", literal):
                found.add(literal)
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
            args: list[ast.expr] = []
            if name == "add" and owner == "flags":
                args = list(node.args)
            elif name == "Piece":
                args = node.args[5:6] + [k.value for k in node.keywords if k.arg == "flag"]
            found |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return found


def test_flags_names_every_flag_the_engine_sets_in_its_source() -> None:
    found = _flag_literals_in_source()
    assert {"split_list", "unbalanced_fence", "hard_cut", "breadcrumb_shortened"} <= found  # the reader reads
    assert found == set(chunker.FLAGS)
    assert len(chunker.FLAGS) == len(set(chunker.FLAGS))


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
def test_every_flag_on_the_samples_chunks_is_in_flags(strategy: str) -> None:
    seen: set[str] = set()
    for path in SAMPLES:
        doc = chunker.parse(path.read_text(encoding="utf-8"), name=path.name)
        for target, cap in [(48, 64), (128, 256)]:
            chunks = chunker.chunk(doc, target=target, hard_cap=cap, strategy=strategy, min_tokens=20)
            seen.update(flag for c in chunks for flag in c.flags)
    assert seen <= set(chunker.FLAGS)
    assert "split_list" in seen


def _method_list() -> str:
    text = (ROOT / "docs" / "method.md").read_text(encoding="utf-8")
    return text.split("- **Flags**:", 1)[1].split("\n- ", 1)[0]


def _row(doc: str, start: str) -> str:
    lines = (ROOT / "docs" / doc).read_text(encoding="utf-8").splitlines()
    return next(line for line in lines if line.startswith(start))


def _json_list() -> str:
    return _row("json.md", "| `flags` |")


def _app_list() -> str:
    return _row("app.md", "| **Inspect** |").split("flags:", 1)[1].split(")", 1)[0]


@pytest.mark.parametrize("doc_list", [_method_list, _json_list, _app_list], ids=["method.md", "json.md", "app.md"])
def test_every_flag_is_named_in_the_docs_lists_of_flags(doc_list: Callable[[], str]) -> None:
    named = set(re.findall(r"`(\w+)`", doc_list()))
    assert set(chunker.FLAGS) - named == set()


def test_the_schema_enumerates_exactly_the_engines_flags() -> None:
    schema = json.loads((ROOT / "docs" / "chunk-set.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["flag"]["enum"] == list(chunker.FLAGS)
