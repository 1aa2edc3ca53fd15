"""Everything that decides a chunk set besides the text: one frozen, validated value (docs/method.md §5, §5a, §6).

:func:`chunker.chunk` and :func:`chunker.chunk_markdown` take its fields as keywords and build a
:class:`ChunkOptions`; the app's sidebar, the evaluation's contenders, the directory runs, the CLI and
the LangChain, LlamaIndex and Ray adapters build the same value, so a bad value is refused in one place,
with one message, wherever it comes from; :meth:`ChunkOptions.nearest` moves values a control or a link
may hold to the nearest valid ones, by the same rules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from chunker.errors import ConfigError
from chunker.tokens import DEFAULT_TOKENIZER, tokenizer_name

__all__ = [
    "DEFAULT_HARD_CAP",
    "DEFAULT_STRATEGY",
    "DEFAULT_TARGET",
    "MIN_HARD_CAP",
    "SMALL_TOKENS",
    "STRATEGIES",
    "ChunkOptions",
    "small_size",
]

MIN_HARD_CAP = 16  # room for a re-opened fence or a repeated header around real content
# The small size (docs/method.md §5 step 6): a chunk, or a piece of a cut block, under
# small_size(target) tokens joins a neighbour when it can, whatever min_tokens says (RAG users count
# chunks under about 50 tokens as defects). SMALL_TOKENS alone is what the app marks as tiny (when no
# min_tokens is set) and what the peer metrics count as small, whatever the target.
SMALL_TOKENS = 50
# Packing strategies (docs/method.md §5a): "balanced" the hierarchical greedy packing (chunker.balanced),
# "optimal" boundaries chosen by dynamic programming (chunker.optimal), "reference"
# markdown-object's packing less its defects (chunker.reference). The default retrieves best
# (docs/method.md §5a).
STRATEGIES = ("balanced", "optimal", "reference")
DEFAULT_STRATEGY = "optimal"
# The default limits. The hard cap is the spec's 1,024 tokens; the target, the size chunks are packed
# to, is 384 rather than half the cap: measured at hard cap 1024 on both question sets of docs/evaluation.md, it
# retrieves better than 512 within the 1,024-token budget with BM25 and with all-MiniLM-L6-v2 (more
# chunks fit the budget, and fewer answers lie beyond the 256 word pieces a small embedding model
# reads; docs/method.md §5a, "Why the default target is 384").
DEFAULT_HARD_CAP = 1024
DEFAULT_TARGET = 384


def small_size(size: int) -> int:
    """The small size for chunks packed to ``size`` tokens (the target; for a cut block, its piece limit):
    ``SMALL_TOKENS``, or a quarter of ``size`` when that is less."""
    return min(SMALL_TOKENS, size // 4)


_LABELS = {"hard_cap": "hard cap", "min_tokens": "minimum chunk", "breadcrumb_in_budget": "breadcrumb in budget"}


@dataclass(frozen=True, slots=True)
class ChunkOptions:
    """What decides a chunk set besides the document and its tokenizer.

    ``target``: the size of the pieces a block too big for the hard cap is cut into (and,
    under ``optimal``, the size chunks are packed to). ``hard_cap``: no chunk is longer.
    ``overlap``: consecutive chunks of one section share up to that many tokens of whole
    sentences. ``min_tokens``: a smaller chunk joins a neighbour within a common section when
    the result fits, else is flagged ``tiny``. ``breadcrumb_in_budget``: the hard cap holds for
    ``contextualize()``. ``repeat_table_header``: pieces of a cut table repeat its header.
    ``include_front_matter``: the front matter is chunked too. ``strategy``: see docs/method.md §5a.
    ``tokenizer``: the name of the tokenizer that counts (a tiktoken encoding or model name, or a
    tokenizer.json path), for the entry points that parse as well as pack (``chunk_markdown``, the CLI,
    the app, the adapters); ``None``, the default, means cl100k_base there. A parsed document keeps the
    tokenizer it was counted with: packing it with options that name another is a ``ConfigError``.

    Raises :class:`~chunker.errors.ConfigError` naming the bad value.
    """

    target: int = DEFAULT_TARGET
    hard_cap: int = DEFAULT_HARD_CAP
    overlap: int = 0
    min_tokens: int = 0
    breadcrumb_in_budget: bool = False
    repeat_table_header: bool = True
    include_front_matter: bool = False
    strategy: str = DEFAULT_STRATEGY
    tokenizer: str | None = None

    def __post_init__(self) -> None:
        if self.tokenizer is not None and (not isinstance(self.tokenizer, str) or not self.tokenizer):
            raise ConfigError(f"tokenizer must be a tokenizer's name or None, got {self.tokenizer!r}")
        if not isinstance(self.strategy, str) or self.strategy not in STRATEGIES:
            choices = ", ".join(repr(s) for s in STRATEGIES)
            raise ConfigError(f"unknown strategy {self.strategy!r}: use one of {choices}")
        for name in ("target", "hard_cap", "overlap", "min_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name} must be an int, got {value!r}")
        for name in ("breadcrumb_in_budget", "repeat_table_header", "include_front_matter"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ConfigError(f"{name} must be True or False, got {value!r}")
        target, hard_cap, overlap, min_tokens = self.target, self.hard_cap, self.overlap, self.min_tokens
        if target < 1:
            raise ConfigError(f"target must be at least 1 token, got target={target}")
        if hard_cap < MIN_HARD_CAP:
            raise ConfigError(
                f"hard_cap={hard_cap} is below the smallest workable size ({MIN_HARD_CAP} tokens): "
                f"a cut code block needs room for its fences"
            )
        if hard_cap < target:
            default = " (the default target)" if target == DEFAULT_TARGET else ""
            raise ConfigError(
                f"hard_cap ({hard_cap}) must be at least target ({target}{default}): "
                f"give a target of at most {hard_cap} too"
            )
        if overlap < 0:
            raise ConfigError(f"overlap must be 0 or more tokens, got overlap={overlap}")
        if overlap * 2 >= hard_cap:
            raise ConfigError(
                f"overlap={overlap} must be less than half the hard cap ({hard_cap}): "
                f"chunks would be mostly repeated text"
            )
        if not 0 <= min_tokens <= hard_cap:
            raise ConfigError(f"min_tokens must be between 0 and hard_cap ({hard_cap}), got min_tokens={min_tokens}")
        if self.breadcrumb_in_budget and hard_cap < 2 * MIN_HARD_CAP:
            raise ConfigError(
                f"hard_cap={hard_cap} is too small to hold the breadcrumb too: with breadcrumb_in_budget=True "
                f"it must be at least {2 * MIN_HARD_CAP} (half for the breadcrumb line, half for the chunk)"
            )

    @property
    def tokenizer_name(self) -> str:
        """The name of the tokenizer these options parse with: :attr:`tokenizer`, or cl100k_base, as a
        document parsed with it records it (``Document.tokenizer.name``)."""
        return tokenizer_name(self.tokenizer or DEFAULT_TOKENIZER)

    def keywords(self) -> dict[str, Any]:
        """The options as :func:`chunker.chunk` keywords: ``chunk(doc, **options.keywords())``."""
        return asdict(self)

    @classmethod
    def nearest(cls, **values: Any) -> tuple[ChunkOptions, list[str]]:
        """The valid options nearest to ``values`` (``ChunkOptions``' keywords, each of the right type), and
        a note for each value moved: the hard cap raised to :data:`MIN_HARD_CAP`, the target kept within
        1 and the hard cap, the overlap under half the cap, the minimum chunk within 0 and the cap, the
        breadcrumb left out of the budget of a cap too small for it, an unknown strategy made the default.
        What the app does with the values its controls and links hold; the rules are those of
        :meth:`__post_init__`."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(f"unknown option(s) {', '.join(unknown)}")
        merged = {f.name: getattr(cls(), f.name) for f in fields(cls)} | values
        notes: list[str] = []

        def move(name: str, value: Any, why: str) -> None:
            notes.append(f"{_LABELS.get(name, name)} {merged[name]} → {value} ({why})")
            merged[name] = value

        if merged["strategy"] not in STRATEGIES:
            move("strategy", DEFAULT_STRATEGY, "the default; unknown strategy")
        if merged["hard_cap"] < MIN_HARD_CAP:
            move("hard_cap", MIN_HARD_CAP, "the smallest workable size")
        cap = merged["hard_cap"]
        if merged["target"] > cap:
            move("target", cap, "it cannot exceed the hard cap")
        elif merged["target"] < 1:
            move("target", 1, "at least 1 token")
        if merged["overlap"] < 0:
            move("overlap", 0, "no overlap")
        elif merged["overlap"] * 2 >= cap:
            move("overlap", (cap - 1) // 2, "less than half the hard cap")
        if merged["min_tokens"] < 0:
            move("min_tokens", 0, "none")
        elif merged["min_tokens"] > cap:
            move("min_tokens", cap, "the hard cap")
        if merged["breadcrumb_in_budget"] and cap < 2 * MIN_HARD_CAP:
            move("breadcrumb_in_budget", False, f"a hard cap under {2 * MIN_HARD_CAP} cannot hold the breadcrumb too")
        return cls(**merged), notes

    def config(self, tokenizer: str, engine: str) -> dict[str, Any]:
        """The ``config`` of a chunk set made with these options (docs/json.md)."""
        return {
            "target": self.target,
            "hard_cap": self.hard_cap,
            "tokenizer": tokenizer,
            "repeat_table_header": self.repeat_table_header,
            "include_front_matter": self.include_front_matter,
            "overlap": self.overlap,
            "min_tokens": self.min_tokens,
            "breadcrumb_in_budget": self.breadcrumb_in_budget,
            "engine": engine,
            "strategy": self.strategy,
        }
