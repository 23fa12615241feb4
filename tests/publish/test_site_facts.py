"""The operator's facts about the site (editions/site.yaml): validated, bounded, shown as given,
and "not stated" wherever the file is silent (#46 item 17)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml

from ledgerrate.core.io import FileProblem
from ledgerrate.publish.pages import make_env
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.site_facts import append_to_about, load_site_facts
from ledgerrate.schema import SiteFacts
from ledgerrate.schema.base import MAX_LINE_CHARS


def _block(facts: SiteFacts) -> str:
    env = make_env(TEMPLATES)
    return str(env.get_template("_site_facts.md.j2").module.block(facts, "../"))  # type: ignore[attr-defined]


def test_every_fact_left_out_reads_not_stated(tmp_path: Path) -> None:
    facts = load_site_facts(tmp_path)  # no site.yaml at all
    assert facts == SiteFacts()
    text = _block(facts)
    assert "**Operated by**: not stated." in text
    assert "**Contact**: not stated." in text
    assert "**Next edition**: not stated. No date has been set for the next edition." in text
    assert "](../data/index.md#check-it-yourself-the-standalone-verifier)" in text


def test_facts_the_operator_states_are_shown_as_given(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "operator: Example Audit Ltd\n"
        "operator_url: https://example.org/about\n"
        "contact: ledgerrate@example.org\n"
        "next_edition: 2027-03-01\n"
        "schedule: each quarter\n"
    )
    facts = load_site_facts(tmp_path)
    assert facts.next_edition == dt.date(2027, 3, 1)
    text = _block(facts)
    assert 'href="https://example.org/about"' in text and "Example Audit Ltd" in text
    assert "ledgerrate&#64;example.org (e-mail)" in text
    assert "**Next edition**: due 2027-03-01, as the operator has set it (each quarter)." in text
    tracker = SiteFacts(contact="https://example.org/issues")
    assert 'href="https://example.org/issues"' in _block(tracker)
    scheduled = _block(SiteFacts(schedule="twice a year"))
    assert "been set for the next edition; the operator's schedule: twice a year." in scheduled


def test_hostile_text_stays_inert() -> None:
    text = _block(SiteFacts(operator="<script>alert(1)</script> [x](javascript:alert(1))"))
    assert "<script>" not in text and "](javascript" not in text


@pytest.mark.parametrize(
    ("body", "field", "why"),
    [
        ("contact: call us\n", "contact", "an e-mail address or an https:// address"),
        ("contact: javascript:alert(1)\n", "contact", "an e-mail address or an https://"),
        ("operator_url: http://example.org\n", "operator_url", "an https:// address"),
        (f"operator: {'x' * (MAX_LINE_CHARS + 1)}\n", "operator", "at most 300 characters"),
        ("next_edition: soon\n", "next_edition", "valid date"),
        ("operator: A\nemail: a@example.org\n", "email", "Extra inputs are not permitted"),
    ],
)
def test_a_bad_site_file_is_one_line_naming_file_and_field(
    tmp_path: Path, body: str, field: str, why: str
) -> None:
    (tmp_path / "site.yaml").write_text(body)
    with pytest.raises(FileProblem) as caught:
        load_site_facts(tmp_path)
    (line,) = caught.value.lines
    assert line.startswith(f"{tmp_path / 'site.yaml'}: {field}: ") and why in line, line


def test_the_about_page_gets_the_block_once(tmp_path: Path) -> None:
    (tmp_path / "about.md").write_text("# About LedgerRate\n\nText.\n")
    append_to_about(make_env(TEMPLATES), SiteFacts(operator="The LedgerRate project"), tmp_path)
    page = (tmp_path / "about.md").read_text()
    assert page.startswith("# About LedgerRate\n\nText.\n\n## Who runs this site\n")
    assert page.count("## Who runs this site") == 1
    assert "**Operated by**: The LedgerRate project." in page


def test_the_bundled_site_file_states_only_what_is_true() -> None:
    facts = load_site_facts(Path(__file__).resolve().parents[2] / "editions")
    assert facts == SiteFacts(operator="The LedgerRate project")


def test_the_operator_guides_example_is_a_valid_site_file() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "operator-guide.md").read_text()
    start = guide.index("```yaml\n# editions/site.yaml\n") + len("```yaml\n")
    example = yaml.safe_load(guide[start : guide.index("```", start)])
    facts = SiteFacts.model_validate(example)
    assert facts.operator and facts.contact and facts.next_edition and facts.schedule
