"""Retrieval evaluation (docs/evaluation.md): question sets (:mod:`.questions`), the metrics and the
chunkings under evaluation (:mod:`.metrics`), and the retrievers (:mod:`.retrievers`: BM25, dense)."""
