"""extract.invoice.v1: data, rendering, prompt, grader and baseline."""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import random
import socket
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pdfplumber
import pytest

from ledgerrate.generate.dataset import make_card
from ledgerrate.synth import invoices
from ledgerrate.synth.invoice_pdf import RefusingFetcher, render_pdf, text_layer
from ledgerrate.workloads import normalise
from ledgerrate.workloads.base import Answer, Dataset, Item
from ledgerrate.workloads.extract_invoice.baseline import decimal_json
from ledgerrate.workloads.extract_invoice.v1 import FIELDS, WORKLOAD

REPO = Path(__file__).resolve().parents[2]
SEED = 7
# Measured, not chosen: the regex baseline on seed 7 misses one wrapped description ending in a
# digit ("… level 2") and one row of a 48-line multi-page invoice.
BASELINE_PASSES_SEED_7 = 13

_CACHE: dict[int, Dataset] = {}


def dataset_for(seed: int) -> Dataset:
    # Rendering 15 PDFs takes about a second; every test of this module shares the result.
    if seed not in _CACHE:
        _CACHE[seed] = WORKLOAD.generate(random.Random(seed), 15)
    return _CACHE[seed]


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return dataset_for(SEED)


def as_answer(truth: dict[str, Any]) -> dict[str, Any]:
    """The truth as a perfect model would write it: amounts as JSON numbers."""
    answer = copy.deepcopy(truth)
    for key in ("subtotal", "tax", "total"):
        answer[key] = Decimal(answer[key])
    for line in answer["line_items"]:
        for key in ("quantity", "unit_price", "amount"):
            line[key] = Decimal(line[key])
    return answer


def graded(item: Item, answer: dict[str, Any] | str) -> dict[str, bool]:
    text = answer if isinstance(answer, str) else decimal_json(answer)
    grade = WORKLOAD.grade(item, Answer(text=text))
    return {c.name: c.passed for c in grade.checks}


# --- grading -------------------------------------------------------------------------------


def test_truth_graded_against_itself_passes_every_item(dataset: Dataset) -> None:
    passes = 0
    for item in dataset.items:
        grade = WORKLOAD.grade(item, Answer(text=decimal_json(as_answer(item.truth))))
        passes += grade.deterministic_pass
        assert grade.diagnostics["field_accuracy"] == 1.0
    assert passes == 15


def _wrong_total(a: dict[str, Any]) -> None:
    a["total"] = a["total"] + Decimal("0.01")


def _wrong_date(a: dict[str, Any]) -> None:
    year, month, day = a["issue_date"].split("-")
    a["issue_date"] = f"{year}-{month}-{int(day) % 28 + 1:02d}"


def _wrong_currency(a: dict[str, Any]) -> None:
    a["currency"] = "SEK" if a["currency"] != "SEK" else "NOK"


def _missing_line(a: dict[str, Any]) -> None:
    a["line_items"].pop()


def _wrong_vendor(a: dict[str, Any]) -> None:
    a["vendor"] = a["vendor"] + " Holdings"


@pytest.mark.parametrize(
    ("spoil", "failing"),
    [
        (_wrong_total, "total"),
        (_wrong_date, "issue_date"),
        (_wrong_currency, "currency"),
        (_missing_line, "line_items"),
        (_wrong_vendor, "vendor"),
    ],
)
def test_each_planted_error_fails_its_named_check_only(
    dataset: Dataset, spoil: Any, failing: str
) -> None:
    item = dataset.items[0]
    answer = as_answer(item.truth)
    spoil(answer)
    result = graded(item, answer)
    assert result[failing] is False
    assert all(passed for name, passed in result.items() if name != failing)
    grade = WORKLOAD.grade(item, Answer(text=decimal_json(answer)))
    assert not grade.deterministic_pass
    assert grade.diagnostics["field_accuracy"] == pytest.approx(8 / 9)


def test_not_json_fails_answer_is_json_and_every_field(dataset: Dataset) -> None:
    result = graded(dataset.items[0], "The total is 1,234.56 and the vendor is Acme.")
    assert result["answer_is_json"] is False
    assert not any(result[name] for name in FIELDS)


