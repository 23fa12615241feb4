"""The card says what is true of its edition: each line's own n and a short sample's reason
once; "changed" only for an erratum that changed a figure; the PDF cites its errata, says where
the site is, and explains every word it uses for a missing rate."""

from __future__ import annotations

import html
import io
from pathlib import Path

import pdfplumber
import pytest

from ledgerrate.core.io import load_model
from ledgerrate.publish.card import LEGEND, RateCard, rate_card
from ledgerrate.publish.load import Edition, load_edition
from ledgerrate.publish.pages import make_env, render_home
from ledgerrate.publish.pdf import ratecard_pdf
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.site import build_site_model
from ledgerrate.schema import EditionResults

BUNDLED = Path(__file__).resolve().parents[2] / "editions"


def _edition(edition_id: str) -> Edition:
    return load_edition(
        BUNDLED / edition_id, lambda root: load_model(EditionResults, root / "results.json")
    )


def _card(edition: Edition, site_url: str | None = None) -> RateCard:
    return rate_card(edition.results, edition.manifest, errata=edition.errata, site_url=site_url)


def _pdf(card: RateCard) -> str:
    with pdfplumber.open(io.BytesIO(ratecard_pdf(card))) as pdf:
        assert len(pdf.pages) == 1
        return " ".join((pdf.pages[0].extract_text() or "").split())


def _bare(text: str) -> str:
    return "".join(text.split())


@pytest.fixture(scope="module")
def december() -> Edition:
    return _edition("2026-12")


@pytest.fixture(scope="module")
def home(december: Edition, tmp_path_factory: pytest.TempPathFactory) -> str:
    docs = tmp_path_factory.mktemp("docs")
    render_home(make_env(TEMPLATES), build_site_model([december], {"1.0"}), docs)
    return html.unescape((docs / "index.md").read_text("utf-8"))


def test_each_line_states_its_own_n_and_the_short_reason_is_said_once(
    december: Edition, home: str
) -> None:
    card = _card(december)
    ns = {line.workload: line.n for line in card.lines}
    registered = {w.id: w.n for w in december.manifest.workloads}
    assert ns == registered and set(ns.values()) == {5, 15}
    assert "at least 4 of 5 where a job ran n = 5, 12 of 15 where a job ran n = 15" in home
    assert "n = 15 items per cell" not in home  # the card ran two sizes, never one
    for workload, n in ns.items():
        assert f"{workload} · n = {n}" in home.replace("&#45;", "-")
    reason = next(w.n_reason for w in december.manifest.workloads if w.n_reason)
    assert home.count(reason) == 1
    text = _pdf(card)
    assert "n = 15 items per cell" not in text
    assert _bare(reason) in _bare(text) and _bare(text).count(_bare(reason)) == 1
    assert "extract.invoice.v2 · n = 5" in text


def test_only_an_erratum_that_changed_a_figure_is_called_a_correction(home: str) -> None:
    corrected = home[home.index("**Corrected.**") :].split("\n")[0]
    disclosed = home[home.index("**Disclosed.**") :].split("\n")[0]
    assert "2026-12-01-12" in corrected and "2026-12-02-2" in corrected
    assert "2026-12-02-1" not in corrected and "2026-12-02-1" in disclosed


def test_regrades_that_moved_nothing_are_disclosures(tmp_path: Path) -> None:
    edition = _edition("2026-11-b")
    docs = tmp_path / "docs"
    docs.mkdir()
    render_home(make_env(TEMPLATES), build_site_model([edition], {"1.0"}), docs)
    page = html.unescape((docs / "index.md").read_text("utf-8"))
    # Every 2026-11-b erratum re-derived its figures and found them as first published.
    assert "**Corrected.**" not in page
    disclosed = page[page.index("**Disclosed.**") :].split("\n")[0]
    for erratum in ("2026-12-01-3", "2026-12-01-7", "2026-12-01-8", "2026-12-01-11"):
        assert erratum in disclosed


