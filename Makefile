# Two commands on a fresh machine (see README): `make app` and `make test`.
# Everything they need is installed here, into .venv, from the package registries.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501
CHROMIUM ?= /usr/bin/chromium
SOURCES := chunker chunk_inspector tests benchmarks scripts app.py pages

.PHONY: app app-with-peers browser test setup setup-app lint typecheck unit bench bench-hostile bench-app bench-corpus bench-ray bench-peers bench-churn bench-retrieval bench-retrieval-grid bench-retrieval-lead bench-app-evaluate bench-dense-moves bench-app-load bench-memory golden clean

# The [dense] extra (sentence-transformers) comes too, so its tests run; constraints-cpu.txt holds torch
# to the CPU build (~190 MB; a plain `torch` resolves to the CUDA build and ~3 GB of nvidia wheels).
# Where no local wheel has it: `make setup TORCH_INDEX=https://download.pytorch.org/whl/cpu`.
# The [ray], [langchain] and [llamaindex] extras come too, so their adapters are tested for real
# (about 0.4 GB and 25 s more; none of them pulls torch), and [ray-cluster] (Ray's dashboard and job
# client, about 75 MB and 12 s more), so that a two-node Ray cluster runs in the tests.
TORCH_INDEX ?=
$(VENV)/.installed: pyproject.toml constraints-cpu.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints-cpu.txt $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) -e ".[app,dev,dense,ray,ray-cluster,langchain,llamaindex]"
	touch $@ $(VENV)/.app-installed

setup: $(VENV)/.installed

# What the app alone needs: the engine and the [app] extra (streamlit, plotly, pandas), no torch, Ray,
# LangChain or LlamaIndex (docs/BENCHMARKS.md, "Set-up": its time and size against the test set-up's).
# A venv the test set-up made has it all already.
$(VENV)/.app-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[app]"
	touch $@

setup-app: $(VENV)/.app-installed

# The main job: the inspector app, open on sample_docs/poetry_cli.md; then visit http://localhost:$(PORT)
app: setup-app
	$(PY) -m streamlit run app.py --server.port $(PORT)

# A headless Chromium for the browser tests: Debian's package where we can install it (root, apt),
# else Playwright's own download (needs internet). Skipped when one is already there.
browser: setup
	@if [ -x "$(CHROMIUM)" ] || ls $$HOME/.cache/ms-playwright/chromium-* >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		(apt-get install -y -qq chromium >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null)) && echo "installed $(CHROMIUM)"; \
	else $(PY) -m playwright install chromium; fi

lint: setup
	$(PY) -m ruff check $(SOURCES)
	$(PY) -m ruff format --check $(SOURCES)

typecheck: setup
	$(PY) -m mypy

unit: setup browser
	$(PY) -m pytest

test: lint typecheck unit

bench: setup
	$(PY) benchmarks/engine.py --write docs/BENCHMARKS.md

# Hostile shapes (one construct repeated: 40,000-odd headings, one-word paragraphs, a long list...) at
# three sizes under every strategy, seconds per MB beside real text; BASELINE=REV adds that revision's engine.
bench-hostile: setup
	$(PY) benchmarks/hostile.py --write docs/BENCHMARKS.md $(if $(BASELINE),--baseline $(BASELINE))

# Memory per MB of text (peak and what a parsed Document keeps), a fresh process per size, beside
# markdown-it-py and tiktoken; BASELINE=REV adds the engine of that git revision (before/after).
BASELINE ?=
bench-memory: setup
	$(PY) benchmarks/memory.py --write docs/BENCHMARKS.md $(if $(BASELINE),--baseline $(BASELINE))

# A slider move in the browser on the largest sample, timed with Playwright.
bench-app: setup browser
	$(PY) benchmarks/app_slider.py --write docs/BENCHMARKS.md

# The Evaluate page: a slider move until the new recall is shown, on the largest sample with the bundled set.
bench-app-evaluate: setup browser
	$(PY) benchmarks/app_evaluate.py --write docs/BENCHMARKS.md

# A dense evaluation after a slider move, each text's embedding kept against none kept (docs/BENCHMARKS.md).
bench-dense-moves: setup
	$(PY) benchmarks/dense_moves.py --write docs/BENCHMARKS.md

# One server, 8 browser sessions at once, each uploading its own 1-5 MB document and moving the sliders for 60 s.
bench-app-load: setup browser
	$(PY) benchmarks/app_load.py --write docs/BENCHMARKS.md

