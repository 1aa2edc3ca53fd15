"""Pieces of a cut code fence read on their own: each one closed fence holding its code.

A fence inside a list item or a block quote has lines that read differently without their
container: the item's indentation becomes plain indentation (a closer indented one column in an
item of content indent 3 is four columns in, so code read alone), block quotes stay. Every
chunk that holds part of such a fence's code, parsed alone by markdown-it-py, must hold that
code inside one fence that closes (docs/method.md §5 step 7: every piece of a cut code block is a complete fence).
"""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

import chunker
from chunker.options import MIN_HARD_CAP
from chunker.parse import unclosed_fence
from tests.conftest import CORPUS, requires_corpus
from tests.invariants import check_chunk_set

_md = MarkdownIt("commonmark")
_md.disable("inline")
_CODE = re.compile(r"c0de\d+")  # each line of generated code holds one such word


def _closed(token: Token) -> bool:
    """A fence token ends at a closing fence (not at the end of its container or the piece)."""
    assert token.map is not None
    content = token.content
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    return lines == token.map[1] - token.map[0] - 2


def fence_defects(markdown: str, code: set[str]) -> list[str]:
    """What is wrong with the code of ``markdown`` read alone: the words of ``code`` it holds must all be
    inside one fence token, closed, and none anywhere else."""
    held = set(_CODE.findall(markdown)) & code
    if not held:
        return []
    defects = []
    fences = [t for t in _md.parse(markdown) if t.type == "fence" and held & set(_CODE.findall(t.content))]
    if len(fences) != 1:
        defects.append(f"the code is in {len(fences)} fences")
    defects += [f"a fence at line {t.map and t.map[0]} runs to the end unclosed" for t in fences if not _closed(t)]
    inside = {word for t in fences for word in _CODE.findall(t.content)}
    if held - inside:
        defects.append(f"code outside the fence: {sorted(held - inside)[:3]}")
    return defects


def _fence(prefix: str, first: str, opener: int, closer: int, lines: int, fence: str = "```") -> tuple[str, set[str]]:
    """A fence at ``opener`` / ``closer`` columns past the container's content, each line after the
    first prefixed with ``prefix`` (the container's continuation); ``first`` starts the opening line."""
    code: list[str] = []
    words: set[str] = set()
    for n in range(lines):
        word = f"c0de{n:03d}"
        words.add(word)
        extra = (0, 2, 4, 1)[n % 4]  # code indented inside the fence, four columns too (code, not a closer)
        line = f"value_{n} = compute({word}, 'some argument', {n * 7})  # step {n}"
        if n % 9 == 4:
            line = f"``{word}`` and ` `` ` runs, shorter than the fence"
        if n % 11 == 6:
            line = f"{fence} {word} (a fence run with text after it: code)"
        code.append(prefix + " " * extra + line if line else prefix.rstrip())
        if n % 7 == 3:
            code.append(prefix.rstrip())  # a blank line in the code
    body = "\n".join(code)
    opening = first + " " * opener + fence + "python"
    closing = prefix + " " * closer + fence
    return f"{opening}\n{body}\n{closing}\n", words


# (name, the opening line's start, the prefix of lines after it, the lines of the container before the fence)
_CONTAINERS = [
    ("top level", "", "", ""),
    ("item 7. after its paragraph", "   ", "   ", "7. Run the tool on the file first:\n\n"),
    ("item 7. on its marker line", "7. ", "   ", ""),
    ("item 7. with its marker alone on its line", "   ", "   ", "7.\n"),
    ("item - after its paragraph", "  ", "  ", "- Run the tool on the file first:\n\n"),
    ("item 10. after its paragraph", "    ", "    ", "10. Run the tool on the file first:\n\n"),
    ("item 1. indented with a tab", "\t", "\t", "1.  Run the tool on the file first:\n\n"),
    ("block quote", "> ", "> ", "> Run the tool on the file first:\n>\n"),
    ("block quote without spaces", ">", ">", ">Run the tool on the file first:\n>\n"),
    ("item in a block quote", ">    ", ">    ", "> 7. Run the tool on the file first:\n>\n"),
    ("item 7. in a block quote, on its marker line", "> 7. ", ">    ", ""),
    ("block quote in an item", "   > ", "   > ", "7. Run the tool on the file first:\n\n   > A quote:\n   >\n"),
    ("nested items", "     ", "     ", "- Steps:\n\n  7. Run the tool on the file first:\n\n"),
]


