"""Where a chunk sits: clause numbers of headings, and the breadcrumb line of ``contextualize()``.

In: heading titles (plain text) and a tokenizer. Out: a clause number such as
``"5.1.2"`` (or None), and a breadcrumb line that fits a token limit.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from chunker.chunkset import BREADCRUMB_SEPARATOR, line_crumbs
from chunker.tokens import Tokenizer
from chunker.wording import ELLIPSIS

__all__ = ["breadcrumb_line", "clause_number"]

# A clause number opens the title and is followed by a space or ends it:
# - dotted numbers "5.1", "5.1.2" (a trailing dot allowed: "5.1.2. Scope");
# - a single number only with its dot, "5. Scope" (so "2024 roadmap" and "3 ways" are not clauses);
# - an annex letter with dotted numbers, "A.1", "B.2.3" (not "A. Smith");
# - after a section sign, any of these or a bare number: "§ 5", "§5.1.2".
# Each number has at most three digits: "2024.1 release" and "2024. A year" are not clauses.
_NUMBER = r"\d{1,3}"
_CLAUSE = re.compile(
    rf"""(?:
        §+\s*(?P<section>{_NUMBER}(?:\.{_NUMBER})*)
      | (?P<dotted>(?:{_NUMBER}|[A-Z])(?:\.{_NUMBER})+)
      | (?P<single>{_NUMBER})(?=\.)
    )\.?(?=\s|\Z)""",
    re.VERBOSE,
)


@functools.lru_cache(maxsize=4096)  # a title is asked again for each chunk under it, at each re-chunk
def clause_number(title: str) -> str | None:
    """The clause number a heading title starts with (``"5.1.2 Scope"`` -> ``"5.1.2"``), else None."""
    match = _CLAUSE.match(title.strip())
    if match is None:
        return None
    return match.group("section") or match.group("dotted") or match.group("single")


def nearest_clause(titles: Sequence[str]) -> str | None:
    """The clause number of the deepest numbered title in ``titles`` (outermost first)."""
    for title in reversed(titles):
        number = clause_number(title)
        if number is not None:
            return number
    return None


def breadcrumb_line(crumbs: Sequence[str], tokenizer: Tokenizer, limit: int) -> tuple[str, bool]:
    """The breadcrumb line of ``contextualize()`` for the breadcrumb ``crumbs`` (the document by its
    file name: :func:`~chunker.chunkset.line_crumbs`) and whether it was shortened.

    The line, with the blank line that follows it, takes at most ``limit`` tokens
    (when ``limit`` allows even ``"…"``). Shortening drops middle titles first,
    shallowest first (``name › … › deepest``), then truncates the end of the line
    and marks the cut with ``"…"``.
    """
    count = tokenizer.count

    def cost(line: str) -> int:
        return count(line + "\n\n")

    crumbs = line_crumbs(crumbs)
    line = BREADCRUMB_SEPARATOR.join(crumbs)
    if cost(line) <= limit:
        return line, False
    for keep in range(2, len(crumbs)):  # crumbs[0] (the document) and crumbs[keep:]
        line = BREADCRUMB_SEPARATOR.join([crumbs[0], ELLIPSIS, *crumbs[keep:]])
        if cost(line) <= limit:
            return line, True
    room = limit - cost(ELLIPSIS)
    while room > 0:
        cut = line[: tokenizer.fit_prefix(line, room)].rstrip()
        if cut and cost(cut + ELLIPSIS) <= limit:
            return cut + ELLIPSIS, True
        room -= 1
    return ELLIPSIS, True
