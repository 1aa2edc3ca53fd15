"""Evaluate: how well the chunks retrieve (docs/evaluation.md) on a question set, at the sidebar's settings and for
the peers."""

from __future__ import annotations

import hashlib
import html
import importlib.util

import streamlit as st

import chunker
from chunk_inspector.app import cache, evaluate_view, frame, view
from chunk_inspector.app.evaluate_view import INDEXES, EngineRun
from chunk_inspector.app.view import md_escape
from chunk_inspector.evaluate.metrics import BUDGET, Contender, Evaluation, K, evaluate
from chunk_inspector.evaluate.questions import QuestionSet, QuestionSetError
from chunk_inspector.evaluate.retrievers import Retriever, get_retriever
from chunk_inspector.peers import chunkers as peers

SOURCES = ("Bundled (samples)", "Upload")
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
    data_key: str, filename: str, open_name: str, open_key: str, _data: bytes, _open_text: str
) -> tuple[str, QuestionSet]:
    """Read and checked once per (upload, open document); kept in the app's memory-bounded cache (its
    documents' texts count)."""

    def read() -> tuple[str, QuestionSet]:
        documents = evaluate_view.upload_documents(frame.SAMPLES_DIR, open_name, _open_text)
        questions = evaluate_view.read_upload(filename, _data, documents)
        return evaluate_view.set_key(questions), questions

    with st.spinner("Checking the question set…"):
        got = cache.shared().get(
            ("questions", data_key, filename, open_name, open_key), read, cache.deep_size, pin=cache.run_holder()
        )
    return got.value


@st.cache_resource(max_entries=2, show_spinner="Loading the retriever…")
def _retriever(name: str) -> Retriever:
    return get_retriever(name)


def _parse(tokenizer: str) -> evaluate_view.Parse:
    def parse(name: str, text: str) -> chunker.Document:
        return frame.parse_cached(frame.digest(text), name, tokenizer, text)

    return parse


def _repack(name: str, doc: chunker.Document, settings: chunker.ChunkOptions) -> chunker.ChunkSet:
    return frame.chunk_cached(frame.digest(doc.text), name, settings, doc)


def _engine_run(
    key: str, settings: chunker.ChunkOptions, retriever: str, index: str, _questions: QuestionSet
) -> EngineRun:
    """One evaluation per (set, settings, retriever, index), in the app's memory-bounded cache. Its documents
    and chunk sets come from that cache too: counted there, not again here, and the evaluation, which holds
    them, depends on them (evicted with any of them)."""

    def run() -> EngineRun:
        return evaluate_view.run_engine(
            _questions, settings, _retriever(retriever), INDEXES[index], _parse(settings.tokenizer_name), _repack
        )

    def size(run: EngineRun) -> int:
        return cache.deep_size(run, exclude=[*run.docs.values(), *run.chunk_sets.values(), _questions])

    chunk_keys = [frame.chunks_key(frame.digest(text), name, settings) for name, text in _questions.documents.items()]
    return (
        cache.shared()
        .get(("eval", key, settings, retriever, index), run, size, depends_on=chunk_keys, pin=cache.run_holder())
        .value
    )


def _peer_run(key: str, peer: str, hard_cap: int, target: int, retriever: str, _questions: QuestionSet) -> Evaluation:
    """A peer's evaluation, in the app's memory-bounded cache (its chunks' texts count)."""
    return (
        cache.shared()
        .get(
            ("peer-eval", key, peer, hard_cap, target, retriever),
            lambda: evaluate(_questions, Contender.of_peer(peer, hard_cap, target), _retriever(retriever)),
            lambda ev: cache.deep_size(ev, exclude=[_questions]),
            pin=cache.run_holder(),
        )
        .value
    )


@st.cache_resource(max_entries=8, show_spinner="Counting the dense model's word pieces…")
def _truncated(key: str, settings: chunker.ChunkOptions, index: str, _run: EngineRun) -> float:
    from chunk_inspector.evaluate.dense import DenseRetriever

    retriever = _retriever("dense")
    assert isinstance(retriever, DenseRetriever)
    return retriever.truncated_share([c.text for c in _run.evaluation.chunks])


