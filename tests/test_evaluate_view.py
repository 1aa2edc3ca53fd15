"""chunk_inspector.app.evaluate_view: what the Evaluate page shows, computed without Streamlit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import chunker
from chunk_inspector.app import evaluate_view
from chunk_inspector.app.view import md_escape
from chunk_inspector.evaluate.metrics import Contender, Index, evaluate
from chunk_inspector.evaluate.questions import QuestionSet, QuestionSetError, read_question_set
from chunk_inspector.evaluate.retrievers import get_retriever

DOC = (
    "# Harbour guide\n\nBoats moor at the north quay.\n\n"
    "## Tides\n\nHigh tide is at noon. <script>alert(1)</script> The gate closes an hour later.\n\n"
    "## Fees\n\n| boat | fee |\n|---|---|\n| dinghy | 5 |\n| yacht | 40 |\n\n"
    "## Fuel\n\nDiesel is sold at the south pontoon from eight until six.\n"
)
OTHER = "# Lighthouse\n\nThe lamp is lit at dusk.\n\n## Fog\n\nThe horn sounds every thirty seconds in fog.\n"


def question(qid: str, doc: str, text: str, excerpt: str, kind: str = "prose") -> dict[str, object]:
    source = {"harbour.md": DOC, "light.md": OTHER}[doc]
    start = source.index(excerpt)
    return {
        "id": qid,
        "document": doc,
        "question": text,
        "kind": kind,
        "references": [{"content": excerpt, "start_index": start, "end_index": start + len(excerpt)}],
    }


def make_set() -> QuestionSet:
    records = [
        question("q1", "harbour.md", "When is high tide?", "High tide is at noon. <script>alert(1)</script>"),
        question("q2", "harbour.md", "What does a yacht pay?", "| yacht | 40 |", "table"),
        question("q3", "harbour.md", "Where is diesel sold?", "Diesel is sold at the south pontoon"),
        question("q4", "light.md", "How often does the horn sound?", "The horn sounds every thirty seconds"),
    ]
    data = "".join(json.dumps(r) + "\n" for r in records)
    return read_question_set(data, "jsonl", {"harbour.md": DOC, "light.md": OTHER}, name="harbour.jsonl")


def parse(name: str, text: str) -> chunker.Document:
    return chunker.parse(text, name=name)


def repack(name: str, doc: chunker.Document, settings: chunker.ChunkOptions) -> chunker.ChunkSet:
    return chunker.chunk_with(doc, settings)


@pytest.mark.parametrize("index", ["markdown", "context"])
def test_run_engine_gives_evaluates_numbers(index: Index) -> None:
    """The page's path (the app's parse and chunk) scores exactly as evaluate() with Contender.engine."""
    questions = make_set()
    settings = chunker.ChunkOptions(target=16, hard_cap=32, min_tokens=0)
    run = evaluate_view.run_engine(questions, settings, get_retriever("bm25"), index, parse, repack)
    contender = Contender.engine(settings, index)
    reference = evaluate(questions, contender, get_retriever("bm25"))
    assert run.evaluation.mean() == reference.mean()
    assert run.evaluation.chunks == reference.chunks
    for i, indexed in enumerate(run.evaluation.chunks):
        assert run.chunk(i).char_span == indexed.char_span


def test_the_miss_view_escapes_document_text_and_marks_the_excerpt() -> None:
    questions = make_set()
    run = evaluate_view.run_engine(
        questions, chunker.ChunkOptions(target=16, hard_cap=32), get_retriever("bm25"), "markdown", parse, repack
    )
    result = next(r for r in run.evaluation.results if r.question.id == "q1")
    detail = evaluate_view.miss_detail(run, result)
    assert detail.source is not None
    assert "<script>" not in detail.source and "&lt;script&gt;alert(1)&lt;/script&gt;" in detail.source
    assert 'class="ci-hl ci-ref"' in detail.source
    assert list(detail.holders["chunk"]) == [run.chunk(i).id for i in sorted(result.holders, key=result.ranking.index)]
    assert len(detail.retrieved) == result.in_budget
    assert detail.holder_label is not None and detail.holder_label.startswith(detail.holders["chunk"][0])


def test_the_miss_view_calls_the_indexed_texts_tokens_indexed_tokens() -> None:
    """Indexed as contextualize(), a chunk counts more tokens than its own token_count (the breadcrumb line):
    the miss view names that count "indexed tokens", so it does not read as the chunk's own beside it."""
    questions = make_set()
    run = evaluate_view.run_engine(
        questions, chunker.ChunkOptions(target=16, hard_cap=32), get_retriever("bm25"), "context", parse, repack
    )
    result = next(r for r in run.evaluation.results if r.question.id == "q1")
    detail = evaluate_view.miss_detail(run, result)
    best = run.chunk(sorted(result.holders, key=result.ranking.index)[0])
    indexed = detail.holders["indexed tokens"][0]
    assert indexed > best.token_count  # the two counts differ, as they do on the page
    assert detail.holder_label is not None and f" · {indexed} indexed tokens · " in detail.holder_label
    assert "indexed tokens" in detail.retrieved.columns and "tokens" not in detail.retrieved.columns


