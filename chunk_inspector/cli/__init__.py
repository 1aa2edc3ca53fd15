"""The ``chunker`` command line: chunk a file or a folder (:mod:`.corpus`, or on Ray: :mod:`.ray_run`),
print a heading tree, evaluate retrieval on a question set (docs/cli.md)."""

from chunk_inspector.cli.commands import main

__all__ = ["main"]
