"""The rules from a link's query to the sidebar's settings (chunk_inspector.app.url_settings), without Streamlit:
whatever a link holds, only valid settings come out, the corrected link reads back unchanged, and every
changed value is named in a note."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
from chunk_inspector.app import url_settings
from chunk_inspector.app.url_settings import (
    MAX_MIN_TOKENS,
    MAX_OVERLAP,
    SIZES,
    SOURCES,
    TOKENIZERS,
    LinkSettings,
    build_settings,
    check_query,
)

SAMPLES = ["a.md", "poetry_cli.md", "z.md"]
DEFAULT = "poetry_cli.md"
KEYS = [
    "source",
    "sample",
    "tokenizer",
    "hard_cap",
    "target",
    "strategy",
    "overlap",
    "min_tokens",
    "repeat_table_header",
    "breadcrumb_in_budget",
]
HOSTILE = [
    "1e400",
    "-1e400",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "-5",
    "abc",
    "",
    " ",
    "99999999999999999999999999999",
    "0x10",
    "1_000",
    "１２",  # full-width digits: float() reads them
    "700",
    "10.5",
    "../../etc/passwd",
    "/etc/passwd",
    "Nope",
    "![](http://198.51.100.9/q.png)",
    "\x00",
    "true",
    "FALSE",
    "512",
    "poetry_cli.md",
]


def valid(link: LinkSettings) -> None:
    assert link.source in SOURCES
    assert link.sample in SAMPLES
    assert link.tokenizer in TOKENIZERS
    assert link.hard_cap in SIZES and link.target in SIZES and link.target <= link.hard_cap
    assert link.strategy in chunker.STRATEGIES
    for value, high in ((link.overlap, MAX_OVERLAP), (link.min_tokens, MAX_MIN_TOKENS)):
        assert type(value) is int and 0 <= value <= high
    assert type(link.repeat_table_header) is bool and type(link.breadcrumb_in_budget) is bool


def corrected(query: Mapping[str, str | Sequence[str]], fixes: Mapping[str, str | None]) -> dict[str, str | list[str]]:
    """The query as the frame rewrites it: each fix set, or removed."""
    out: dict[str, str | list[str]] = {k: v if isinstance(v, str) else list(v) for k, v in query.items()}
    for key, value in fixes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


values = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=30),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from([str(s) for s in SIZES] + list(TOKENIZERS) + list(SOURCES) + list(chunker.STRATEGIES) + SAMPLES),
)
queries = st.dictionaries(
    st.one_of(st.sampled_from(KEYS), st.text(max_size=8)),
    st.one_of(values, st.lists(values, min_size=1, max_size=3)),
    max_size=12,
)


@settings(max_examples=600, deadline=None)
@given(queries)
def test_any_query_gives_valid_settings_and_a_link_that_reads_back_unchanged(
    query: dict[str, str | list[str]],
) -> None:
    """Arbitrary strings, numbers and repeats under the sidebar's parameters (and others): the parser never
    raises, every setting is one the widgets offer, the engine's settings build from them, and the corrected
    link has nothing left to correct and asks for the same settings."""
    checked = check_query(query, SAMPLES, DEFAULT)
    valid(checked.settings)
    assert set(checked.fixes) <= set(KEYS), "parameters the sidebar does not own are left alone"
    link = checked.settings
    built, _ = build_settings(
        link.tokenizer,
        link.hard_cap,
        link.target,
        link.overlap,
        link.min_tokens,
        link.repeat_table_header,
        link.breadcrumb_in_budget,
        link.strategy,
    )
    assert isinstance(built, chunker.ChunkOptions)  # the engine's options, validated
    again = check_query(corrected(query, checked.fixes), SAMPLES, DEFAULT)
    assert again.fixes == {} and again.notes == ()
    assert again.settings == checked.settings


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=1, max_value=10**6),
    st.integers(min_value=1, max_value=10**6),
    st.integers(min_value=0, max_value=MAX_OVERLAP),
    st.integers(min_value=0, max_value=MAX_MIN_TOKENS),
    st.booleans(),
)
def test_the_engines_settings_build_from_any_values_the_widgets_allow(
    cap: int, target: int, overlap: int, min_tokens: int, in_budget: bool
) -> None:
    """What the hard cap cannot hold is lowered, with a note, never refused with an exception."""
    built, notes = build_settings("cl100k_base", cap, target, overlap, min_tokens, True, in_budget, "optimal")
    assert built.target <= built.hard_cap and built.overlap * 2 < built.hard_cap and built.min_tokens <= built.hard_cap
    assert (built.overlap != overlap) == any(n.startswith("overlap") for n in notes)


@pytest.mark.parametrize(
    ("query", "field", "value", "note"),
    [
        ({"overlap": "1e400"}, "overlap", 0, "overlap '1e400' is not a number → 0"),
        ({"overlap": "inf"}, "overlap", 0, "is not a number"),
        ({"overlap": "nan"}, "overlap", 0, "is not a number"),
        ({"overlap": "-5"}, "overlap", 0, "overlap '-5' → 0 (the smallest)"),
        ({"overlap": "abc"}, "overlap", 0, "is not a number"),
        ({"overlap": "99999999999999999999999"}, "overlap", MAX_OVERLAP, f"→ {MAX_OVERLAP} (the largest)"),
        ({"min_tokens": "1e400"}, "min_tokens", 0, "minimum chunk '1e400' is not a number → 0"),
        ({"hard_cap": "700"}, "hard_cap", 600, "hard cap '700' → 600 (the nearest slider stop below)"),
        ({"hard_cap": "1e400"}, "hard_cap", 1024, "hard cap '1e400' is not a number → 1024"),
        ({"hard_cap": "3"}, "hard_cap", 16, "→ 16 (the smallest stop)"),
        ({"target": "257"}, "target", 256, "target '257' → 256"),
        ({"target": "2048"}, "target", 1024, "target 2048 → 1024 (it cannot exceed the hard cap)"),
        ({"strategy": "evil"}, "strategy", chunker.DEFAULT_STRATEGY, "packing 'evil' is not one of the choices"),
        ({"tokenizer": "../../x.json"}, "tokenizer", "cl100k_base", "tokenizer '../../x.json' is not one of"),
        ({"sample": "../../etc/passwd"}, "sample", DEFAULT, "sample '../../etc/passwd' is not one of the choices"),
        ({"sample": "missing.md"}, "sample", DEFAULT, "sample 'missing.md' is not one of the choices"),
        ({"source": "Nope"}, "source", "Sample", "document source 'Nope' is not one of the choices → Sample"),
        ({"repeat_table_header": "maybe"}, "repeat_table_header", True, "is neither true nor false → true"),
        ({"hard_cap": ["512", "1024"]}, "hard_cap", 1024, "hard cap was given 2 times: the last one counts"),
    ],
)
def test_each_hostile_parameter_is_clamped_or_reset_with_a_note(
    query: dict[str, str | list[str]], field: str, value: object, note: str
) -> None:
    checked = check_query(query, SAMPLES, DEFAULT)
    assert getattr(checked.settings, field) == value
    assert note in checked.note(), checked.note()
    assert set(checked.fixes) >= set(query)


def test_a_valid_link_is_left_as_it_is() -> None:
    query = {"hard_cap": "1024", "target": "500", "sample": "z.md", "overlap": "20", "repeat_table_header": "False"}
    checked = check_query(query, SAMPLES, DEFAULT)
    assert checked.fixes == {} and checked.note() == ""
    assert (checked.settings.hard_cap, checked.settings.target, checked.settings.sample) == (1024, 500, "z.md")
    assert checked.settings.repeat_table_header is False


def test_a_correction_to_the_default_removes_the_parameter_and_a_spelling_is_fixed_silently() -> None:
    checked = check_query({"overlap": "abc", "hard_cap": "0512", "target": "384.0"}, SAMPLES, DEFAULT)
    assert checked.fixes == {"overlap": None, "hard_cap": "512", "target": None}
    assert checked.notes == ("overlap 'abc' is not a number → 0",)


def test_a_long_or_unprintable_value_is_quoted_short_in_the_note() -> None:
    checked = check_query({"sample": "x" * 5000 + "\x00\n"}, SAMPLES, DEFAULT)
    assert len(checked.note()) < 200
    assert "\x00" not in checked.note() and "\n" not in checked.note()
    assert url_settings.SHOWN < 5000


def test_docs_app_md_gives_the_defaults_the_app_opens_at() -> None:
    """docs/app.md's table of link parameters names, for each, the value the sidebar opens at."""
    rows = (Path(__file__).resolve().parents[1] / "docs" / "app.md").read_text(encoding="utf-8").splitlines()
    row = next(line for line in rows if line.startswith("| `hard_cap`, `target` |"))
    assert row.rstrip(" |").rsplit("|", 1)[1].strip() == f"{LinkSettings().hard_cap}, {LinkSettings().target}"
    for name in ("strategy", "overlap", "min_tokens", "tokenizer"):
        row = next(line for line in rows if line.startswith(f"| `{name}` |"))
        assert row.rstrip(" |").rsplit("|", 1)[1].strip().strip("`") == str(getattr(LinkSettings(), name))