def test_question_table_lists_misses_first_and_kind_table_one_column_per_kind() -> None:
    questions = make_set()
    run = evaluate_view.run_engine(
        questions, chunker.ChunkOptions(target=16, hard_cap=32), get_retriever("bm25"), "markdown", parse, repack
    )
    ev = run.evaluation
    table = evaluate_view.question_table(ev)
    misses = ev.misses()
    assert list(table["id"][: len(misses)]) == [r.question.id for r in misses]
    assert sorted(table["id"]) == ["q1", "q2", "q3", "q4"]
    kinds = evaluate_view.kind_table([ev])
    assert list(kinds.columns) == ["chunker", "prose (3)", "table (1)"]
    metrics = evaluate_view.metrics_table([ev])
    assert list(metrics.columns) == ["chunker", "chunks", *evaluate_view.score_columns(5)]
    assert metrics["chunks"][0] == len(ev.chunks)


def test_an_upload_is_checked_against_the_documents_and_named_in_its_error() -> None:
    docs = {"harbour.md": DOC}
    good = question("q1", "harbour.md", "When is high tide?", "High tide is at noon.")
    assert len(evaluate_view.read_upload("a.jsonl", json.dumps(good).encode(), docs).questions) == 1
    bad = dict(good, id="q9", document="missing.md")
    with pytest.raises(QuestionSetError, match=r"a\.jsonl: question 'q9'.*'missing\.md'"):
        evaluate_view.read_upload("a.jsonl", json.dumps(bad).encode(), docs)
    with pytest.raises(QuestionSetError, match="not UTF-8"):
        evaluate_view.read_upload("a.jsonl", b"\xff\xfe\x00", docs)
    with pytest.raises(QuestionSetError, match=r"\.jsonl file or Chroma"):
        evaluate_view.read_upload("a.txt", b"", docs)


def test_upload_documents_hold_the_samples_and_the_open_document(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"# A\r\n\r\nText.\r\n")
    (tmp_path / "README.md").write_text("attribution", encoding="utf-8")
    same = evaluate_view.upload_documents(tmp_path, "a.md", "# A\n\nText.\n")
    assert same == {"a.md": "# A\r\n\r\nText.\r\n"}, "the sample as read with newline='' (the offsets' convention)"
    other = evaluate_view.upload_documents(tmp_path, "a.md", "# Mine\n")
    assert other["a.md"] == "# Mine\n"
    assert evaluate_view.upload_documents(tmp_path, "b.md", "# B\n")["b.md"] == "# B\n"


