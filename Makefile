# Two commands on a fresh machine: `make site` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Every Python package at the exact version it was tested with: dataset bytes (invoice PDFs)
# depend on weasyprint, pdfplumber and pdfminer, so an unpinned install could regenerate a
# different dataset and fail `verify`. `make lock` refreshes it from pyproject.toml.
LOCK   := requirements.lock
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCK) | sha256sum | cut -c1-12)
# uv installs the locks: about 2 s for the main lock from its cache, where pip took 40 to 50 s
# (the same wheels: identical versions, tags and compiled libraries, compared side by side). uv
# is itself pinned in the lock; the system's pip (`--python`, pip 22.3 or newer) puts that
# version into the new venv, which is made without pip (the lock's own pip comes with the rest).
# Like `pip --no-compile`, uv compiles no bytecode: Python compiles, and caches, only the
# modules a command or test imports.
UV_PIN := $(shell grep '^uv==' $(LOCK))
INSTALL := $(BIN)/uv pip install -q --python $(BIN)/python --no-deps

# Bytecode: a machine's image may set PYTHONDONTWRITEBYTECODE (this one does), and then every
# Python process (each test worker, each `ledgerrate`, `mkdocs` or `inspect` a test starts)
# compiles every module it imports from source again: 9 of a test collection's 18 CPU-seconds,
# 9 of a warm `make site`'s 14 s. Commands started here keep their bytecode in the venv instead,
# never beside the sources (Python checks each cached file against its source's mtime).
export PYTHONPYCACHEPREFIX := $(CURDIR)/$(VENV)/pycache
unexport PYTHONDONTWRITEBYTECODE

# The `local` extra (a self-hosted model for the slow local-server test): llama-cpp-python is
# built from source, about 12 CPU-minutes once, then cached as a wheel by uv (see below).
# Portable CPU flags: a native build can emit instructions (AMX) that a VM's kernel refuses at
# run time.
LOCAL_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
LOCAL_LOCK  := requirements-local.lock
LOCAL_STAMP := $(VENV)/.local-$(shell cat $(LOCAL_LOCK) | sha256sum | cut -c1-12)

# The `inspect` extra (Inspect AI, for the round trip `inspect eval` → `ledgerrate ingest`): its
# own lock, because Inspect (through s3fs → aiobotocore) needs python-dateutil < 3 while the main
# lock holds 4.0.0. Every other package both locks hold is constrained to the main lock's version,
# so installing the extra changes nothing that shapes a dataset's bytes.
INSPECT_LOCK  := requirements-inspect.lock
INSPECT_STAMP := $(VENV)/.inspect-$(shell cat $(INSPECT_LOCK) | sha256sum | cut -c1-12)

# The `gateway` extra (LiteLLM's proxy, for the slow test of a real gateway in front of the local
# model, tests/run/test_gateway.py): its own lock, resolved with every package the other three
# locks hold constrained to their versions (python-dateutil as the inspect lock has it, which
# boto3 needs in both), so installing it beside them changes none of them. About 35 packages of
# its own, 2 to 3 s from uv's cache; the proxy starts in about 12 s.
GATEWAY_LOCK  := requirements-gateway.lock
GATEWAY_STAMP := $(VENV)/.gateway-$(shell cat $(GATEWAY_LOCK) | sha256sum | cut -c1-12)


# The benchmarks' extra (DuckDB, for benchmarks/results_vs_duckdb.py): a lock of its own, one
# package without dependencies; `make test` does not need it.
BENCH_LOCK  := requirements-bench.lock
BENCH_STAMP := $(VENV)/.bench-$(shell cat $(BENCH_LOCK) | sha256sum | cut -c1-12)

.PHONY: site test test-fast lint lock deps local inspect gateway bench clean

$(STAMP): pyproject.toml $(LOCK)
	bash scripts/install-system-deps.sh site
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	test -x $(BIN)/uv || $(PYTHON) -m pip --python $(BIN)/python install -q --no-deps $(UV_PIN)
	$(INSTALL) -r $(LOCK)
	$(INSTALL) --no-build-isolation -e .
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

deps: $(STAMP)

site: $(STAMP)
	$(BIN)/ledgerrate build --editions editions --out build
	@echo "preview: $(BIN)/mkdocs serve, or python3 -m http.server -d build/site 8000 and open http://127.0.0.1:8000/"

