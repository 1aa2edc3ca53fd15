"""The cyclic garbage collector, paused while the engine builds many objects that hold no cycle.

A parse makes a few hundred thousand tuples and objects (blocks, sections, spans), and a
packing thousands of units, drafts and chunks: all reachable and none in a cycle, so the
collector's passes over them find nothing. On a 1 MB document they cost about a sixth of the
parse. Calls in several threads keep it paused until the last one ends; it is then enabled
again if it was enabled when the first began.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator

__all__ = ["collector_paused"]

_lock = threading.Lock()
_holders = 0  # calls running now (threads)
_was_enabled = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the ``with`` block (module docstring)."""
    global _holders, _was_enabled
    with _lock:
        if not _holders:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if not _holders and _was_enabled:
                gc.enable()


def _after_fork() -> None:
    """A child forked during a call in another thread has no such call: enable the collector as it was."""
    global _lock, _holders
    _lock = threading.Lock()
    if _holders:
        _holders = 0
        if _was_enabled:
            gc.enable()


os.register_at_fork(after_in_child=_after_fork)