def test_recall_sweep_matches_evaluate_at_every_point() -> None:
    questions = make_set()
    docs = {name: parse(name, text) for name, text in questions.documents.items()}
    grid = [(16, 32), (32, 64), (16, 16)]
    options = chunker.ChunkOptions(overlap=10)  # its target and hard cap are replaced by the grid's
    recalls = evaluate_view.recall_sweep(questions, docs, grid, options, get_retriever("bm25"), "markdown")
    for (target, cap), recall in zip(grid[:2], recalls[:2], strict=True):
        want = evaluate(
            questions,
            Contender.engine(chunker.ChunkOptions(target, cap, overlap=10), index="markdown"),
            get_retriever("bm25"),
        )
        assert recall == want.mean()["recall@budget"]
    assert recalls[2] is None, "overlap 10 does not fit under half a cap of 16"


def test_set_key_changes_with_a_document_or_a_reference() -> None:
    questions = make_set()
    key = evaluate_view.set_key(questions)
    assert key == evaluate_view.set_key(make_set())
    changed = QuestionSet(questions.name, questions.questions, {**questions.documents, "light.md": OTHER + "x"})
    assert evaluate_view.set_key(changed) != key


def test_holders_far_apart_are_drawn_alone_with_the_chunks_between_named() -> None:
    """An answer in two places shows the two holder chunks, not every chunk between them."""
    tide, fuel = "High tide is at noon.", "Diesel is sold at the south pontoon"
    record = question("m1", "harbour.md", "When is high tide and where is diesel?", tide, "multi_span")
    start = DOC.index(fuel)
    record["references"] = [
        *record["references"],  # type: ignore[misc]
        {"content": fuel, "start_index": start, "end_index": start + len(fuel)},
    ]
    questions = read_question_set(json.dumps(record), "jsonl", {"harbour.md": DOC})
    run = evaluate_view.run_engine(
        questions, chunker.ChunkOptions(target=16, hard_cap=16), get_retriever("bm25"), "markdown", parse, repack
    )
    result = run.evaluation.results[0]
    holders = sorted(result.holders)
    assert holders[1] - holders[0] > 2, "the fixture puts chunks between the two answers"
    source = evaluate_view.miss_detail(run, result).source
    assert source is not None
    assert source.count('class="ci-chunk') == len(holders)
    assert f"⋯ {run.chunk(holders[0] + 1).id}–{run.chunk(holders[1] - 1).id} not shown" in source


def test_a_chroma_csv_upload_names_its_documents_by_corpus_id() -> None:
    import csv
    import io

    excerpt = "Diesel is sold at the south pontoon"
    start = DOC.index(excerpt)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["question", "references", "corpus_id"])
    references = [{"content": excerpt, "start_index": start, "end_index": start + len(excerpt)}]
    writer.writerow(["Where is diesel sold?", json.dumps(references), "harbour"])
    questions = evaluate_view.read_upload("questions_df.csv", out.getvalue().encode(), {"harbour.md": DOC})
    assert [(q.id, q.document) for q in questions.questions] == [("1", "harbour.md")]


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("big.jsonl", b" " * (evaluate_view.MAX_SET_BYTES + 1), r"big\.jsonl is 20,000,001 bytes; the app takes"),
        ("deep.jsonl", b"[" * 100_000, r"deep\.jsonl: line 1: not JSON \(nested too deeply\)"),
        ("wide.csv", b'question,references,corpus_id\n"' + b"x" * 200_000 + b'",[],a\n', r"wide\.csv: .*non-empty"),
    ],
)
def test_an_upload_the_reader_cannot_take_is_refused_in_one_line(name: str, data: bytes, message: str) -> None:
    """Over the app's size limit, JSON nested past the parser's depth, a CSV field past the csv module's default
    limit (read, then refused for its empty references): each a QuestionSetError (the page shows one line)."""
    with pytest.raises(QuestionSetError, match=message) as caught:
        evaluate_view.read_upload(name, data, {"harbour.md": DOC})
    assert "\n" not in str(caught.value)
    assert evaluate_view.upload_too_large(name, len(data)) is None or name == "big.jsonl"


def test_the_peers_progress_names_which_peer_of_how_many_runs() -> None:
    names = ["langchain", "llamaindex"]
    assert evaluate_view.peer_progress(0, names, 768) == (0.0, "Peer 1 of 2: evaluating langchain at hard cap 768…")
    assert evaluate_view.peer_progress(1, names, 1024) == (
        0.5,
        "Peer 2 of 2: evaluating llamaindex at hard cap 1,024…",
    )


