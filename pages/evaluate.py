"""Evaluate: how well the chunks retrieve (docs/evaluation.md) on a question set, at the sidebar's settings and for
the peers."""

from __future__ import annotations

import hashlib
import html
import importlib.util
import os
from dataclasses import replace

import streamlit as st

import chunker
from chunk_inspector.app import cache, evaluate_view, frame, question_writer, view
from chunk_inspector.app.evaluate_view import INDEXES, EngineRun
from chunk_inspector.app.view import md_escape
from chunk_inspector.evaluate.metrics import BUDGET, Contender, Evaluation, K, evaluate
from chunk_inspector.evaluate.progress import ProgressFn
from chunk_inspector.evaluate.questions import QuestionSet, QuestionSetError
from chunk_inspector.evaluate.retrievers import Retriever, get_retriever
from chunk_inspector.peers import chunkers as peers

SOURCES = ("Bundled (samples)", "Upload", "Write your own")
_CSS = """<style>
.ev-ref { margin: 0 0 6px 0; padding: 4px 10px; border-left: 4px solid #e0b000; background: #fffbea;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; white-space: pre-wrap;
  word-break: break-word; }
.ev-ref small { color: #8a8f98; }
.ci-hl { background: rgba(255, 221, 87, .55); }
</style>"""


@st.cache_resource(max_entries=4, show_spinner="Reading the bundled question set…")
def _bundled(stamp: tuple[int, int]) -> tuple[str, QuestionSet]:
    """The bundled set and its key; ``stamp`` (mtime, size) reloads it when the file changes."""
    questions = evaluate_view.load_bundled(frame.SAMPLES_DIR)
    return evaluate_view.set_key(questions), questions


def _uploaded(
    data_key: str, filename: str, docs_key: str, _data: bytes, _documents: dict[str, str]
) -> tuple[str, QuestionSet]:
    """Read and checked once per (upload, documents at hand); kept in the app's memory-bounded cache (its
    documents' texts count)."""

    def read() -> tuple[str, QuestionSet]:
        questions = evaluate_view.read_upload(filename, _data, _documents)
        return evaluate_view.set_key(questions), questions

    with st.spinner("Checking the question set…"):
        got = cache.shared().get(
            ("questions", data_key, filename, docs_key), read, cache.deep_size, pin=cache.run_holder()
        )
    return got.value


def _sidebar_uploads() -> dict[str, str]:
    """The sidebar's uploads (all of them: the first is the open document) by name, as decoded; the ones the
    sidebar refused (it says why) are left out."""
    texts: dict[str, str] = {}
    for file in frame.sidebar_uploads():
        if file.name in texts or frame.size_error(file.name, file.size) is not None:
            continue
        try:
            texts[file.name] = frame.load_upload(file.name, file.getvalue())
        except chunker.ChunkerError:
            continue
    return texts


@st.cache_resource(max_entries=2, show_spinner="Loading the retriever…")
def _retriever(name: str, model: str | None = None) -> Retriever:
    """The retriever, a dense one's model loaded now (under this spinner), not in the middle of the run's bar."""
    retriever = get_retriever(name, model)
    if name == "dense":
        from chunk_inspector.evaluate.dense import DEFAULT_MODEL, load_model

        load_model(model or DEFAULT_MODEL)
    return retriever


def _parse(tokenizer: str) -> evaluate_view.Parse:
    def parse(name: str, text: str) -> chunker.Document:
        return frame.parse_cached(frame.digest(text), name, tokenizer, text)

    return parse


def _repack(name: str, doc: chunker.Document, settings: chunker.ChunkOptions) -> chunker.ChunkSet:
    return frame.chunk_cached(frame.digest(doc.text), name, settings, doc)