# The CLI's directory mode on the shared corpus, --jobs 1 against --jobs 2.
bench-corpus: setup
	$(PY) benchmarks/corpus_cli.py --write docs/BENCHMARKS.md

# The same corpus through --jobs 1, --jobs 2, --ray (a local Ray) and --ray ADDRESS (a two-node Ray cluster
# started on this machine for the run): throughput, each command's start-up and the cluster's, apart.
bench-ray: setup
	$(PY) benchmarks/ray_corpus.py --write docs/BENCHMARKS.md

# The peer chunkers (LangChain, LlamaIndex, chonkie, semchunk, semantic-text-splitter) live in
# their own venv: the app and its tests must not depend on them. (.venv has LangChain's and
# LlamaIndex's splitter packages too, for the [langchain] and [llamaindex] adapters' tests, so the
# app run from .venv offers those two peers; nothing requires them.)
PEERS_VENV := .venv-peers
$(PEERS_VENV)/.installed: pyproject.toml constraints-cpu.txt
	$(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PEERS_VENV)/bin/python -m pip install --quiet -c constraints-cpu.txt -e ".[app,peers,dense]"
	touch $@

bench-peers: $(PEERS_VENV)/.installed
	$(PEERS_VENV)/bin/python benchmarks/peers.py --write docs/BENCHMARKS.md

# Churn: the share of tokens re-embedded when a document changes a little (benchmarks/revisions: 120 real
# revision pairs), every strategy and peer at hard caps 256, 512 and 1024.
bench-churn: $(PEERS_VENV)/.installed
	$(PEERS_VENV)/bin/python benchmarks/churn.py --write docs/BENCHMARKS.md

# Retrieval quality (EVAL.md) on the shared question sets: the engine and the peers, BM25 and MiniLM.
bench-retrieval: $(PEERS_VENV)/.installed
	$(PEERS_VENV)/bin/python benchmarks/retrieval.py --write docs/BENCHMARKS.md --retrievers bm25
	$(PEERS_VENV)/bin/python benchmarks/retrieval.py --write docs/BENCHMARKS.md --retrievers dense --sets markdown \
		--caps 256,512 --default-strategy-only
	$(PEERS_VENV)/bin/python benchmarks/retrieval.py --write docs/BENCHMARKS.md --retrievers dense --sets markdown \
		--caps 1024 --default-strategy-only
	$(PEERS_VENV)/bin/python benchmarks/retrieval.py --write docs/BENCHMARKS.md --retrievers dense --sets chroma \
		--default-strategy-only

# Which settings for which retriever: recall over target × hard cap on the Markdown question sets (each and
# pooled), the peers at each cap, the engine's defaults against each peer, paired (docs/evaluation.md).
bench-retrieval-grid: $(PEERS_VENV)/.installed
	$(PEERS_VENV)/bin/python benchmarks/retrieval_grid.py --write docs/BENCHMARKS.md --retrievers bm25
	$(PEERS_VENV)/bin/python benchmarks/retrieval_grid.py --write docs/BENCHMARKS.md --retrievers dense --sets pooled
	$(PEERS_VENV)/bin/python benchmarks/retrieval_grid.py --write docs/BENCHMARKS.md --retrievers dense --sets markdown
	$(PEERS_VENV)/bin/python benchmarks/retrieval_grid.py --write docs/BENCHMARKS.md --retrievers dense --sets more

# The retrieval goal at the defaults (docs/evaluation.md): the engine against every peer at hard cap 1024 on the
# pooled Markdown questions, with MiniLM and with BM25, paired per question; printed, written into BENCHMARKS by hand.
bench-retrieval-lead: $(PEERS_VENV)/.installed
	$(PEERS_VENV)/bin/python benchmarks/retrieval_lead.py --retriever dense
	$(PEERS_VENV)/bin/python benchmarks/retrieval_lead.py --retriever bm25

# The app with the peers installed: the Compare page offers them as a third column.
app-with-peers: $(PEERS_VENV)/.installed
	$(PEERS_VENV)/bin/python -m streamlit run app.py --server.port $(PORT)

# Regenerate tests/golden/*.json after an intended change; review the diff before committing.
golden: setup
	UPDATE_GOLDEN=1 $(PY) -m pytest tests/test_golden.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
