# Reliability: coverage-guided fuzzing (atheris) and the long soak of both servers.
.PHONY: fuzz fuzz-quick soak soak-quick

FUZZ_SECONDS ?= 120
ATHERIS_STAMP := $(VENV)/.atheris-stamp

$(ATHERIS_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e '.[fuzz]'
	touch $(ATHERIS_STAMP)

# Each target for FUZZ_SECONDS; inputs that crash are kept in fuzz/regressions/ (the suite replays them).
fuzz: build $(ATHERIS_STAMP)
	$(BIN)/python fuzz/run.py --seconds $(FUZZ_SECONDS)

fuzz-quick: build $(ATHERIS_STAMP)
	$(BIN)/python fuzz/run.py --seconds 15

# 1,000,000 MCP requests and 100,000 relay ops against the real rust-analyzer; RSS, fds, children.
soak: build
	source scripts/rust-env.sh && $(BIN)/python bench/soak.py

soak-quick: build
	source scripts/rust-env.sh && $(BIN)/python bench/soak.py --quick
