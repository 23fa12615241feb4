"""The PDF rate card of an edition whose only language models run on the operator's machine says
so, in the words its web pages use: reference baselines beside a real model served locally, its
cost an assumed instance price. Read back from the PDF with pdfplumber."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest

from ledgerrate.core.io import load_model
from ledgerrate.publish.card import local_model_statement
from ledgerrate.publish.load import load_edition
from ledgerrate.publish.pdf import render_ratecard_pdf
from ledgerrate.schema import EditionManifest, EditionResults, LocalServer
from ledgerrate.workloads import get
from tests.publish import card_fixture

BUNDLED = Path(__file__).resolve().parents[2] / "editions"


def _words(path: Path) -> tuple[int, str]:
    with pdfplumber.open(path) as pdf:
        text = " ".join(page.extract_text() or "" for page in pdf.pages)
        return len(pdf.pages), " ".join(text.split())


def _bare(text: str) -> str:
    # pdfplumber joins a bold run to the next word; compare without the spaces.
    return "".join(text.split())


def test_the_bundled_local_edition_card_says_it_ran_a_real_local_model(tmp_path: Path) -> None:
    edition = load_edition(
        BUNDLED / "2026-12", lambda root: load_model(EditionResults, root / "results.json")
    )
    statement = local_model_statement(edition.manifest)
    assert statement is not None
    out = render_ratecard_pdf(edition.results, edition.manifest, tmp_path / "ratecard.pdf")
    pages, text = _words(out)
    assert pages == 1
    assert _bare(statement.heading + statement.text) in _bare(text)
    assert "SmolLM2-135M-Instruct (local, Q4_1)" in text
    assert "assumed instance price" in text and "operator's own machine" in text
    assert "not quotes, offers or guarantees" in text
    assert "LedgerRate · methodology v1.0 · edition 2026-12" in text


@pytest.mark.parametrize("edition", ["2026-11", "2026-11-b"])
def test_editions_without_a_local_model_do_not_say_so(edition: str) -> None:
    manifest = load_model(EditionManifest, BUNDLED / edition / "edition.yaml")
    assert local_model_statement(manifest) is None


def _all_local(manifest: EditionManifest) -> EditionManifest:
    """The realistic card's 40 models, each served on this machine instead of hosted."""
    local = LocalServer(distribution="llm-example", file="llm_example/model.Q4_1.gguf", n_ctx=8192)
    models = [
        m
        if m.is_reference
        else m.model_copy(update={"local": local, "concurrency": 1, "api_key_env": None})
        for m in manifest.models
    ]
    return EditionManifest.model_validate(
        {**manifest.model_dump(mode="json"), "models": [m.model_dump(mode="json") for m in models]}
    )


def test_a_full_size_local_card_still_fits_with_its_statement_footer_and_disclaimer(
    tmp_path: Path,
) -> None:
    manifest = _all_local(card_fixture.manifest())
    statement = local_model_statement(manifest)
    assert statement is not None and "40 real language models" in statement.text
    out = render_ratecard_pdf(card_fixture.shown_results(), manifest, tmp_path / "big.pdf")
    with pdfplumber.open(out) as pdf:
        assert len(pdf.pages) == 1
        page = pdf.pages[0]
        words = page.extract_words()
        text = " ".join((page.extract_text() or "").split())
    assert _bare(statement.heading + statement.text) in _bare(text)
    assert "not quotes, offers or guarantees" in text
    assert "LedgerRate · methodology v1.0 · edition 2027-03 · 2027-03-14" in text
    for workload in card_fixture.WORKLOADS:  # every job's line is still on the page
        assert get(workload).unit in text, workload
    disclaimer = next(w for w in words if w["text"] == "guarantees;")
    footer = next(w for w in words if w["text"] == "edition" and w["top"] > disclaimer["top"])
    assert disclaimer["bottom"] < footer["top"] <= footer["bottom"] <= float(page.height)
