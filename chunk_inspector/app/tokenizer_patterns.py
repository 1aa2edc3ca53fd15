"""Which regular expressions an uploaded ``tokenizer.json`` may run on the app's server (docs/SECURITY.md).

A ``tokenizer.json`` carries its own patterns (a ``Split`` pre-tokenizer's, a ``Replace`` normalizer's,
each written ``{"Regex": "..."}``), and the ``tokenizers`` library runs them in a backtracking engine. One
written to backtrack polynomially (``a*a*a*a*(?!a)x?\\z``) stays under that engine's limit and holds a server
thread for minutes on a few KB, hours on a large document, with nothing able to stop it. The command line
runs the file its user named; the app serves every visitor, so it runs only patterns known to take linear
time:

- the pre-tokenizer patterns of the tokenizer families in wide use (:data:`KNOWN_PATTERNS`: GPT-2's, the
  cl100k_base pattern that Llama 3 uses, Qwen2's, o200k_base's);
- a single atom, at most once quantified (``\\s+``, ``" {2,}"``, ``\\p{N}{1,3}``, ``[.,!?]``): one quantifier has
  nothing to backtrack against.

Most embedding models' tokenizers (BERT's WordPiece, SentencePiece's Metaspace, GPT-2's built-in byte-level
split) hold no pattern at all. :func:`unknown_patterns` says which patterns of a file are neither.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["KNOWN_PATTERNS", "unknown_patterns"]

_CONTRACTIONS = "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
KNOWN_PATTERNS = frozenset(
    {
        # GPT-2 (and RoBERTa, BART, ... when written as a Split)
        r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
        # cl100k_base, as Llama 3 writes it
        _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        # Qwen2 (digits one at a time)
        _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        # o200k_base
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+" + _CONTRACTIONS + "?"
        r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*" + _CONTRACTIONS + "?"
        r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    }
)

# One atom (an escape such as \s or \p{L}, a bracket class without nesting, or one plain character), then at
# most one quantifier.
_ONE_ATOM = re.compile(
    r"(?:\\[sSdDwWrnt]|\\p\{\w+\}|\\.|\[\^?\]?(?:[^\]\\\[]|\\.)*\]|[^\\\[\](){}|*+?.^$])"
    r"(?:[*+?]|\{\d+(?:,\d*)?\})?"
)


def unknown_patterns(content: str) -> list[str]:
    """The patterns of the ``tokenizer.json`` text ``content`` that the app does not run (module docstring),
    in file order; empty when there are none, or when ``content`` is not JSON (the tokenizers library then
    refuses it with its own reason). Every ``"Regex"`` member counts, wherever it is and however often."""
    found: list[str] = []

    def members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found.extend(value for key, value in pairs if key == "Regex")
        return dict(pairs)

    try:
        json.loads(content, object_pairs_hook=members)
    except (ValueError, RecursionError):
        return []
    return [
        p if isinstance(p, str) else json.dumps(p)  # a value that is not text, as the file writes it
        for p in found
        if not (isinstance(p, str) and (p in KNOWN_PATTERNS or _ONE_ATOM.fullmatch(p)))
    ]
