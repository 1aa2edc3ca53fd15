"""Packing (docs/method.md §5, §5a, §6): Document -> ChunkSet, as a row of passes.

:func:`chunk_with` reads as the method (docs/method.md §5):

1. **walk**: the strategy (its row in :data:`chunker.strategies.REGISTRY`) makes drafts, each a
   run of blocks (or cut pieces) under one section, within the hard cap (:mod:`chunker.balanced`,
   :mod:`chunker.optimal`, :mod:`chunker.reference`);
2. **sibling merge**: neighbours whose breadcrumbs share a parent join within the cap
   (:func:`merge_siblings`; where the strategy merges siblings: not ``optimal``, whose cost
   already weighs it); where it joins a small preamble (``balanced``), a preamble under the
   small size then joins the chunk after it (:func:`join_small_preamble`);
3. **exact counts**: each draft's markdown counted, re-packed where a tokenizer without
   exact sums overshot (:func:`exact_counts`);
4. **small chunks**: a chunk under the small size (or ``min_tokens``; where the strategy
   does not join small chunks, ``reference``, ``min_tokens`` only) joins a neighbour in a
   common section, or takes whole blocks from one (:func:`join_small`);
5. **overlap**: whole sentences of a chunk carried into the next one of its section
   (:func:`overlaps`);
6. **chunks**: spans, headings, flags, clause numbers (:func:`to_chunks`).

Every pass is a function of plain data (drafts, counted drafts) and the
:class:`~chunker.drafts.Packing`, which holds the document and its limits.
"""

from __future__ import annotations

import itertools
import re

from chunker.chunkset import Chunk, ChunkSet
from chunker.collector import collector_paused
from chunker.context import breadcrumb_line, nearest_clause
from chunker.cut import sentence_starts
from chunker.drafts import Counted, Draft, Packing, Unit, joinable, running_sizes
from chunker.errors import ConfigError
from chunker.hierarchy import outline
from chunker.model import CacheSlot, Document
from chunker.options import (
    DEFAULT_HARD_CAP,
    DEFAULT_STRATEGY,
    DEFAULT_TARGET,
    MIN_HARD_CAP,
    STRATEGIES,
    ChunkOptions,
    small_size,
)
from chunker.parse import unclosed_fence
from chunker.spans import Span
from chunker.strategies import REGISTRY
from chunker.tokens import tokenizer_name
from chunker.version import __version__

__all__ = ["DEFAULT_STRATEGY", "MIN_HARD_CAP", "STRATEGIES", "chunk", "chunk_with"]

# Text that would open a block (heading, quote, list item, table row, HTML, fence) at the
# start of a chunk: an overlap never starts there, though it may inside a sentence of its source.
_BLOCK_OPENER = re.compile(r"[#>|<]|[-+*](?:\s|\Z)|\d{1,9}[.)](?:\s|\Z)|[`~]{3}")


def chunk(
    doc: Document,
    target: int = DEFAULT_TARGET,
    hard_cap: int = DEFAULT_HARD_CAP,
    *,
    overlap: int = 0,
    min_tokens: int = 0,
    breadcrumb_in_budget: bool = False,
    repeat_table_header: bool = True,
    include_front_matter: bool = False,
    strategy: str = DEFAULT_STRATEGY,
    tokenizer: str | None = None,
) -> ChunkSet:
    """Pack a parsed document into chunks of at most ``hard_cap`` tokens.

    The keywords are those of :class:`~chunker.options.ChunkOptions` (see there);
    ``chunk(doc, **kw)`` is ``chunk_with(doc, ChunkOptions(**kw))``.

    Raises :class:`~chunker.errors.ConfigError` when ``target < 1``,
    ``hard_cap < target``, ``hard_cap < MIN_HARD_CAP``, an option is out of range,
    or the strategy is unknown.
    """
    options = ChunkOptions(
        target,
        hard_cap,
        overlap=overlap,
        min_tokens=min_tokens,
        breadcrumb_in_budget=breadcrumb_in_budget,
        repeat_table_header=repeat_table_header,
        include_front_matter=include_front_matter,
        strategy=strategy,
        tokenizer=tokenizer,
    )
    return chunk_with(doc, options)