def test_normalisation_forgives_format_but_not_value(dataset: Dataset) -> None:
    item = next(i for i in dataset.items if i.truth["due_date"] is not None)
    answer = as_answer(item.truth)
    answer["vendor"] = "  " + answer["vendor"].upper().replace(" ", "   ") + " "
    issue = normalise.iso_date(answer["issue_date"])
    assert issue is not None
    year, month, day = (int(part) for part in issue.split("-"))
    answer["issue_date"] = f"{day}.{month}.{year}"
    answer["currency"] = answer["currency"].lower()
    answer["total"] = f"{answer['total']:,}"  # "1,234.56" as a string
    text = "Here you go:\n```json\n" + decimal_json(answer) + "\n```"
    assert all(graded(item, text).values())
    answer["subtotal"] = Decimal(as_answer(item.truth)["subtotal"]) + Decimal("0.001")
    assert graded(item, answer)["subtotal"] is False


def test_credit_note_due_date_must_be_null(dataset: Dataset) -> None:
    item = next(i for i in dataset.items if "credit-note" in i.strata)
    answer = as_answer(item.truth)
    assert answer["due_date"] is None
    assert graded(item, answer)["due_date"] is True
    answer["due_date"] = answer["issue_date"]
    assert graded(item, answer)["due_date"] is False


def test_line_item_order_and_sign_matter(dataset: Dataset) -> None:
    item = next(i for i in dataset.items if len(i.truth["line_items"]) >= 2)
    answer = as_answer(item.truth)
    answer["line_items"].reverse()
    assert graded(item, answer)["line_items"] is False
    answer = as_answer(item.truth)
    answer["line_items"][0]["amount"] = -answer["line_items"][0]["amount"]
    assert graded(item, answer)["line_items"] is False


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-03-05", "2026-03-05"),
        ("5 March 2026", "2026-03-05"),
        ("Mar 05, 2026", "2026-03-05"),
        ("05.03.2026", "2026-03-05"),
        ("03/05/2026", None),  # day/month order unknowable
        ("2026-02-30", None),
        (20260305, None),
    ],
)
def test_iso_date(value: Any, expected: str | None) -> None:
    assert normalise.iso_date(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1234.56, Decimal("1234.56")),
        ("1,234.56", Decimal("1234.56")),
        ("1.234,56 €", Decimal("1234.56")),
        ("-$66.55", Decimal("-66.55")),
        ("(12.00)", Decimal("-12")),
        ("¥748,635", Decimal("748635")),
        (True, None),
        ("twelve", None),
    ],
)
def test_amount(value: Any, expected: Decimal | None) -> None:
    assert normalise.amount(value) == expected


# --- data --------------------------------------------------------------------------------------


