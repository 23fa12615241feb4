"""extract.invoice.v2: v1's task on a better-designed dataset (standard §7 version bump).

Same task, output fields, grader and pass rule as v1; what changed is the data: every planted
edge case on at least two items, a currency shown only as a symbol, a remittance-style layout,
and long invoices that carry running totals across pages. The prompt gains two sentences that
tell the model how to read those. Everything whose logic is unchanged is v1's code, imported.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import ledgerrate.synth.common as synth_common
import ledgerrate.synth.invoice_layouts_v2 as invoice_layouts_v2
import ledgerrate.synth.invoice_pdf as invoice_pdf
import ledgerrate.synth.invoices as invoices
import ledgerrate.synth.invoices_v2 as invoices_v2
from ledgerrate.workloads.base import Dataset, Item, Prompt, Workload
from ledgerrate.workloads.extract_invoice import v1

ID = "extract.invoice.v2"
FIELDS = v1.FIELDS

# The answer's shape is v1's; only the published title names the version.
OUTPUT_SCHEMA: dict[str, Any] = {**v1.OUTPUT_SCHEMA, "title": "extract.invoice.v2 answer"}

_V1_CURRENCY_RULE = "- currency is the ISO 4217 code (for example USD, EUR, JPY).\n"
_V2_CURRENCY_RULE = (
    "- currency is the ISO 4217 code (for example USD, EUR, JPY). When the document shows only\n"
    "  a currency symbol, give the code that symbol stands for in the vendor's country.\n"
)
_V1_LINES_RULE = "subtotal, tax and\n  total rows are not line items.\n"
_V2_LINES_RULE = (
    "subtotal, tax and\n  total rows are not line items, nor are running totals carried from one "
    "page to the next.\n"
)


def _amend(template: str, old: str, new: str) -> str:
    # v2's prompt is v1's with named sentences replaced; a silent no-op would publish v1's text.
    if template.count(old) != 1:
        raise RuntimeError(f"v1 prompt no longer contains {old!r} exactly once")
    return template.replace(old, new)


SYSTEM = v1.SYSTEM
USER_TEMPLATE = _amend(
    _amend(v1.USER_TEMPLATE, _V1_CURRENCY_RULE, _V2_CURRENCY_RULE),
    _V1_LINES_RULE,
    _V2_LINES_RULE,
)
PROMPT_TEMPLATE = f"[system]\n{SYSTEM}\n\n[user]\n{USER_TEMPLATE}"


def generate(rng: random.Random, n: int = 15) -> Dataset:
    items = []
    for index, plan in enumerate(invoices_v2.plan_dataset(rng, n)):
        invoice = invoices_v2.make_invoice(rng, plan)
        pdf = invoice_pdf.render_pdf(invoice_layouts_v2.html_for(invoice))
        pages = invoice_pdf.text_layer(pdf)
        check_rendering(plan, invoice, pages)
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


def check_rendering(plan: invoices.Plan, invoice: invoices_v2.InvoiceV2, pages: list[str]) -> None:
    """Refuse a dataset whose documents do not show the case planted on them."""
    if "multi-page" in plan.edge_cases and len(pages) < 2:
        raise RuntimeError(f"{invoice.layout} invoice planned multi-page fit on one page")
    if invoice.carried_forward:
        planned = len(invoice_layouts_v2.pages_of(invoice.lines, carried=True))
        if len(pages) != planned or "Carried forward" not in pages[0]:
            raise RuntimeError(f"carried-forward invoice printed on {len(pages)}, not {planned}")
    if invoice.symbol_only and re.search(rf"\b{invoice.currency}\b", "\n".join(pages)):
        raise RuntimeError(f"symbol-only invoice names its currency code {invoice.currency}")


def prompt(item: Item) -> Prompt:
    schema = json.dumps(OUTPUT_SCHEMA, indent=2)
    # Pages go in last, so text inside a document can never be taken for a placeholder.
    user = USER_TEMPLATE.replace("{schema}", schema).replace(
        "{pages}", v1.render_pages(item.input["pages"])
    )
    return Prompt(system=SYSTEM, user=user)


CHANGELOG = (
    "v2 keeps v1's task, answer fields, grader and pass rule, and redesigns the dataset. In v1 "
    "a planted edge case could sit on a single invoice, so a result for that case rested on "
    "one document; v2 plants every case on at least two of the 15. Every v1 layout printed the "
    "ISO currency code, so currency detection was never really tested; v2 adds invoices that "
    "show only a symbol (€, £, ¥) with the vendor's country in its address. It also adds a "
    "sixth, remittance-style layout of the kind AP teams receive, with a customer account "
    "number and purchase order beside the invoice number and a tear-off slip that repeats the "
    "amount due, and long invoices in that layout carry running totals from page to page under "
    "a repeated table header. The prompt gains one sentence on currency symbols and one saying "
    "carried-forward totals are not line items. v1 and v2 results are not comparable: the "
    "trendline breaks here."
)

WORKLOAD = Workload(
    id=ID,
    primitive="extract",
    function="finance-ops",
    version=2,
    title="Invoice extraction",
    summary=(
        "Read the text layer of a synthetic invoice PDF (six layouts, among them a "
        "remittance-style invoice; multi-page, credit-note, foreign-currency, discount-line, "
        "symbol-only-currency and carried-forward cases each planted on at least two items) and "
        "return vendor, number, dates, currency, line items, subtotal, tax and total as JSON."
    ),
    modes=v1.WORKLOAD.modes,
    unit=v1.WORKLOAD.unit,
    volume=v1.WORKLOAD.volume,
    prompt_template=PROMPT_TEMPLATE,
    output_schema=OUTPUT_SCHEMA,
    generate=generate,
    prompt=prompt,
    grade=v1.grade,
    tools=v1.tools,
    baseline=v1.baseline,
    pass_rule=v1.WORKLOAD.pass_rule,
    grader_sources=v1.WORKLOAD.grader_sources,
    generator_sources=(
        check_rendering,
        invoices_v2,
        invoice_layouts_v2,
        *v1.WORKLOAD.generator_sources,
    ),
    prompt_sources=(v1.render_pages, _amend),
    changelog=CHANGELOG,
)
