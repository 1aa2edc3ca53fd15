"""A progress bar on stderr with no dependency: a redrawn bar on a terminal, plain lines elsewhere.

On a terminal: ``\\r[########        ] 12/127 docs  guide.md``, redrawn at most
every 50 ms and on the last step. Otherwise (a log file, CI): one plain line each
time another tenth of the work is done. Disabled, it prints nothing but the
messages passed to :meth:`Progress.message`.

An item that takes a while (a dense evaluation embedding its chunks) reports how far
it is with :meth:`Progress.within`, a :data:`~chunk_inspector.evaluate.progress.ProgressFn`:
on a terminal the bar moves within the item and its line shows with the time left
(``[#####      ] 0/1 chunkers  engine 384/1024: embedding chunks: 640 of 3,400 ·
about 25 s left``); elsewhere a plain line each time another tenth of the whole is
passed within an item (``0/1 chunkers (40%) engine …: embedding chunks: 1,216 of 3,400``).
"""

from __future__ import annotations

import shutil
import time
from collections import deque
from typing import TextIO

from chunk_inspector.evaluate.progress import WINDOW, time_left
from chunk_inspector.files import printable
from chunker.wording import shorten

__all__ = ["Progress"]

_BAR_WIDTH = 24
_REDRAW_SECONDS = 0.05


class Progress:
    """Counts finished items out of ``total`` and shows it on ``stream``."""

    def __init__(self, total: int, stream: TextIO, *, enabled: bool = True, unit: str = "docs") -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.enabled = enabled
        self.unit = unit
        self.tty = enabled and stream.isatty()
        self._drawn = False
        self._last_draw = 0.0
        self._last_tenth = 0
        self._within_tenth = 0  # the tenth of the whole the last line of within() passed
        self._samples: deque[tuple[float, float]] = deque(maxlen=WINDOW + 1)  # within()'s (time, share of all)

    def advance(self, name: str) -> None:
        """One more item finished; ``name`` is shown beside the bar on a terminal."""
        self.done += 1
        if not self.enabled:
            return
        if self.tty:
            now = time.monotonic()
            if now - self._last_draw >= _REDRAW_SECONDS or self.done == self.total:
                self._draw(name)
                self._last_draw = now
            return
        tenth = self.done * 10 // max(self.total, 1)
        if tenth > self._last_tenth or self.done == self.total:
            self._last_tenth = tenth
            percent = self.done * 100 // max(self.total, 1)
            self.stream.write(f"{self.done}/{self.total} {self.unit} ({percent}%)\n")
            self.stream.flush()

    def within(self, share: float, line: str) -> None:
        """The item under way (after the ``done`` finished ones) is ``share`` (0..1) done; ``line`` says what
        runs now. A terminal's bar moves within the item; elsewhere a plain line each time the whole passes
        another tenth (an item's end is :meth:`advance`'s line)."""
        if not self.enabled:
            return
        now = time.monotonic()
        whole = (self.done + min(max(share, 0.0), 1.0)) / max(self.total, 1)
        self._samples.append((now, whole))
        if self.tty:
            if now - self._last_draw >= _REDRAW_SECONDS:
                left = time_left(self._samples)
                self._draw(f"{line} · {left}" if left else line, whole)
                self._last_draw = now
            return
        tenth = int(whole * 10)
        if tenth > self._within_tenth and share < 1.0:
            self._within_tenth = tenth
            self.stream.write(f"{self.done}/{self.total} {self.unit} ({int(whole * 100)}%) {printable(line)}\n")
            self.stream.flush()

    def message(self, line: str) -> None:
        """Print ``line`` (always, even when disabled) without garbling the bar, :func:`printable` (a skipped
        file's reason quotes what its name or content holds)."""
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self._drawn = False
        self.stream.write(printable(line) + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line, so what follows starts on a fresh one."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def _draw(self, name: str, whole: float | None = None) -> None:
        """The bar, filled to ``whole`` (default: the finished items' share), the count and ``name``."""
        if whole is None:
            whole = self.done / max(self.total, 1)
        filled = min(_BAR_WIDTH, int(whole * _BAR_WIDTH))
        bar = f"[{'#' * filled}{' ' * (_BAR_WIDTH - filled)}] {self.done}/{self.total} {self.unit}"
        room = shutil.get_terminal_size((80, 24)).columns - len(bar) - 3
        name = printable(name)
        shown = shorten(name, max(room, 0), keep="end")
        self.stream.write(f"\r\x1b[K{bar}  {shown}")
        self.stream.flush()
        self._drawn = True
