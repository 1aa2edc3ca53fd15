"""Chunk Inspector's front ends over the ``chunker`` engine: the command line (and the app)."""