def test_docs_app_md_gives_the_values_each_parameter_takes() -> None:
    """docs/app.md's table of link parameters lists, for each, the values the sidebar offers."""
    rows = (Path(__file__).resolve().parents[1] / "docs" / "app.md").read_text(encoding="utf-8").splitlines()

    def values(start: str) -> str:
        return next(line for line in rows if line.startswith(start)).split("|")[2].strip()

    assert values("| `source` |").replace("`", "").split(", ") == list(SOURCES)
    assert set(values("| `strategy` |").replace("`", "").split(", ")) == set(chunker.STRATEGIES)
    assert values("| `hard_cap`, `target` |").split(": ", 1)[1].split(", ") == [str(s) for s in SIZES]
    assert values("| `overlap` |").strip() == f"0 … {MAX_OVERLAP}"
    assert values("| `min_tokens` |").strip() == f"0 … {MAX_MIN_TOKENS}"
    settings_line = next(line for line in rows if line.startswith("- **Settings**: tokenizer ("))
    assert settings_line.split("(", 1)[1].split(")", 1)[0].split(", ") == list(TOKENIZERS)
    row = next(line for line in rows if line.startswith("| `repeat_table_header`, `breadcrumb_in_budget` |"))
    assert row.rstrip(" |").rsplit("|", 1)[1].replace("`", "").strip() == "true, false"
    assert (LinkSettings().repeat_table_header, LinkSettings().breadcrumb_in_budget) == (True, False)
    assert (
        next(line for line in rows if line.startswith("| `source` |"))
        .rstrip(" |")
        .endswith(f"`{LinkSettings().source}`")
    )
