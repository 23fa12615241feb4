# Two commands on a fresh machine: `make site` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-12)

.PHONY: site test test-fast lint deps clean

$(STAMP): pyproject.toml
	bash scripts/install-system-deps.sh site
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

deps: $(STAMP)

site: $(STAMP)
	$(BIN)/ledgerrate build --editions editions --out build
	@echo "preview: python3 -m http.server -d build/site 8000, then http://127.0.0.1:8000/"

test: $(STAMP)
	bash scripts/install-system-deps.sh test
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf build .pytest_cache .ruff_cache
