"""Code blocks, fenced and indented: between lines, every piece a complete fence.

Cut between lines, best before a blank line (blank lines stay with the line above), then where
the next line is shallower (:func:`_by_indentation`); a line too long for a piece is cut as text,
each part fenced. Each piece of a fenced block reads as one closed fence on its own, with the
source's fence and info string: the fence lines it adds are planned once per block
(:class:`FencePlan`), inside the block quotes every line of the piece keeps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chunker.cut.cutter import LINE, NON_BLANK, STARTS_LINE_TEXT, WORD, Atom, Cutter, Piece
from chunker.cut.text import cut_text, descend_text
from chunker.model import CacheSlot, Document
from chunker.parse import InnerNode, fence_closes

__all__ = ["CodeCutCache", "FencePlan", "code_cache", "cut_code", "cut_node", "fragile"]

_LIST_MARKER = re.compile(r"[-*+]|\d{1,9}[.)]")


@dataclass(frozen=True, slots=True)
class FencePlan:
    """The fence lines a cut fenced code block adds to its pieces, chosen so that each piece read on its
    own (as CommonMark reads a document) is one closed fence holding its lines of code.

    A piece other than the first starts with ``reopen``; a piece other than the last ends with
    ``close``, and so does the last where the source's closing line does not close ``reopen`` read
    alone (a closer indented four columns or more once the list item around it is gone: it is then
    a line of code, and ``close`` follows it). The first piece starts with the source's opening
    line where that opens a fence read alone (``source_opens``; a piece that goes on ends with
    ``source_close``); where it does not (indented four columns or more outside its list item),
    ``reopen`` comes before it and it reads as a line of code.
    """

    reopen: str  # the re-opened fence line, with its line break
    close: str  # a line break, then the closing fence line after a re-opened fence
    source_close: str  # a line break, then the closing fence line after the source's opening line
    source_opens: bool  # the source's opening line, at the start of a piece, opens a fence
    closes_source: bool  # the source's closing line closes the source's opening one, read alone
    closes_reopen: bool  # the source's closing line closes ``reopen``, read alone
    # For a piece that starts inside a line (a code line too long for the limit, cut): it does not
    # start with the line's ``>`` markers, so its fence is at the margin (the same as the above
    # outside block quotes).
    margin_reopen: str
    margin_close: str
    closes_margin: bool


@dataclass(slots=True)
class CodeCutCache:
    """Limit-independent work of cutting the code blocks of one document, kept on it (:func:`code_cache`):
    the lines of each code body cut, as atoms (by its line range), and the added fence lines of each
    fenced code block cut (by its line range)."""

    lines: dict[tuple[int, int], tuple[Atom, ...]] = field(default_factory=dict)
    fences: dict[tuple[int, int], FencePlan] = field(default_factory=dict)


_CODE: CacheSlot[CodeCutCache] = CacheSlot("code cuts")


def code_cache(doc: Document) -> CodeCutCache:
    """The document's :class:`CodeCutCache`, made on first use."""
    return doc.caches.get_or_make(_CODE, CodeCutCache)


def cut_node(
    cutter: Cutter, node: InnerNode, span: tuple[int, int], first_limit: int, limit: int, flag: str
) -> list[Piece]:
    """A code block (its pieces flagged ``split_code``, whatever holds it)."""
    return cut_code(cutter, span[0], node, first_limit, limit)


def code_lines(cutter: Cutter, first: int, stop: int) -> list[Atom]:
    """Lines ``[first, stop)`` of a code body as atoms (:func:`_by_indentation`), kept on the document."""
    known = code_cache(cutter.doc).lines
    found = known.get((first, stop))
    if found is None:
        found = known[first, stop] = tuple(_by_indentation(cutter.text, cutter.read_line_atoms(first, stop, LINE)))
    return list(found)


