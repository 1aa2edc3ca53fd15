"""Errors raised for caller mistakes. Markdown content never raises."""

from __future__ import annotations

__all__ = ["ChunkerError", "ConfigError", "TokenizerError"]


class ChunkerError(Exception):
    """Base class for every error this package raises on purpose."""


class ConfigError(ChunkerError, ValueError):
    """A limit or option has a value the engine cannot work with."""


class TokenizerError(ChunkerError):
    """The tokenizer argument cannot be turned into a token counter."""
