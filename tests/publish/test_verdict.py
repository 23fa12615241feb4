"""What an edition found, said in a sentence above its card on the home page and on the PDF,
true of every shape of card: a 40-model card where every job has a rate, one where none has,
one with a withdrawal, and the bundled edition whose only language model passed nothing."""

from __future__ import annotations

import html
from pathlib import Path

import pdfplumber
import pytest

from ledgerrate.core.io import load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.publish.card import NONE_QUALIFIES, WITHDRAWN, RateCard, rate_card
from ledgerrate.publish.load import Edition, load_edition
from ledgerrate.publish.pages import make_env, render_home
from ledgerrate.publish.pdf import ratecard_pdf
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.site import build_site_model
from ledgerrate.schema import EditionResults, ErrataFile
from tests.publish import card_fixture

BUNDLED = Path(__file__).resolve().parents[2] / "editions"


def _shape(shape: str) -> tuple[EditionResults, ErrataFile | None]:
    if shape == "withdrawal":
        return card_fixture.shown_results(), card_fixture.errata(card_fixture.computed_results())
    return card_fixture.computed_results(shape=shape), None


def _home(tmp_path: Path, results: EditionResults, errata: ErrataFile | None) -> str:
    root = tmp_path / card_fixture.EDITION
    root.mkdir()
    (root / "published.json").write_text("{}")  # published: the home page shows it
    edition = Edition(
        paths=EditionPaths(root),
        manifest=card_fixture.manifest(),
        pricing=None,
        registration=None,
        errata=errata,
        seeds=None,
        cards={},
        results=results,
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    render_home(make_env(TEMPLATES), build_site_model([edition], {"1.0"}), docs)
    return html.unescape((docs / "index.md").read_text("utf-8"))


def _pdf_text(card: RateCard) -> str:
    import io

    with pdfplumber.open(io.BytesIO(ratecard_pdf(card))) as pdf:
        assert len(pdf.pages) == 1
        return "".join((pdf.pages[0].extract_text() or "").split())


def _bare(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("shape", ["full", "empty", "withdrawal"])
def test_the_verdict_is_said_first_on_the_home_page_and_on_the_pdf(
    shape: str, tmp_path: Path
) -> None:
    results, errata = _shape(shape)
    card = rate_card(results, card_fixture.manifest())
    assert card.verdict is not None
    home = _home(tmp_path, results, errata)
    # Above the card's notes and its quality bar: the first thing after the title.
    assert home.index(card.verdict.finding) < home.index("**Quality bar:**")
    assert home.index(card.verdict.finding) < home.index("| Job |")
    assert _bare(card.verdict.finding) in _pdf_text(card)


def test_a_full_card_says_every_job_has_a_rate_and_who_is_cheapest() -> None:
    results = card_fixture.computed_results(shape="full")
    card = rate_card(results, card_fixture.manifest())
    assert all(line.rate for line in card.lines)
    assert card.verdict is not None
    finding = card.verdict.finding
    assert finding.startswith("Every job on this card has a rate: on each of the 7 jobs")
    assert "No model earned" not in finding and "withdrew" not in finding
    cheapest = [w.cheapest_qualifying for w in results.workloads if w.cheapest_qualifying]
    counts = {c.model_name: [x.model for x in cheapest].count(c.model) for c in cheapest}
    most = max(counts.values())
    # Whichever model leads (ties are possible), the sentence names one with the most lines.
    assert any(
        f"{name} is the cheapest qualifying model on {most} of the 7." in finding
        for name, count in counts.items()
        if count == most
    )
    assert "multiply a line's cost per item by your monthly volume" in card.verdict.next_step


def test_an_empty_card_says_no_model_earned_a_rate_with_the_counts() -> None:
    results = card_fixture.computed_results(shape="empty")
    card = rate_card(results, card_fixture.manifest())
    assert not any(line.rate for line in card.lines)
    assert card.verdict is not None
    finding = card.verdict.finding
    graded = [c for w in results.workloads for c in w.cells if not c.is_reference]
    passes, runs = sum(c.passes for c in graded), sum(c.n for c in graded)
    assert finding.startswith(
        f"No model earned a rate in this edition: the 40 language models tested passed "
        f"{passes:,} of {runs:,} graded runs; the best cell,"
    )
    best = max(c.passes for c in graded)
    assert f"passed {best} of 15, below the quality bar of 0.80." in finding
    # The models are hosted: the verdict does not say otherwise.
    assert "hosted" not in finding
    assert "not as a price" in card.verdict.next_step


def test_a_withdrawal_is_named_in_the_verdict_and_under_its_line() -> None:
    card = rate_card(card_fixture.shown_results(), card_fixture.manifest())
    assert card.verdict is not None
    finding = card.verdict.finding
    assert finding.startswith("3 of the 7 jobs on this card have a rate; the other 4 have none (")
    assert "1 withdrawn" in finding and "1 void" in finding and "1 awaiting judge" in finding
    assert f"Erratum {card_fixture.ERRATUM} withdrew the figures of 1 cell" in finding
    month_end = next(x for x in card.lines if x.workload == card_fixture.WITHDRAWN_WORKLOAD)
    # The qualifying figure itself was withdrawn: that is the line's reason.
    assert month_end.rate_status == WITHDRAWN
    assert [erratum for _, erratum in month_end.withdrawn] == [card_fixture.ERRATUM]


def test_the_bundled_local_edition_says_none_qualifies_and_footnotes_the_withdrawal(
    tmp_path: Path,
) -> None:
    edition = load_edition(
        BUNDLED / "2026-12", lambda root: load_model(EditionResults, root / "results.json")
    )
    card = rate_card(edition.results, edition.manifest)
    assert card.verdict is not None
    assert card.verdict.finding.startswith(
        "No model earned a rate in this edition: the only language model tested, "
        "SmolLM2-135M-Instruct (local, Q4_1), passed 0 of 90 graded runs; "
        "no hosted model was evaluated."
    )
    assert "Erratum 2026-12-01-12 withdrew the figures of 3 cells" in card.verdict.finding
    # Its single-shot cells scored 0/5: the reason is that none qualifies, not the withdrawal.
    assert {line.rate_status for line in card.lines} == {NONE_QUALIFIES}
    footnoted = {line.workload for line in card.lines if line.withdrawn}
    assert footnoted == {
        "extract.invoice.v2",
        "triage.ap-inbox.v1",
        "generate.variance-commentary.v1",
    }
    text = _pdf_text(card)
    note = "withdrawn: SmolLM2-135M-Instruct (local, Q4_1) (agentic) by erratum 2026-12-01-12"
    assert _bare(note) in text
    assert _bare("No model earned a rate in this edition") in text


def test_one_rated_job_reads_in_the_singular() -> None:
    results = card_fixture.computed_results(shape="empty")
    full = card_fixture.computed_results(shape="full")
    # The first job from the full card, the other six from the empty one.
    mixed = results.model_copy(update={"workloads": [full.workloads[0], *results.workloads[1:]]})
    card = rate_card(mixed, card_fixture.manifest())
    assert card.verdict is not None
    line = full.workloads[0].cheapest_qualifying
    assert line is not None
    assert card.verdict.finding == (
        "1 of the 7 jobs on this card has a rate; the other 6 have none (6 none qualifies). "
        f"Its cheapest qualifying model is {line.model_name}."
    )
