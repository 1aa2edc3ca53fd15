"""``python -m chunker``: the command line lives outside the engine (it reads files)."""

from chunk_inspector.cli import main

raise SystemExit(main())
