"""Progress of long work (docs/evaluation.md §2): one callable, ``progress(share, line)``, everywhere.

- :data:`ProgressFn`: ``progress(share, line)``: ``share`` is the part of the work done, in 0..1, never
  going back and 1 at the end; ``line`` says what runs now, with its counts ("embedding chunks: 1,216 of
  3,400"). The embedding retrievers, :func:`~chunk_inspector.evaluate.metrics.evaluate`, the app's sweeps
  and runs and the CLI's ``chunker eval`` all take or give this one shape.
- :func:`scaled`: a part of the work reported as a range of the whole one's share (a peer of several, the
  ranking after the chunking), its lines prefixed.
- :func:`time_left`: the time left at the rate of the last steps, in words ("about 25 s left"), once a few
  have gone: what the app's bar and the CLI's show beside the line. Its estimate is as good as the shares
  are even in time: the dense retriever weighs each batch by the word pieces the model runs through.

Nothing here draws: the app (:class:`chunk_inspector.app.evaluate_view.ProgressBar`) and the CLI
(:class:`chunk_inspector.cli.progress.Progress`) do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["FEW", "MIN_SECONDS", "WINDOW", "ProgressFn", "accepts_progress", "scaled", "time_left"]

ProgressFn = Callable[[float, str], None]  # (share done in 0..1, what runs now)

FEW = 3  # steps in the window before its rate is trusted ("once a few batches have gone")
WINDOW = 8  # the last steps whose rate estimates the time left
MIN_SECONDS = 3.0  # the least time the window spans before it is trusted (a quick run shows no estimate)


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


def time_left(samples: Sequence[tuple[float, float]]) -> str | None:
    """The time left, in words, at the rate so far: ``samples`` are the ``(seconds, share)`` of the reports,
    oldest first (a clock's reading, the share then); the rate is that of the last :data:`WINDOW` steps, not
    of the whole run, since its first parts go at another pace than what follows (chunking is quick, a model
    loads once).

    None until the window holds :data:`FEW` steps over at least :data:`MIN_SECONDS`, while the share does
    not move, and once all is done. Under 10 s: "a few seconds left"; under a minute, to 5 s: "about 25 s
    left"; else to the minute: "about 3 min left".
    """
    recent = list(samples)[-(WINDOW + 1) :]
    if len(recent) < FEW + 1:
        return None
    (then, before), (now, share) = recent[0], recent[-1]
    if now - then < MIN_SECONDS or share <= before or share >= 1:
        return None
    seconds = (1 - share) * (now - then) / (share - before)
    if seconds < 10:
        return "a few seconds left"
    if seconds < 57.5:
        return f"about {5 * round(seconds / 5)} s left"
    return f"about {max(1, round(seconds / 60))} min left"
