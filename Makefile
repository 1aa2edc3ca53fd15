# Two commands on a fresh machine (see README): `make app` and `make test`.
# Everything they need is installed here, into .venv, from the package registries.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SAMPLE ?= sample_docs/project_readme.md

.PHONY: app test setup lint typecheck unit bench bench-corpus bench-peers golden clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

setup: $(VENV)/.installed

# The main job: for now the CLI on a bundled sample (the app takes this place later).
app: setup
	$(PY) -m chunker tree $(SAMPLE) --hard-cap 1024
	$(PY) -m chunker $(SAMPLE) --target 256 --hard-cap 512

lint: setup
	$(PY) -m ruff check chunker chunk_inspector tests benchmarks
	$(PY) -m ruff format --check chunker chunk_inspector tests benchmarks

typecheck: setup
	$(PY) -m mypy

unit: setup
	$(PY) -m pytest

test: lint typecheck unit

bench: setup
	$(PY) benchmarks/engine.py --write docs/BENCHMARKS.md

# The CLI's directory mode on the shared corpus, --jobs 1 against --jobs 2.
bench-corpus: setup
	$(PY) benchmarks/corpus_cli.py --write docs/BENCHMARKS.md

# The peer chunkers (LangChain, LlamaIndex, chonkie, semchunk, semantic-text-splitter) live in
# their own venv, never in .venv: the app and its tests must not depend on them.
PEERS_VENV := .venv-peers
$(PEERS_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(PEERS_VENV)/bin/python -m pip install --quiet -e ".[peers]"
	touch $@

bench-peers: $(PEERS_VENV)/.installed
	$(PEERS_VENV)/bin/python benchmarks/peers.py --write docs/BENCHMARKS.md

# Regenerate tests/golden/*.json after an intended change; review the diff before committing.
golden: setup
	UPDATE_GOLDEN=1 $(PY) -m pytest tests/test_golden.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
