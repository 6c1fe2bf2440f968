# Dure — the two Quickstart commands are `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
DURE := $(VENV)/bin/dure
# Installs come from uv.lock (every package pinned with its hashes) through uv, itself pinned here.
UV_VERSION := 0.13.9
UV := $(VENV)/bin/uv
export UV_PROJECT_ENVIRONMENT := $(VENV)
# A portable llama.cpp build (no -march=native), so the compiled wheel runs on any x86-64 with AVX2.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF
# Tests and benchmarks keep their data apart from a user's.
TEST_ENV := DURE_DATA_DIR=$(CURDIR)/.dure-test

.PHONY: setup lock model run test bench lint clean

$(UV): Makefile
	@test -x $(PY) || python3 -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check uv==$(UV_VERSION)
	@touch $@

# The venv holds exactly what uv.lock pins (extras local and test), Dure itself editable.
# --locked: a pyproject.toml whose dependencies changed without `make lock` is refused.
# uv's cache alone first, so a new venv reuses the compiled llama-cpp-python even where the
# index sends no cache headers; then PyPI for whatever the cache lacks.
SYNC := $(UV) sync --locked --extra local --extra test
$(VENV)/.installed: pyproject.toml uv.lock $(UV)
	@echo ">>> Dure과 로컬 모델 의존성을 uv.lock대로 설치합니다."
	@echo ">>> llama-cpp-python은 PyPI에 wheel이 없어 처음 한 번 컴파일합니다 (2코어에서 약 5분)."
	@$(SYNC) --offline -q 2>/dev/null || $(SYNC)
	@touch $@

setup: $(VENV)/.installed

# After changing dependencies in pyproject.toml: re-resolve uv.lock (keeps every pin it can).
# `make lock UPGRADE=1` moves every package to the newest version pyproject.toml allows.
lock: $(UV)
	$(UV) lock $(if $(UPGRADE),--upgrade)

model: setup
	@$(DURE) models pull

# The main job: the server with the web UI on the embedded defaults, sample contracts indexed.
# Auth is off only because it listens on loopback (the server refuses otherwise).
run: model
	@$(DURE) documents add examples/contracts/*.md --kind contract
	@$(DURE) documents add examples/standard/*.md --kind standard
	DURE_SERVER__AUTH=false $(DURE) serve --host 127.0.0.1 --port 8000

test: lint model
	@bash scripts/test-deps.sh
	@DURE_LOCAL__PATH=$$($(DURE) models path) $(TEST_ENV) $(PY) -m pytest -q tests

bench: model
	DURE_LOCAL__PATH=$$($(DURE) models path) $(TEST_ENV) $(PY) -m benchmarks

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .dure-test .pytest_cache
