# Every target does its own set-up and is safe to run again.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PYX    := $(wildcard src/ferrule/*.pyx)
SHELL  := /bin/bash

.PHONY: demo test test-compat test-fast test-wheel bench bench-quick peers lint build wheel clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml setup.py
	$(BIN)/python -m pip install -q -e '.[dev,test,bench,lint,wheel]'
	touch $(STAMP)

# Recompile the extensions in place whenever a .pyx is newer than its module.
build: $(STAMP)
	$(BIN)/python setup.py -q build_ext --inplace

demo: build
	source scripts/rust-env.sh && $(BIN)/ferrule demo

# Both implementations: the twin tests are parametrized over C and Python (the `twin` fixture of
# tests/conftest.py); the whole suite then runs once more with the compiled modules switched off, minus
# the live analyzer tests, where the C twin's tests (marked c_extension) are deselected.
# The live run keeps pytest's header, which names the rust-analyzer release and path it drove.
# Both runs spread the tests over the cores, up to four; a module's tests stay on one worker, so its
# shared analyzer starts once.
XDIST := -n auto --maxprocesses=4 --dist loadscope
test: build
	source scripts/rust-env.sh && $(BIN)/python -m pytest $(XDIST)
	FERRULE_NO_EXTENSIONS=1 $(BIN)/python -m pytest -q $(XDIST) -m "not live" -p no:randomly --no-c-extensions

# The live analyzer tests once more, against the older rust-analyzer release and its own standard
# library (`make test` covers the current one): the suite holds on both.
test-compat: build
	source scripts/rust-env.sh && echo "test-compat: current release (make test): $$($$RUST_ANALYZER --version) at $$RUST_ANALYZER"
	source scripts/rust-env-old.sh && echo "test-compat: older release: $$($$RUST_ANALYZER --version) at $$RUST_ANALYZER" \
	  && $(BIN)/python -m pytest $(XDIST) -m live \
	  && echo "test-compat: the live tests passed against $$($$RUST_ANALYZER --version)"

test-fast: build
	$(BIN)/python -m pytest -q -m "not live and not slow"

# Peers that pin old dependencies live in their own venv; the relay benchmark drives them from there.
PEERS_STAMP := .venv-peers/.installed-stamp
$(PEERS_STAMP):
	$(PYTHON) -m venv .venv-peers
	.venv-peers/bin/python -m pip install -q multilspy
	touch $(PEERS_STAMP)

peers: $(PEERS_STAMP)

# The README's figures: BENCH_RUNS full runs, each table's cells recorded as median and range in
# bench/results/ (then `python bench/readme_table.py` rewrites the README's table). Best on a quiet machine.
BENCH_RUNS ?= 5

bench: build peers
	source scripts/rust-env.sh && $(BIN)/python bench/run.py --runs $(BENCH_RUNS) --record

bench-quick: build peers
	source scripts/rust-env.sh && $(BIN)/python bench/run.py --quick

# The product people install: sdist, a wheel built from that sdist, and a manylinux tag.
wheel: $(STAMP)
	rm -rf dist wheelhouse
	$(BIN)/python -m build --outdir dist .
	PATH=$(BIN):$$PATH $(BIN)/auditwheel repair --wheel-dir wheelhouse dist/*.whl
	$(BIN)/twine check --strict dist/*.tar.gz wheelhouse/*.whl

# The suite against the installed wheel, in a fresh venv outside the source tree, extensions required.
test-wheel: wheel
	$(BIN)/python scripts/test_installed.py --source . --wheel wheelhouse/ferrule-*.whl --require-extensions

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	PATH=$(BIN):$$PATH $(BIN)/cython-lint src/ferrule/*.pyx src/ferrule/*.pxd src/ferrule/mcp/*.pxd

clean:
	# Cython's generated C goes; the hand-written C beside it (tracked by git) stays.
	rm -rf build dist *.egg-info src/*.egg-info src/ferrule/*.so src/ferrule/mcp/*.so .pytest_cache
	rm -f $(PYX:.pyx=.c) src/ferrule/_capture_helpers.c src/ferrule/mcp/_server_py.c

# Further targets (fuzzing, soak) live beside this file, one concern a file.
-include mk/*.mk
