"""Chunk Inspector's layers over the ``chunker`` engine: the command line (:mod:`.cli`), retrieval
evaluation (:mod:`.evaluate`), the app's helpers (:mod:`.app`), pipelines (:mod:`.pipelines`) and the
peer chunkers (:mod:`.peers`); :mod:`.files` reads and writes every file they touch (docs/SECURITY.md)."""
