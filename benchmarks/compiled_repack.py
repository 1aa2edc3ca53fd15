"""What compiling the packing modules would buy: the re-pack at a new setting, pure Python against mypyc.

Issue 28 asks for a slider move to a new setting in at most 0.1 s of server CPU on the 5 MB load document;
the engine's re-pack alone takes about twice that in pure Python (``benchmarks/repack_phases.py``). This
copies ``chunker/`` to a temporary folder, compiles MODULES there with mypyc (it comes with mypy, a test
dependency; it needs a C compiler), then re-packs the load document at the new settings of the load
benchmark's walk in fresh processes, the pure tree and the compiled one taking turns (ROUNDS each), and
reports the thread CPU of a whole re-pack (``chunker.chunk_with``) and of the dynamic programme alone
(``optimal._Row.solve``), p50 over every setting of every round, with each setting's chunk set checked to be
the same in both. A measurement for a design decision, not a build step: the package stays pure Python.

    .venv/bin/python benchmarks/compiled_repack.py [--rounds 3] [--settings 8] [--modules optimal pack ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "real"
MODULES = ["optimal", "pack", "drafts", "chunkset", "spans", "balanced"]


def worker(document: Path, settings: int) -> None:
    """In a fresh process on the tree PYTHONPATH names: one JSON line per new setting."""
    import chunker
    from benchmarks.app_load import Walk
    from chunker import optimal
    from chunker.drafts import Packing

    doc = chunker.parse(document.read_text(encoding="utf-8"), name=document.name)
    options = chunker.ChunkOptions()
    chunker.chunk_with(doc, options)
    walk, seen, done = Walk(step=1), {Walk(step=1).setting}, 0
    while done < settings and walk.moves < 200:
        walk.next()
        if walk.setting in seen:
            continue
        seen.add(walk.setting)
        cap, target = walk.setting
        moved = replace(options, hard_cap=cap, target=target)
        start = time.thread_time()
        chunks = chunker.chunk_with(doc, moved)
        repack = time.thread_time() - start
        row = optimal._Row(Packing(doc, moved, joins_small_chunks=True))
        start = time.thread_time()
        row.solve()
        solve = time.thread_time() - start
        digest = hashlib.sha256(chunks.to_json().encode()).hexdigest()[:16]
        print(json.dumps({"setting": [cap, target], "repack": repack, "solve": solve, "digest": digest}), flush=True)
        done += 1
    print(json.dumps({"compiled": optimal.__file__.endswith(".so")}), flush=True)


def compile_tree(into: Path, modules: list[str]) -> str | None:
    """``chunker/`` copied into ``into`` with ``modules`` compiled by mypyc; None, or why it could not be."""
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        return "no C compiler (cc or gcc) on PATH"
    shutil.copytree(ROOT / "chunker", into / "chunker")
    command = [sys.executable, "-m", "mypyc", *(f"chunker/{name}.py" for name in modules)]
    done = subprocess.run(command, cwd=into, capture_output=True, text=True, check=False)
    if done.returncode:
        lines = (done.stdout + done.stderr).splitlines()
        return "mypyc failed: " + next((line for line in lines if "error:" in line), lines[-1] if lines else "")
    return None


def run_round(tree: Path, document: Path, settings: int) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(ROOT)])}
    command = [sys.executable, __file__, "--worker", str(document), "--settings", str(settings)]
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=True)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per tree, taking turns (default 3)")
    parser.add_argument("--settings", type=int, default=8, help="new settings re-packed per process (default 8)")
    parser.add_argument("--modules", nargs="+", default=MODULES, help=f"chunker modules compiled (default {MODULES})")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.settings)
        return 0
    if not CORPUS.is_dir():
        print(f"skipped: the shared corpus is not there ({CORPUS})")
        return 0
    sys.path.insert(0, str(ROOT))
    from benchmarks.app_load import build_documents

    with tempfile.TemporaryDirectory() as tmp:
        (document,), _ = build_documents(Path(tmp), 1, low=5.0, high=5.0)
        compiled = Path(tmp) / "compiled"
        compiled.mkdir()
        start = time.monotonic()
        why = compile_tree(compiled, args.modules)
        if why:
            print(f"skipped: {why}")
            return 0
        print(f"compiled {', '.join(args.modules)} with mypyc in {time.monotonic() - start:.0f} s")
        runs: dict[str, list[dict[str, object]]] = {"pure": [], "compiled": []}
        ratios = []
        for _ in range(args.rounds):
            pure, fast = run_round(ROOT, document, args.settings), run_round(compiled, document, args.settings)
            assert pure[-1] == {"compiled": False} and fast[-1] == {"compiled": True}, (pure[-1], fast[-1])
            pure, fast = pure[:-1], fast[:-1]
            if [r["digest"] for r in pure] != [r["digest"] for r in fast]:
                print("error: the compiled tree made other chunks")
                return 1
            runs["pure"] += pure
            runs["compiled"] += fast
            ratios.append(statistics.median(r["repack"] for r in pure) / statistics.median(r["repack"] for r in fast))
    print(f"5.0 MB, {args.rounds} rounds × {args.settings} new settings, the same chunks from both trees")
    print("| tree | re-pack p50 s | the programme p50 s |\n|---|---:|---:|")
    for name, rows in runs.items():
        repack = statistics.median(float(r["repack"]) for r in rows)  # type: ignore[arg-type]
        solve = statistics.median(float(r["solve"]) for r in rows)  # type: ignore[arg-type]
        print(f"| {name} | {repack:.3f} | {solve:.3f} |")
    print(f"re-pack, pure / compiled per round: {', '.join(f'{r:.2f}×' for r in ratios)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