def fenced_document(
    container: int, opener: int, closer: int, lines: int = 12, fence: str = "```"
) -> tuple[str, set[str]]:
    """A manual with one fence of ``lines`` lines of code in container ``container`` of ``_CONTAINERS``."""
    _, first, prefix, before = _CONTAINERS[container]
    if first.endswith(". "):  # the fence on the item's marker line: its indent moves the item's content on
        prefix += " " * opener
    fence_text, words = _fence(prefix, first, opener, closer, lines, fence)
    after = f"{prefix}Then check the output.\n" if prefix.strip() or not before else ""
    text = "# Manual\n\nThe steps below install the tool.\n\n" + before + fence_text + after + "\nThe end.\n"
    return text, words


def _code_chunks(
    doc: chunker.Document, words: set[str], target: int, hard_cap: int, strategy: str, seen: dict[str, list[str]]
) -> list[str]:
    chunks = chunker.chunk(doc, target=target, hard_cap=hard_cap, strategy=strategy)
    check_chunk_set(doc, chunks, hard_cap)
    problems = []
    for chunk in chunks:
        defects = seen.get(chunk.markdown)
        if defects is None:
            defects = seen[chunk.markdown] = fence_defects(chunk.markdown, words)
        problems += [f"{strategy} {target}/{hard_cap} {chunk.id}: {d}\n{chunk.markdown}" for d in defects]
    return problems


def test_the_generated_fences_are_closed_fences_in_their_source() -> None:
    """The check itself: each generated document, whole, holds its code in one closed fence."""
    for container in range(len(_CONTAINERS)):
        for opener in range(4):
            for closer in range(4):
                text, words = fenced_document(container, opener, closer)
                assert not fence_defects(text, words), (_CONTAINERS[container][0], opener, closer, text)