def fence_closed(cutter: Cutter, node: InnerNode, first: int, stop: int) -> bool:
    """Whether line ``stop - 1`` closes the fenced code block opened at line ``first``."""
    closing_line = cutter.text[cutter.src.line_starts[stop - 1] : cutter.src.line_end(stop - 1)].strip()
    return (
        stop - 1 > first
        and closing_line.lstrip("> ").startswith(node.fence[0] * len(node.fence))
        and set(closing_line.lstrip("> ").rstrip()) <= {node.fence[0]}
    )


def fence_plan(cutter: Cutter, node: InnerNode, first: int, stop: int, closed: bool) -> FencePlan:
    """The fence lines added to the pieces of the fenced code block at lines ``[first, stop)``.

    A piece holds whole lines of the source, each with what its list items and block quotes
    put before it; read alone, a list item around it is gone (its indentation is only
    indentation), block quotes stay. So the re-opened fence goes inside the block quotes that
    every line of the piece keeps (``>`` markers within three columns of indentation), as far
    in as the source's opening line (at most three columns), and the closing fence under it.
    Its fence is longer than any run of the fence character that would close it early (the
    source's own length, unless a line of code would close it read alone).
    """
    known = code_cache(cutter.doc).fences
    found = known.get((first, stop))
    if found is not None:
        return found
    text, starts, line_end = cutter.text, cutter.src.line_starts, cutter.src.line_end
    opening = text[starts[first] : line_end(first)]
    at = opening.find(node.fence)
    indent = opening[:at] if at >= 0 else ""
    info = opening[len(indent) + len(node.fence) :] if at >= 0 else ""
    blank = _LIST_MARKER.sub(lambda m: " " * len(m.group()), indent)
    marks = _quote_marks(blank)
    depth = len(marks)
    lines = range(first + 1, stop)  # the body, and the source's closing line (it must stay inside too)
    for line in lines:
        if not depth:
            break
        depth = min(depth, len(_quote_marks(text[starts[line] : line_end(line)], depth)))
    offset, column, content = marks[depth - 1] if depth else (0, 0, 0)
    quote = blank[:offset]
    pad = " " * min(3, _column(blank, offset, column) - content)
    char, length = node.fence[0], len(node.fence)
    source_opens = fence_closes(opening, blank + node.fence)
    # the lines of code: the body, and the opening line where it does not open a fence read alone
    body = range(first + source_opens, stop - 1 if closed else stop)
    if body and text.find(char * length, starts[body[0]], line_end(body[-1])) >= 0:
        for line in body:
            run = _closing_run(text[starts[line] : line_end(line)], depth, char)
            if run >= length:
                length = run + 1
    fence = char * length
    reopen, close = quote + pad + fence + info, quote + pad + fence
    if not fence_closes(reopen, close):  # never seen: a fence at the margin always works
        reopen, close = fence + info, fence
    closing = text[starts[stop - 1] : line_end(stop - 1)] if closed else ""
    closes_reopen = closed and fence_closes(reopen, closing)
    margin_reopen, margin_close, closes_margin = reopen, close, closes_reopen
    if depth:
        margin_reopen, margin_close = fence + info, fence
        closes_margin = closed and fence_closes(margin_reopen, closing)
    found = known[first, stop] = FencePlan(
        reopen + "\n",
        "\n" + close,
        "\n" + blank + fence,
        source_opens,
        closed and fence_closes(opening, closing),
        closes_reopen,
        margin_reopen + "\n",
        "\n" + margin_close,
        closes_margin,
    )
    return found