def chunk_with(doc: Document, options: ChunkOptions) -> ChunkSet:
    """Pack a parsed document with ``options``: the passes of the method, in order.

    Raises :class:`~chunker.errors.ConfigError` when ``options`` name a tokenizer other than the one the
    document was counted with (its counts would not be the tokenizer's), and :class:`TypeError` when ``doc`` is
    not a Document (Markdown text goes to :func:`chunker.chunk_markdown`, or through :func:`chunker.parse`)."""
    if not isinstance(doc, Document):
        raise TypeError(
            f"chunk() takes a Document from chunker.parse(text), not {type(doc).__name__}: "
            "for Markdown text, call chunker.chunk_markdown(text) (or chunker.chunk(chunker.parse(text)))"
        )
    if options.tokenizer is not None and tokenizer_name(options.tokenizer) != doc.tokenizer.name:
        raise ConfigError(
            f"these options count with {options.tokenizer!r}, but the document was parsed with "
            f"{doc.tokenizer.name!r}: parse it with that tokenizer, or leave the options' tokenizer out"
        )
    with collector_paused():  # thousands of units, drafts and chunks, none in a cycle
        chunks = _passes(doc, options)
    config = options.config(doc.tokenizer.name, __version__)
    return ChunkSet(chunks, doc.metadata(), config, lambda: outline(doc), doc.text)  # the outline on first use


def _passes(doc: Document, options: ChunkOptions) -> list[Chunk]:
    """The chunks of ``doc``: the passes, in order.

    A function of its own so that the drafts are freed as it returns, before the collector resumes: its first
    pass then looks at the chunks only, not also at the drafts that made them (half its time).
    """
    strategy = REGISTRY[options.strategy]
    packing = Packing(doc, options, joins_small_chunks=strategy.joins_small_chunks)
    drafts = strategy.walk(packing)
    if strategy.merges_siblings:
        drafts = merge_siblings(drafts, packing)
    if strategy.joins_small_preamble:
        drafts = join_small_preamble(drafts, packing)
    counted = join_small(exact_counts(drafts, packing), packing)
    return to_chunks(counted, overlaps(counted, packing), packing)


# -- 2. sibling merge ----------------------------------------------------------------


def merge_siblings(drafts: list[Draft], packing: Packing) -> list[Draft]:
    """One pass joining neighbours whose breadcrumbs share a parent, within the cap."""
    out: list[Draft] = []
    for draft in drafts:
        draft.group = draft.key[:-1]
        prev = out[-1] if out else None
        if (
            prev is not None
            and not prev.units[-1].continues
            and prev.preamble == draft.preamble
            and prev.group == draft.group
            and prev.tokens + prev.units[-1].join + draft.tokens
            <= packing.cap(prev.path if prev.key == draft.key else prev.path[: len(prev.group) + 1])
        ):
            prev.tokens += prev.units[-1].join + draft.tokens
            prev.units.extend(draft.units)
            if prev.key != draft.key:
                prev.path, prev.key = prev.path[: len(prev.group) + 1], prev.group
            continue
        out.append(draft)
    return out


def join_small_preamble(drafts: list[Draft], packing: Packing) -> list[Draft]:
    """A preamble under the small size joins the first chunk after it, when that fits (docs/method.md §5a).

    The joined chunk's breadcrumb is ``[name]``. (Under ``optimal`` the cost decides it; under
    ``reference`` the preamble stays on its own.)
    """
    if len(drafts) < 2 or not drafts[0].preamble or drafts[1].preamble:
        return drafts
    preamble, first = drafts[0], drafts[1]
    if preamble.tokens >= small_size(packing.target) or not joinable(preamble.units[-1], first.units[0]):
        return drafts
    top = (packing.doc.name,)
    tokens = preamble.tokens + preamble.units[-1].join + first.tokens
    if tokens > packing.cap(top):
        return drafts
    return [Draft(top, units=[*preamble.units, *first.units], tokens=tokens), *drafts[2:]]


# -- 3. exact counts -------------------------------------------------------------------


def exact_counts(drafts: list[Draft], packing: Packing) -> list[Counted]:
    """Each draft counted on its markdown (its sum, when that is exact); one that overshoots is re-packed."""
    additive = packing.doc.tokenizer.line_additive
    out: list[Counted] = []
    for draft in drafts:
        item = packing.counted(draft, draft.tokens if additive and packing.summed_exactly(draft) else None)
        if packing.fits(item):
            out.append(item)
        else:  # a tokenizer without exact sums overshot: re-pack these blocks by exact counts
            out.extend(_repacked(draft, packing))
    return out