class FakeSlot:
    """Stands in for st.empty(): keeps every bar drawn, and whether it was emptied."""

    def __init__(self) -> None:
        self.drawn: list[tuple[float, str]] = []
        self.emptied = False

    def progress(self, value: float, text: str = "") -> None:
        self.drawn.append((value, text))
        self.emptied = False

    def empty(self) -> None:
        self.emptied = True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_progress_bar_draws_each_step_with_the_time_left_once_a_few_have_gone() -> None:
    slot, clock = FakeSlot(), Clock()
    with evaluate_view.ProgressBar(slot, clock) as bar:
        assert slot.drawn == []  # nothing drawn before the first step: a cached run shows no bar
        bar(0.0, "chunking *notes*.md (1 of 2)")
        for n in range(1, 5):
            clock.now += 2.0
            bar(0.1 * n, f"embedding chunks: {64 * n} of 640")
        bar(0.3, "a share that went back")  # drawn at the share reached
        emptied_while_running = slot.emptied
    assert (emptied_while_running, slot.emptied) == (False, True)
    assert slot.drawn[0] == (0.0, md_escape("chunking *notes*.md (1 of 2)"))  # escaped: the page's Markdown
    assert [text for _, text in slot.drawn[1:3]] == [
        md_escape("embedding chunks: 64 of 640"),
        md_escape("embedding chunks: 128 of 640"),
    ]
    # the time left once three steps have gone after the first: 0.3 done in 6 s, then 0.4 in 8 s
    assert [round(share, 6) for share, _ in slot.drawn] == [0.0, 0.1, 0.2, 0.3, 0.4, 0.4]
    assert slot.drawn[3][1] == md_escape("embedding chunks: 192 of 640") + " · about 15 s left"
    assert slot.drawn[4][1] == md_escape("embedding chunks: 256 of 640") + " · about 10 s left"


def test_the_progress_bar_is_emptied_when_the_run_fails() -> None:
    slot = FakeSlot()
    with pytest.raises(chunker.ChunkerError), evaluate_view.ProgressBar(slot) as bar:
        bar(0.0, "chunking")
        raise chunker.ChunkerError("a model that cannot load")
    assert slot.emptied


def test_run_engine_reports_each_document_then_every_batch_to_the_end() -> None:
    from chunk_inspector.evaluate.embedding import CallableRetriever
    from chunk_inspector.evaluate.metrics import CHUNKING_SHARE

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(len(t)), float(t.count("e")), 1.0] for t in texts]

    heard: list[tuple[float, str]] = []
    settings = chunker.ChunkOptions(target=16, hard_cap=32, min_tokens=0)
    run = evaluate_view.run_engine(
        make_set(),
        settings,
        CallableRetriever(embed, batch_size=2),
        "context",
        parse,
        repack,
        progress=lambda share, line: heard.append((share, line)),
    )
    shares, lines = [s for s, _ in heard], [line for _, line in heard]
    assert shares == sorted(shares) and shares[-1] == 1.0
    assert lines[:2] == ["chunking harbour.md (1 of 2)", "chunking light.md (2 of 2)"]
    assert heard[2] == (CHUNKING_SHARE, f"ranking {len(run.evaluation.chunks)} chunks with callable")
    n = len({c.text for c in run.evaluation.chunks})
    assert [line for line in lines if line.startswith("embedding chunks")][-1] == f"embedding chunks: {n} of {n}"


def test_a_peer_s_progress_is_its_part_of_the_bar_after_its_line() -> None:
    heard: list[tuple[float, str]] = []
    _, line = evaluate_view.peer_progress(1, ["langchain", "llamaindex"], 768)
    part = evaluate_view.peer_part(lambda s, text: heard.append((s, text)), 1, 2, line)
    assert part is not None
    part(0.5, "embedding chunks: 64 of 128")
    assert heard == [(0.75, "Peer 2 of 2: evaluating llamaindex at hard cap 768… embedding chunks: 64 of 128")]
