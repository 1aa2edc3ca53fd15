"""List the small chunks of a corpus: what RAG users count as defects.

    python scripts/small_chunks.py [DIR] [--target 256] [--hard-cap 512] [--min-tokens 0] [--under 50]

For each chunk under ``--under`` tokens (documents of one chunk aside): document, index,
tokens, flags, breadcrumb, the neighbours' tokens and breadcrumbs, and the first 150
characters. Run from the repository root so that ``import chunker`` is this checkout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import chunker

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "real"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--target", type=int, default=256)
    parser.add_argument("--hard-cap", type=int, default=512)
    parser.add_argument("--min-tokens", type=int, default=0)
    parser.add_argument("--under", type=int, default=chunker.SMALL_TOKENS)
    args = parser.parse_args()
    found = 0
    for path in sorted(args.corpus.rglob("*.md")):
        text = path.read_bytes().decode("utf-8", errors="replace")
        chunks = chunker.chunk_markdown(
            text, name=path.name, target=args.target, hard_cap=args.hard_cap, min_tokens=args.min_tokens
        )
        if len(chunks) < 2:
            continue
        for chunk in chunks:
            if chunk.token_count >= args.under:
                continue
            found += 1
            where = f"{path.name} #{chunk.index}/{len(chunks)}"
            print(f"{where} {chunk.token_count} tokens {chunk.flags} {chunk.breadcrumb[1:]}")
            for label, n in (("prev", chunk.index - 1), ("next", chunk.index + 1)):
                if 0 <= n < len(chunks):
                    print(f"    {label}: {chunks[n].token_count} tokens {chunks[n].breadcrumb[1:]}")
            print(f"    {chunk.markdown[:150]!r}")
    print(f"{found} chunks under {args.under} tokens")


if __name__ == "__main__":
    main()
