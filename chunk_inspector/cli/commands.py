"""Command line: ``chunker FILE`` or ``chunker DIR -o OUT`` writes chunk sets; ``chunker tree FILE`` prints the tree;
``chunker diff OLD NEW`` compares two revisions' chunks.

Exit status: 0 when everything was chunked; 1 when a directory run skipped some
files (each reported on stderr with its path and reason, the rest written); 2 for
a usage error or a bad input (bad path, binary or non-UTF-8 single file, a special
file, a file over the size limit, bad limits or options, unknown tokenizer, a
malformed question set), printed as one ``error:`` line on stderr; 3 for an error of
our own (a bug), also one line; 130 when interrupted; 143 when stopped by SIGTERM. Never a traceback
(``CHUNKER_DEBUG=1`` shows one for a bug). Every path is untrusted input: see
docs/SECURITY.md.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import errno
import json
import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, NoReturn

import chunker
from chunk_inspector.cli import corpus
from chunk_inspector.cli.corpus import (
    LAYER_FILES,
    MARKDOWN_SUFFIXES,
    Output,
    find_markdown,
    resolve_jobs,
    run_corpus,
)
from chunk_inspector.cli.diff import chunk_text, diff_json, diff_trees, find_pairs, format_diff
from chunk_inspector.cli.progress import Progress
from chunk_inspector.evaluate.metrics import BUDGET, DEFAULT_INDEX, METRICS, Contender, Evaluation, Index, K, evaluate
from chunk_inspector.evaluate.progress import scaled
from chunk_inspector.evaluate.questions import QuestionSet, load_question_set
from chunk_inspector.evaluate.retrievers import RETRIEVERS, Retriever, get_retriever
from chunk_inspector.files import (
    DEFAULT_MAX_BYTES,
    MB,
    FileRefused,
    check_name,
    display,
    printable,
    read_bytes,
    same_file,
    write_output,
    write_texts,
)
from chunk_inspector.peers.chunkers import available_peers
from chunk_inspector.revisions import diff_chunks
from chunker import DEFAULT_STRATEGY
from chunker.decode import decode_markdown
from chunker.wording import plural, quoted, shorten

__all__ = ["format_evaluations", "main", "read_markdown"]

EXIT_FAILURES = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


def read_markdown(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """Read a Markdown file as text, with a clear message for every way that can fail: a special file,
    a file over ``max_bytes``, a name that cannot name a document (:func:`~chunk_inspector.files.check_name`),
    content that is not UTF-8, binary content."""
    try:
        check_name(path, path.name)
    except FileRefused as exc:
        raise CliError(str(exc)) from None
    try:
        data = read_bytes(path, max_bytes=max_bytes)
    except FileRefused as exc:
        raise CliError(f"{exc}; give a Markdown file" if path.is_dir() else str(exc)) from None
    try:
        return decode_markdown(data, str(path))
    except chunker.ChunkerError as exc:
        raise CliError(str(exc)) from None


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one ``error:`` line (and the pointer to --help), exit 2."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see {self.prog} --help)")


def _path(value: str) -> Path:
    if "\x00" in value:
        raise argparse.ArgumentTypeError("a path cannot hold a NUL character")
    return Path(value)


# The most an option takes: a count or size of tokens, chunks or processes up to this, a file size up to this
# many MiB (1 TiB). More is refused as too large, not as "not a whole number".
_MOST_NUMBER = 10**12 - 1
_MOST_MIB = 1 << 20


def _too_large(value: str, most: int, unit: str = "") -> argparse.ArgumentTypeError:
    """The refusal of an option's number that is one, only over ``most``."""
    return argparse.ArgumentTypeError(f"{quoted(value, 30)} is too large: at most {most:,}{unit}")


def _megabytes(value: str) -> int:
    try:
        size = float(value)
    except ValueError:
        size = -1.0
    if size > _MOST_MIB:  # infinity too
        raise _too_large(value, _MOST_MIB, " MiB")
    if not size > 0:  # NaN fails here too
        raise argparse.ArgumentTypeError(f"expected a size in MiB (more than 0), got {value!r}")
    return max(1, int(size * MB))


