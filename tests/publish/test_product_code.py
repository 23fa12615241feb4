"""Products keyed by their own code: a toolchain change remakes only what it changed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ledgerrate.publish import product_code
from ledgerrate.publish.cache import PACKAGE, BuildCache
from ledgerrate.publish.render import render_into
from tests.publish.factory import private_reference_edition

WORKLOAD = "triage.ap-inbox.v1"


@pytest.fixture(scope="module")
def editions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return private_reference_edition(tmp_path_factory, "e-code", [WORKLOAD]).parent


def test_every_module_and_file_named_exists() -> None:
    for kind, spec in product_code.PRODUCTS.items():
        for module in spec.modules:
            assert product_code.module_path(module, PACKAGE) is not None, (kind, module)
        for rel in (*spec.site, *(f"../{tree}" for tree in spec.trees)):
            assert (PACKAGE / "site" / rel).exists(), (kind, rel)


def test_a_lazy_import_inside_a_function_is_part_of_the_code() -> None:
    # The rate card's renderer imports weasyprint only when a PDF is laid out.
    made = product_code.code_files("ratecard", PACKAGE)
    assert PACKAGE / "publish" / "pdf.py" in made.files
    assert "weasyprint" in made.imported
    gzip = product_code.code_files("gzip", PACKAGE).files
    assert PACKAGE / "publish" / "log_gzip.py" in gzip
    assert PACKAGE / "publish" / "pdf.py" not in gzip


def _edit(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_a_code_change_remakes_only_the_products_made_by_that_code(
    editions: Path, tmp_path: Path
) -> None:
    """The keys are taken from a copy of the package, edited between builds the way an upgrade
    of the toolchain changes it: a page template, a drill-down template, the gzip code, the
    rate card's PDF code."""
    package = tmp_path / "ledgerrate"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    store = tmp_path / "cache"

    def build(name: str) -> tuple[dict[str, int], dict[str, int]]:
        cache = BuildCache.open(store, index=tmp_path / name / "digests.json")
        cache.package = package
        render_into(editions, tmp_path / name / "docs", cache=cache)
        cache.save()
        return cache.misses, cache.hits

    made, _ = build("cold")
    assert set(made) - {"dataset"} <= set(product_code.PRODUCTS), "a kind keyed by no code"
    assert made["drilldown"] == 1 and made["gzip"] >= 2 and made["ratecard"] == 1
    assert build("again")[0] == {}
    # A page template: the pages are rendered again by every build; no product is remade.
    _edit(package / "site" / "templates" / "edition.md.j2", "{# reworded #}\n")
    misses, hits = build("page-template")
    assert misses == {}
    assert hits["drilldown"] == made["drilldown"] and hits["gzip"] == made["gzip"]
    # The drill-down's template: its pages, and nothing else.
    _edit(package / "site" / "templates" / "run_cell.html.j2", "{# reworded #}\n")
    assert build("drilldown-template")[0] == {
        "drilldown": made["drilldown"],
        "drilldown-items": made["drilldown-items"],
    }
    # The gzip code: every gzip, and nothing else.
    _edit(package / "publish" / "log_gzip.py", "# faster\n")
    assert build("gzip-code")[0] == {"gzip": made["gzip"]}
    # The PDF code: the rate card (the board packs are the workloads' own renderer).
    _edit(package / "publish" / "pdf.py", "# kerning\n")
    assert build("pdf-code")[0] == {"ratecard": 1}


def test_imports_remembered_by_a_build_are_read_again_from_a_changed_module(
    tmp_path: Path,
) -> None:
    """A build remembers each module's imports by the digest of its source: the next one,
    after an upgrade added an import to one module, reads that module again and finds the
    module it now reaches, and no kind's key differs from a scan that remembered nothing."""
    package = tmp_path / "ledgerrate"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    index = tmp_path / "state" / "digests.json"

    def codes() -> dict[str, str]:
        cache = BuildCache.open(tmp_path / "cache", index=index)
        cache.package = package
        found = {kind: cache.code(kind) for kind in product_code.PRODUCTS}
        cache.save()
        return found

    before = codes()
    gzip = package / "publish" / "log_gzip.py"
    assert package / "core" / "usd.py" not in product_code.code_files("gzip", package).files
    _edit(gzip, "\n\ndef later():\n    from ledgerrate.core import usd\n")
    after = codes()
    scanned = product_code.Scanner(package)
    assert package / "core" / "usd.py" in scanned.code_files("gzip").files
    fresh = BuildCache.open(tmp_path / "cache", index=tmp_path / "other" / "digests.json")
    fresh.package = package
    assert after == {kind: fresh.code(kind) for kind in product_code.PRODUCTS}
    assert after["gzip"] != before["gzip"]
    assert after["ratecard"] == before["ratecard"]


