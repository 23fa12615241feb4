"""extract.invoice.v1 (standard §4.1): read an invoice PDF's text, return its fields as JSON.

Data: 15 seeded invoices rendered to PDF in five layouts, with planted edge cases (multi-page,
credit note, foreign currency, discount lines). The model sees the PDF's text layer page by
page; the PDF itself is published with the dataset. Pass: every required field equals the
truth after normalisation (dates ISO, amounts exact decimals, text case/whitespace-insensitive).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ledgerrate.synth.common as synth_common
import ledgerrate.synth.invoice_layouts as invoice_layouts
import ledgerrate.synth.invoice_pdf as invoice_pdf
import ledgerrate.synth.invoices as invoices
import ledgerrate.workloads.normalise as normalise
from ledgerrate.sandbox.files import FileToolset
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import (
    Answer,
    Dataset,
    Grade,
    Item,
    Prompt,
    Workload,
    check,
)
from ledgerrate.workloads.extract_invoice.baseline import baseline

ID = "extract.invoice.v1"
FIELDS: tuple[str, ...] = (
    "vendor",
    "invoice_number",
    "issue_date",
    "due_date",
    "currency",
    "line_items",
    "subtotal",
    "tax",
    "total",
)

_AMOUNT = {"type": "number"}
OUTPUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "extract.invoice.v1 answer",
    "type": "object",
    "required": list(FIELDS),
    "properties": {
        "vendor": {"type": "string", "description": "The company that issued the document."},
        "invoice_number": {"type": "string", "description": "The document's own number."},
        "issue_date": {"type": "string", "format": "date"},
        "due_date": {
            "type": ["string", "null"],
            "format": "date",
            "description": "null when the document states no payment due date.",
        },
        "currency": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217."},
        "line_items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["description", "quantity", "unit_price", "amount"],
                "properties": {
                    "description": {"type": "string"},
                    "quantity": _AMOUNT,
                    "unit_price": _AMOUNT,
                    "amount": _AMOUNT,
                },
            },
        },
        "subtotal": _AMOUNT,
        "tax": _AMOUNT,
        "total": _AMOUNT,
    },
}

SYSTEM = (
    "You extract structured data from business documents. "
    "Reply with exactly one JSON object and nothing else."
)
USER_TEMPLATE = """Extract the data of the invoice below.

Reply with exactly one JSON object that conforms to this JSON Schema:
{schema}

Rules:
- vendor is the company that issued the document (the seller), not the customer.
- Dates are ISO 8601 (YYYY-MM-DD). Use null for due_date when the document states none.
- currency is the ISO 4217 code (for example USD, EUR, JPY).
- Amounts and quantities are JSON numbers: no currency symbols, no thousands separators, a dot
  as the decimal mark.
- Amounts that reduce what is owed (discount lines, and every amount on a credit note) are
  negative numbers.
- List every line item in the order it appears, including discount lines; subtotal, tax and
  total rows are not line items.
- tax is the total tax amount; total is the final amount including tax.

The document is a PDF. Its text layer follows, page by page; each page begins with a line
"=== Page N of M ===".

{pages}"""
PROMPT_TEMPLATE = f"[system]\n{SYSTEM}\n\n[user]\n{USER_TEMPLATE}"


def generate(rng: random.Random, n: int = 15) -> Dataset:
    items = []
    for index, plan in enumerate(invoices.plan_dataset(rng, n)):
        invoice = invoices.make_invoice(rng, plan)
        pdf = invoice_pdf.render_pdf(invoice_layouts.html_for(invoice))
        pages = invoice_pdf.text_layer(pdf)
        if "multi-page" in plan.edge_cases and len(pages) < 2:
            raise RuntimeError(f"{invoice.layout} invoice planned multi-page fit on one page")
        items.append(
            Item(
                id=synth_common.item_id(index),
                input={"pages": pages},
                truth=invoices.to_truth(invoice),
                strata=invoice.strata(len(pages)),
                files={"invoice.pdf": pdf},
            )
        )
    return Dataset(workload=ID, items=tuple(items))


def render_pages(pages: list[str]) -> str:
    total = len(pages)
    return "\n\n".join(
        f"=== Page {number} of {total} ===\n{text}" for number, text in enumerate(pages, start=1)
    )


def prompt(item: Item) -> Prompt:
    schema = json.dumps(OUTPUT_SCHEMA, indent=2)
    # Pages go in last, so text inside a document can never be taken for a placeholder.
    user = USER_TEMPLATE.replace("{schema}", schema).replace(
        "{pages}", render_pages(item.input["pages"])
    )
    return Prompt(system=SYSTEM, user=user)


def tools(item: Item, dataset: Dataset, workdir: Any) -> FileToolset:
    files = {f"page-{i}.txt": text for i, text in enumerate(item.input["pages"], start=1)}
    return FileToolset(Path(workdir), files)


def _shown(value: Any) -> str:
    # Model output is quoted as inert JSON text and cut short: a detail line, never markup.
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _comparators() -> dict[str, Callable[[Any], Any]]:
    return {
        "vendor": normalise.text,
        "invoice_number": normalise.text,
        "issue_date": normalise.iso_date,
        "due_date": _optional_date,
        "currency": normalise.currency,
        "subtotal": normalise.amount,
        "tax": normalise.amount,
        "total": normalise.amount,
    }


def _optional_date(value: Any) -> str | None:
    """A date, or the marker "none" for null / blank: "no due date" is itself an answer."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "none"
    return normalise.iso_date(value)