def cut_code(cutter: Cutter, block_start: int, node: InnerNode, first_limit: int, limit: int) -> list[Piece]:
    """Between lines; every piece a complete fence with the original fence and info string."""
    first, stop = node.first, node.stop
    span = cutter.trimmed(first, stop)
    if span is None:
        return []
    stop = cutter.src.line_index(span[1]) + 1
    if not node.fence:  # indented code: pieces stay indented code
        atoms = cutter.line_atoms(first, stop)
        return cutter.pack(
            atoms, first_limit, limit, cutter.plain("split_code"), descend_text(cutter, "split_code", WORD)
        )
    closed = fence_closed(cutter, node, first, stop)
    body_stop = stop - 1 if closed else stop
    block_end = span[1]
    open_start = cutter.src.line_starts[first]
    if not code_lines(cutter, first + 1, body_stop):  # only fence lines: nothing to re-fence, and cut
        # between them each piece would open a fence. One piece (a block over the hard cap then falls
        # back to plain text: Packing.cut).
        return [cutter.plain("split_code")(span[0], span[1], None)]
    plan = fence_plan(cutter, node, first, stop, closed)
    # Where the opening line does not open a fence read alone, it is a line of code like the others.
    atoms = code_lines(cutter, first + plan.source_opens * 1, body_stop)
    body_start, body_end = atoms[0].start, atoms[-1].end
    reopen, close, source_close = plan.reopen, plan.close, plan.source_close
    # What each end adds to a piece of whole body lines, where it can be summed (else None):
    open_end = cutter.src.line_end(first)
    open_join = cutter.join(open_start, open_end, body_start)
    add_open = None if open_join is None else cutter.span_tokens(open_start, open_end) + open_join
    add_close: int | None = 0  # not closed: the body's last line ends the block
    if block_end != body_end:
        close_start = cutter.src.line_starts[stop - 1]
        close_join = cutter.join(atoms[-1].start, body_end, close_start)
        add_close = None if close_join is None else close_join + cutter.span_tokens(close_start, block_end)
    reopen_line = cutter.added_line(reopen[:-1])
    add_reopen = None if reopen_line is None else sum(reopen_line)
    close_tokens = {close: cutter.text_tokens(close[1:]), source_close: cutter.text_tokens(source_close[1:])}
    margin = plan.margin_reopen != reopen  # a piece that starts inside a line re-opens at the margin

    def make(start: int, end: int, tokens: int | None = None) -> Piece:
        # The source's own opening (closing) fence line goes with the first (last) piece;
        # other pieces get a re-opened (closing) fence added. Where the source's line does not
        # open (close) the fence read alone, it is a line of code between added ones (FencePlan).
        prefix = ""
        added: list[int | None] = [tokens]
        source_opens = in_line = False
        # (a slice would copy the body: quadratic)
        if plan.source_opens and NON_BLANK.search(cutter.text, body_start, start) is None:
            source_opens = True
            added.append(add_open if start == body_start else None)
            start = open_start
        elif margin and start != cutter.src.line_starts[cutter.src.line_index(start)]:
            in_line = True
            prefix = plan.margin_reopen
            added.append(None)
        else:
            prefix = reopen
            added.append(add_reopen if STARTS_LINE_TEXT.match(cutter.text, start) else None)
        suffix = source_close if source_opens else plan.margin_close if in_line else close
        if NON_BLANK.search(cutter.text, end, body_end) is None:
            closes = plan.closes_source if source_opens else plan.closes_margin if in_line else plan.closes_reopen
            if not closed or closes:
                added.append(add_close if end == body_end else None)
                suffix = ""
            else:
                added.append(None)
            end = block_end
        elif tokens is not None:
            join = cutter.join_cost(cutter.last_line(start, end), "\n")
            added.append(None if join is None or in_line else join + close_tokens[suffix])
        if None in added:
            summed = cutter.count(prefix + cutter.text[start:end] + suffix)
        else:
            summed = sum(n for n in added if n is not None)
        return Piece(start, end, summed, prefix, suffix, "split_code")

    overhead = cutter.text_tokens(reopen) + cutter.text_tokens(close) + 2
    fence_chars = {"`", "~"}
    quoted = "> \t" if margin else ""  # in a block quote, the line's markers before a run too

    def fence_only(start: int, end: int) -> bool:
        return set(cutter.text[start:end].strip().lstrip(quoted)) <= fence_chars

    def descend(atom: Atom, first_cap: int, cap: int) -> list[Piece]:
        # One code line longer than the limit: cut it as text, each piece fenced.
        inner = cut_text(
            cutter, atom.start, atom.end, max(1, first_cap - overhead), max(1, cap - overhead), "split_code", WORD
        )
        # A piece that is only a run of fence characters would close the fence: keep it joined.
        spans: list[tuple[int, int]] = []
        for p in inner:
            if spans and (fence_only(p.start, p.end) or fence_only(*spans[-1])):
                spans[-1] = (spans[-1][0], p.end)
            else:
                spans.append((p.start, p.end))
        return [make(start, end) for start, end in spans]

    return cutter.pack(atoms, first_limit, limit, make, descend, overhead)