def _engine_run(
    key: str, settings: chunker.ChunkOptions, retriever: str, model: str | None, index: str, _questions: QuestionSet
) -> EngineRun:
    """One evaluation per (set, settings, retriever, index), in the app's memory-bounded cache. Its documents
    and chunk sets come from that cache too: counted there, not again here, and the evaluation, which holds
    them, depends on them (evicted with any of them). A progress bar shows while it is computed (not for a
    cached one), gone once it is."""

    def run() -> EngineRun:
        ranker = _retriever(retriever, model)
        with evaluate_view.ProgressBar(st.empty()) as bar:
            return evaluate_view.run_engine(
                _questions,
                settings,
                ranker,
                INDEXES[index],
                _parse(settings.tokenizer_name),
                _repack,
                progress=bar,
            )

    def size(run: EngineRun) -> int:
        return cache.deep_size(run, exclude=[*run.docs.values(), *run.chunk_sets.values(), _questions])

    chunk_keys = [frame.chunks_key(frame.digest(text), name, settings) for name, text in _questions.documents.items()]
    return (
        cache.shared()
        .get(("eval", key, settings, retriever, model, index), run, size, depends_on=chunk_keys, pin=cache.run_holder())
        .value
    )


def _peer_run(
    key: str,
    peer: str,
    hard_cap: int,
    target: int,
    retriever: str,
    model: str | None,
    _questions: QuestionSet,
    _progress: ProgressFn | None = None,
) -> Evaluation:
    """A peer's evaluation, in the app's memory-bounded cache (its chunks' texts count); ``_progress`` hears of
    it while it is computed."""
    return (
        cache.shared()
        .get(
            ("peer-eval", key, peer, hard_cap, target, retriever, model),
            lambda: evaluate(
                _questions,
                Contender.of_peer(peer, hard_cap, target),
                _retriever(retriever, model),
                progress=_progress,
            ),
            lambda ev: cache.deep_size(ev, exclude=[_questions]),
            pin=cache.run_holder(),
        )
        .value
    )


@st.cache_resource(max_entries=8, show_spinner="Counting the dense model's word pieces…")
def _truncated(key: str, settings: chunker.ChunkOptions, index: str, model: str | None, _run: EngineRun) -> float:
    from chunk_inspector.evaluate.dense import DenseRetriever

    retriever = _retriever("dense", model)
    assert isinstance(retriever, DenseRetriever)
    return retriever.truncated_share([c.text for c in _run.evaluation.chunks])


def _dense_model(retriever: str) -> tuple[str | None, bool] | None:
    """The dense model field and the count switch: (the model folder, None for MiniLM; whether to count with
    its tokenizer), or None after saying why the folder is refused."""
    if retriever != "dense":
        return None, False
    from chunk_inspector.evaluate.dense import DenseRetriever

    root = os.environ.get(evaluate_view.MODELS_ENV)
    with st.container(horizontal=True, vertical_alignment="bottom"):
        typed = st.text_input(
            "Your model",
            key="eval_model",
            persist_state="session",
            placeholder="all-MiniLM-L6-v2 (bundled)",
            help="The folder of a sentence-transformers model on the server's disk (it holds modules.json)"
            + (f", inside {root}" if root else "")
            + ". Nothing is downloaded: download a model first with hf download NAME --local-dir DIR.",
        )
        own_count = st.toggle(
            "Count with the model's tokenizer",
            False,
            key="eval_count_with_model",
            persist_state="session",
            help="Chunk with the model's own tokenizer.json, so the hard cap is in the word pieces it truncates at "
            "(the sidebar's tokenizer is used elsewhere).",
        )
    try:
        model = evaluate_view.model_path(typed or "", root)
        retriever_ = _retriever("dense", model)
    except chunker.ChunkerError as exc:
        st.error(md_escape(f"This model is refused: {exc}"))
        return None
    assert isinstance(retriever_, DenseRetriever)
    return model, own_count


