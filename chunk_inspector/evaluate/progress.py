"""Progress of long work (docs/evaluation.md §2): one callable, ``progress(share, line)``, everywhere.

- :data:`ProgressFn`: ``progress(share, line)``: ``share`` is the part of the work done, in 0..1, never
  going back and 1 at the end; ``line`` says what runs now, with its counts ("embedding chunks: 1,216 of
  3,400"). The embedding retrievers, :func:`~chunk_inspector.evaluate.metrics.evaluate`, the app's sweeps
  and runs and the CLI's ``chunker eval`` all take or give this one shape.
- :func:`scaled`: a part of the work reported as a range of the whole one's share (a peer of several, the
  ranking after the chunking), its lines prefixed.
- :func:`time_left`: the time left at the rate so far, in words ("about 25 s left"), once a few steps have
  gone: what the app's bar and the CLI's show beside the line.

Nothing here draws: the app (:class:`chunk_inspector.app.evaluate_view.ProgressBar`) and the CLI
(:class:`chunk_inspector.cli.progress.Progress`) do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["FEW", "ProgressFn", "accepts_progress", "scaled", "time_left"]

ProgressFn = Callable[[float, str], None]  # (share done in 0..1, what runs now)

FEW = 3  # steps reported after the first before the rate so far is trusted ("once a few batches have gone")


def accepts_progress(function: Callable[..., Any]) -> bool:
    """Whether ``function`` names a ``progress`` parameter: a retriever's ``rank`` (or an embedder's
    ``embed_unique``) of yours may not, and is then called without it (``**kwargs`` alone does not count)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a callable whose signature cannot be read: assume the plain one
        return False
    return "progress" in parameters


def scaled(progress: ProgressFn | None, start: float, end: float, prefix: str = "") -> ProgressFn | None:
    """``progress`` for a part of the work that spans ``start``..``end`` of the whole: its share ``s`` (clamped
    to 0..1) is reported as ``start + s * (end - start)``, its lines after ``prefix``. None for None."""
    if progress is None:
        return None
    report = progress

    def part(share: float, line: str) -> None:
        report(start + (end - start) * min(max(share, 0.0), 1.0), prefix + line)

    return part


def time_left(elapsed: float, share: float, steps: int) -> str | None:
    """The time left, in words, if the rest of the work goes at the rate so far: ``share`` (0..1) of it took
    ``elapsed`` seconds over ``steps`` reports after the first.

    None until :data:`FEW` steps have gone (the first ones are the slowest: a model loads, a batch warms up),
    while nothing is done, and once all is. Under 10 s: "a few seconds left"; under a minute, to 5 s: "about
    25 s left"; else to the minute: "about 3 min left".
    """
    if steps < FEW or elapsed <= 0 or share <= 0 or share >= 1:
        return None
    seconds = elapsed * (1 - share) / share
    if seconds < 10:
        return "a few seconds left"
    if seconds < 57.5:
        return f"about {5 * round(seconds / 5)} s left"
    return f"about {max(1, round(seconds / 60))} min left"
