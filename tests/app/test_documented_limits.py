"""The limits docs/SECURITY.md and docs/app.md promise are the code's: each number the docs give is read from
the constant that enforces it, so that a changed limit fails here until the docs say the new one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import chunker.tokens
from chunk_inspector import files
from chunk_inspector.app import cache, evaluate_view, frame, view
from chunk_inspector.evaluate import authoring, dense

DOCS = Path(__file__).resolve().parents[2] / "docs"
WORDS = {2: "two", 3: "three", 4: "four"}
UPLOADS = "/".join(f"`.{suffix}`" for suffix in frame.MARKDOWN_TYPES)


def page(name: str) -> str:
    """The page's text with its line breaks and runs of spaces made single spaces."""
    return " ".join((DOCS / name).read_text(encoding="utf-8").split())


PROMISES = [
    ("SECURITY.md", f"Uploads and pastes stop at {frame.MAX_UPLOAD_BYTES // 10**6} MB"),
    ("SECURITY.md", f"a question set at {evaluate_view.MAX_SET_BYTES // 10**6} MB"),
    ("SECURITY.md", f"a `tokenizer.json` at {frame.MAX_TOKENIZER_BYTES // 10**6} MB, refused by size"),
    (
        "SECURITY.md",
        f"a question typed on the page at {authoring.MAX_QUESTION_CHARS:,} characters and an answer pasted there at "
        f"{authoring.MAX_ANSWER_CHARS:,}, of which the first {authoring.MAX_OCCURRENCES} occurrences are listed",
    ),
    ("SECURITY.md", f"kept in memory (the last {WORDS[frame.HF_TOKENIZERS_KEPT]})"),
    ("SECURITY.md", f"The last {WORDS[dense.MODELS_KEPT]} models loaded are kept in memory"),
    ("SECURITY.md", f"at most {view.NAME_BYTES} bytes of the upload's name"),
    ("SECURITY.md", f"only a regular file of at most {chunker.tokens.HF_MAX_BYTES >> 20} MiB is read"),
    ("SECURITY.md", f"a file over `--max-size` ({files.DEFAULT_MAX_BYTES >> 20} MiB by default)"),
    ("app.md", f"uploads and pastes stop at {frame.MAX_UPLOAD_BYTES // 10**6} MB"),
    ("app.md", f"a `tokenizer.json` at {frame.MAX_TOKENIZER_BYTES // 10**6} MB (kept in memory"),
    ("app.md", f"a question set at {evaluate_view.MAX_SET_BYTES // 10**6} MB"),
    ("app.md", f"up to {frame.MAX_TOKENIZER_BYTES // 10**6} MB, kept in memory"),
    ("app.md", f"**{cache.DEFAULT_BUDGET_MB >> 10} GiB by default**"),
    ("app.md", f"the last {WORDS[dense.MODELS_KEPT]} loaded are kept"),
    (
        "app.md",
        f"an upload of {UPLOADS} files up to {frame.MAX_UPLOAD_BYTES // 10**6} MB",
    ),
    ("evaluation.md", f"The last {WORDS[dense.MODELS_KEPT]} models loaded are kept in memory"),
]


@pytest.mark.parametrize(("doc", "promise"), PROMISES, ids=[f"{d}: {p[:40]}" for d, p in PROMISES])
def test_the_docs_give_the_limit_the_code_enforces(doc: str, promise: str) -> None:
    assert promise in page(doc)


@pytest.mark.parametrize(
    ("limit", "refusal"),
    [
        (frame.MAX_UPLOAD_BYTES, lambda n: frame.size_error("x.md", n)),
        (frame.MAX_TOKENIZER_BYTES, lambda n: _refused(frame._refuse_large_tokenizer, "t.json", n)),
        (evaluate_view.MAX_SET_BYTES, lambda n: evaluate_view.upload_too_large("q.jsonl", n)),
    ],
    ids=["upload", "tokenizer.json", "question set"],
)
def test_the_app_says_mb_and_means_a_million_bytes(limit: int, refusal: Any) -> None:
    """The app's limits are whole MB of 10**6 bytes, as its messages and the docs say: the upload limit was 5 MiB
    (5,242,880 bytes) while every message and page said 5 MB, so a file of 5.1 MB was taken "up to 5 MB". The
    size a refusal gives is over the limit it gives, even one byte over."""
    assert limit % 10**6 == 0
    assert refusal(limit) is None
    over = str(refusal(limit + 1))
    assert f"is {limit + 1:,} bytes;" in over and f"up to {limit // 10**6} MB" in over
    assert f"is {(limit + 100_000) / 1e6:.1f} MB;" in str(refusal(limit + 100_000))


def _refused(check: Any, name: str, nbytes: int) -> Exception | None:
    try:
        check(name, nbytes)
    except Exception as exc:
        return exc
    return None