def _whole_number(least: int, expected: str) -> Callable[[str], int]:
    """An option's type: a whole number from ``least`` to :data:`_MOST_NUMBER`, else an error that says
    ``expected`` (``-k 0`` retrieves nothing; ``--budget -100`` once reported a recall of 1.000), or for a whole
    number over the most, that it is too large and what the most is (``-k 99999999999999999999`` was said not to
    be a whole number)."""

    def parse(value: str) -> int:
        text = value.strip()
        digits = text.removeprefix("+").removeprefix("-")
        number: int | None
        if digits.isascii() and digits.isdigit():  # plain digits, read at any length (int() stops at 4,300)
            if len(digits.lstrip("0")) > len(str(_MOST_NUMBER)):
                number = least - 1 if text.startswith("-") else _MOST_NUMBER + 1
            else:
                number = int(text)
        else:
            try:
                number = int(value) if len(value) <= 40 else None  # 1_000, other scripts' digits
            except ValueError:
                number = None
        if number is None or number < least:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {quoted(value, 30)}")
        if number > _MOST_NUMBER:
            raise _too_large(value, _MOST_NUMBER)
        return number

    return parse


_tokens = _whole_number(1, "a whole number of tokens, 1 or more")  # a size: the target, a hard cap, a budget
_some_tokens = _whole_number(0, "a whole number of tokens, 0 or more")  # may be none: the overlap, the least chunk
_jobs = _whole_number(0, "a number of processes (0 = all cores)")


# The exit statuses every command shares (docs/cli.md, "Exit status"), after each command's own.
_EXIT_TAIL = "3 a bug (CHUNKER_DEBUG=1 shows the trace); 130 interrupted (Ctrl-C); 143 stopped by SIGTERM."

_TOKENIZER_HELP = (
    "tiktoken encoding or model name, or the path to a Hugging Face tokenizer.json "
    "(recorded as hf:PATH; default cl100k_base)"
)


def _add_chunking(parser: argparse.ArgumentParser, walks: bool = True) -> None:
    """The engine's limits and options (``chunker.chunk``'s keywords), shared by chunking and ``eval``
    (``walks``: as :func:`_add_max_size` takes it)."""
    limits = parser.add_argument_group("chunking")
    limits.add_argument(
        "--target",
        type=_tokens,
        default=chunker.DEFAULT_TARGET,
        help=f"the size chunks are packed to and cut blocks are cut to (default {chunker.DEFAULT_TARGET})",
    )
    limits.add_argument(
        "--hard-cap",
        type=_tokens,
        default=chunker.DEFAULT_HARD_CAP,
        help=f"no chunk exceeds this many tokens (default {chunker.DEFAULT_HARD_CAP})",
    )
    limits.add_argument("--tokenizer", default="cl100k_base", help=_TOKENIZER_HELP)
    limits.add_argument(
        "--overlap",
        type=_some_tokens,
        default=0,
        help="tokens of whole sentences shared by consecutive chunks of a section (default 0)",
    )
    limits.add_argument(
        "--min-tokens",
        type=_some_tokens,
        default=0,
        help="merge chunks smaller than this into a neighbour "
        "of their section when the result fits; flag the rest 'tiny' (default 0)",
    )
    limits.add_argument(
        "--breadcrumb-in-budget",
        action="store_true",
        help="the hard cap holds for the breadcrumb line plus the chunk (what contextualize() returns)",
    )
    limits.add_argument(
        "--no-repeat-table-header", action="store_true", help="later pieces of a cut table do not repeat its header"
    )
    limits.add_argument("--include-front-matter", action="store_true", help="chunk the front matter too")
    _add_max_size(parser, walks)
    limits.add_argument(
        "--strategy",
        choices=chunker.STRATEGIES,
        default=DEFAULT_STRATEGY,
        help=f"how sections are packed: optimal (least cost, sizes near the target), balanced "
        f"(greedy to the hard cap) or reference (markdown-object's packing, less its defects); "
        f"default {DEFAULT_STRATEGY}",
    )


