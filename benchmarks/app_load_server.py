"""The server's own time per slider move, with one driving client: ``benchmarks/app_load.py --server-only``.

The eight-browser run of app_load.py cannot tell what the server would answer real users: its headless
browsers share the machine's two cores with the server and take most of them. This mode measures what the
server controls. One ``streamlit run`` server (two with ``--compare-to REF``: this tree's and REF's, exported
with ``git archive``) is sent the 5 MB load document by one headless page each; the pages then make the same
slider moves as a load session (:class:`benchmarks.app_load.Walk`: the hard cap a stop at a time around the
default, every third move the target), one move on one server, then the same move on the other (the order
alternating), so that both are measured in the same minutes of a shared machine.

Per move and server: the CPU time of the script run it caused (logged inside the server, as in the load run:
the GIL-holding work one move costs), the CPU time of the server's main thread meanwhile (Tornado sending the
page's messages), and the time from the key press until the page is idle again. Moves to a setting the
session has not had before re-pack; moves back to one it has take the chunk set from the cache: both are
reported apart and together. The engine's own re-pack of the same document at the same new settings is timed
afterwards in this process (thread CPU), the share of a move that no change to the app can remove.

    .venv/bin/python benchmarks/app_load.py --server-only [--compare-to REF] [--seconds 120] [--think 0.2]
        [--max-moves 40] [--write docs/BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

import streamlit
from playwright.async_api import Page, async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: the repository's root

import chunker
from benchmarks.app_load import (
    _ARM,
    _DONE,
    _RUN_LOG,
    _RUN_LOG_HOOK,
    CAPS,
    CORPUS,
    MB,
    ROOT,
    TARGETS,
    Memory,
    Walk,
    build_documents,
    parse_arguments,
    percentile,
    server_runs,
)
from benchmarks.engine import publish
from tests.browser.harness import CHROMIUM_ARGS, IDLE, chromium_path, serve_app_process

GOAL = 0.1  # seconds of server CPU a move, p50 (the script run's)


@dataclass
class Server:
    """One server under test and what was measured of it, move by move."""

    label: str
    root: Path
    log: Path
    url: str = ""
    memory: Memory | None = None
    page: Page | None = None
    presses: list[float] = field(default_factory=list)  # time.time() of each key press (the run log's clock)
    main: list[float] = field(default_factory=list)  # main-thread CPU seconds during each move
    idle: list[float] = field(default_factory=list)  # key press -> page idle again, seconds
    script: list[float] = field(default_factory=list)  # CPU seconds of the script runs each move caused
    engine: list[float] = field(default_factory=list)  # of which in the engine's re-packs (chunker.chunk_with)
    runs: int = 0  # script runs in the moves phase


def export(ref: str, into: Path) -> str:
    """``git archive`` of ``ref`` unpacked into ``into`` (nothing in this checkout changes); its short hash."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True, timeout=120)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True, timeout=120)
    done = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def this_tree() -> str:
    """This checkout's short hash, with ``+changes`` when its tracked files (docs/ aside) differ from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", ".", ":!docs"], cwd=ROOT).returncode != 0
    return head.stdout.strip() + (" +changes" if dirty else "")


async def open_document(server: Server, path: Path, timeout: float) -> None:
    """Upload ``path`` on the server's page and wait until it is shown."""
    assert server.page is not None
    page = server.page
    await page.goto(f"{server.url}/?source=Upload")
    await page.wait_for_selector(IDLE, timeout=timeout * 1000)
    await page.locator('[data-testid="stSidebar"] input[type="file"][accept*=".md"]').set_input_files(str(path))
    await page.get_by_role("heading", name=path.name).wait_for(timeout=timeout * 1000)
    await page.wait_for_selector(IDLE, timeout=timeout * 1000)
    await page.wait_for_selector('[data-testid="stMetric"]', timeout=timeout * 1000)


async def move(server: Server, which: int, key: str, timeout: float) -> None:
    """One key press on a sidebar slider, timed until the page is idle again."""
    assert server.page is not None and server.memory is not None
    thumb = server.page.locator('[data-testid="stSidebar"]').get_by_role("slider").nth(which)
    await thumb.focus()
    await server.page.evaluate(_ARM)
    main_before = server.memory.cpu_seconds()[0]
    server.presses.append(time.time())
    await thumb.press(key)
    done = await asyncio.wait_for(server.page.evaluate(_DONE), timeout=timeout)
    server.idle.append(float(done["idle"]) / 1000)
    server.main.append(server.memory.cpu_seconds()[0] - main_before)


