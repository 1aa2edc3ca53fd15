"""Code blocks of the README and of docs/, found by the heading they sit under, for tests that run them as written."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def doc_blocks(doc: str | Path, heading: str, language: str = "python") -> list[str]:
    """The ``language`` fenced blocks of the section of ``doc`` (a path, relative to the repository root unless
    absolute: ``"README.md"``, ``"docs/pipelines.md"``) whose heading line is ``heading`` (up to the next heading
    of the same or a higher level; lines inside fences are never headings). A fence indented under a list item
    counts too, its lines given without that indent."""
    path = ROOT / doc
    level = len(heading) - len(heading.lstrip("#"))
    blocks: list[str] = []
    inside = False
    fence: list[str] | None = None
    indent = 0
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if fence is not None:
            if line.strip() == "```":
                if inside and fence[0] == language:
                    blocks.append("".join(fence[1:]))
                fence = None
            else:
                fence.append(line[min(indent, len(line) - len(line.lstrip(" "))) :])  # up to the fence's indent
            continue
        if line.lstrip(" ").startswith("```"):
            indent = len(line) - len(line.lstrip(" "))
            fence = [line[indent + 3 :].strip()]
            continue
        hashes = len(line) - len(line.lstrip("#"))
        if 0 < hashes <= level and line[hashes : hashes + 1] == " ":
            if inside:
                break
            inside = line.rstrip() == heading
    return blocks


def readme_blocks(heading: str, language: str = "python") -> list[str]:
    """:func:`doc_blocks` of README.md."""
    return doc_blocks(README, heading, language)