def _repacked(draft: Draft, packing: Packing) -> list[Counted]:
    out: list[Counted] = []
    current: list[Unit] = []
    fitted: Counted | None = None
    for atom in packing.atoms(draft.units):
        if current:
            trial = packing.counted(draft.holding([*current, atom]))
            if packing.fits(trial):
                fitted = trial
            else:
                out.append(_squeezed(fitted or packing.counted(draft.holding(current)), packing))
                current, fitted = [], None
        current.append(atom)
    if current:
        out.append(_squeezed(fitted or packing.counted(draft.holding(current)), packing))
    return out


def _squeezed(item: Counted, packing: Packing) -> Counted:
    """Shorten the breadcrumb line of one chunk whose context a non-additive tokenizer made overshoot."""
    hard_cap = packing.hard_cap
    if item.context_tokens is None or item.context_tokens <= hard_cap:
        return item
    tokenizer = packing.doc.tokenizer
    limit = packing.context(item.draft.path)[2] - (item.context_tokens - hard_cap)
    while limit > 0 and item.context_tokens > hard_cap:
        item.line, _ = breadcrumb_line(item.draft.path, tokenizer, limit)
        item.shortened = True
        item.context_tokens = tokenizer.count(f"{item.line}\n\n{item.markdown}")
        limit -= 1
    return item


# -- 4. small chunks (and min_tokens): joined to a neighbour within a common section --


def join_small(items: list[Counted], packing: Packing) -> list[Counted]:
    """Join each small chunk to a neighbour when the joined chunk fits the cap.

    Small is under ``small_size(target)`` tokens, always, or under
    ``min_tokens``. Of the two neighbours the one sharing the deeper section
    wins, then the one giving the smaller result, then the previous one; this is
    repeated while the joined chunk is still small. A small chunk that no neighbour
    can take whole takes whole blocks from one (:func:`_rebalanced`). A chunk under
    ``min_tokens`` that stays small is flagged ``tiny`` (see :func:`to_chunks`).
    """
    small, min_tokens = packing.small, packing.options.min_tokens
    i = 0
    while i < len(items):
        tokens = items[i].tokens
        if tokens >= small:
            i += 1
            continue
        rejoin = tokens < min_tokens  # the option may rejoin the pieces of a cut block
        best: Counted | None = None
        rank = (0, 0)
        at = i
        for first in (i - 1, i):
            if first >= 0 and first + 1 < len(items):
                joined = _joined(items[first], items[first + 1], rejoin, packing)
                if joined is not None and (best is None or (-len(joined.draft.key), joined.tokens) < rank):
                    best, at, rank = joined, first, (-len(joined.draft.key), joined.tokens)
        if best is None:
            moved = _rebalanced(items, i, small, packing)
            if moved is not None:
                at, pair = moved
                items[at : at + 2] = pair
            i += 1
            continue
        items[at : at + 2] = [best]
        i = at
    return items


def _rebalanced(items: list[Counted], i: int, small: int, packing: Packing) -> tuple[int, list[Counted]] | None:
    """The small chunk ``items[i]``, which no neighbour can take whole, with whole blocks of one.

    The last blocks of the previous chunk, or the first of the next, move into the
    small chunk, so that both chunks reach ``small`` tokens and fit the cap. The cut
    falls before the shallowest heading that allows it (a section boundary), then
    moves the fewest tokens; a heading never ends the chunk it leaves (docs/method.md §5 step 8).
    Returns where the two chunks start and the two new chunks, or None.
    """
    candidates: list[tuple[int, int, int, int, list[Unit], list[Unit]]] = []
    for at in (i - 1, i):
        if at < 0 or at + 1 >= len(items):
            continue
        a, b = items[at].draft, items[at + 1].draft
        if a.preamble != b.preamble or a.units[-1].continues or not joinable(a.units[-1], b.units[0]):
            continue
        take_from_left = at == i - 1
        atoms = packing.atoms(a.units if take_from_left else b.units)
        sizes = running_sizes(atoms)
        whole = sizes[-1]
        for k in range(1, len(atoms)):
            left, right = atoms[:k], atoms[k:]
            if left[-1].heading_only:  # a heading never ends the chunk its content leaves
                continue
            before = sizes[k - 1]  # left's tokens, summed
            after = whole - before - left[-1].join  # right's tokens, summed
            if take_from_left:
                kept, grown = before, after + right[-1].join + b.tokens
            else:
                kept, grown = after, a.tokens + a.units[-1].join + before
            if kept < small or grown < small or grown > packing.hard_cap:
                continue
            level = packing.heading_level(right[0])
            candidates.append((level, grown, at, k, left, right))
    for _level, _grown, at, _k, left, right in sorted(candidates, key=lambda c: c[:3]):
        a, b = items[at].draft, items[at + 1].draft
        if at == i - 1:  # a's last blocks join b
            first, second = a.holding(left), _common([*right, *b.units], a, b)
        else:  # b's first blocks join a
            first, second = _common([*a.units, *left], a, b), b.holding(right)
        pair = [packing.counted(first), packing.counted(second)]
        if all(packing.fits(p) and p.tokens >= small and not unclosed_fence(p.markdown) for p in pair):
            return at, pair
    return None


