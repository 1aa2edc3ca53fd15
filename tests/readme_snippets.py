"""README code blocks, found by the heading they sit under, for tests that run them as written."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_blocks(heading: str, language: str = "python") -> list[str]:
    """The ``language`` fenced blocks of the README section whose heading line is ``heading`` (up to the next
    heading of the same or a higher level; lines inside fences are never headings)."""
    level = len(heading) - len(heading.lstrip("#"))
    blocks: list[str] = []
    inside = False
    fence: list[str] | None = None
    for line in README.read_text(encoding="utf-8").splitlines(keepends=True):
        if fence is not None:
            if line.rstrip() == "```":
                if inside and fence[0] == language:
                    blocks.append("".join(fence[1:]))
                fence = None
            else:
                fence.append(line)
            continue
        if line.startswith("```"):
            fence = [line[3:].strip()]
            continue
        hashes = len(line) - len(line.lstrip("#"))
        if 0 < hashes <= level and line[hashes : hashes + 1] == " ":
            if inside:
                break
            inside = line.rstrip() == heading
    return blocks
