"""The printed rate card: one A4 page, disclaimer and footer, fonts embedded, nothing fetched.

The one-page promise is tested on a realistic card (7 workloads × 40 models with long names,
reference lines, pending, withdrawn and void cells, several flagships), read back from the PDF
with two independent readers (pypdf and pdfplumber).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pdfplumber
import pytest
from pypdf import PdfReader
from weasyprint import HTML

from ledgerrate.publish.pdf import ASSETS, RefusingFetcher, render_ratecard_pdf
from ledgerrate.schema import (
    EditionManifest,
    EditionResults,
    Interval,
    Mode,
    RateLine,
    RoutingVerdict,
    WorkloadResult,
)
from ledgerrate.workloads import get
from tests.publish import card_fixture


def _manifest() -> EditionManifest:
    return EditionManifest.model_validate(
        {
            "id": "2026-07",
            "date": "2026-07-15",
            "methodology_version": "1.0",
            "window": {"opens": "2026-07-01T00:00:00Z", "closes": "2026-07-03T00:00:00Z"},
            "workloads": [{"id": "extract.invoice.v1"}],
            "models": [{"id": "ref", "name": "Reference", "provider": "baseline", "family": "-"}],
            "reference_only": True,
        }
    )


def _results(title: str = "Process 1,000 invoices") -> EditionResults:
    ci = Interval(lo=0.6, hi=0.95, method="wilson-95")
    return EditionResults(
        edition="2026-07",
        date=dt.date(2026, 7, 15),
        methodology_version="1.0",
        brand="LedgerRate",
        reference_only=True,
        bootstrap_seed=1,
        bootstrap_reps=10,
        workloads=[
            WorkloadResult(
                workload="extract.invoice.v1",
                title="Invoices",
                unit=title,
                volume=1000,
                judged=False,
                cells=[],
                cheapest_qualifying=None,
                flagship=None,
                frontier_premium=None,
                reference=RateLine(
                    model="ref",
                    model_name="Reference",
                    mode=Mode.single_shot,
                    cpo_usd=Decimal("0.00001234"),
                    rate_usd=Decimal("0.01"),
                    pass_rate=0.8,
                    pass_rate_ci=ci,
                    cost_basis="compute",
                ),
                routing=RoutingVerdict(verdict="not_applicable", reason="reference only"),
            )
        ],
    )


@pytest.fixture(scope="module")
def pdf_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pdf") / "ratecard.pdf"
    return render_ratecard_pdf(_results(), _manifest(), out)


def test_one_a4_page_with_disclaimer_and_footer(pdf_path: Path) -> None:
    reader = PdfReader(pdf_path)
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)  # A4 in points
    text = " ".join(reader.pages[0].extract_text().split())
    assert "LedgerRate · methodology v1.0 · edition 2026-07 · 2026-07-15" in text
    assert "not quotes, offers or guarantees" in text
    assert "no language model was called" in text
    assert "no model evaluated" in text


@pytest.fixture(scope="module")
def big_card(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("big") / "ratecard.pdf"
    return render_ratecard_pdf(card_fixture.shown_results(), card_fixture.manifest(), out)


def _page_words(path: Path) -> tuple[int, str]:
    with pdfplumber.open(path) as pdf:
        return len(pdf.pages), " ".join((pdf.pages[0].extract_text() or "").split())


def test_realistic_card_is_one_a4_page_with_disclaimer_and_footer_on_it(big_card: Path) -> None:
    reader = PdfReader(big_card)
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)
    pages, text = _page_words(big_card)
    assert pages == 1
    assert "not quotes, offers or guarantees" in text
    assert "LedgerRate · methodology v1.0 · edition 2027-03 · 2027-03-14" in text
    assert "Quality bar" in text
    # one line per workload, each job named, and every reason word where a line has no rate
    for workload in card_fixture.WORKLOADS:
        assert get(workload).unit in text
    for word in ("none qualifies", "awaiting judge", "withdrawn", "void"):
        assert word in text, word
    # Every rate in the job's own unit, per job and per single item, in plain dollars: a
    # sub-cent rate is never rescaled "per billion jobs".
    assert "Reference baselines" in text and "per billion" not in text
    assert "$0.000162 per job" in text and "$0.000000162 per item" in text
    assert "PROVISIONAL" not in text


def test_no_table_row_is_split_and_the_footer_is_below_the_disclaimer(big_card: Path) -> None:
    with pdfplumber.open(big_card) as pdf:
        page = pdf.pages[0]
        words = page.extract_words()
    disclaimer = next(w for w in words if w["text"] == "guarantees;")
    footer = next(w for w in words if w["text"] == "edition" and w["top"] > disclaimer["top"])
    assert footer["bottom"] <= float(page.height)
    assert disclaimer["bottom"] < footer["top"]


def test_provisional_card_says_so(tmp_path: Path) -> None:
    out = render_ratecard_pdf(
        card_fixture.shown_results(), card_fixture.manifest(), tmp_path / "p.pdf", provisional=True
    )
    pages, text = _page_words(out)
    assert pages == 1
    assert "PROVISIONAL" in text and "not a published result" in text


def test_fonts_are_embedded_and_pdf_is_tagged(pdf_path: Path) -> None:
    reader = PdfReader(pdf_path)
    fonts = reader.pages[0]["/Resources"]["/Font"]
    assert fonts
    for ref in fonts.values():
        font = ref.get_object()
        descendants = font.get("/DescendantFonts")
        descriptor = (descendants[0].get_object() if descendants else font)["/FontDescriptor"]
        assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    root = reader.trailer["/Root"]
    assert "/StructTreeRoot" in root and root["/MarkInfo"]["/Marked"]
    assert root["/Lang"] == "en"


def test_hostile_text_is_escaped_in_the_card(tmp_path: Path) -> None:
    out = render_ratecard_pdf(
        _results('<img src="http://127.0.0.1:9/x.png">Sort'), _manifest(), tmp_path / "c.pdf"
    )
    text = PdfReader(out).pages[0].extract_text()
    # Shown as text (escaped), so it appears verbatim on the page instead of being fetched.
    assert '<img src="http://127.0.0.1:9/x.png">Sort' in text.replace("\n", "")


def test_fetcher_refuses_network_and_outside_files(tmp_path: Path) -> None:
    fetcher = RefusingFetcher(ASSETS)
    secret = tmp_path / "secret.css"
    secret.write_text("body{}")
    html = (
        '<link rel="stylesheet" href="http://127.0.0.1:9/x.css">'
        f'<link rel="stylesheet" href="{secret.as_uri()}">'
        '<img src="https://example.invalid/a.png"><p>x</p>'
    )
    HTML(string=html, base_url=ASSETS.as_uri() + "/", url_fetcher=fetcher).write_pdf()
    assert "http://127.0.0.1:9/x.css" in fetcher.refused
    assert secret.as_uri() in fetcher.refused
    assert "https://example.invalid/a.png" in fetcher.refused
    allowed = fetcher.fetch((ASSETS / "ratecard.css").as_uri())
    assert allowed is not None
