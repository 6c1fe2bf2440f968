# Dure — the two Quickstart commands are `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
DURE := $(VENV)/bin/dure
# A portable llama.cpp build (no -march=native), so the compiled wheel runs on any x86-64 with AVX2.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF
# Tests and benchmarks keep their data apart from a user's.
TEST_ENV := DURE_DATA_DIR=$(CURDIR)/.dure-test

.PHONY: setup model run test bench lint clean

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip wheel
	@echo ">>> Dure과 로컬 모델 의존성을 설치합니다."
	@echo ">>> llama-cpp-python은 PyPI에 wheel이 없어 처음 한 번 컴파일합니다 (2코어에서 약 5분)."
	$(PY) -m pip install --progress-bar off -e ".[local,test]"
	@touch $@

setup: $(VENV)/.installed

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