def _add_max_size(parser: argparse.ArgumentParser, walks: bool = True) -> None:
    """``--max-size``; ``walks``: the command also reads folders, where a larger file is skipped, not refused."""
    parser.add_argument(
        "--max-size",
        type=_megabytes,
        default=DEFAULT_MAX_BYTES,
        metavar="MB",
        help=f"largest file read, in MiB (default {DEFAULT_MAX_BYTES // MB}); larger files are refused"
        + (", or skipped in a directory run" if walks else ""),
    )


def _chunk_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chunker",
        description="Chunk a Markdown file (JSON on stdout or -o FILE) or every .md/.markdown file under a "
        "directory (-o OUT: one JSON per document, chunks.jsonl, a summary). "
        "Also: `chunker tree FILE` prints a file's heading tree with token counts, `chunker eval QUESTIONS` "
        "measures how well the chunks retrieve, `chunker diff OLD NEW` says which chunks two revisions share "
        "(each has its own --help).",
        epilog="Exit status: 0 all chunked; 1 some files of a directory were skipped (see stderr) or a --ray run "
        "has error rows; 2 usage error (bad path, input or option); " + _EXIT_TAIL,
    )
    parser.add_argument("path", type=_path, metavar="FILE|DIR", help="Markdown file, or a directory to walk")
    _add_chunking(parser)
    output = parser.add_argument_group("output")
    output.add_argument(
        "--format", choices=("json", "jsonl"), default=None, help="for a file: output format (default json)"
    )
    output.add_argument(
        "-o",
        "--output",
        type=_path,
        help="for a file: write here instead of stdout (with --layers: a folder); "
        "for a directory: the folder to write into (required)",
    )
    output.add_argument(
        "--layers",
        action="store_true",
        help="also write the documents, sections and chunks layers as JSONL "
        "(for a file: into the -o folder, instead of the chunk set; for a directory: into OUT/layers/)",
    )
    output.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=1,
        help="for a directory: processes to use (default 1; 0 = all cores; never more than the cores)",
    )
    output.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="for a directory: chunk on Ray Data (needs the [ray] extra) and write OUT/chunks.parquet and "
        "OUT/chunks.jsonl; ADDRESS is the cluster's (as ray.init takes it), none starts a local Ray",
    )
    output.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary on stderr")
    return parser


def _tree_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chunker tree",
        description="Print the heading tree with own and subtree token counts.",
        epilog="Exit status: 0 printed; 2 usage error (bad path, input or option); " + _EXIT_TAIL,
    )
    parser.add_argument("file", type=_path, help="Markdown file")
    _add_max_size(parser, walks=False)
    parser.add_argument("--tokenizer", default="cl100k_base", help=_TOKENIZER_HELP)
    parser.add_argument("--hard-cap", type=_tokens, default=None, help="mark sections whose subtree exceeds this")
    return parser


def _eval_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chunker eval",
        description="How well the chunks retrieve: chunk every document of a question set, index them all "
        "together, and print recall, precision and IoU at k and within a token budget (docs/evaluation.md), "
        "averaged and per kind of question.",
        epilog="Exit status: 0 measured; 2 usage error (bad question set, path or option); " + _EXIT_TAIL,
    )
    parser.add_argument("questions", type=_path, help="question set: a .jsonl file, or Chroma's questions_df.csv")
    parser.add_argument(
        "--root",
        type=_path,
        default=None,
        help="folder the set's document names are relative to (default: the set's folder; "
        "for Chroma's CSV its corpora/ folder when there is one)",
    )
    parser.add_argument(
        "--retriever", choices=RETRIEVERS, default="bm25", help="bm25 (default) or dense (needs the [dense] extra)"
    )
    parser.add_argument(
        "--model",
        metavar="PATH",
        default=None,
        help="with --retriever dense: the folder of your sentence-transformers model on disk (default: the bundled "
        "all-MiniLM-L6-v2); nothing is downloaded",
    )
    parser.add_argument(
        "--count-with-model",
        action="store_true",
        help="count the chunks' tokens with the dense model's own tokenizer.json (instead of --tokenizer)",
    )
    parser.add_argument(
        "--index",
        choices=("markdown", "context", "both"),
        default=DEFAULT_INDEX,
        help="what is indexed of each engine chunk: contextualize() (breadcrumb line + markdown; default), "
        "its markdown alone, or both as two rows",
    )
    parser.add_argument(
        "--peers", action="store_true", help="also every installed peer chunker at the same hard cap (and target)"
    )
    parser.add_argument(
        "-k",
        type=_whole_number(1, "a whole number of chunks, 1 or more"),
        default=K,
        help=f"chunks retrieved for the @k columns (default {K})",
    )
    parser.add_argument(
        "--budget", type=_tokens, default=BUDGET, help=f"token budget of the @budget columns (default {BUDGET})"
    )
    parser.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    _add_chunking(parser, walks=False)  # a set's documents are named one by one: one too large refuses the set
    return parser