def _field_check(name: str, expected: Any, answer: dict[str, Any]) -> tuple[bool, str]:
    if name not in answer:
        return False, f"expected {_shown(expected)}, found no {name!r} field"
    norm = _comparators()[name]
    want, got = norm(expected), norm(answer[name])
    passed = want is not None and want == got
    return passed, f"expected {_shown(expected)}, found {_shown(answer[name])}"


def _line_check(expected: list[dict[str, Any]], found: Any) -> tuple[bool, str]:
    if not isinstance(found, list):
        return False, f"expected a list of {len(expected)} line items, found {_shown(found)}"
    if len(found) != len(expected):
        return False, f"expected {len(expected)} line items, found {len(found)}"
    keys = (
        ("description", normalise.text),
        ("quantity", normalise.amount),
        ("unit_price", normalise.amount),
        ("amount", normalise.amount),
    )
    for position, (want, got) in enumerate(zip(expected, found, strict=True), start=1):
        if not isinstance(got, dict):
            return False, f"line {position}: expected an object, found {_shown(got)}"
        for key, norm in keys:
            if key not in got or norm(want[key]) is None or norm(want[key]) != norm(got[key]):
                return False, (
                    f"line {position} {key}: expected {_shown(want[key])}, "
                    f"found {_shown(got.get(key))}"
                )
    return True, f"all {len(expected)} line items match"


def grade(item: Item, answer: Answer) -> Grade:
    try:
        data: dict[str, Any] | None = extract_json(answer.text, dict)
        json_check = check("answer_is_json", True, "a JSON object was found")
    except AnswerFormatError as exc:
        data = None
        json_check = check("answer_is_json", False, str(exc))
    checks = [json_check]
    for name in FIELDS:
        if data is None:
            passed, detail = False, "no JSON answer to read"
        elif name == "line_items":
            passed, detail = _line_check(item.truth["line_items"], data.get("line_items"))
        else:
            passed, detail = _field_check(name, item.truth[name], data)
        checks.append(check(name, passed, detail))
    right = sum(1 for c in checks[1:] if c.passed)
    return Grade(checks=tuple(checks), diagnostics={"field_accuracy": right / len(FIELDS)})


WORKLOAD = Workload(
    id=ID,
    primitive="extract",
    function="finance-ops",
    version=1,
    title="Invoice extraction",
    summary=(
        "Read the text layer of a synthetic invoice PDF (five layouts; multi-page, credit-note, "
        "foreign-currency and discount-line cases planted) and return vendor, number, dates, "
        "currency, line items, subtotal, tax and total as JSON."
    ),
    modes=("single-shot", "agentic"),
    unit="Process 1,000 invoices",
    volume=1000,
    prompt_template=PROMPT_TEMPLATE,
    output_schema=OUTPUT_SCHEMA,
    generate=generate,
    prompt=prompt,
    grade=grade,
    tools=tools,
    baseline=baseline,
    pass_rule=(
        "Pass when every required field (vendor, invoice number, issue and due dates, currency, "
        "each line item, subtotal, tax, total) equals the truth after normalisation: dates as "
        "ISO, amounts as exact decimals, text compared ignoring case and whitespace."
    ),
    grader_sources=(
        _comparators,
        _optional_date,
        _field_check,
        _line_check,
        _shown,
        normalise,
        extract_json,
    ),
    generator_sources=(invoices, invoice_layouts, invoice_pdf, synth_common),
    # How pages are joined and labelled is part of what the model reads.
    prompt_sources=(render_pages,),
)
