"""A progress bar on stderr with no dependency: a redrawn bar on a terminal, plain lines elsewhere.

On a terminal: ``\\r[########        ] 12/127 docs  guide.md``, redrawn at most
every 50 ms and on the last step. Otherwise (a log file, CI): one plain line each
time another tenth of the work is done. Disabled, it prints nothing but the
messages passed to :meth:`Progress.message`.
"""

from __future__ import annotations

import shutil
import time
from typing import TextIO

from chunk_inspector.files import printable

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

    def _draw(self, name: str) -> None:
        filled = self.done * _BAR_WIDTH // max(self.total, 1)
        bar = f"[{'#' * filled}{' ' * (_BAR_WIDTH - filled)}] {self.done}/{self.total} {self.unit}"
        room = shutil.get_terminal_size((80, 24)).columns - len(bar) - 3
        name = printable(name)
        shown = name if len(name) <= room else "…" + name[-(room - 1) :] if room > 1 else ""
        self.stream.write(f"\r\x1b[K{bar}  {shown}")
        self.stream.flush()
        self._drawn = True
