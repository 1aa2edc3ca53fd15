"""Text: paragraphs, headings, thematic breaks, front matter, and the text of every other kind.

Cut between lines (a line that ends a sentence first), then sentences, then words, then
tokens (docs/method.md §5 step 7): each finer level only inside an atom too big for a piece.
Every other kind falls back on this rule for what it holds that is plain text.
"""

from __future__ import annotations

import math
import re

from chunker.cut.cutter import BLANK, LINE, NON_BLANK, SENTENCE, TOKEN, WORD, Atom, Cutter, Descend, Make, Piece, share
from chunker.parse import InnerNode

__all__ = ["cut_node", "cut_text", "cut_tokens", "descend_text", "sentence_starts"]

# A sentence end starts at the first of its run of marks only: tried at every mark of a line of dots with no space
# after it, the pattern read to the run's end each time (quadratic: a line of 100,000 dots took minutes).
_SENTENCE_END = re.compile(r"""(?:(?<![.!?…])[.!?…]+["'”’)\]]*(?=\s)|[。！？]+)""")
_ENDS_SENTENCE = re.compile(r"[.!?…。！？][\"'”’)\]]*\Z")
_WORD_GAP = re.compile(r"\s+")


def cut_node(
    cutter: Cutter, node: InnerNode, span: tuple[int, int], first_limit: int, limit: int, flag: str
) -> list[Piece]:
    """An inner block of text (a paragraph, a heading inside a list...): :func:`cut_text` from its lines."""
    return cut_text(cutter, span[0], span[1], first_limit, limit, flag, LINE)


def cut_text(cutter: Cutter, start: int, end: int, first_limit: int, limit: int, flag: str, level: int) -> list[Piece]:
    """Cut a run of text: lines, then sentences, then words, then tokens."""
    make = cutter.plain(flag)
    if level >= LINE:
        first, stop = cutter.src.line_index(start), cutter.src.line_index(max(start, end - 1)) + 1
        atoms = cutter.line_atoms(first, stop)
        atoms = [Atom(max(a.start, start), min(a.end, end), LINE) for a in atoms]
        atoms = _mark_sentence_ends(cutter, atoms)
        if len(atoms) > 1:
            return cutter.pack(atoms, first_limit, limit, make, descend_text(cutter, flag, SENTENCE))
        level = SENTENCE
    if level >= SENTENCE:
        atoms = sub_line_atoms(cutter, start, end, SENTENCE)
        if len(atoms) > 1:
            return cutter.pack(atoms, first_limit, limit, make, descend_text(cutter, flag, WORD))
        level = WORD
    if level >= WORD:
        atoms = sub_line_atoms(cutter, start, end, WORD)
        if len(atoms) > 1:
            return cutter.pack(atoms, first_limit, limit, _hard(make), descend_text(cutter, flag, TOKEN))
    return cut_tokens(cutter, start, end, first_limit, limit, flag)


def _mark_sentence_ends(cutter: Cutter, atoms: list[Atom]) -> list[Atom]:
    """A line that ends a sentence is a better cut than a wrapped line."""
    out = []
    for atom in atoms:
        strong = bool(_ENDS_SENTENCE.search(cutter.text, max(atom.start, atom.end - 8), atom.end))
        out.append(Atom(atom.start, atom.end, SENTENCE if strong else LINE))
    return out


def descend_text(cutter: Cutter, flag: str, level: int) -> Descend:
    def descend(atom: Atom, first_limit: int, limit: int) -> list[Piece]:
        return cut_text(cutter, atom.start, atom.end, first_limit, limit, flag, level)

    return descend


def _hard(make: Make) -> Make:
    def hard_make(start: int, end: int, tokens: int | None) -> Piece:
        piece = make(start, end, tokens)
        return Piece(piece.start, piece.end, piece.tokens, flag=piece.flag, hard=True)

    return hard_make


def cut_tokens(cutter: Cutter, start: int, end: int, first_limit: int, limit: int, flag: str) -> list[Piece]:
    """Last resort: token boundaries (characters for a plain counting callable), pieces of even size."""
    pieces: list[Piece] = []
    fit = cutter.doc.tokenizer.fit_prefix
    left = cutter.count(cutter.text[start:end])  # about what is still to cut
    while start < end:
        cap = first_limit if not pieces else limit
        size_aim = max(1, min(cap, math.ceil(share(left, max(cap, 1), max(limit, 1)))))
        window = max(size_aim * 16, 256)  # never re-encode the whole remainder of a huge line
        while True:
            size = fit(cutter.text[start : min(end, start + window)], size_aim)
            if size < window or start + window >= end:
                break
            window *= 2
        piece_end = start + max(size, 1)  # always progress
        kept = len(cutter.text[start:piece_end].rstrip(BLANK))
        if kept:
            body = cutter.text[start : start + kept]
            pieces.append(Piece(start, start + kept, cutter.count(body), flag=flag, hard=True))
            left -= pieces[-1].tokens
        start = piece_end
        while start < end and cutter.text[start] in BLANK:
            start += 1
    return pieces


def sub_line_atoms(cutter: Cutter, start: int, end: int, level: int) -> list[Atom]:
    """Sentences (level SENTENCE) or words (WORD) of one line or sentence."""
    segment = cutter.text[start:end]
    atoms: list[Atom] = []
    cursor = 0
    if level == SENTENCE:
        for match in _SENTENCE_END.finditer(segment):
            cut = match.end()
            if segment[cursor:cut].strip(BLANK):
                atoms.append(_stripped(cutter, start, cursor, cut, SENTENCE))
            cursor = cut
    else:
        for match in _WORD_GAP.finditer(segment):
            if segment[cursor : match.start()].strip(BLANK):
                atoms.append(Atom(start + cursor, start + match.start(), WORD, level=WORD))
            cursor = match.end()
    if segment[cursor:].strip(BLANK):
        atoms.append(_stripped(cutter, start, cursor, len(segment), level))
    return atoms


def _stripped(cutter: Cutter, base: int, first: int, stop: int, level: int) -> Atom:
    segment = cutter.text[base + first : base + stop]
    lead = len(segment) - len(segment.lstrip(BLANK))
    tail = len(segment.rstrip(BLANK))
    return Atom(base + first + lead, base + first + tail, level, level=level)


def sentence_starts(text: str, start: int, end: int) -> list[int]:
    """Offsets in ``text[start:end]`` where a sentence begins, in order.

    The first non-blank character, then the first non-blank character after each
    sentence end (the same sentence ends the cutter uses: ``.!?…`` before a space,
    closing quotes and brackets included, and ``。！？``).
    """
    starts: list[int] = []
    for cut in [start, *(start + m.end() for m in _SENTENCE_END.finditer(text[start:end]))]:
        found = NON_BLANK.search(text, cut, end)
        if found is not None and (not starts or found.start() > starts[-1]):
            starts.append(found.start())
    return starts