def _question_set(opened: frame.Opened, source: str | None) -> tuple[str, QuestionSet] | None:
    """The chosen set (bundled, uploaded or written here) and its key, or None after saying why there is none."""
    documents: dict[str, str] = {}
    if source in SOURCES[1:]:
        documents = evaluate_view.upload_documents(
            frame.SAMPLES_DIR, opened.doc.name, opened.doc.text, _sidebar_uploads()
        )
    if source == SOURCES[2]:
        written = question_writer.draw(documents, opened.doc.name)
        return None if written is None else (evaluate_view.set_key(written), written)
    if source == "Upload":
        file = st.file_uploader(
            "Your question set: JSONL, or Chroma's questions_df.csv",
            type=["jsonl", "csv"],
            key="eval_upload",
            help=f"`document` names the open document ({md_escape(opened.doc.name)}), an upload's or a sample's "
            "file name; "
            "offsets index the text as read with newline=''. The format is in docs/evaluation.md §1. Up to "
            f"{view.megabytes(evaluate_view.MAX_SET_BYTES)}.",
        )
        if file is None:
            st.info(
                f"Upload a question set over the open document ({md_escape(opened.doc.name)}) or the samples, "
                "or use the bundled one."
            )
            return None
        try:
            too_large = evaluate_view.upload_too_large(file.name, file.size)
            if too_large is not None:  # refused before its bytes are read
                raise too_large
            data = file.getvalue()
            return _uploaded(
                hashlib.sha256(data).hexdigest(),
                file.name,
                evaluate_view.documents_key(documents),
                data,
                documents,
            )
        except QuestionSetError as exc:
            st.error(md_escape(f"This question set is refused: {exc}"))
            return None
    path = frame.SAMPLES_DIR / evaluate_view.BUNDLED
    try:
        stat = path.stat()
        return _bundled((stat.st_mtime_ns, stat.st_size))
    except (OSError, QuestionSetError) as exc:
        st.error(md_escape(f"The bundled question set cannot be read: {exc}"))
        return None


opened = frame.current()
if opened is None:
    st.stop()
settings = opened.settings
st.subheader("Evaluate · retrieval")
st.caption(
    f"Each question's answer is known as exact excerpts of its document. All documents of the set are chunked at "
    f"the sidebar's settings and indexed together; the retriever ranks every chunk for each question. Recall is "
    f"the share of the answer's characters in the retrieved chunks: the top {K}, or those whose tokens fit a "
    f"{BUDGET:,}-token context budget (the fair comparison across chunk sizes). Precision Ω is the best precision "
    "this chunking allows."
)

retrievers = ["bm25"] + (["dense"] if importlib.util.find_spec("sentence_transformers") else [])
with st.container(horizontal=True, vertical_alignment="bottom"):
    source = st.segmented_control(
        "Question set",
        SOURCES,
        key="eval_source",
        # back on the page, the set written here (kept even when emptied, so deleting its last row stays here)
        default=SOURCES[2] if question_writer.STATE in st.session_state else SOURCES[0],
        required=True,
        help="The bundled set over the samples, a set of your own (JSONL or Chroma's CSV), or one you write here "
        "by picking answers in the open document, your uploads or the samples.",
    )
    retriever = st.segmented_control(
        "Retriever",
        retrievers,
        key="eval_retriever",
        persist_state="session",  # as left, after another page: it went back to its default
        default="bm25",
        required=True,
        format_func=lambda name: {"bm25": "BM25", "dense": "dense"}.get(name, name),
        help="BM25: word matching, fast and deterministic. Dense: sentence-transformers, the bundled "
        "all-MiniLM-L6-v2 or your model's folder (the [dense] extra; slow on CPU, each new setting embeds every "
        "chunk again).",
    )
    index_label = st.segmented_control(
        "Indexed text",
        list(INDEXES),
        key="eval_index",
        persist_state="session",
        default="contextualize()",
        required=True,
        help="What the retriever sees of a chunk: contextualize() (the breadcrumb line, then the markdown: what "
        "the engine gives an embedder), or its markdown alone.",
    )
    installed = peers.available_peers()
    with_peers = bool(installed) and st.toggle(
        "Peers",
        True,
        key="eval_peers",
        persist_state="session",
        help=f"Also evaluate the installed peer chunkers ({', '.join(installed)}) at the same hard cap. Each new "
        "setting chunks every document with each of them (a second or more).",
    )
retriever = retriever or "bm25"
dense_choice = _dense_model(retriever)
if dense_choice is None:
    st.stop()
model, own_count = dense_choice
if own_count:
    from chunk_inspector.evaluate.dense import DEFAULT_MODEL, model_tokenizer_json

    try:
        tokenizer_json = model_tokenizer_json(model or DEFAULT_MODEL)
        settings = replace(settings, tokenizer=f"{chunker.tokens.HF_PREFIX}{tokenizer_json}")
    except chunker.ChunkerError as exc:
        st.error(md_escape(f"Cannot count with this model: {exc}"))
        st.stop()