def test_same_seed_same_hash_in_a_fresh_process(dataset: Dataset) -> None:
    code = (
        "import random\n"
        "from ledgerrate.workloads.extract_invoice.v1 import WORKLOAD\n"
        f"print(WORKLOAD.generate(random.Random({SEED}), 15).hash)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == dataset.hash


def test_different_seeds_give_different_datasets(dataset: Dataset) -> None:
    other = dataset_for(11)
    assert other.hash != dataset.hash
    assert [i.truth for i in other.items] != [i.truth for i in dataset.items]


@pytest.mark.parametrize("seed", [SEED, 11])
def test_every_dataset_has_all_edge_cases_and_four_layouts(seed: int) -> None:
    strata = {s for item in dataset_for(seed).items for s in item.strata}
    assert set(invoices.EDGE_CASES) <= strata
    assert len({s for s in strata if s.startswith("layout:")}) >= 4


def test_plans_cover_edge_cases_for_many_seeds() -> None:
    # Planning is cheap, so check far more seeds than we can afford to render.
    for seed in range(300):
        plans = invoices.plan_dataset(random.Random(seed), 15)
        cases = set().union(*(p.edge_cases for p in plans))
        assert set(invoices.EDGE_CASES) <= cases, seed
        assert len({p.layout for p in plans}) >= 4, seed


def test_edge_cases_are_really_in_the_data(dataset: Dataset) -> None:
    for item in dataset.items:
        truth = item.truth
        amounts = [Decimal(line["amount"]) for line in truth["line_items"]]
        if "credit-note" in item.strata:
            assert Decimal(truth["total"]) < 0 and truth["due_date"] is None
            assert "credit" in item.input["pages"][0].lower()
        if "discount-lines" in item.strata:
            assert any(a < 0 for a in amounts) and Decimal(truth["total"]) > 0
        if "foreign-currency" in item.strata:
            assert truth["currency"] != "USD"
            assert truth["currency"] in "\n".join(item.input["pages"])
        assert sum(amounts) == Decimal(truth["subtotal"])
        assert Decimal(truth["subtotal"]) + Decimal(truth["tax"]) == Decimal(truth["total"])


def test_pdfs_open_and_match_the_text_layer(dataset: Dataset) -> None:
    for item in dataset.items:
        pdf = item.files["invoice.pdf"]
        with pdfplumber.open(io.BytesIO(pdf)) as document:
            pages = len(document.pages)
        assert pages == len(item.input["pages"])
        assert ("multi-page" in item.strata) == (pages > 1)
        assert text_layer(pdf) == item.input["pages"]
    assert any(len(i.input["pages"]) > 1 for i in dataset.items)


def test_renderer_fetches_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    connections: list[Any] = []

    def no_connect(self: socket.socket, address: Any) -> None:
        connections.append(address)
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", no_connect)
    fetcher = RefusingFetcher()
    html = (
        "<html><head><link rel='stylesheet' href='https://example.com/x.css'></head><body>"
        "<img src='http://example.com/pixel.png'><img src='file:///etc/hostname'>"
        "<p>Invoice 42</p></body></html>"
    )
    pdf = render_pdf(html, fetcher)
    assert "http://example.com/pixel.png" in fetcher.refused
    assert "file:///etc/hostname" in fetcher.refused
    assert "https://example.com/x.css" in fetcher.refused
    assert connections == []
    assert "Invoice 42" in text_layer(pdf)[0]


def test_dataset_card_describes_the_dataset(dataset: Dataset) -> None:
    card = make_card(WORKLOAD, dataset, seed_commitment=None)
    assert card.dataset_hash == dataset.hash
    assert card.n_items == 15
    assert card.strata["credit-note"] >= 1
    assert len(card.files) == 15


# --- prompt, tools, baseline -------------------------------------------------------------------


def test_prompt_carries_schema_rules_and_every_page(dataset: Dataset) -> None:
    item = next(i for i in dataset.items if len(i.input["pages"]) > 1)
    prompt = WORKLOAD.prompt(item)
    assert prompt == WORKLOAD.prompt(item)
    for page in item.input["pages"]:
        assert page in prompt.user
    assert '"line_items"' in prompt.user and "YYYY-MM-DD" in prompt.user
    assert "{schema}" not in prompt.user and "{pages}" not in prompt.user
    assert prompt.system in WORKLOAD.prompt_template


def test_document_text_cannot_fill_a_placeholder(dataset: Dataset) -> None:
    item = dataclasses.replace(dataset.items[0], input={"pages": ["Note {schema} {pages}"]})
    assert "Note {schema} {pages}" in WORKLOAD.prompt(item).user


def test_agentic_tools_serve_the_page_texts(dataset: Dataset, tmp_path: Path) -> None:
    item = next(i for i in dataset.items if len(i.input["pages"]) > 1)
    assert WORKLOAD.tools is not None
    toolset = WORKLOAD.tools(item, dataset, tmp_path)
    tools = {tool.name: tool for tool in toolset.tools}
    listed = tools["list_files"].run({}).splitlines()
    assert listed == [f"page-{n}.txt" for n in range(1, len(item.input["pages"]) + 1)]
    assert tools["read_file"].run({"path": "page-2.txt"}) == item.input["pages"][1]


def test_baseline_pass_count_on_seed_7(dataset: Dataset) -> None:
    assert WORKLOAD.baseline is not None
    passes = sum(
        WORKLOAD.grade(item, WORKLOAD.baseline(item, dataset)).deterministic_pass
        for item in dataset.items
    )
    assert passes == BASELINE_PASSES_SEED_7


def test_baseline_never_reads_the_truth(dataset: Dataset) -> None:
    assert WORKLOAD.baseline is not None
    for item in dataset.items[:5]:
        blind = dataclasses.replace(item, truth={}, files={})
        assert WORKLOAD.baseline(blind, dataset) == WORKLOAD.baseline(item, dataset)


def test_workload_metadata_is_as_published(dataset: Dataset) -> None:
    assert WORKLOAD.id == "extract.invoice.v1"
    assert (WORKLOAD.primitive, WORKLOAD.function, WORKLOAD.version) == (
        "extract",
        "finance-ops",
        1,
    )
    assert WORKLOAD.modes == ("single-shot", "agentic")
    assert (WORKLOAD.unit, WORKLOAD.volume) == ("Process 1,000 invoices", 1000)
    assert WORKLOAD.output_schema["required"] == list(FIELDS)
    assert all(set(item.truth) == set(FIELDS) for item in dataset.items)
    json.dumps(WORKLOAD.output_schema)  # publishable as is
    assert len({WORKLOAD.grader_hash, WORKLOAD.generator_hash, WORKLOAD.prompt_hash}) == 3
