"""Command line: ``chunker FILE`` writes the chunk set; ``chunker tree FILE`` prints the heading tree.

Every failure the user can cause (bad path, binary or non-UTF-8 file, bad
limits, unknown tokenizer) ends with one ``error:`` line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chunker
from chunker.decode import decode_markdown

__all__ = ["main", "read_markdown"]

EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


def read_markdown(path: Path) -> str:
    """Read a Markdown file as text, with a clear message for every way that can fail."""
    if not path.exists():
        raise CliError(f"{path}: no such file")
    if path.is_dir():
        raise CliError(f"{path} is a directory; give a Markdown file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return decode_markdown(data, str(path))
    except chunker.ChunkerError as exc:
        raise CliError(str(exc)) from None


def _positive_int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens, got {value!r}") from None


def _chunk_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chunker",
        description="Chunk a Markdown file into retrieval-ready chunks (JSON on stdout). "
        "Use `chunker tree FILE` to print its heading tree with token counts.",
    )
    parser.add_argument("file", type=Path, help="Markdown file to chunk")
    parser.add_argument(
        "--target", type=_positive_int, default=512, help="size of pieces when a block must be cut (default 512)"
    )
    parser.add_argument(
        "--hard-cap", type=_positive_int, default=1024, help="no chunk exceeds this many tokens (default 1024)"
    )
    parser.add_argument(
        "--tokenizer", default="cl100k_base", help="tiktoken encoding or model name (default cl100k_base)"
    )
    parser.add_argument("--format", choices=("json", "jsonl"), default="json", help="output format (default json)")
    parser.add_argument("-o", "--output", type=Path, help="write here instead of stdout")
    parser.add_argument(
        "--no-repeat-table-header", action="store_true", help="later pieces of a cut table do not repeat its header"
    )
    parser.add_argument("--include-front-matter", action="store_true", help="chunk the front matter too")
    return parser


def _tree_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chunker tree", description="Print the heading tree with own and subtree token counts."
    )
    parser.add_argument("file", type=Path, help="Markdown file")
    parser.add_argument(
        "--tokenizer", default="cl100k_base", help="tiktoken encoding or model name (default cl100k_base)"
    )
    parser.add_argument("--hard-cap", type=_positive_int, default=None, help="mark sections whose subtree exceeds this")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        if args and args[0] == "tree":
            return _tree(_tree_parser().parse_args(args[1:]))
        return _chunk(_chunk_parser().parse_args(args))
    except (CliError, chunker.ChunkerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def _chunk(ns: argparse.Namespace) -> int:
    text = read_markdown(ns.file)
    chunks = chunker.chunk_markdown(
        text,
        name=ns.file.name,
        tokenizer=ns.tokenizer,
        target=ns.target,
        hard_cap=ns.hard_cap,
        repeat_table_header=not ns.no_repeat_table_header,
        include_front_matter=ns.include_front_matter,
    )
    out = chunks.to_json() if ns.format == "json" else chunks.to_jsonl()
    if ns.output is None:
        sys.stdout.write(out)
    else:
        try:
            ns.output.write_text(out, encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {ns.output}: {exc.strerror or exc}") from None
        print(f"{len(chunks)} chunks from {ns.file} written to {ns.output}", file=sys.stderr)
    return 0


def _tree(ns: argparse.Namespace) -> int:
    text = read_markdown(ns.file)
    doc = chunker.parse(text, name=ns.file.name, tokenizer=ns.tokenizer)
    sys.stdout.write(format_tree(doc, ns.hard_cap))
    return 0


def format_tree(doc: chunker.Document, hard_cap: int | None = None) -> str:
    """The heading tree as indented text: title, own tokens, subtree tokens, lines."""
    lines = [f"{doc.name}  {doc.token_count} tokens, {doc.line_count} lines"]
    if doc.preamble:
        own = doc.region_tokens(doc.root.first, doc.root.direct_end)
        lines.append(f"  (preamble)  own {own}")

    def walk(section: chunker.Section, depth: int) -> None:
        mark = "  [over cap]" if hard_cap is not None and section.tokens > hard_cap else ""
        first, last = section.line_span
        lines.append(
            f"{'  ' * depth}{'#' * section.level} {section.title}  "
            f"own {section.own_tokens} · subtree {section.tokens}  (lines {first}-{last}){mark}"
        )
        for child in section.children:
            walk(child, depth + 1)

    for section in doc.sections:
        walk(section, 1)
    return "\n".join(lines) + "\n"
