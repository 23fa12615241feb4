"""Products keyed by their own code: a toolchain change remakes only what it changed."""

from __future__ import annotations

import shutil
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