# Offline first: uv keeps a wheel it built under the cache revision of the source it built it
# from, and a new download of that source (when uv's cached response for it has gone stale)
# starts a new revision without the wheel. Here one `make lock` and then one install each did,
# and that install built llama.cpp again (8 minutes). Offline, uv installs what it already holds;
# only when it lacks something (a new machine, a new pin) does the online install run.
$(LOCAL_STAMP): $(STAMP) $(LOCAL_LOCK)
	CMAKE_ARGS="$(LOCAL_CMAKE)" $(INSTALL) --offline -r $(LOCAL_LOCK) 2>/dev/null || \
		CMAKE_ARGS="$(LOCAL_CMAKE)" $(INSTALL) -r $(LOCAL_LOCK)
	rm -f $(VENV)/.local-*
	touch $(LOCAL_STAMP)

local: $(LOCAL_STAMP)

$(INSPECT_STAMP): $(STAMP) $(INSPECT_LOCK)
	$(INSTALL) -r $(INSPECT_LOCK)
	rm -f $(VENV)/.inspect-*
	touch $(INSPECT_STAMP)

inspect: $(INSPECT_STAMP)

$(GATEWAY_STAMP): $(STAMP) $(GATEWAY_LOCK)
	$(INSTALL) -r $(GATEWAY_LOCK)
	rm -f $(VENV)/.gateway-*
	touch $(GATEWAY_STAMP)

gateway: $(GATEWAY_STAMP)

$(BENCH_STAMP): $(STAMP) $(BENCH_LOCK)
	$(INSTALL) -r $(BENCH_LOCK)
	rm -f $(VENV)/.bench-*
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)

# Test groups are handed out longest first (tests/conftest.py ranks them); xdist would otherwise
# reorder them by their number of tests. Lint runs beside the tests: mypy has no cache in a
# fresh clone (about 12 CPU-seconds), and the tests leave a core idle near their end. Its output
# is shown after theirs, and either failing fails the target.
# Not `$(MAKE) lint` inside the test recipe: make runs a line naming $(MAKE) even under -n.
LINT := $(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/lint-imports && \
	$(BIN)/mypy ledgerrate
# The slowest tests are listed after each run: where the suite's wall time goes. PYTEST_ARGS
# adds to it (e.g. `make test PYTEST_ARGS='-m "not slow"'`, as benchmarks/suite_time.py does to
# split the suite's time); CI sets none.
PYTEST_ARGS ?=
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadgroup --no-loadscope-reorder -q --durations=15 \
	$(PYTEST_ARGS)
LINT_LOG := $(VENV)/lint.log

test: $(STAMP) $(LOCAL_STAMP) $(INSPECT_STAMP) $(GATEWAY_STAMP)
	bash scripts/install-system-deps.sh test
	@( $(LINT) ) > $(LINT_LOG) 2>&1 & lint=$$!; \
	$(PYTEST); tests=$$?; \
	wait $$lint; linted=$$?; cat $(LINT_LOG); \
	if [ $$linted -ne 0 ]; then echo "make lint failed (above)"; fi; \
	[ $$tests -eq 0 ] && [ $$linted -eq 0 ]

test-fast: $(STAMP)
	$(PYTEST) -m "not slow"

lint: $(STAMP)
	$(LINT)

# uv resolves the locks too; an existing lock's pins are kept unless the project's own
# requirements no longer allow them.
COMPILE := $(BIN)/uv pip compile -q --python $(BIN)/python --custom-compile-command "make lock"

lock: $(STAMP)
	$(COMPILE) --extra dev -o $(LOCK) pyproject.toml
	$(COMPILE) --extra dev --extra local -o $(LOCAL_LOCK) pyproject.toml
	grep -v '^python-dateutil==' $(LOCK) > $(VENV)/inspect-constraints.txt
	$(COMPILE) --extra dev --extra inspect -c $(VENV)/inspect-constraints.txt \
		-o $(INSPECT_LOCK) pyproject.toml
	grep -hE '^[A-Za-z0-9_.-]+==' $(LOCK) $(INSPECT_LOCK) $(LOCAL_LOCK) | \
		grep -v '^python-dateutil==' | sort -u > $(VENV)/gateway-constraints.txt
	$(COMPILE) --extra gateway -c $(VENV)/gateway-constraints.txt -o $(GATEWAY_LOCK) pyproject.toml

clean:
	rm -rf build .pytest_cache .ruff_cache .mypy_cache