loaded = _question_set(opened, source)
if loaded is None:
    st.session_state.pop("eval_loaded", None)
    st.stop()
key, questions = loaded
index_label = index_label or "contextualize()"
st.session_state.eval_loaded = (key, questions, retriever, index_label)  # Tune's fifth chart reads it

names = list(questions.documents)
shown_name = md_escape(opened.doc.name)
open_note = "the open document is one of them" if opened.doc.name in names else f"{shown_name} is not among them"
st.caption(
    f"**{md_escape(questions.name)}**: {len(questions.questions)} question{'s' * (len(questions.questions) != 1)} "
    f"over {len(names)} document{'s' * (len(names) != 1)} "
    f"({md_escape(', '.join(names))}); {open_note}."
)

try:
    run = _engine_run(key, settings, retriever, model, index_label, questions)
except chunker.ChunkerError as exc:  # a dense model that cannot be loaded, options that do not fit
    st.error(md_escape(frame.readable(exc)))
    st.stop()
ev = run.evaluation
mean = ev.mean()

# A row that wraps: in columns, a narrow window cut the numbers to '1…'.
metrics = st.container(horizontal=True)
metrics.metric(
    "Recall in budget", f"{mean['recall@budget']:.3f}", help=f"Chunks in rank order within {BUDGET:,} tokens"
)
metrics.metric(f"Recall at {K}", f"{mean['recall@k']:.3f}", help=f"The top {K} chunks")
metrics.metric("Precision in budget", f"{mean['precision@budget']:.3f}")
metrics.metric("IoU in budget", f"{mean['iou@budget']:.3f}")
metrics.metric(
    "Precision Ω",
    f"{mean['precision_omega']:.3f}",
    help="The precision if exactly the chunks holding the answer were retrieved",
)
metrics.metric("Chunks", f"{len(ev.chunks):,}", help="Of all documents of the set, indexed together")

# The engine's rows are drawn at once; the peers' (slower: they chunk every document from scratch at each
# new setting) fill the same tables at the end of the run, so the engine's results show first.
scores = {c: st.column_config.NumberColumn(c, format="%.3f") for c in evaluate_view.score_columns(K)}
st.markdown(f"**Chunkers** · the sidebar's settings, and the installed peers at hard cap {settings.hard_cap}")
metrics_slot = st.empty()
metrics_slot.dataframe(evaluate_view.metrics_table([ev]), hide_index=True, column_config=scores)
peer_slot = st.empty()
if not installed:
    peer_slot.caption(
        "No peer chunker is installed here; `make app-with-peers` adds them as rows at the same hard cap."
    )
elif not with_peers:
    peer_slot.caption(f"Peers off: {', '.join(installed)} are installed (the Peers switch adds them as rows).")
if retriever == "dense":
    from chunk_inspector.evaluate.dense import DenseRetriever, Window

    dense = _retriever("dense", model)
    assert isinstance(dense, DenseRetriever)
    window = Window.of(dense, settings.hard_cap, "model" if own_count else settings.tokenizer_name)
    share = _truncated(key, settings, index_label, model, run)
    st.caption(
        md_escape(f"{window.note()[0].upper()}{window.note()[1:]}")
        + f" · {share:.0%} of the chunks are longer than the window: the model embeds them without their tail."
    )
    warning = window.warning()
    if warning:
        st.warning(md_escape(f"{warning[0].upper()}{warning[1:]}."), icon="⚠️")


def _kinds(evaluations: list[Evaluation]) -> None:
    kinds = evaluate_view.kind_table(evaluations)
    kind_scores = {c: st.column_config.NumberColumn(c, format="%.3f") for c in kinds.columns[1:]}
    kinds_slot.dataframe(kinds, hide_index=True, column_config=kind_scores)


if questions.kinds():
    st.markdown("**Recall in budget per kind of question** · the number of questions of each kind in brackets")
kinds_slot = st.empty()
if questions.kinds():
    _kinds([ev])

results = evaluate_view.ordered_results(ev)
by_id = {r.question.id: r for r in results}
misses = sum(1 for r in results if r.at_budget.recall < 1)
st.markdown(
    f"**Questions** · {misses} of {len(results)} not wholly answered within the budget, misses first; "
    "first rank: the rank of the best chunk holding any of the answer. Choose a row, or a question below, to see "
    "where its answer went."
)