TYPE_ONLY = """
import typing
from typing import TYPE_CHECKING

from ledgerrate.core import hashing

if TYPE_CHECKING:
    import pandas

    from ledgerrate.metrics.report import edition_results
else:
    from ledgerrate.core import io
if typing.TYPE_CHECKING:
    from ledgerrate.metrics import compute
if not TYPE_CHECKING:
    from ledgerrate.core import usd
if TYPE_CHECKING and hashing:
    from ledgerrate.core import edition


def lazy():
    if TYPE_CHECKING:
        from ledgerrate.metrics import load
    from ledgerrate.publish import pdf
"""


def test_an_import_only_type_checkers_read_is_not_part_of_the_code() -> None:
    internal, external = product_code._imports(TYPE_ONLY.encode(), "ledgerrate.publish")
    # What runs: the plain imports, the `else` of a type-checking test, any other test, a lazy
    # import inside a function.
    for runs in ("core.hashing", "core.io", "core.usd", "core.edition", "publish.pdf"):
        assert f"ledgerrate.{runs}" in internal, runs
    # What only a type checker reads, at the top or inside a function.
    assert not [name for name in internal if name.startswith("ledgerrate.metrics")]
    assert "pandas" not in external


def test_the_drilldown_names_the_editions_type_without_importing_the_figures_code() -> None:
    source = (PACKAGE / "publish" / "drilldown.py").read_bytes()
    internal, _ = product_code._imports(source, "ledgerrate.publish")
    assert "ledgerrate.publish.load" not in internal
    assert "ledgerrate.publish.card" in internal  # its statements are on every cell page


# Each kind's modules imported in a process forked from one that has loaded only the
# third-party libraries they import (so each child pays for its own `ledgerrate` modules alone):
# the `ledgerrate` modules that importing them runs.
LOADED = """
import importlib, json, os, sys
kinds, libraries = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for name in libraries:
    try:
        importlib.import_module(name)
    except ImportError:
        pass  # an optional library: a child that needs it fails and says so
assert not [n for n in sys.modules if n.startswith("ledgerrate")]
found = {}
for kind, modules in kinds.items():
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        for name in modules:
            importlib.import_module(name)
        loaded = [m.__file__ for n, m in list(sys.modules.items())
                  if n.startswith("ledgerrate") and getattr(m, "__file__", None)]
        os.write(write, json.dumps(loaded).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        found[kind] = json.loads(pipe.read())
    os.wait()
print(json.dumps(found))
"""


def test_every_module_that_runs_when_a_kinds_code_is_imported_is_in_its_key() -> None:
    """The scan leaves out only what never runs: each module that importing a kind's modules
    loads is in its key (but the modules another kind owns, which it leaves out on purpose)."""
    specs = product_code.PRODUCTS
    kinds = {",".join(spec.modules): list(spec.modules) for spec in specs.values()}
    libraries = sorted({n for k in specs for n in product_code.code_files(k, PACKAGE).imported})
    done = subprocess.run(
        [sys.executable, "-c", LOADED, json.dumps(kinds), json.dumps(libraries)],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parent,
    )
    loaded = json.loads(done.stdout)
    owned = {product_code.module_path(m, PACKAGE) for spec in specs.values() for m in spec.own}
    for kind, spec in specs.items():
        mine = {product_code.module_path(module, PACKAGE) for module in spec.own}
        key = set(product_code.code_files(kind, PACKAGE).files)
        missing = {Path(p) for p in loaded[",".join(spec.modules)]} - key - (owned - mine)
        assert not missing, (kind, sorted(str(p) for p in missing))
