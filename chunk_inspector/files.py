"""Every file this package reads or writes goes through here: untrusted paths, bounded reads, atomic writes.

The threat model is docs/SECURITY.md. Whoever runs the CLI (or starts the app) is trusted;
the files and names they point at are not. So:

- :func:`read_bytes` reads a **regular file** only, within a size limit, and never blocks:
  FIFOs, devices and sockets are refused with a reason before a byte is read (the file is
  opened non-blocking, then checked with ``fstat`` on the open descriptor, so a name swapped
  after a check cannot slip a device in), and the size is checked before reading and again
  while reading (a file that grows is cut off, not read to the end).
- :func:`under_root` resolves a name given by an untrusted file (a question set's document)
  inside its root folder and refuses anything that lands outside it: ``..``, an absolute path,
  a symbolic link that leaves the root, a NUL character. The refusal names the name, never
  what the file holds.
- :func:`write_text` and :class:`AtomicFile` write through a temporary file in the same folder
  and rename it into place, so a reader sees the old file or the whole new one, never a
  half-written or empty one; an interrupted write leaves nothing behind.
- :func:`display` shows a path whose name is not valid UTF-8 with ``\\xNN`` escapes.
- :func:`check_name` refuses a file whose name cannot name a document (not UTF-8, a control character), and
  :func:`cut_name` cuts a name to a byte length between characters, undecodable bytes kept as they were.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import TextIO

from chunker.errors import ChunkerError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "AtomicFile",
    "FileRefused",
    "check_name",
    "cut_name",
    "display",
    "file_id",
    "has_control",
    "is_unicode",
    "printable",
    "read_bytes",
    "same_file",
    "under_root",
    "utf8_name",
    "write_output",
    "write_text",
    "write_texts",
]

MB = 1024 * 1024
# A document this large takes about 1.3 GB of memory while it is chunked (docs/BENCHMARKS.md, memory).
DEFAULT_MAX_BYTES = 64 * MB
_CHUNK = 1 << 20


class FileRefused(ChunkerError):
    """A path that is not read: missing, not a regular file, too large, outside its root, unreadable."""


def display(path: Path | str) -> str:
    """``path`` as text that can always be printed: bytes that are not UTF-8 shown as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def printable(text: str) -> str:
    """``text`` safe to print on one terminal line: line breaks and other characters that are not printable
    (terminal escapes, C1 controls, bidirectional overrides) written as Python escapes (``\\x1b``)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def utf8_name(path: Path | str) -> bool:
    """Whether ``path`` is valid UTF-8 (a name read from the file system may hold undecodable bytes)."""
    return is_unicode(str(path))


def is_unicode(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8: it holds no lone surrogate (an undecodable byte of a file
    name, JSON's ``"\\ud800"``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character: NUL, a line break, a tab, a terminal escape, DEL."""
    return any(ord(c) < 32 or c == "\x7f" for c in text)


def check_name(path: Path, name: str) -> None:
    """Refuse, with :class:`FileRefused`, a file whose name cannot name a document: ``path`` (as the user gave
    it, or a directory run's relative path) is not valid UTF-8, which JSON cannot hold, or ``name`` (what names
    the document in its chunk set) holds a control character, which would stand in every chunk's breadcrumb
    and in the output's file name. The message names ``path`` and says to rename it; nothing is read."""
    if not utf8_name(path):
        raise FileRefused(f"{display(path)}: its name is not valid UTF-8 (rename the file to chunk it)")
    if has_control(name):
        raise FileRefused(f"{display(path)}: its name holds a control character (rename the file to chunk it)")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, shown: Path | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them.

    Raises :class:`FileRefused` (the message names the path, or ``shown``, the same file as the user named
    it, and the reason) for a missing or unreadable path, a directory, a FIFO, a device or a socket, and a
    file over the limit. Never blocks on a FIFO, never reads more than ``max_bytes + 1`` bytes.
    """
    name = display(shown if shown is not None else path)
    if "\x00" in str(path):
        raise FileRefused(f"{name!r}: a file name cannot hold a NUL character")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise FileRefused(f"{name}: no such file") from None
    except IsADirectoryError:
        raise FileRefused(f"{name} is a directory, not a file") from None
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{name} is {_kind(info.st_mode)}, not a regular file: not read")
        if info.st_size > max_bytes:
            raise FileRefused(f"{name} is {_size(info.st_size)}, over the limit of {_size(max_bytes)}")
        parts: list[bytes] = []
        read = 0
        while read <= max_bytes:
            part = os.read(fd, min(_CHUNK, max_bytes + 1 - read))
            if not part:
                break
            parts.append(part)
            read += len(part)
        if read > max_bytes:
            raise FileRefused(f"{name} grew past the limit of {_size(max_bytes)} while it was read")
        return b"".join(parts)
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _size(nbytes: int) -> str:
    return f"{nbytes / MB:.1f} MiB" if nbytes >= MB else f"{nbytes:,} bytes"


def under_root(root: Path, name: str) -> Path:
    """The file ``name`` names inside ``root`` (symbolic links resolved), or :class:`FileRefused`.

    ``name`` comes from an untrusted file: it must be relative, hold no NUL or other control
    character, and resolve (links followed) to a path inside ``root``'s own resolved path.
    Nothing is opened here.
    """
    if not name or has_control(name):
        raise FileRefused(f"{name!r} is not a file name (empty, or it holds a control character)")
    if os.path.isabs(name) or name.startswith(("\\", "~")):
        raise FileRefused(f"{name!r} is an absolute path: documents are named relative to the set's root")
    base = Path(os.path.realpath(root))
    target = Path(os.path.realpath(base / name))
    if target != base and base not in target.parents:
        raise FileRefused(f"{name!r} resolves outside the root folder {display(root)}: not read")
    return target


def file_id(path: Path) -> tuple[int, int] | None:
    """The file at ``path`` (links followed) as (device, inode): what names one file whatever the path to it;
    None when there is none."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino)


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (both must exist), or resolve to the same path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