def _pick_from_table() -> None:
    state = st.session_state.get("eval_table")
    rows = state.selection.rows if state is not None else []
    if rows:
        st.session_state.eval_question = results[rows[0]].question.id


st.dataframe(
    evaluate_view.question_table(ev),
    hide_index=True,
    height=view.table_height(len(results), 280),
    key="eval_table",
    on_select=_pick_from_table,
    selection_mode="single-row",
    column_config={
        "question": st.column_config.TextColumn("question", width="large"),
        "recall@budget": st.column_config.NumberColumn("recall@budget", format="%.3f"),
        f"recall@{K}": st.column_config.NumberColumn(f"recall@{K}", format="%.3f"),
    },
)


def _label(qid: str) -> str:
    r = by_id[qid]
    mark = "✗" if r.at_budget.recall == 0 else ("◐" if r.at_budget.recall < 1 else "✓")
    return f"{mark} {qid} · recall {r.at_budget.recall:.2f} · {r.question.question}"


ids = [r.question.id for r in results]
# Set on every run, not only when unknown: after a run without the list (another question set chosen, then
# this one again) Streamlit keeps the question but draws the list anew at its first option unless told.
chosen = st.session_state.get("eval_question")
st.session_state.eval_question = chosen if chosen in by_id else ids[0]
choice = st.selectbox("Question (misses first)", ids, format_func=_label, key="eval_question")
result = by_id[str(choice)]
detail = evaluate_view.miss_detail(run, result, view.tiny_below(settings))

q = result.question
rank = f"its answer's first chunk is at rank {result.first_rank}" if result.first_rank else "no chunk holds its answer"
st.markdown(f"**{md_escape(q.question)}**")
st.caption(
    f"{md_escape(q.id)} · {md_escape(q.document)} · {md_escape(q.kind or 'no kind')} · {rank} · "
    f"the budget took {view.plural(result.in_budget, 'chunk')} · "
    f"recall {result.at_budget.recall:.2f} in budget, {result.at_k.recall:.2f} at {K}"
)
src_col, chunk_col = st.columns([5, 4], gap="medium")
with src_col:
    st.markdown("**The answer in the source** · reference excerpts highlighted, in the chunks holding them")
    excerpts = "".join(
        f'<blockquote class="ev-ref"><span class="ci-hl ci-ref">{html.escape(ref.content)}</span>'
        f"<small> · chars {ref.start}–{ref.end}</small></blockquote>"
        for ref in q.references
    )
    st.html(_CSS + excerpts)
    if detail.source is not None:
        st.html(detail.source)
    else:
        st.info("No chunk holds this answer (front matter, say, is not chunked unless asked).")
with chunk_col:
    if detail.holder_label is not None:
        st.markdown(f"**The chunk it fell into** · {md_escape(detail.holder_label)}")
        st.dataframe(detail.holders, hide_index=True, key="eval_holders")
        st.caption(f"Indexed as {index_label}:")
        st.code(detail.holder_text or "", language="markdown", wrap_lines=True, height=240)
    st.markdown(f"**Retrieved within the budget** · {view.plural(len(detail.retrieved), 'chunk')}, best first")
    st.dataframe(detail.retrieved, hide_index=True, key="eval_retrieved")

if with_peers:
    evaluations, notes = [ev], []
    bar = evaluate_view.ProgressBar(peer_slot)
    for done, name in enumerate(installed):
        share, line = evaluate_view.peer_progress(done, installed, settings.hard_cap)
        bar(share, line)
        part = evaluate_view.peer_part(bar, done, len(installed), line)
        try:
            evaluations.append(
                _peer_run(key, name, settings.hard_cap, settings.target, retriever, model, questions, part)
            )
        except chunker.ChunkerError as exc:
            notes.append(f"⚠ {md_escape(name)}: {md_escape(exc)}")
    metrics_slot.dataframe(evaluate_view.metrics_table(evaluations), hide_index=True, column_config=scores)
    if questions.kinds():
        _kinds(evaluations)
    if notes:
        peer_slot.caption(" · ".join(notes))
    else:
        peer_slot.empty()
