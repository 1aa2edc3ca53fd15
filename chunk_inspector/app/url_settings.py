"""The rules from a link's query string to the sidebar's settings, without Streamlit.

The sidebar's widgets are bound to the URL (``bind="query-params"``): a shared link sets them.
A link is not trusted: it may ask for ``overlap=1e400``, a hard cap between the slider's stops,
a sample named ``../../etc/passwd``. :func:`check_query` reads every parameter the sidebar owns
and returns the settings it stands for, each one valid, with the parameters to rewrite in the
URL and one note per change, so that the frame can correct the link before any widget reads it
and say what it changed. :func:`build_settings` turns the widgets' values into the engine's
settings, lowering what the hard cap cannot hold. Neither raises, whatever the input.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import chunker
from chunker.wording import shorten

__all__ = [
    "DEFAULTS",
    "MAX_MIN_TOKENS",
    "MAX_OVERLAP",
    "SIZES",
    "SOURCES",
    "TOKENIZERS",
    "Checked",
    "LinkSettings",
    "build_settings",
    "check_query",
]

TOKENIZERS = ("cl100k_base", "o200k_base", "p50k_base", "gpt-4o", "text-embedding-3-small")
SOURCES = ("Sample", "Upload", "Paste")
# Slider stops: powers of two and the round numbers people configure (500/1000 and the like).
SIZES = (
    16,
    32,
    48,
    64,
    96,
    100,
    128,
    150,
    192,
    200,
    256,
    300,
    384,
    400,
    500,
    512,
    600,
    768,
    800,
    1000,
    1024,
    1200,
    1500,
    1536,
    2000,
    2048,
    3000,
    4096,
    6000,
    8192,
)
MAX_OVERLAP = 2048  # the number inputs' ranges
MAX_MIN_TOKENS = 4096
SHOWN = 40  # characters of a bad value quoted in a note


@dataclass(frozen=True, slots=True)
class LinkSettings:
    """What the sidebar shows: every field one of the values its widget offers."""

    source: str = "Sample"
    sample: str = ""  # "" until check_query names the default sample
    tokenizer: str = "cl100k_base"
    hard_cap: int = chunker.DEFAULT_HARD_CAP  # the app opens at the engine's defaults (docs/method.md §5a)
    target: int = chunker.DEFAULT_TARGET
    strategy: str = chunker.DEFAULT_STRATEGY
    overlap: int = 0
    min_tokens: int = 0
    repeat_table_header: bool = True
    breadcrumb_in_budget: bool = False


DEFAULTS = LinkSettings()


@dataclass(frozen=True, slots=True)
class Checked:
    """The settings a query asks for (valid), the parameters to rewrite in the URL (``None``: remove it, the
    widget's default) and a note for each value that was changed."""

    settings: LinkSettings
    fixes: dict[str, str | None] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def note(self) -> str:
        """One line for the sidebar (empty when nothing was changed)."""
        return "The link's settings were corrected: " + "; ".join(self.notes) + "." if self.notes else ""


def _shown(raw: str) -> str:
    """A bad value as a note quotes it: printable, at most :data:`SHOWN` characters."""
    text = "".join(c if c.isprintable() else "\N{REPLACEMENT CHARACTER}" for c in raw)
    return repr(shorten(text, SHOWN))


def _number(raw: str) -> float | None:
    """A finite number, or None (``abc``, ``nan``, ``inf``, ``1e400``, the empty string)."""
    try:
        value = float(raw.strip())
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _stop(value: float) -> tuple[int, str]:
    """The slider stop for ``value``: the largest stop at or below it, within the slider's range."""
    if value <= SIZES[0]:
        return SIZES[0], "the smallest stop"
    if value >= SIZES[-1]:
        return SIZES[-1], "the largest stop"
    below = max(s for s in SIZES if s <= value)
    return below, "the nearest slider stop below"


class _Reader:
    """Reads one query, collecting fixes and notes."""

    def __init__(self, query: Mapping[str, str | Sequence[str]]) -> None:
        self.query = query
        self.fixes: dict[str, str | None] = {}
        self.notes: list[str] = []

    def raw(self, key: str, label: str) -> str | None:
        """The parameter's one value (the last when it is repeated, as Streamlit reads it), or None."""
        if key not in self.query:
            return None
        value = self.query[key]
        values = [value] if isinstance(value, str) else [str(v) for v in value]
        if not values:
            return None
        if len(values) > 1:  # rewritten as one value below, or noted
            self.notes.append(f"{label} was given {len(values)} times: the last one counts")
            self.fixes[key] = values[-1]
        return values[-1]

    def fix(self, key: str, value: str, default: str, note: str | None) -> None:
        self.fixes[key] = None if value == default else value
        if note:
            self.notes.append(note)

    def choice(self, key: str, label: str, options: Sequence[str], default: str) -> str:
        raw = self.raw(key, label)
        if raw is None or raw in options:
            return default if raw is None else raw
        self.fix(key, default, default, f"{label} {_shown(raw)} is not one of the choices → {default}")
        return default

    def flag(self, key: str, label: str, default: bool) -> bool:
        raw = self.raw(key, label)
        if raw is None:
            return default
        if raw.lower() in ("true", "false"):
            return raw.lower() == "true"
        word = "true" if default else "false"
        self.fix(key, word, word, f"{label} {_shown(raw)} is neither true nor false → {word}")
        return default

    def count(self, key: str, label: str, high: int, default: int) -> int:
        """A whole number of tokens in ``[0, high]``: out of range clamped, a fraction rounded down,
        anything else the default."""
        raw = self.raw(key, label)
        if raw is None:
            return default
        value = _number(raw)
        if value is None:
            self.fix(key, str(default), str(default), f"{label} {_shown(raw)} is not a number → {default}")
            return default
        kept = int(min(max(value, 0), high))
        if str(kept) != raw:
            why = "the smallest" if value < 0 else "the largest" if value > high else "a whole number"
            self.fix(key, str(kept), str(default), None if kept == value else f"{label} {_shown(raw)} → {kept} ({why})")
        return kept

    def size(self, key: str, label: str, default: int) -> int:
        """One of the slider's stops: between stops, the stop below; out of range, the end; else the default."""
        raw = self.raw(key, label)
        if raw is None:
            return default
        value = _number(raw)
        if value is None:
            self.fix(key, str(default), str(default), f"{label} {_shown(raw)} is not a number → {default}")
            return default
        stop, why = _stop(value)
        if str(stop) != raw:
            self.fix(key, str(stop), str(default), None if stop == value else f"{label} {_shown(raw)} → {stop} ({why})")
        return stop


def check_query(
    query: Mapping[str, str | Sequence[str]], samples: Sequence[str], default_sample: str | None = None
) -> Checked:
    """The settings a link's query asks for, every one valid; see :class:`Checked`.

    ``query`` maps a parameter to its value, or to its values when it is repeated (``?a=1&a=2``);
    ``samples`` are the bundled documents' names, ``default_sample`` the one open by default (the
    first sample when not given). Parameters the sidebar does not own are left alone.
    """
    read = _Reader(query)
    default_sample = default_sample if default_sample is not None else (samples[0] if samples else "")
    d = DEFAULTS
    source = read.choice("source", "document source", SOURCES, d.source)
    sample = read.choice("sample", "sample", list(samples), default_sample) if samples else default_sample
    tokenizer = read.choice("tokenizer", "tokenizer", TOKENIZERS, d.tokenizer)
    hard_cap = read.size("hard_cap", "hard cap", d.hard_cap)
    target = read.size("target", "target", d.target)
    if target > hard_cap:
        note = f"target {target} → {hard_cap} (it cannot exceed the hard cap)"
        read.fix("target", str(hard_cap), str(d.target), note)
        target = hard_cap
    strategy = read.choice("strategy", "packing", chunker.STRATEGIES, d.strategy)
    overlap = read.count("overlap", "overlap", MAX_OVERLAP, d.overlap)
    min_tokens = read.count("min_tokens", "minimum chunk", MAX_MIN_TOKENS, d.min_tokens)
    repeat = read.flag("repeat_table_header", "repeat table headers", d.repeat_table_header)
    in_budget = read.flag("breadcrumb_in_budget", "breadcrumb in budget", d.breadcrumb_in_budget)
    settings = LinkSettings(
        source, sample, tokenizer, hard_cap, target, strategy, overlap, min_tokens, repeat, in_budget
    )
    return Checked(settings, read.fixes, tuple(read.notes))


def build_settings(
    tokenizer: str,
    hard_cap: int,
    target: int,
    overlap: int,
    min_tokens: int,
    repeat_table_header: bool,
    breadcrumb_in_budget: bool,
    strategy: str,
) -> tuple[chunker.ChunkOptions, list[str]]:
    """The engine's options for the sidebar's values (each within its widget's range), and a note for each
    value moved so that the hard cap can hold it: :meth:`chunker.ChunkOptions.nearest`, the engine's own
    rules (the target to the cap, the overlap under half the cap, the minimum chunk to the cap, the
    breadcrumb out of the budget of a cap too small to hold it)."""
    return chunker.ChunkOptions.nearest(
        tokenizer=tokenizer,
        hard_cap=min(int(hard_cap), SIZES[-1]),
        target=int(target),
        overlap=int(overlap),
        min_tokens=int(min_tokens),
        repeat_table_header=bool(repeat_table_header),
        breadcrumb_in_budget=bool(breadcrumb_in_budget),
        strategy=str(strategy),
    )