def _common(units: list[Unit], a: Draft, b: Draft) -> Draft:
    """A draft of ``units`` (from ``a`` and ``b``) under the deepest section holding both."""
    depth = 0
    for x, y in zip(a.key, b.key, strict=False):
        if x != y:
            break
        depth += 1
    return Draft(a.path[: depth + 1], a.preamble, units, key=a.key[:depth])


def _joined(a: Counted, b: Counted, rejoin: bool, packing: Packing) -> Counted | None:
    """``a`` and ``b`` as one chunk, if the result fits; its breadcrumb is their deepest common section.

    Preamble joins only preamble (docs/method.md §5 step 3). Two pieces of one cut block are
    joined back only when ``rejoin`` (``min_tokens`` asks for it).
    """
    left, right = a.draft, b.draft
    if left.preamble != right.preamble:
        return None
    if (left.units[-1].continues and not rejoin) or not joinable(left.units[-1], right.units[0]):
        return None
    joined = _common([*left.units, *right.units], left, right)
    tokens = None
    tail, head = left.units[-1], right.units[0]
    if (
        packing.doc.tokenizer.line_additive
        and not (tail.piece and tail.piece.suffix)
        and not (head.piece and head.piece.prefix)
        and packing.meet_at_edges(tail, head)
    ):
        tokens = a.tokens + tail.join + b.tokens  # exact, as in exact_counts: no need to count
        if tokens > packing.hard_cap:
            return None
    item = packing.counted(joined, tokens)
    # Joined pieces can spell a fence line their parts did not (three pieces of "```").
    return item if packing.fits(item) and not unclosed_fence(item.markdown) else None


# -- 5. overlap: whole sentences carried forward within a section ---------------------

Shared = tuple[tuple[int, int], Counted]
"""An overlap: the span of the sentences carried forward, and the chunk with them put before it."""


def overlaps(items: list[Counted], packing: Packing) -> list[Shared | None]:
    """For each chunk, what it shares with the one before it (``overlap`` tokens at most), or None."""
    if not items or not packing.options.overlap:
        return [None] * len(items)
    return [None, *(_overlap_with(prev, item, packing) for prev, item in itertools.pairwise(items))]


def _overlap_with(prev: Counted, item: Counted, packing: Packing) -> Shared | None:
    """``item`` with the last whole sentences of ``prev`` put before it, and their span; or None.

    Only between chunks of the same section (same breadcrumb) where ``prev`` ends
    with paragraph text and ``item`` does not start a section (a heading) nor a
    re-opened fence or repeated table header. The overlap is the longest run of
    whole sentences at the end of ``prev`` within ``overlap`` tokens, shorter when
    the chunk with it would exceed the cap, never all of ``prev``.
    """
    a, b = prev.draft, item.draft
    if a.path != b.path or a.preamble != b.preamble:
        return None
    tail, head = a.units[-1], b.units[0]
    if not (_is_prose(tail, packing) and _starts_inside_section(head, packing)):
        return None
    text, count = packing.doc.text, packing.doc.tokenizer.count
    starts: list[int] = []  # latest first
    for start in reversed(sentence_starts(text, tail.start, tail.end)):
        if start <= a.units[0].start or count(text[start : tail.end]) > packing.options.overlap:
            break
        if not _BLOCK_OPENER.match(text, start):
            starts.append(start)
    last = b.units[-1]
    end, suffix = last.end, last.piece.suffix if last.piece else ""
    for start in reversed(starts):  # the longest first
        markdown = text[start:end] + suffix
        candidate = Counted(b, markdown, count(markdown), line=item.line, shortened=item.shortened)
        if item.line is not None:
            candidate.context_tokens = count(f"{item.line}\n\n{markdown}")
        if packing.fits(candidate):
            return (start, tail.end), candidate
    return None