def _question_set(opened: frame.Opened, source: str | None) -> tuple[str, QuestionSet] | None:
    """The chosen set (bundled or uploaded) and its key, or None after saying why there is none."""
    if source == "Upload":
        file = st.file_uploader(
            "Your question set: JSONL, or Chroma's questions_df.csv",
            type=["jsonl", "csv"],
            key="eval_upload",
            help=f"`document` names the open document ({md_escape(opened.doc.name)}) or a sample's file name; "
            "offsets index the text as read with newline=''. The format is in docs/evaluation.md §1. Up to "
            f"{evaluate_view.MAX_SET_BYTES / 1e6:.0f} MB.",
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
                hashlib.sha256(data).hexdigest(), file.name, opened.doc.name, opened.key, data, opened.doc.text
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
    source = st.segmented_control("Question set", SOURCES, key="eval_source", default=SOURCES[0], required=True)
    retriever = st.segmented_control(
        "Retriever",
        retrievers,
        key="eval_retriever",
        default="bm25",
        required=True,
        format_func=lambda name: {"bm25": "BM25", "dense": "dense (MiniLM)"}.get(name, name),
        help="BM25: word matching, fast and deterministic. Dense: sentence-transformers all-MiniLM-L6-v2 "
        "(the [dense] extra; slow on CPU, each new setting embeds every chunk again).",
    )
    index_label = st.segmented_control(
        "Indexed text",
        list(INDEXES),
        key="eval_index",
        default="markdown",
        required=True,
        help="What the retriever sees of a chunk: its markdown, or contextualize() (the breadcrumb line, then "
        "the markdown).",
    )
    installed = peers.available_peers()
    with_peers = bool(installed) and st.toggle(
        "Peers",
        True,
        key="eval_peers",
        help=f"Also evaluate the installed peer chunkers ({', '.join(installed)}) at the same hard cap. Each new "
        "setting chunks every document with each of them (a second or more).",
    )
loaded = _question_set(opened, source)
if loaded is None:
    st.session_state.pop("eval_loaded", None)
    st.stop()
key, questions = loaded
retriever = retriever or "bm25"
index_label = index_label or "markdown"
st.session_state.eval_loaded = (key, questions, retriever, index_label)  # Tune's fifth chart reads it

names = list(questions.documents)
shown_name = md_escape(opened.doc.name)
open_note = "the open document is one of them" if opened.doc.name in names else f"{shown_name} is not among them"
st.caption(
    f"**{md_escape(questions.name)}**: {len(questions.questions)} questions over {len(names)} documents "
    f"({md_escape(', '.join(names))}); {open_note}."
)

try:
    with st.spinner("Chunking, indexing and ranking…"):
        run = _engine_run(key, settings, retriever, index_label, questions)
except chunker.ChunkerError as exc:  # a dense model that cannot be loaded, options that do not fit
    st.error(md_escape(exc))
    st.stop()
ev = run.evaluation
mean = ev.mean()

cols = st.columns(6)
cols[0].metric(
    "Recall in budget", f"{mean['recall@budget']:.3f}", help=f"Chunks in rank order within {BUDGET:,} tokens"
)
cols[1].metric(f"Recall at {K}", f"{mean['recall@k']:.3f}", help=f"The top {K} chunks")
cols[2].metric("Precision in budget", f"{mean['precision@budget']:.3f}")
cols[3].metric("IoU in budget", f"{mean['iou@budget']:.3f}")
cols[4].metric(
    "Precision Ω",
    f"{mean['precision_omega']:.3f}",
    help="The precision if exactly the chunks holding the answer were retrieved",
)
cols[5].metric("Chunks", f"{len(ev.chunks):,}", help="Of all documents of the set, indexed together")

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
    share = _truncated(key, settings, index_label, run)
    st.caption(
        f"{share:.0%} of the chunks are longer than MiniLM's 256 word pieces: the model embeds them without their tail."
    )


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
    height=280,
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
if st.session_state.get("eval_question") not in by_id:
    st.session_state.eval_question = ids[0]
choice = st.selectbox("Question (misses first)", ids, format_func=_label, key="eval_question")
result = by_id[str(choice)]
detail = evaluate_view.miss_detail(run, result, view.tiny_below(settings))

q = result.question
rank = f"its answer's first chunk is at rank {result.first_rank}" if result.first_rank else "no chunk holds its answer"
st.markdown(f"**{md_escape(q.question)}**")
st.caption(
    f"{md_escape(q.id)} · {md_escape(q.document)} · {md_escape(q.kind or 'no kind')} · {rank} · "
    f"the budget took {result.in_budget} chunks · "
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
    st.markdown(f"**Retrieved within the budget** · {len(detail.retrieved)} chunks, best first")
    st.dataframe(detail.retrieved, hide_index=True, key="eval_retrieved")

if with_peers:
    evaluations, notes = [ev], []
    peer_slot.caption(f"⏳ Evaluating {', '.join(installed)} at hard cap {settings.hard_cap}…")
    for name in installed:
        try:
            evaluations.append(_peer_run(key, name, settings.hard_cap, settings.target, retriever, questions))
        except chunker.ChunkerError as exc:
            notes.append(f"⚠ {md_escape(name)}: {md_escape(exc)}")
    metrics_slot.dataframe(evaluate_view.metrics_table(evaluations), hide_index=True, column_config=scores)
    if questions.kinds():
        _kinds(evaluations)
    if notes:
        peer_slot.caption(" · ".join(notes))
    else:
        peer_slot.empty()