def _diff_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chunker diff",
        description="Chunk two revisions (two Markdown files, or two folders whose documents are matched by "
        "relative path) and say which chunks of NEW are kept (an OLD chunk has the same content_sha256), "
        "added, and which of OLD are removed, with the tokens an index that skips seen content re-embeds.",
        epilog="Exit status: 0 compared; 1 some documents of a folder were skipped (see stderr); "
        "2 usage error (bad path, input or option); " + _EXIT_TAIL,
    )
    parser.add_argument("old", type=_path, metavar="OLD", help="the old revision: a Markdown file or a folder")
    parser.add_argument("new", type=_path, metavar="NEW", help="the new revision: a file, or a folder if OLD is one")
    parser.add_argument(
        "--format", choices=("table", "json"), default="table", help="table (default) or json (the chunk ids)"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    _add_chunking(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    with _terminate_as_interrupt():
        status = _main(args)
    if argv is None and corpus.workers_stopped:  # the command line, interrupted: see corpus.workers_stopped
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, ``docker stop``), raised where the program is, as Ctrl-C is: the same
    clean stop (workers ended, temporary files removed, finished files kept), exit status 143."""


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


_COMMANDS = ("tree", "eval", "diff")


def _mistyped_command(arg: str) -> str | None:
    """The command ``arg`` is a typo of (``evl``: ``eval``), when it names no file or folder and holds no dot or
    slash (a missing ``guide.md`` stays a missing file); else None."""
    if arg in _COMMANDS or arg.startswith("-") or "." in arg or "/" in arg or os.path.lexists(arg):
        return None
    close = difflib.get_close_matches(arg.lower(), _COMMANDS, n=1, cutoff=0.6)
    return close[0] if close else None


def _main(args: list[str]) -> int:
    try:
        if args and (command := _mistyped_command(args[0])) is not None:
            raise CliError(f"{args[0]!r} is no file or folder, nor a command: did you mean `chunker {command}`?")
        if args and args[0] == "tree":
            return _tree(_tree_parser().parse_args(args[1:]))
        if args and args[0] == "eval":
            return _eval(_eval_parser().parse_args(args[1:]))
        if args and args[0] == "diff":
            return _diff(_diff_parser().parse_args(args[1:]))
        ns = _chunk_parser().parse_args(args)
        if ns.path.is_dir():
            return _corpus(ns)
        return _chunk(ns)
    except (CliError, chunker.ChunkerError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except Terminated:
        return 143
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of stdout went away (`chunker x.md | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURES
    except RecursionError:
        _error("the input is nested too deeply to process")
        return EXIT_USAGE
    except MemoryError:
        _error("out of memory; try a smaller input, a lower --max-size or fewer --jobs")
        return EXIT_USAGE
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            return _internal_error(exc)
        # A path given that the system cannot look up (a name over 255 bytes): checking it raised, before anything
        # was read or written.
        name = display(Path(os.fsdecode(exc.filename))) if exc.filename is not None else "a path given"
        _error(f"{shorten(name, 100)}: the name is too long for the file system")
        return EXIT_USAGE
    except Exception as exc:
        return _internal_error(exc)


def _internal_error(exc: BaseException) -> int:
    """A bug of ours: one line for the user, the trace only when asked for (``CHUNKER_DEBUG=1``)."""
    if os.environ.get("CHUNKER_DEBUG"):
        traceback.print_exc()
    else:
        logging.getLogger(__name__).debug("internal error", exc_info=True)
    _error(
        f"internal error: {type(exc).__name__}: {shorten(str(exc), 300)} (a bug in chunker: please report it with "
        "the command; CHUNKER_DEBUG=1 shows the trace)"
    )
    return EXIT_INTERNAL


def _error(message: str) -> None:
    """One ``error:`` line on stderr: the message's line breaks and control characters escaped."""
    print(f"error: {printable(shorten(message, 2000))}", file=sys.stderr)


def _chunk_options(ns: argparse.Namespace) -> chunker.ChunkOptions:
    """The engine's options the flags set (a bad value is a usage error: ``chunker.ConfigError``)."""
    return chunker.ChunkOptions(
        ns.target,
        ns.hard_cap,
        overlap=ns.overlap,
        min_tokens=ns.min_tokens,
        breadcrumb_in_budget=ns.breadcrumb_in_budget,
        repeat_table_header=not ns.no_repeat_table_header,
        include_front_matter=ns.include_front_matter,
        strategy=ns.strategy,
        tokenizer=ns.tokenizer,
    )


def _chunk(ns: argparse.Namespace) -> int:
    if ns.ray is not None:
        raise CliError("--ray is for a directory of Markdown files (chunker DIR -o OUT --ray)")
    if ns.layers and ns.output is None:
        raise CliError("--layers writes three files: give -o FOLDER to write them into")
    if ns.layers and ns.format is not None:
        raise CliError("--layers writes JSONL layer files; leave out --format")
    options = _chunk_options(ns)
    if ns.output is not None:
        outputs = [ns.output / name for name in LAYER_FILES.values()] if ns.layers else [ns.output]
        for out in outputs:
            if out.exists() and same_file(out, ns.path):
                raise CliError(f"-o {display(ns.output)} would overwrite the input {display(ns.path)}; write elsewhere")
    text = read_markdown(ns.path, ns.max_size)
    chunks = chunker.chunk_with(chunker.parse(text, name=ns.path.name, tokenizer=options.tokenizer), options)
    if ns.layers:
        _write_layers(ns.output, chunks.layers_jsonl())
        if not ns.quiet:
            print(
                printable(
                    f"{plural(len(chunks), 'chunk')} from {display(ns.path)}: layers written to {display(ns.output)}"
                ),
                file=sys.stderr,
            )
        return 0
    out = chunks.to_jsonl() if ns.format == "jsonl" else chunks.to_json()
    if ns.output is None:
        sys.stdout.write(out)
    else:
        _write(ns.output, out)
        if not ns.quiet:
            print(
                printable(f"{plural(len(chunks), 'chunk')} from {display(ns.path)} written to {display(ns.output)}"),
                file=sys.stderr,
            )
    return 0


def _write(path: Path, text: str) -> None:
    """Write atomically: a reader never sees a half-written or empty output; a device or a pipe (``-o /dev/null``)
    is written to, not replaced (docs/SECURITY.md)."""
    try:
        write_output(path, text)
    except OSError as exc:
        raise CliError(f"cannot write {display(path)}: {exc.strerror or exc}") from None


def _write_layers(folder: Path, layers: dict[str, str]) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot create the folder {display(folder)}: {exc.strerror or exc}") from None
    try:
        write_texts({folder / filename: layers[key] for key, filename in LAYER_FILES.items()})
    except OSError as exc:
        named = exc.filename2 or exc.filename  # os.replace names the temporary file, then the target
        where = display(named) if isinstance(named, str) else display(folder)
        raise CliError(f"cannot write {where}: {exc.strerror or exc}") from None


def _corpus(ns: argparse.Namespace) -> int:
    root: Path = ns.path
    if ns.output is None:
        raise CliError(f"{root} is a directory: give -o OUT, the folder to write one JSON per document into")
    if ns.format is not None:
        raise CliError("--format is for a single file; a directory gets one JSON per document plus chunks.jsonl")
    out: Path = ns.output
    if out.exists() and not out.is_dir():
        raise CliError(f"-o {display(out)} is a file; a directory run needs a folder to write into")
    if out.exists() and same_file(out, root):
        raise CliError(f"-o {display(out)} is the input folder; give another folder to write into")
    # Check the tokenizer, limits and options once, before any work: mistakes are usage errors.
    options = _chunk_options(ns)
    chunker.get_tokenizer(options.tokenizer)
    files = find_markdown(root, exclude=out)
    if not files:
        raise CliError(f"no Markdown files ({', '.join(MARKDOWN_SUFFIXES)}) under {display(root)}")
    output = Output(ns.layers, ns.max_size)
    if ns.ray is not None:
        return _ray(ns, options, output, files)
    progress = Progress(len(files), sys.stderr, enabled=not ns.quiet)
    jobs = resolve_jobs(ns.jobs, len(files))
    if ns.jobs > jobs and not ns.quiet:
        progress.message(f"--jobs {ns.jobs}: using {jobs} (no more processes than cores and documents)")
    try:
        summary = run_corpus(
            root,
            out,
            options,
            output,
            jobs=jobs,
            on_done=progress.advance,
            on_failure=lambda message: progress.message(f"skipped: {message}"),
            files=files,
        )
    except OSError as exc:
        raise CliError(f"cannot write under {display(out)}: {exc.strerror or exc}") from None
    except BrokenProcessPool:
        raise CliError("a worker process died (out of memory?); try fewer --jobs") from None
    finally:
        progress.close()
    if not ns.quiet:
        print(printable(summary.line(out)), file=sys.stderr)
    return EXIT_FAILURES if summary.failures else 0


def _ray(ns: argparse.Namespace, options: chunker.ChunkOptions, output: Output, files: list[Path]) -> int:
    """``--ray [ADDRESS]``: the directory run on Ray Data (:mod:`chunk_inspector.cli.ray_run`)."""
    from chunk_inspector.cli.ray_run import run_ray

    progress = Progress(len(files), sys.stderr, enabled=not ns.quiet)
    try:
        summary = run_ray(
            ns.path,
            ns.output,
            options,
            output,
            address=ns.ray or None,
            files=files,
            on_done=progress.advance,
            on_failure=lambda message: progress.message(f"skipped: {message}"),
        )
    except ConnectionError as exc:  # ray.init: no cluster at that address (an OSError, so caught first)
        raise CliError(f"--ray {ns.ray or '(local)'}: {exc}") from None
    except OSError as exc:
        raise CliError(f"cannot write under {display(ns.output)}: {exc.strerror or exc}") from None
    finally:
        progress.close()
    if not ns.quiet:
        print(printable(summary.line(ns.output)), file=sys.stderr)
    return EXIT_FAILURES if summary.failures else 0


def _eval(ns: argparse.Namespace) -> int:
    # Check the model, tokenizer, limits and options before any work: mistakes are usage errors.
    if ns.retriever != "dense" and (ns.model is not None or ns.count_with_model):
        raise CliError(f"{'--model' if ns.model is not None else '--count-with-model'} is for --retriever dense")
    retriever = get_retriever(ns.retriever, ns.model)
    if ns.count_with_model:
        from chunk_inspector.evaluate.dense import DEFAULT_MODEL, model_tokenizer_json

        if ns.tokenizer != "cl100k_base":
            raise CliError("--count-with-model counts with the model's tokenizer: leave out --tokenizer")
        ns.tokenizer = f"{chunker.tokens.HF_PREFIX}{model_tokenizer_json(ns.model or DEFAULT_MODEL)}"
    options = _chunk_options(ns)
    chunker.get_tokenizer(options.tokenizer)
    questions = load_question_set(ns.questions, ns.root, max_bytes=ns.max_size)
    indexes: tuple[Index, ...] = ("markdown", "context") if ns.index == "both" else (ns.index,)
    contenders = [Contender.engine(options, index) for index in indexes]
    if ns.peers:
        peers = available_peers()
        if not peers:
            raise CliError("--peers: no peer chunker is installed (pip install -e '.[peers]')")
        contenders += [Contender.of_peer(name, ns.hard_cap, ns.target) for name in peers]
    parsed = {
        name: chunker.parse(text, name=name, tokenizer=options.tokenizer) for name, text in questions.documents.items()
    }
    progress = Progress(len(contenders), sys.stderr, enabled=not ns.quiet, unit="chunkers")
    evaluations = []
    try:
        for contender in contenders:
            evaluations.append(
                evaluate(
                    questions,
                    contender,
                    retriever,
                    k=ns.k,
                    budget=ns.budget,
                    parsed=parsed,
                    progress=scaled(progress.within, 0.0, 1.0, f"{contender.label}: "),
                )
            )
            progress.advance(contender.label)
    finally:
        progress.close()
    truncated = _truncated(retriever, evaluations)
    window = _window(retriever, options, ns.count_with_model)
    if window is not None and window["warning"]:
        print(f"warning: {window['warning']} (see the truncated column)", file=sys.stderr)
    if ns.format == "json":
        report = _eval_json(questions, evaluations, truncated)
        if window is not None:
            report["model"] = {key: value for key, value in window.items() if key != "note"}
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        notes = [window["note"]] if window is not None else []
        sys.stdout.write(format_evaluations(questions, evaluations, truncated, notes))
    return 0


def _diff(ns: argparse.Namespace) -> int:
    """``chunker diff OLD NEW``: two files, or two folders (:mod:`chunk_inspector.cli.diff`)."""
    options = _chunk_options(ns)
    chunker.get_tokenizer(options.tokenizer)  # a bad tokenizer is a usage error before any work
    for path in (ns.old, ns.new):
        if not path.exists():
            raise CliError(f"{display(path)}: no such file or folder")
    if ns.old.is_dir() != ns.new.is_dir():
        raise CliError("give two Markdown files or two folders (one of OLD and NEW is a folder, the other is not)")
    skipped: list[str] = []
    if ns.old.is_dir():
        pairs = find_pairs(ns.old, ns.new)
        if not pairs:
            suffixes = ", ".join(MARKDOWN_SUFFIXES)
            raise CliError(f"no Markdown files ({suffixes}) under {display(ns.old)} or {display(ns.new)}")
        progress = Progress(len(pairs), sys.stderr, enabled=not ns.quiet)
        try:
            diffs, skipped = diff_trees(
                ns.old,
                ns.new,
                pairs,
                options,
                ns.max_size,
                on_done=progress.advance,
                on_skip=lambda message: progress.message(f"skipped: {message}"),
            )
        finally:
            progress.close()
    else:
        old_text, new_text = read_markdown(ns.old, ns.max_size), read_markdown(ns.new, ns.max_size)
        name = ns.new.name  # one document, two revisions: one name (it starts every breadcrumb)
        old, new = chunk_text(old_text, name, options), chunk_text(new_text, name, options)
        diffs = [diff_chunks(old, new, name)]
    out = diff_json(ns.old, ns.new, diffs, skipped) if ns.format == "json" else format_diff(diffs)
    sys.stdout.write(out)
    return EXIT_FAILURES if skipped else 0


def _window(retriever: Retriever, options: chunker.ChunkOptions, own_count: bool) -> dict[str, Any] | None:
    """For a dense retriever: its model and window beside the hard cap (``note``: a line under the heading;
    ``warning``: when the hard cap exceeds the window's text), else None."""
    from chunk_inspector.evaluate.dense import DenseRetriever, Window

    if not isinstance(retriever, DenseRetriever):
        return None
    window = Window.of(retriever, options.hard_cap, "model" if own_count else options.tokenizer_name)
    return {
        "name": window.model,
        "window": window.window,
        "special_tokens": window.special_tokens,
        "hard_cap": window.hard_cap,
        "counted_with": window.counted_with,
        "warning": window.warning(),
        "note": window.note(),
    }


def _truncated(retriever: Retriever, evaluations: list[Evaluation]) -> list[float] | None:
    """For a dense retriever, each row's share of chunks longer than the model's input (else None)."""
    share = getattr(retriever, "truncated_share", None)
    if share is None:
        return None
    return [float(share([c.text for c in ev.chunks])) for ev in evaluations]


def _eval_json(questions: QuestionSet, evaluations: list[Evaluation], truncated: list[float] | None) -> dict[str, Any]:
    rows = []
    for n, ev in enumerate(evaluations):
        row = ev.summary()
        if truncated is not None:
            row["truncated"] = round(truncated[n], 3)
        row["by_kind"] = {kind: round(m["recall@budget"], 3) for kind, m in ev.by_kind().items()}
        row["questions"] = [
            {
                "id": r.question.id,
                "kind": r.question.kind,
                "first_rank": r.first_rank,
                "recall@k": round(r.at_k.recall, 3),
                "recall@budget": round(r.at_budget.recall, 3),
            }
            for r in ev.results
        ]
        rows.append(row)
    first = evaluations[0]
    return {
        "questions": questions.name,
        "count": len(questions.questions),
        "documents": len(questions.documents),
        "retriever": first.retriever,
        "k": first.k,
        "budget": first.budget,
        "rows": rows,
    }


def format_evaluations(
    questions: QuestionSet,
    evaluations: list[Evaluation],
    truncated: list[float] | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The evaluation as plain-text tables: the averages, then recall within the budget per kind; ``notes``
    are lines under the heading (the dense model's window). What the set names (its file, its kinds) is
    shown :func:`~chunk_inspector.files.printable`."""
    first = evaluations[0]
    head = (
        f"{questions.name}: {len(questions.questions)} questions over {len(questions.documents)} documents, "
        f"{first.retriever}, k={first.k}, budget={first.budget} tokens"
    )
    columns = ["chunker", "chunks", *(f"{m}@k" for m in METRICS), *(f"{m}@budget" for m in METRICS)]
    columns.append("precision_omega")
    rows = [
        [str(ev.summary()[c]) if c in ("chunker", "chunks") else f"{ev.summary()[c]:.3f}" for c in columns]
        for ev in evaluations
    ]
    if truncated is not None:
        columns.append("truncated")
        for row, share in zip(rows, truncated, strict=True):
            row.append(f"{share:.1%}")
    out = [head, *notes, "", *_aligned(columns, rows)]
    kinds = questions.kinds()
    if kinds:
        counts = ", ".join(f"{k} {sum(q.kind == k for q in questions.questions)}" for k in kinds)
        out += ["", f"recall@budget per kind ({counts} questions)", ""]
        kind_rows = [[ev.contender.label, *(f"{ev.mean(k)['recall@budget']:.3f}" for k in kinds)] for ev in evaluations]
        out += _aligned(["chunker", *kinds], kind_rows)
    return "\n".join(map(printable, out)) + "\n"


def _aligned(columns: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(columns, widths, strict=True)))
    ]
    for row in rows:
        lines.append(
            "  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(row, widths, strict=True)))
        )
    return lines


def _tree(ns: argparse.Namespace) -> int:
    text = read_markdown(ns.file, ns.max_size)
    doc = chunker.parse(text, name=ns.file.name, tokenizer=ns.tokenizer)
    sys.stdout.write(format_tree(doc, ns.hard_cap))
    return 0


def format_tree(doc: chunker.Document, hard_cap: int | None = None) -> str:
    """The heading tree as indented text: title, own tokens, subtree tokens, lines."""
    lines = [f"{printable(doc.name)}  {doc.token_count} tokens, {doc.line_count} lines"]
    if doc.preamble:
        own = doc.region_tokens(doc.root.first, doc.root.direct_end)
        lines.append(f"  (preamble)  own {own}")

    def walk(section: chunker.Section, depth: int) -> None:
        mark = "  [over cap]" if hard_cap is not None and section.tokens > hard_cap else ""
        first, last = section.line_span
        lines.append(
            f"{'  ' * depth}{'#' * section.level} {printable(section.title)}  "
            f"own {section.own_tokens} · subtree {section.tokens}  (lines {first}-{last}){mark}"
        )
        for child in section.children:
            walk(child, depth + 1)

    for section in doc.sections:
        walk(section, 1)
    return "\n".join(lines) + "\n"