def _is_prose(unit: Unit, packing: Packing) -> bool:
    """A paragraph, or a plain piece of one: text whose sentences can be shared."""
    blocks = packing.blocks
    if unit.first < 0 or unit.stop - unit.first != 1 or blocks[unit.first].kind != "paragraph":
        return False
    piece = unit.piece
    return piece is None or (piece.flag == "split_text" and not piece.prefix and not piece.suffix)


def _starts_inside_section(unit: Unit, packing: Packing) -> bool:
    """Not a heading (a section boundary), the front matter, nor a piece with an added prefix."""
    if unit.first < 0 or packing.blocks[unit.first].kind == "heading":
        return False
    return unit.piece is None or not unit.piece.prefix


# -- 6. chunks ---------------------------------------------------------------------------


def to_chunks(items: list[Counted], shared: list[Shared | None], packing: Packing) -> list[Chunk]:
    """The chunks: spans in the source, headings, flags, clause numbers; the overlap where one was found."""
    spans = [
        (item.draft.units[0].start if overlap is None else overlap[0][0], item.draft.units[-1].end)
        for item, overlap in zip(items, shared, strict=True)
    ]
    byte_spans, line_spans = packing.doc.source.locate(spans)
    titles = block_titles(packing.doc)
    clauses: dict[tuple[str, ...], str | None] = {}  # each breadcrumb's clause number, found once
    located = zip(items, shared, spans, byte_spans, line_spans, strict=True)
    return [_chunk(n, *where, titles, clauses, packing) for n, where in enumerate(located)]


def block_titles(doc: Document) -> tuple[str | None, ...]:
    """Each block's title if it is a heading, else None; made once per document (kept in its caches)."""
    titles = doc.caches.get(_TITLES)
    if titles is None:
        titles = doc.caches.put(_TITLES, tuple(b.title if b.kind == "heading" else None for b in doc.blocks))
    return titles


_TITLES: CacheSlot[tuple[str | None, ...]] = CacheSlot("titles")


def _chunk(
    index: int,
    item: Counted,
    shared: Shared | None,
    char_span: Span,
    byte_span: Span,
    line_span: Span,
    titles: tuple[str | None, ...],
    clauses: dict[tuple[str, ...], str | None],
    packing: Packing,
) -> Chunk:
    """Chunk ``index`` at ``char_span``, ``byte_span`` and ``line_span``; ``titles``: each block's heading title."""
    draft = item.draft
    units = draft.units
    head, tail = units[0], units[-1]
    own_tokens = item.tokens
    overlap_span = None
    if shared is not None:
        overlap_span, item = shared
    headings = [title for title in titles[max(head.first, 0) : tail.stop] if title is not None]
    flags: set[str] = set()
    if head.piece is not None and head.start != packing.block(head).start and packing.block(head).kind == "heading":
        del headings[0]  # the rest of a heading cut into pieces: its title went with its first piece
    for unit in units:
        if unit.piece is not None:
            flags.add(unit.piece.flag)
            if unit.piece.hard:
                flags.add("hard_cut")
    if tail.heading_only and all(u.heading_only for u in units):
        flags.add("heading_only")
    if own_tokens < packing.options.min_tokens:
        flags.add("tiny")
    if item.shortened:
        flags.add("breadcrumb_shortened")
    path = draft.path
    clause = clauses[path] if path in clauses else clauses.setdefault(path, nearest_clause(path[1:]))
    added_prefix = head.piece.prefix if head.piece else ""
    added_suffix = tail.piece.suffix if tail.piece else ""
    breadcrumb_line = item.line if item.shortened else None
    # Chunk's fields in their order, by position (each named where its value does not name it): a class
    # called with keywords is handed them as a dict, which took more than half the time of making a chunk
    # (2.5 us against 1.1 us, 10,000 chunks a re-pack). The golden tests see a field out of place.
    return Chunk(
        f"c{index + 1}",  # id
        index,
        list(path),  # breadcrumb
        item.markdown,
        item.tokens,  # token_count
        byte_span,
        char_span,
        line_span,
        headings,
        sorted(flags) if flags else [],  # flags
        added_prefix,
        added_suffix,
        clause,
        overlap_span,
        breadcrumb_line,
        item.context_tokens,
    )
