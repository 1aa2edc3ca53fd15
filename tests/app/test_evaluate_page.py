"""The Evaluate page through AppTest: the numbers are evaluate()'s, bad sets are refused, misses are shown."""

from __future__ import annotations

import functools
import html as markup
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import chunker
from chunk_inspector.app import evaluate_view
from chunk_inspector.evaluate.metrics import Contender, Evaluation, Index, evaluate
from chunk_inspector.evaluate.questions import QuestionSet
from chunk_inspector.evaluate.retrievers import get_retriever
from tests.app.conftest import plain

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"


@functools.cache
def bundled() -> QuestionSet:
    return evaluate_view.load_bundled(SAMPLES)


def expected(target: int = 384, cap: int = 1024, index: Index = "context") -> Evaluation:
    """What the evaluation layer computes on its own for these settings (the sidebar's other defaults)."""
    options = chunker.ChunkOptions(target, cap, tokenizer="cl100k_base")
    return evaluate(bundled(), Contender.engine(options, index), get_retriever("bm25"))


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def html(at: AppTest) -> str:
    return "".join(h.proto.body for h in at.get("html"))


@pytest.fixture(autouse=True)
def _no_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine alone, whatever peers this environment has (a test below stands one in)."""
    from chunk_inspector.peers import chunkers as peers

    monkeypatch.setattr(peers, "available_peers", lambda: [])


@pytest.fixture
def page(app: AppTest) -> AppTest:
    app.switch_page("pages/evaluate.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_the_bundled_set_is_measured_as_evaluate_measures_it(page: AppTest) -> None:
    """Recall, precision, IoU, precision Ω and the chunk count are evaluate()'s at the sidebar's settings."""
    mean = expected().mean()
    assert metric(page, "Recall in budget") == f"{mean['recall@budget']:.3f}"
    assert metric(page, "Recall at 5") == f"{mean['recall@k']:.3f}"
    assert metric(page, "Precision in budget") == f"{mean['precision@budget']:.3f}"
    assert metric(page, "IoU in budget") == f"{mean['iou@budget']:.3f}"
    assert metric(page, "Precision Ω") == f"{mean['precision_omega']:.3f}"
    assert metric(page, "Chunks") == f"{len(expected().chunks):,}"
    table = page.dataframe[0].value
    assert list(table["chunker"]) == ["engine 384/1024 + breadcrumb"]
    assert table["recall@budget"][0] == round(mean["recall@budget"], 3)
    assert any("No peer chunker is installed" in c.value for c in page.caption)


def test_per_kind_and_per_question_results_are_shown_misses_first(page: AppTest) -> None:
    ev = expected()
    kinds = page.dataframe[1].value
    for kind, scores in ev.by_kind().items():
        column = next(c for c in kinds.columns if c.startswith(f"{kind} ("))
        assert kinds[column][0] == round(scores["recall@budget"], 3)
    questions = page.dataframe[2].value
    assert len(questions) == len(bundled().questions)
    misses = ev.misses()
    assert list(questions["id"][: len(misses)]) == [r.question.id for r in misses]
    ranks = {r.question.id: r.first_rank for r in ev.results}
    for qid, rank in zip(questions["id"], questions["first rank"], strict=True):
        assert (None if rank is None or rank != rank else int(rank)) == ranks[qid]


def test_moving_the_hard_cap_re_evaluates(page: AppTest) -> None:
    page.select_slider(key="hard_cap").set_value(512).run()
    assert not page.exception
    assert metric(page, "Recall in budget") == f"{expected(384, 512).mean()['recall@budget']:.3f}"
    assert metric(page, "Chunks") == f"{len(expected(384, 512).chunks):,}"


def test_contextualize_is_indexed_by_default_and_markdown_alone_on_request(page: AppTest) -> None:
    assert page.segmented_control(key="eval_index").value == "contextualize()"
    page.segmented_control(key="eval_index").set_value("markdown").run()
    assert not page.exception
    assert metric(page, "Recall in budget") == f"{expected(index='markdown').mean()['recall@budget']:.3f}"
    assert page.dataframe[0].value["chunker"][0] == "engine 384/1024"
    assert expected(index="markdown").mean() != expected().mean()  # the two indexings measure differently


def test_the_first_miss_is_open_with_its_excerpt_highlighted(page: AppTest) -> None:
    """The first miss is chosen: its reference excerpts are highlighted (escaped) in the source, with the holder."""
    miss = expected().misses()[0]
    assert page.selectbox(key="eval_question").value == miss.question.id
    shown = html(page)
    assert 'class="ci-hl ci-ref"' in shown
    first_line = miss.question.references[0].content.splitlines()[0]
    assert markup.escape(first_line) in shown
    assert any(m.value.startswith("**The chunk it fell into**") for m in page.markdown)


def test_choosing_another_question_shows_its_answer(page: AppTest) -> None:
    ev = expected()
    hit = next(r for r in ev.results if r.at_budget.recall == 1.0)
    page.selectbox(key="eval_question").set_value(hit.question.id).run()
    assert not page.exception
    assert f"**{hit.question.question}**" in [plain(m.value) for m in page.markdown] or any(
        hit.question.question[:30] in plain(m.value) for m in page.markdown
    )
    retrieved = page.dataframe[-1].value
    assert "✓" in set(retrieved["holds answer"]), "a hit has its answer among the retrieved chunks"


def test_a_bad_uploaded_set_shows_the_loaders_message_naming_the_question(page: AppTest) -> None:
    page.segmented_control(key="eval_source").set_value("Upload").run()
    text = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")
    reference = {"content": text[:20], "start_index": 0, "end_index": 20}
    good = {"id": "ok1", "document": "poetry_cli.md", "question": "What is Poetry?", "references": [reference]}
    bad = dict(good, id="bad7", references=[{"content": "not the text", "start_index": 0, "end_index": 12}])
    data = (json.dumps(good) + "\n" + json.dumps(bad) + "\n").encode()
    page.file_uploader(key="eval_upload").set_value(("mine.jsonl", data, "application/jsonl")).run()
    assert not page.exception
    errors = " ".join(plain(e.value) for e in page.error)
    assert "mine.jsonl" in errors and "'bad7'" in errors and "is not the document's text there" in errors
    assert not page.metric, "nothing is measured on bad labels"


def test_an_uploaded_set_over_the_open_document_is_measured(app: AppTest) -> None:
    """An upload opened in the sidebar is the document an uploaded question set names."""
    doc = "# Lighthouse\n\nThe lamp is lit at dusk by the keeper.\n\n## Fog\n\nThe horn sounds every thirty seconds.\n"
    app.segmented_control(key="source").set_value("Upload").run()
    app.file_uploader(key="uploads").set_value(("coast.md", doc.encode(), "text/markdown")).run()
    app.switch_page("pages/evaluate.py").run()
    app.segmented_control(key="eval_source").set_value("Upload").run()
    start = doc.index("The horn")
    end = doc.index("\n", start)
    record = {
        "id": "fog",
        "document": "coast.md",
        "question": "How often does the horn sound in fog?",
        "references": [{"content": doc[start:end], "start_index": start, "end_index": end}],
    }
    app.file_uploader(key="eval_upload").set_value(("coast.jsonl", json.dumps(record).encode(), "x")).run()
    assert not app.exception
    assert not app.error
    assert metric(app, "Recall in budget") == "1.000"
    assert any("1 question over 1 document (coast.md)" in plain(c.value) for c in app.caption)


def test_installed_peers_are_extra_rows_at_the_same_hard_cap(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A peer present (a stand-in for chonkie here: the real ones live in .venv-peers) adds its row."""
    from chunk_inspector.peers import chunkers as peers

    def fake_run(name: str, text: str, *, hard_cap: int = 512, target: int = 256) -> list[peers.PeerChunk]:
        out, at = [], 0
        for part in text.split("\n\n"):
            if part.strip():
                out.append(peers.PeerChunk(text=part, char_span=(at, at + len(part))))
            at += len(part) + 2
        return out

    from chunk_inspector.app import evaluate_view

    shown: list[str] = []  # the progress bar's lines, one per peer as it starts

    def progress(done: int, names: list[str], hard_cap: int) -> tuple[float, str]:
        share, line = real_progress(done, names, hard_cap)
        shown.append(line)
        return share, line

    real_progress = evaluate_view.peer_progress
    monkeypatch.setattr(evaluate_view, "peer_progress", progress)
    monkeypatch.setattr(peers, "available_peers", lambda: ["chonkie"])
    monkeypatch.setattr(peers, "run_peer", fake_run)
    app.switch_page("pages/evaluate.py").run()
    assert not app.exception
    assert shown == ["Peer 1 of 1: evaluating chonkie at hard cap 1,024…"]
    table = app.dataframe[0].value
    assert list(table["chunker"]) == ["engine 384/1024 + breadcrumb", "chonkie"]
    want = evaluate(bundled(), Contender.of_peer("chonkie", 1024, 384), get_retriever("bm25")).mean()
    assert table["recall@budget"][1] == round(want["recall@budget"], 3)
    assert list(app.dataframe[1].value["chunker"]) == ["engine 384/1024 + breadcrumb", "chonkie"]
    app.toggle(key="eval_peers").set_value(False).run()
    assert list(app.dataframe[0].value["chunker"]) == ["engine 384/1024 + breadcrumb"]
    assert any("Peers off: chonkie" in c.value for c in app.caption)