async def drive(servers: list[Server], path: Path, args: argparse.Namespace) -> list[bool]:
    """Open the document on every server, then make the walk's moves on each in turn; returns, per move,
    whether it led to a setting the session had not had before (a re-pack)."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        try:
            for server in servers:
                context = await browser.new_context(viewport={"width": 1400, "height": 900})
                server.page = await context.new_page()
                server.page.set_default_timeout(args.move_timeout * 1000)
                await open_document(server, path, args.load_timeout)
            walk, seen, fresh = Walk(step=1), {Walk(step=1).setting}, list[bool]()
            end = time.perf_counter() + args.seconds
            while time.perf_counter() < end and len(fresh) < args.max_moves:
                which, key = walk.next()
                fresh.append(walk.setting not in seen)
                seen.add(walk.setting)
                for server in servers if len(fresh) % 2 else servers[::-1]:
                    await move(server, which, key, args.move_timeout)
                await asyncio.sleep(args.think)
            return fresh
        finally:
            await browser.close()


def assign_runs(server: Server, end: float) -> None:
    """Each move's script CPU: the runs that started from its key press to the next move's (to ``end`` for
    the last); a move normally causes exactly one."""
    runs = server_runs(server.log, server.presses[0], end) if server.presses else []
    server.runs = len(runs)
    bounds = [*server.presses[1:], end]
    server.script = [
        sum(cpu for start, _, cpu, _ in runs if a <= start < b) for a, b in zip(server.presses, bounds, strict=True)
    ]
    server.engine = [
        sum(engine for start, _, _, engine in runs if a <= start < b)
        for a, b in zip(server.presses, bounds, strict=True)
    ]


def engine_alone(path: Path, fresh: list[bool]) -> list[float]:
    """The engine's re-pack (thread CPU seconds) at each new setting of the walk, on the document parsed once
    in this process and packed first at the defaults (as the app's first view does)."""
    doc = chunker.parse(path.read_text(encoding="utf-8"), name=path.name)
    options = chunker.ChunkOptions()
    chunker.chunk_with(doc, options)
    walk, out = Walk(step=1), []
    for new in fresh:
        walk.next()
        if new:
            cap, target = walk.setting
            start = time.thread_time()
            chunker.chunk_with(doc, replace(options, hard_cap=cap, target=target))
            out.append(time.thread_time() - start)
    return out


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}" if values else "-"


def _stats(values: list[float]) -> str:
    if not values:
        return "- | -"
    return f"{statistics.median(values):.3f} | {percentile(values, 95):.3f}"