def fragile(cutter: Cutter, atom: Atom) -> bool:
    """Whether ``atom`` is a fenced code block that does not read as one closed fence where a piece
    starts with it (its opening or closing line too far in once its list item is gone)."""
    node = atom.node
    if node is None or node.kind != "code" or not node.fence:
        return False
    span = cutter.trimmed(node.first, node.stop)
    if span is None:
        return False
    stop = cutter.src.line_index(span[1]) + 1
    closed = fence_closed(cutter, node, node.first, stop)
    plan = fence_plan(cutter, node, node.first, stop, closed)
    return not plan.source_opens or (closed and not plan.closes_source)


_CLOSING_BRACKETS = frozenset(")]}")


def _by_indentation(text: str, atoms: list[Atom]) -> list[Atom]:
    """Code lines, each line end made a better cut the shallower the line after it.

    Where the body's lines are not all at one indentation, the end of a line before a line
    at the same or a shallower indentation (a YAML key, a statement, a definition: not the
    first line of a deeper block, nor a closing bracket, which ends what is above it) gets
    a strength between a line's and a blank line's: the shallower the next line, the
    stronger. So a piece of code starts at a top-level key or definition where one lies
    near its share, else at the shallowest line there. Blank lines stay the best cut.
    """
    if len(atoms) < 2:
        return atoms
    lines = [text[a.start : a.end] for a in atoms]
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines]
    levels = sorted(set(indents))
    if len(levels) == 1:
        return atoms
    rank = {indent: n for n, indent in enumerate(levels)}
    out = list(atoms)
    for n in range(len(atoms) - 1):
        after = indents[n + 1]
        if out[n].strength == LINE and after <= indents[n] and lines[n + 1][after] not in _CLOSING_BRACKETS:
            out[n] = Atom(out[n].start, out[n].end, LINE + 1 / (2 + rank[after]))
    return out


def _quote_marks(line: str, most: int = 1 << 30) -> list[tuple[int, int, int]]:
    """The block-quote markers CommonMark reads at the start of ``line`` (up to ``most`` of them).

    Each is ``>`` after at most three columns of indentation (tabs to stops of four) from where
    the quote around it starts its content; after each: the offset in ``line`` (past the one
    optional space), the column there, and the column where that quote's content starts (a tab
    after ``>`` gives one of its columns as that space).
    """
    marks: list[tuple[int, int, int]] = []
    i = column = content = 0
    n = len(line)
    while len(marks) < most:
        j, col = i, column
        while j < n and line[j] in " \t":
            col = col + 4 - col % 4 if line[j] == "\t" else col + 1
            j += 1
        if j >= n or line[j] != ">" or col - content > 3:
            break
        j, col = j + 1, col + 1
        content = col + 1 if j < n and line[j] in " \t" else col
        if j < n and line[j] == " ":
            j, col = j + 1, col + 1
        marks.append((j, col, content))
        i, column = j, col
    return marks


def _column(line: str, offset: int, column: int) -> int:
    """The column after ``line[offset:]`` (blanks), starting at ``column``; tabs to stops of four."""
    for ch in line[offset:]:
        column = column + 4 - column % 4 if ch == "\t" else column + 1
    return column


def _closing_run(line: str, depth: int, char: str) -> int:
    """The length of the fence run that makes ``line`` a closing fence inside ``depth`` block quotes, or 0."""
    marks = _quote_marks(line, depth)
    if len(marks) < depth:
        return 0
    offset, column, content = marks[-1] if marks else (0, 0, 0)
    rest = line[offset:]
    body = rest.lstrip(" \t")
    if _column(rest[: len(rest) - len(body)], 0, column) - content > 3:
        return 0
    body = body.rstrip(" \t")
    return len(body) if body and body == char * len(body) else 0