def test_tune_gains_recall_within_the_budget_once_a_set_is_loaded(page: AppTest) -> None:
    page.switch_page("pages/tune.py").run()
    assert not page.exception
    sweep = page.dataframe[0].value
    assert "recall_budget" in sweep.columns
    row = sweep[(sweep["target"] == 256) & (sweep["hard_cap"] == 1024)].iloc[0]
    assert row["recall_budget"] == round(expected(256, 1024).mean()["recall@budget"], 3)


def test_tune_without_a_set_has_four_charts_and_says_how_to_add_the_fifth(app: AppTest) -> None:
    app.switch_page("pages/tune.py").run()
    assert "recall_budget" not in app.dataframe[0].value.columns
    assert any("Evaluate page" in c.value for c in app.caption)


def test_a_computed_run_shows_its_progress_and_leaves_no_bar(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the engine's evaluation computes, a bar says what runs (each document, the ranking); it is gone
    once the results show, and a cached run draws none."""
    from chunk_inspector.app import cache

    drawn: list[str] = []

    class Recording(evaluate_view.ProgressBar):
        def __call__(self, share: float, line: str) -> None:
            drawn.append(line)
            super().__call__(share, line)

    monkeypatch.setattr(evaluate_view, "ProgressBar", Recording)
    cache.shared.clear()  # nothing cached: this run computes
    app.switch_page("pages/evaluate.py").run()
    assert not app.exception, [e.value for e in app.exception]
    names = list(bundled().documents)
    chunks = len(expected().chunks)
    assert drawn == [
        *(f"chunking {name} ({n} of {len(names)})" for n, name in enumerate(names, 1)),
        f"ranking {chunks:,} chunks with bm25",
        "ranked",
    ]
    assert not app.get("progress"), "a progress bar is left on the page"
    assert metric(app, "Recall in budget") == f"{expected().mean()['recall@budget']:.3f}"
    drawn.clear()
    app.run()  # the same settings: the cached run
    assert drawn == [] and not app.get("progress")


def test_the_retriever_and_indexed_text_are_as_left_after_a_look_at_another_page(page: AppTest) -> None:
    """The indexed text chosen (markdown alone) went back to contextualize() when the user looked at Inspect and
    came back: the figures shown were for the other index, with nothing on the page saying the choice had gone."""
    page.segmented_control(key="eval_index").set_value("markdown").run()
    shown = metric(page, "Recall in budget")
    assert shown == f"{expected(index='markdown').mean()['recall@budget']:.3f}"
    page.switch_page("pages/inspect_chunks.py").run()
    page.switch_page("pages/evaluate.py").run()
    assert not page.exception
    assert page.segmented_control(key="eval_index").value == "markdown"
    assert metric(page, "Recall in budget") == shown