class AtomicFile:
    """A text file written under a temporary name beside ``path`` and renamed into place on success.

    ``with AtomicFile(path) as out: out.write(...)``: on a normal exit the whole file appears at
    ``path`` at once (replacing any old one, with the permissions a plain ``open`` would give);
    on an exception the temporary file is removed and ``path`` is untouched.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tmp: Path | None = None
        self._stream: TextIO | None = None

    @property
    def temporary(self) -> Path:
        """The temporary file's path while the block runs (for a writer that opens files by name)."""
        assert self._tmp is not None, "only inside the with block"
        return self._tmp

    def __enter__(self) -> TextIO:
        folder = self.path.parent
        stem = cut_name(self.path.name, _TEMPORARY_STEM_BYTES)
        for attempt in range(100):
            tmp = folder / f".{stem}.{os.getpid()}.{attempt}.tmp"
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            except FileExistsError:
                continue
            self._tmp = tmp
            self._stream = os.fdopen(fd, "w", encoding="utf-8", newline="")
            return self._stream
        raise FileExistsError(f"cannot create a temporary file beside {display(self.path)}")

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        assert self._stream is not None and self._tmp is not None
        try:
            self._stream.close()
            if kind is None:
                os.replace(self._tmp, self.path)
        finally:
            self._tmp.unlink(missing_ok=True)  # gone after a rename; else what is left of a failed write


# Of the output's name, the temporary file keeps at most this many bytes: the dot, the process id and the
# suffix must fit beside them within the 255 bytes a name may take, for any name that itself fits.
_TEMPORARY_STEM_BYTES = 200


def cut_name(name: str, max_bytes: int) -> str:
    """The longest start of the file name ``name`` that takes at most ``max_bytes`` bytes as the file system
    stores it, never cut inside a character.

    A name is stored as UTF-8, but one read from the file system may hold bytes that are not UTF-8, each kept
    as a surrogate escape (``"\\udcff"`` for the byte 0xff): such a byte counts one and is kept as it was, so
    the start still names the same bytes. Any other lone surrogate counts the three bytes it would take. A
    name that must be valid UTF-8 (a zip member) replaces its surrogates before it is cut.
    """
    size = 0
    for end, char in enumerate(name):
        size += _name_bytes(char)
        if size > max_bytes:
            return name[:end]
    return name


def _name_bytes(text: str) -> int:
    """The bytes ``text`` takes in a file name: UTF-8, a surrogate escape the one byte it stands for."""
    escapes = sum(1 for c in text if "\udc80" <= c <= "\udcff")
    return len(text.encode("utf-8", "surrogatepass")) - 2 * escapes


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically (:class:`AtomicFile`)."""
    with AtomicFile(path) as out:
        out.write(text)


def write_output(path: Path, text: str) -> None:
    """Write ``text`` to the output file a user named (``-o``), as a shell's redirection would write it.

    A device or a named pipe (``/dev/null``, ``/dev/stdout``, a FIFO) is written to, never replaced: renaming a
    temporary file over it, as :func:`write_text` does, would put a regular file where ``/dev/null`` was. A link
    to a regular file writes that file atomically and keeps the link; so does a link to a file not there yet (it
    is made) when the folder it would be in exists, else ``FileNotFoundError`` says so. Anything else is
    :func:`write_text`.
    """
    try:
        info = os.stat(path)  # follows links: /dev/stdout is one, to /proc/self/fd/1
    except (FileNotFoundError, NotADirectoryError):
        if not path.is_symlink():
            write_text(path, text)
            return
        target = Path(os.path.realpath(path))  # a link to nothing yet: its target, as a shell's `>` makes it
        if not target.parent.is_dir():
            shown = display(os.readlink(path))
            raise FileNotFoundError(errno.ENOENT, f"it is a link to {shown}, in a folder that does not exist") from None
        write_text(target, text)
        return
    if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):  # a folder: the rename refuses it
        write_text(Path(os.path.realpath(path)) if path.is_symlink() else path, text)
        return
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(text)


def write_texts(files: Mapping[Path, str]) -> None:
    """Write several files that belong together (``--layers``' three) so that they are replaced together: a
    target that is a folder is refused before anything is written, and every text is written whole to its
    temporary file before any is renamed into place. A failed or interrupted write leaves all the previous
    files (or none), never this run's beside another's."""
    for path in files:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "Is a directory: nothing was written", str(path))
    with ExitStack() as stack:
        streams = [(stack.enter_context(AtomicFile(path)), text) for path, text in files.items()]
        for stream, text in streams:
            stream.write(text)