def test_the_pdf_cites_its_errata_and_the_site(december: Edition) -> None:
    text = _pdf(_card(december, "https://ledgerrate.example/"))
    assert "Corrected after publication by erratum 2026-12-01-12" in text
    assert "Disclosed, no figure changed: erratum 2026-12-02-1" in text
    # A long address may wrap at a slash: the words are compared without the layout's spaces.
    assert _bare("https://ledgerrate.example/editions/2026-12/") in _bare(text)
    assert _bare("editions/2026-12/ on the LedgerRate site") in _bare(_pdf(_card(december)))


@pytest.mark.parametrize("edition_id", ["2026-11", "2026-11-b", "2026-12"])
def test_every_word_a_card_uses_for_a_missing_rate_is_in_its_legend(edition_id: str) -> None:
    card = _card(_edition(edition_id))
    used = {line.rate_status for line in card.lines} | {line.flagship_status for line in card.lines}
    used |= {r.status for r in card.references}
    words = {u.split(":")[0] for u in used if u}
    assert words and words <= set(LEGEND)
    text = _bare(_pdf(card))
    for word in words:
        assert _bare(f"{word}: {LEGEND[word]}") in text, word
    if edition_id == "2026-11":
        assert "no model evaluated" in words


def test_the_card_csv_has_reasons_exact_decimals_and_reference_rows(december: Edition) -> None:
    import csv

    from ledgerrate.publish.tables import _workloads_csv

    card = _card(december)
    rows = list(csv.DictReader(io.StringIO(_workloads_csv(december.results, card).decode())))
    lines = [r for r in rows if r["line"] in ("cheapest_qualifying", "flagship")]
    assert len(lines) == 2 * len(card.lines)
    # A line without a rate says why, in the card's own words.
    assert {r["reason"] for r in lines if r["line"] == "cheapest_qualifying"} == {"none qualifies"}
    assert {r["reason"] for r in lines if r["line"] == "flagship"} == {"no flagship named"}
    refs = {r["workload"]: r for r in rows if r["line"] == "reference"}
    assert set(refs) == {w.workload for w in december.results.workloads}
    invoice = refs["extract.invoice.v2"]
    # The exact decimal, per item and per the card's volume (1,000), never rounded to cents.
    assert (invoice["cpo_usd"], invoice["rate_usd"]) == ("0.000000156625", "0.000156625")
    assert invoice["model"] == "reference" and invoice["pass_rate"] == "0.4"
    assert refs["triage.ap-inbox.v1"]["reason"] == "no successful outcome"
    assert refs["generate.variance-commentary.v1"]["reason"] == "awaiting judge"


def test_a_priced_line_fills_model_rate_and_premium() -> None:
    import csv

    from ledgerrate.publish.tables import _workloads_csv
    from tests.publish import card_fixture

    results = card_fixture.shown_results()
    card = rate_card(results, card_fixture.manifest())
    rows = list(csv.DictReader(io.StringIO(_workloads_csv(results, card).decode())))
    invoice = next(w for w in results.workloads if w.workload == "extract.invoice.v2")
    assert invoice.cheapest_qualifying is not None and invoice.frontier_premium is not None
    cheapest, flagship = (
        next(r for r in rows if r["workload"] == "extract.invoice.v2" and r["line"] == line)
        for line in ("cheapest_qualifying", "flagship")
    )
    assert cheapest["model"] == invoice.cheapest_qualifying.model and cheapest["reason"] == ""
    assert cheapest["rate_usd"] == format(
        (invoice.cheapest_qualifying.cpo_usd * 1000).normalize(), "f"
    )
    assert float(flagship["premium"]) == invoice.frontier_premium