def report(servers: list[Server], fresh: list[bool], engine: list[float], mb: float) -> list[str]:
    """The Markdown section: per server, the moves' server CPU (new settings, settings had before, all)."""
    command = " ".join([".venv/bin/python", "benchmarks/app_load.py", *sys.argv[1:]])
    lines = [
        f"Command: `{command}`.",
        "",
        f"One page per server in one headless Chromium, each sent the {mb:.1f} MB load document (as the load "
        f"run's), then {len(fresh)} slider moves on each, the same on every server and interleaved move by move "
        f"(the hard cap a stop at a time between {CAPS[0]} and {CAPS[-1]} from {chunker.DEFAULT_HARD_CAP}, every "
        f"third move the target between {TARGETS[1]} and {TARGETS[0]}; {sum(fresh)} moves to a setting not had "
        f"before, which re-pack, {len(fresh) - sum(fresh)} back to one the cache holds). Server CPU of a move: its "
        "script run's CPU time, logged inside the server (the work that holds the one interpreter lock); the main "
        "thread (Tornado, sending the page's messages) apart.",
        "",
        "| server | moves (script runs) | new setting: p50 s | p95 s | of which the engine, p50 s | the rest "
        "(the app, Streamlit), p50 s | setting had before: p50 s | p95 s | all moves: p50 s | p95 s | main thread "
        "a move, mean s | moves/s one server sustains (1 / mean CPU a move, script + main) | moves/s with one "
        "client (1 / mean move → page idle) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for server in servers:
        new = [cpu for cpu, f in zip(server.script, fresh, strict=True) if f]
        engine_new = [cpu for cpu, f in zip(server.engine, fresh, strict=True) if f]
        rest_new = [cpu - engine for cpu, engine in zip(new, engine_new, strict=True)]
        old = [cpu for cpu, f in zip(server.script, fresh, strict=True) if not f]
        total = [cpu + main for cpu, main in zip(server.script, server.main, strict=True)]
        lines.append(
            f"| {server.label} | {len(server.script)} ({server.runs}) | {_stats(new)} | {_median(engine_new)} | "
            f"{_median(rest_new)} | {_stats(old)} | {_stats(server.script)} | {statistics.fmean(server.main):.3f} | "
            f"{1 / statistics.fmean(total):.1f} | {1 / statistics.fmean(server.idle):.1f} |"
        )
    if len(servers) == 2:
        # Move by move, the same move on each server minutes apart at most: the engine's own time varies by a
        # fifth between them on a shared machine, so a new setting's moves are compared without it.
        this, other = servers
        apart = {
            "new settings, the rest besides the engine": [
                (a - x, b - y)
                for a, x, b, y, f in zip(this.script, this.engine, other.script, other.engine, fresh, strict=True)
                if f
            ],
            "settings had before": [(a, b) for a, b, f in zip(this.script, other.script, fresh, strict=True) if not f],
        }
        for label, pairs in apart.items():
            if pairs:
                lines += [
                    "",
                    f"Paired move by move ({label}, {len(pairs)} moves): {this.label} took "
                    f"{statistics.median(a - b for a, b in pairs):+.3f} s of CPU a move against {other.label} "
                    f"(median of the differences; {sum(a < b for a, b in pairs)} of {len(pairs)} moves cheaper).",
                ]
    if engine:
        lines += [
            "",
            "The engine's part: its re-pack (`chunker.chunk_with`) timed inside each script run, the part of a "
            f"new setting's move that no change to the app removes (goal: {GOAL:g} s for the whole move, p50). "
            f"The engine alone, in this process after the servers stopped, re-packs the same document at the "
            f"same {len(engine)} new settings in p50 {statistics.median(engine):.3f} s, p95 "
            f"{percentile(engine, 95):.3f} s of CPU.",
        ]
    lines += [
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs (load average "
        f"{os.getloadavg()[0]:.2f} at the end), Python {platform.python_version()}, streamlit "
        f"{streamlit.__version__}, the browser on the same machine.",
    ]
    return lines


def main(args: argparse.Namespace) -> int:
    """``app_load.py --server-only``: see the module's notes."""
    with tempfile.TemporaryDirectory(prefix="app-load-server-") as tmp:
        folder = Path(tmp)
        (folder / "sitecustomize.py").write_text(_RUN_LOG_HOOK, encoding="utf-8")
        (path,), _ = build_documents(folder, 1, low=args.max_mb, high=args.max_mb)
        servers = [Server(f"this tree ({this_tree()})", ROOT, folder / "this.log")]
        if args.compare_to:
            before = folder / "before"
            servers.append(Server(f"{args.compare_to} ({export(args.compare_to, before)})", before, folder / "b.log"))
        with ExitStack() as stack:
            for server in servers:
                env = {_RUN_LOG: str(server.log), "PYTHONPATH": os.pathsep.join([tmp, str(server.root)])}
                server.url, process = stack.enter_context(serve_app_process(env=env, root=server.root))
                server.memory = stack.enter_context(Memory(process.pid))
            fresh = asyncio.run(drive(servers, path, args))
            end = time.time()
        for server in servers:
            assign_runs(server, end)
            print(server.label, "script CPU per move:", " ".join(f"{cpu:.3f}" for cpu in server.script), flush=True)
        engine = engine_alone(path, fresh) if args.baseline else []
        lines = report(servers, fresh, engine, path.stat().st_size / MB)
    publish(lines, args.write, "app-load-server")
    return 0


if __name__ == "__main__":
    arguments = parse_arguments()
    if not CORPUS.is_dir():
        print(f"skipped: the shared corpus is not there ({CORPUS}); this benchmark builds its documents from it")
        raise SystemExit(0)
    raise SystemExit(main(arguments))