@pytest.mark.parametrize("container", range(len(_CONTAINERS)), ids=[c[0] for c in _CONTAINERS])
@pytest.mark.parametrize("opener, closer", [(3, 0), (0, 3), (1, 2), (2, 1), (3, 3), (0, 0)])
def test_every_piece_of_a_cut_fence_reads_as_one_closed_fence(container: int, opener: int, closer: int) -> None:
    """Uneven opener and closer indents in every container, cut at every cap from the least up, every strategy."""
    text, words = fenced_document(container, opener, closer)
    doc = chunker.parse(text, name="manual.md")
    problems: list[str] = []
    seen: dict[str, list[str]] = {}
    # every cap from the least to 64 (pieces of one line, of words, of tokens), then every fourth to the whole
    for cap in [*range(MIN_HARD_CAP, 64), *range(64, doc.root.tokens + 8, 4)]:
        for strategy in chunker.STRATEGIES:
            problems += _code_chunks(doc, words, cap, cap, strategy, seen)
            if cap % 8 == 0 and cap >= 2 * MIN_HARD_CAP:  # pieces of about the target, chunks up to the cap
                problems += _code_chunks(doc, words, cap // 2, cap, strategy, seen)
    assert not problems, "\n\n".join(problems[:3])


@pytest.mark.parametrize("container", [1, 7, 9], ids=[_CONTAINERS[c][0] for c in (1, 7, 9)])
def test_a_document_with_crlf_line_breaks(container: int) -> None:
    """The same with CRLF line breaks: the added fence lines end with LF, the source keeps its own."""
    text, words = fenced_document(container, 3, 0)
    doc = chunker.parse(text.replace("\n", "\r\n"), name="manual.md")
    problems: list[str] = []
    seen: dict[str, list[str]] = {}
    for cap in range(MIN_HARD_CAP, doc.root.tokens + 8, 3):
        for strategy in chunker.STRATEGIES:
            problems += _code_chunks(doc, words, cap, cap, strategy, seen)
    assert not problems, "\n\n".join(problems[:3])


@pytest.mark.parametrize("fence", ["````", "~~~"])
def test_a_longer_fence_and_tildes_keep_their_fence(fence: str) -> None:
    """Re-opened fences keep the fence characters, their length and the info string."""
    text, words = fenced_document(1, 0, 1, fence=fence)
    doc = chunker.parse(text, name="manual.md")
    chunks = chunker.chunk(doc, target=48, hard_cap=64)
    pieces = [c for c in chunks if "split_code" in c.flags or "split_list" in c.flags]
    assert len(pieces) > 2
    for chunk in chunks:
        assert not fence_defects(chunk.markdown, words), chunk.markdown
        if set(_CODE.findall(chunk.markdown)) & words:
            assert re.search(rf"^ *{re.escape(fence)}python$", chunk.markdown, re.MULTILINE), chunk.markdown


def test_item_seven_fence_opened_with_three_spaces_closed_with_four() -> None:
    """The case reported from a large manual: item "7." of a numbered list, its fence opened with 3
    spaces (the item's content indent) and closed with 4 (valid inside the item). Cut at 128, the last
    piece re-opened the fence with 3 spaces and kept the 4-space closer: read alone, that closer is
    code (four columns in), so the fence never closed. Now a closing fence follows it."""
    steps = "".join(f"{n}. Step {n} of the setup: read the notes, then go on.\n\n" for n in range(1, 7))
    code = "".join(f"   run_step --number {n} --config /etc/tool/step{n}.conf  # c0de{n:03d}\n" for n in range(160))
    text = f"# Installing\n\n{steps}7. Run the steps:\n\n   ```sh\n{code}    ```\n\n8. Done.\n"
    words = {f"c0de{n:03d}" for n in range(160)}
    doc = chunker.parse(text, name="manual.md")
    for strategy in chunker.STRATEGIES:
        chunks = chunker.chunk(doc, target=128, strategy=strategy)
        check_chunk_set(doc, chunks, chunker.DEFAULT_HARD_CAP)
        cut = [c for c in chunks if "split_code" in c.flags]
        assert len(cut) > 2, strategy
        for chunk in chunks:
            assert not fence_defects(chunk.markdown, words), (strategy, chunk.markdown)
        last = cut[-1].markdown
        assert last.endswith("\n    ```\n   ```"), last  # the source's closer kept verbatim, a closing fence after it
        assert all(c.markdown.startswith("   ```sh\n") for c in cut[1:])


def _fence_pieces_defects(name: str, text: str, configs: list[tuple[int, int, str]]) -> list[str]:
    """For each fence ``text`` closes, each chunk holding lines of its code and flagged ``split_code``
    (a piece of a cut fence): those lines must lie in one closed fence of the chunk read alone."""
    lines = text.split("\n")
    fences = [t for t in _md.parse(text) if t.type == "fence" and _closed(t)]
    if not fences:
        return []
    doc = chunker.parse(text, name=name)
    starts = doc.source.line_starts
    problems = []
    for target, hard_cap, strategy in configs:
        chunks = [c for c in chunker.chunk(doc, target, hard_cap, strategy=strategy) if "split_code" in c.flags]
        for fence in fences:
            assert fence.map is not None
            code = [n for n in range(fence.map[0] + 1, fence.map[1] - 1) if lines[n].strip(" \t>")]
            for chunk in chunks:
                start, end = chunk.char_span
                held = [lines[n].strip(" \t>") for n in code if start <= starts[n] < end]
                if held and not any(
                    _closed(t) and all(line in t.content for line in held)
                    for t in _md.parse(chunk.markdown)
                    if t.type == "fence"
                ):
                    problems.append(f"{name} {target}/{hard_cap} {strategy} {chunk.id}:\n{chunk.markdown}")
    return problems


@requires_corpus
def test_youtube_dl_item_four_fence_pieces_read_closed() -> None:
    """The real case, in a large real manual (youtube-dl's README, "Adding support for a new site"):
    the fence of item "4." of a numbered list (content indent 3) opens and closes with 4 spaces, one
    column into the item. Cut (64/128 to 256/512, every strategy), each later piece re-opened the fence
    with those 4 spaces: read alone, an indented code block holding the fence lines as code, and the
    last piece's 4-space closer no closing fence. Now each piece re-opens with 3 spaces and the last
    adds a closing fence after the source's closer (its code, read alone)."""
    path = CORPUS / "real" / "dify-corpus" / "github_readmes" / "python" / "youtube-dl.md"
    text = path.read_text(encoding="utf-8")
    assert "4. Start with this simple template" in text and "\n    ```python\n    # coding: utf-8\n" in text
    configs = [(t, c, s) for t, c in [(64, 128), (128, 256), (256, 512)] for s in chunker.STRATEGIES]
    assert not _fence_pieces_defects(path.name, text, configs)
    doc = chunker.parse(text, name=path.name)
    code = ("    # coding: utf-8", "    _TEST = {")
    pieces = [c for c in chunker.chunk(doc, 128, 256) if any(line in c.markdown for line in code)]
    assert pieces and all(c.markdown.startswith("   ```python\n") for c in pieces), [c.markdown for c in pieces]


@requires_corpus
@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
def test_real_corpus_cut_fences_read_closed(strategy: str) -> None:
    """The real corpus at 128/256: each piece of a cut fence holds its code in one closed fence, read alone."""
    problems = []
    for path in sorted((CORPUS / "real").rglob("*.md")):
        problems += _fence_pieces_defects(path.name, path.read_text(encoding="utf-8"), [(128, 256, strategy)])
    assert not problems, problems[0]


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
def test_fence_line_after_a_lone_carriage_return_in_html_is_mended(strategy: str) -> None:
    """Found by Hypothesis in CI: an HTML block whose last line ends in a lone "\\r" and goes on
    with "```" (one HTML block to markdown-it, which reads "\\r" as a line end). Cut at cap 16,
    a piece held "```" on a line of its own, a fence opener when read alone; the mender's
    pre-check looked for fence lines after "\\n" only and let it pass."""
    html = "<div>\r\n<p>html <b>block</b></p>\r\n</div>\r\n\n" * 3
    text = "T\r\n===\r\n\n" + html + "<div>\r\n<p>html <b>block</b></p>\r\n</div>\r```\n\nAlpha."
    doc = chunker.parse(text, name="gen.md")
    for chunk in chunker.chunk(doc, 1, 16, strategy=strategy):
        assert not unclosed_fence(chunk.markdown) or "unbalanced_fence" in chunk.flags, repr(chunk.markdown)
    assert unclosed_fence(">\r```") == "```"


def test_a_fence_opened_behind_a_list_marker_is_seen() -> None:
    """Found in review: the mender's pre-check allowed quote markers and indentation before a fence
    line, not a list marker, so a piece ending in an item that opens a fence ("- ```") was not mended."""
    assert unclosed_fence("- ```\ncode") == "  ```"
    assert unclosed_fence("1. ```py\nx") == "   ```"
    assert unclosed_fence("> - ```\nx") == ">   ```"
    assert unclosed_fence("- ```\nx\n  ```") == "  ```"  # "x" ends the item: its fence and the next stay open
    assert unclosed_fence("- ```\n  x\n  ```") == ""
