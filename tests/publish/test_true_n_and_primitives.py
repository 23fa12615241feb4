"""Pages print the registered n (and its reason) instead of a hard-coded 15, and each primitive
of the frozen taxonomy has a page listing its workload versions across editions."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
import yaml

from ledgerrate.publish import load as load_mod
from ledgerrate.publish.render import render_docs
from ledgerrate.schema import EditionResults
from tests.publish.factory import WL, write_edition

REASON = "a pilot edition run on ten items to size the budget"


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("editions")
    fixtures: dict[str, EditionResults] = {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(root, "2026-07", "2026-07-01"),
    }
    manifest = root / "2026-07" / "edition.yaml"
    data = yaml.safe_load(manifest.read_text())
    data["workloads"] = [{"id": WL, "n": 10, "n_reason": REASON}]
    manifest.write_text(yaml.safe_dump(data))
    out = tmp_path_factory.mktemp("docs") / "docs"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
        render_docs(root, out)
    return out


def _read(path: Path) -> str:
    return html.unescape(path.read_text("utf-8"))


def test_home_shows_the_registered_n_and_its_reason(docs: Path) -> None:
    home = _read(docs / "index.md")
    assert "n = 10 items per cell" in home and REASON in home
    assert "n = 15" not in home


def test_workload_and_model_pages_show_each_editions_own_n(docs: Path) -> None:
    page = _read(docs / "workloads" / WL / "index.md")
    assert "n = 10 items per cell" in page and REASON in page
    # The earlier edition ran the standard's 15; its results are on a page of their own.
    assert "n = 15 items per cell" not in page
    assert f"workloads/{WL}/2026-04/index.md" in page
    earlier = _read(docs / "workloads" / WL / "2026-04" / "index.md")
    assert "n = 15 items per cell" in earlier and REASON not in earlier
    model = _read(docs / "models" / "ref" / "index.md")
    assert "n = 10 items per cell" in model and "n = 15 items per cell" in model


def test_a_page_per_primitive_lists_its_versions_across_editions(docs: Path) -> None:
    index = _read(docs / "primitives" / "index.md")
    for primitive in ("extract", "classify", "reconcile", "generate", "synthesize", "query"):
        assert f"primitives/{primitive}/index.md" in index
    extract = _read(docs / "primitives" / "extract" / "index.md")
    assert f"workloads/{WL}/index.md" in extract
    assert "editions/2026-04/index.md" in extract and "editions/2026-07/index.md" in extract
    assert "No workload version of this primitive" in _read(
        docs / "primitives" / "query" / "index.md"
    )


def test_model_page_shows_the_sampling_and_its_documented_note(docs: Path) -> None:
    """§3: "temperature 0 where supported; provider defaults otherwise, documented per model"."""
    model = _read(docs / "models" / "small" / "index.md")
    assert 'sampling {"temperature": 0} (temperature 0)' in model
