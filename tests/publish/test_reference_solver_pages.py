"""The reference solver reads on the pages as what it is, in either spelling of edition.yaml:
no provider (it calls no API) and a reference solver for its API model, never a provider family
called "baseline" and never a blank."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from ledgerrate.core.layout import EditionPaths
from ledgerrate.publish.load import Edition
from ledgerrate.publish.pages import make_env, render_edition, render_model
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.site import build_site_model
from ledgerrate.schema import ModelSpec
from tests.publish import card_fixture


def _edition(root: Path, spelling: dict[str, str]) -> Edition:
    manifest = card_fixture.manifest()
    models = [
        ModelSpec.model_validate({"id": m.id, "name": m.name, "family": m.family, **spelling})
        if m.is_reference
        else m
        for m in manifest.models
    ]
    computed = card_fixture.computed_results()
    return Edition(
        paths=EditionPaths(root / card_fixture.EDITION),
        manifest=manifest.model_copy(update={"models": models}),
        pricing=None,
        registration=None,
        errata=card_fixture.errata(computed),
        seeds=None,
        cards={},
        results=card_fixture.shown_results(),
        computed=computed,
    )


@pytest.mark.parametrize(
    "spelling", [{"solver": "reference"}, {"provider": "baseline"}], ids=["new", "sealed"]
)
def test_the_reference_solver_names_no_provider(tmp_path: Path, spelling: dict[str, str]) -> None:
    edition = _edition(tmp_path / "editions", spelling)
    docs = tmp_path / "docs"
    env = make_env(TEMPLATES)
    site = build_site_model([edition], {"1.0"})
    render_edition(env, site, edition, docs)
    render_model(env, site, card_fixture.REFERENCE, docs)
    model_page = html.unescape(
        next((docs / "models" / card_fixture.REFERENCE).rglob("*.md")).read_text("utf-8")
    )
    assert "provider none (ref) · API model reference solver" in model_page
    assert "provider baseline" not in model_page and "provider  (" not in model_page
    edition_page = html.unescape(
        next((docs / "editions" / card_fixture.EDITION).rglob("index.md")).read_text("utf-8")
    )
    row = next(line for line in edition_page.splitlines() if "| none (ref) |" in line)
    assert "reference solver" in row