def test_self_judging_is_disclosed_on_the_card_pdf_and_workload_pages(
    december: Edition, home: str, tmp_path: Path
) -> None:
    from ledgerrate.publish.pages import render_workload

    card = _card(december)
    assert card.self_judged is not None
    said = "is SmolLM2-135M-Instruct (local, Q4_1), one of the models this edition evaluates"
    assert said in card.self_judged.text
    assert "**Self-judged.**" in home and said in home
    assert _bare(said) in _bare(_pdf(card))
    docs = tmp_path / "docs"
    render_workload(
        make_env(TEMPLATES),
        build_site_model([december], {"1.0"}),
        "generate.variance-commentary.v1",
        docs,
    )
    page = html.unescape(
        (docs / "workloads" / "generate.variance-commentary.v1" / "index.md").read_text("utf-8")
    )
    assert "**Self-judged.**" in page and said in page


def test_an_edition_judged_by_no_model_under_test_says_nothing_of_it() -> None:
    card = _card(_edition("2026-11"))
    assert card.self_judged is None


def test_one_money_unit_on_the_page_the_pdf_and_the_calculator(
    december: Edition, home: str
) -> None:
    """$156.6 per million jobs, $156.6 per billion outcomes and $0.000157 were one figure: now
    the job's own unit everywhere, per job at the card's volume and per single item."""
    # extract.invoice.v2's reference baseline: CPO $0.000000156625 per invoice, 1,000 a job.
    assert "$0.000157 per job" in home and "$0.000000157 per item" in home
    assert "$0.0000000367 per job" in home  # reconcile.ledger.v1: one job is one item
    card_part = home[: home.index("## Cost at my volume")]
    calculator = home[home.index("## Cost at my volume") :]
    assert "per billion" not in card_part and "per million" not in card_part
    assert "$0.000000157 per item" in calculator and "per billion" not in calculator
    text = _pdf(_card(december))
    assert "per billion" not in text and "per million" not in text
    assert "$0.000157" in text and "$0.000000157" in text


def test_plain_dollars_keep_three_significant_digits() -> None:
    from ledgerrate.core.usd import plain

    assert plain("0.000156625") == "$0.000157"
    assert plain("0.000000036696") == "$0.0000000367"
    assert plain("19.36133") == "$19.36" and plain("1215.93") == "$1,216" and plain(0) == "$0"


def test_a_workload_page_shows_its_results_before_its_definition(
    december: Edition, tmp_path: Path
) -> None:
    from ledgerrate.publish.pages import render_workload

    docs = tmp_path / "docs"
    render_workload(
        make_env(TEMPLATES), build_site_model([december], {"1.0"}), "extract.invoice.v2", docs
    )
    page = (docs / "workloads" / "extract.invoice.v2" / "index.md").read_text("utf-8")
    results = page.index("## Results by edition")
    assert results < page.index("## What the workload asks") < page.index("**Prompt template**")
    assert page.index("[what the workload asks](#what-the-workload-asks)") < results


def test_the_card_json_carries_the_same_rows_with_exact_decimals_and_reasons(
    december: Edition,
) -> None:
    import csv
    import json

    from ledgerrate.publish.tables import _workloads_csv, _workloads_json

    card = _card(december)
    data = json.loads(_workloads_json(december.results, card))
    rows = list(csv.DictReader(io.StringIO(_workloads_csv(december.results, card).decode())))
    assert len(data["lines"]) == len(rows)
    ref = next(
        r
        for r in data["lines"]
        if r["workload"] == "extract.invoice.v2" and r["line"] == "reference"
    )
    # The exact decimal, not "0.00" (a rate to the cent) and not 1.56625E-7.
    assert (ref["cpo_usd"], ref["rate_usd"]) == ("0.000000156625", "0.000156625")
    cheapest = next(r for r in data["lines"] if r["line"] == "cheapest_qualifying")
    assert cheapest["reason"] == "none qualifies" and cheapest["rate_usd"] is None
    assert [w["workload"] for w in data["workloads"]] == [
        w.workload for w in december.results.workloads
    ]
