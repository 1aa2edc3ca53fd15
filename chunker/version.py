"""The engine's version: the one place it is written (pyproject.toml reads it; every chunk set's config records it)."""

__version__ = "0.3.0"
