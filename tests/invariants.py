"""The engine contract, checked on one chunk set: used by property, corpus and golden tests."""

from __future__ import annotations

from markdown_it import MarkdownIt

import chunker

_md = MarkdownIt("commonmark").enable(["table"])
_md.disable("inline")


def unclosed_fences(markdown: str) -> int:
    """Fenced code blocks that run to the end of their container without a closing fence.

    As CommonMark reads ``markdown`` alone: a line of fence characters indented four columns or
    more past its container is code, not a closing fence (markdown-it gives a closed fence its
    code and both fence lines, an open one its code and its opening line only).
    """
    unclosed = 0
    for token in _md.parse(markdown):
        if token.type != "fence" or token.map is None:
            continue
        content = token.content
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        unclosed += lines != token.map[1] - token.map[0] - 2
    return unclosed


def check_chunk_set(doc: chunker.Document, chunks: chunker.ChunkSet, hard_cap: int) -> None:
    """Assert every invariant of docs/method.md §3, §5 and the options of §6 on ``chunks`` made from ``doc``."""
    text = doc.text
    count = doc.tokenizer.count
    encoded_prefix = lambda n: len(text[:n].encode("utf-8", "surrogatepass"))  # noqa: E731
    config = chunks.config
    previous_start, previous_end = -1, -1
    covered: list[tuple[int, int]] = []
    for n, chunk in enumerate(chunks):
        where = f"chunk {chunk.id} of {doc.name}"
        assert chunk.index == n and chunk.id == f"c{n + 1}", where
        assert chunk.token_count == count(chunk.markdown), f"{where}: token_count is not the exact count"
        assert chunk.token_count <= hard_cap, f"{where}: {chunk.token_count} tokens > hard cap {hard_cap}"
        start, end = chunk.char_span
        overlap = chunk.overlap_span
        if overlap is None:
            assert previous_end <= start < end <= len(text), f"{where}: span {chunk.char_span} out of order"
        else:  # spans overlap exactly by overlap_span: the end of the previous chunk, within one section
            assert previous_start < overlap[0] == start < overlap[1] == previous_end < end <= len(text), (
                f"{where}: overlap_span {overlap} is not the end of the previous chunk"
            )
            assert count(text[overlap[0] : overlap[1]]) <= config["overlap"], f"{where}: overlap over its budget"
            assert chunk.breadcrumb == chunks[n - 1].breadcrumb, f"{where}: overlap across sections"
            own_start = overlap[1] + len(text[overlap[1] : end]) - len(text[overlap[1] : end].lstrip())
            assert not any(b.kind == "heading" and start <= b.start <= own_start for b in doc.blocks), (
                f"{where}: overlap across a heading"
            )
        previous_start, previous_end = start, end
        if config.get("breadcrumb_in_budget"):
            assert chunk.context_tokens == count(chunk.contextualize()) <= hard_cap, (
                f"{where}: contextualize() has {count(chunk.contextualize())} tokens > hard cap {hard_cap}"
            )
        if chunk.token_count < config.get("min_tokens", 0):
            assert "tiny" in chunk.flags, f"{where}: {chunk.token_count} tokens < min_tokens, not flagged tiny"
        assert chunk.markdown == chunk.added_prefix + text[start:end] + chunk.added_suffix, (
            f"{where}: markdown is not prefix + text[char_span] + suffix"
        )
        assert chunk.byte_span == (encoded_prefix(start), encoded_prefix(end)), f"{where}: byte_span"
        first_line = doc.source.line_index(start) + 1
        last_line = doc.source.line_index(end - 1) + 1
        assert chunk.line_span == (first_line, last_line), f"{where}: line_span"
        # Blank as Markdown sees it (spaces, tabs, line breaks): "\x1f" or "\xa0" alone is content.
        assert text[start:end].strip(" \t\r\n\f\v"), f"{where}: a chunk of blank text"
        assert chunk.breadcrumb and chunk.breadcrumb[0] == doc.name, f"{where}: breadcrumb"
        covered.append((start, end))
    # Nothing lost: every non-blank character outside the front matter is inside a chunk.
    skip = doc.front_matter_block.char_span if doc.front_matter_block is not None else (0, 0)
    cursor = 0
    for start, end in [*covered, (len(text), len(text))]:
        gap = text[cursor:start]
        if skip[0] >= cursor and skip[1] <= start:
            gap = text[cursor : skip[0]] + text[skip[1] : start]
        assert not gap.strip(), f"{doc.name}: text outside every chunk at {cursor}-{start}: {gap.strip()[:80]!r}"
        cursor = end
    # Code fences: a chunk may leave a fence open only where the source itself does, or where
    # the engine says so (flag `unbalanced_fence`: a stray fence line at a cap too small to mend it).
    mendable = [c for c in chunks if "unbalanced_fence" not in c.flags]
    assert sum(unclosed_fences(c.markdown) for c in mendable) <= unclosed_fences(text), (
        f"{doc.name}: a chunk has an unbalanced code fence"
    )
