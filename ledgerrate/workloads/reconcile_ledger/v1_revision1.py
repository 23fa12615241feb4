"""`reconcile.ledger.v1` — find the planted discrepancies between a bank feed and the GL.

Standard §4.3: a bank feed of 200 transactions against a GL extract with 12 planted
discrepancies (missing entry, duplicate, amount mismatch, date drift); pass = recall 100% on the
planted ones AND at most one false positive. Data comes from `ledgerrate.synth.bank`.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import random
import sys
from collections import Counter
from decimal import Decimal, InvalidOperation
from pathlib import Path
from string import Template
from typing import Any

from ledgerrate.sandbox.files import FileToolset
from ledgerrate.synth import bank, common
from ledgerrate.workloads import answers
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Prompt, Workload, check

WORKLOAD_ID = "reconcile.ledger.v1"
MAX_FALSE_POSITIVES = 1  # standard §4.3
BANK_FILE, GL_FILE = "bank_feed.csv", "gl_extract.csv"

SYSTEM = (
    "You are a bookkeeper reconciling a bank account against the general ledger. "
    "Reply with the JSON object you are asked for and nothing else."
)

PROMPT_TEMPLATE = """\
Reconcile the $month bank feed of $company's operating account against the general-ledger \
extract of its cash account. Both are below as CSV. Amounts have the same sign on both sides: \
money in is positive, money out is negative.

How the two sides relate:
- Each bank transaction should be booked by exactly one GL entry with the same amount.
- A GL entry normally carries its bank transaction's reference. Compare references \
case-insensitively, ignoring spaces and hyphens. Some GL entries have no reference; match those \
by amount, date and the payee named in the memo.
- A GL date up to $tolerance days before or after the bank date is a normal posting lag, not a \
discrepancy.
- GL entries for cheques written at the end of the month that have not reached the bank feed \
yet are outstanding items, not discrepancies.
- Bank fees are booked like any other transaction; a fee booked correctly is not a discrepancy.

Report every discrepancy of these four types, identified exactly as follows:
- missing_entry: a bank transaction with no GL entry. bank_ref = the bank transaction's \
reference; gl_entry = null.
- duplicate: a bank transaction booked by two GL entries. bank_ref = the bank transaction's \
reference; gl_entry = the entry_id of the later (higher-numbered) of the two entries.
- amount_mismatch: a GL entry whose amount differs from its bank transaction's. bank_ref = the \
bank transaction's reference; gl_entry = that GL entry's entry_id.
- date_drift: a GL entry dated more than $tolerance days away from its bank transaction. \
bank_ref and gl_entry as for amount_mismatch.
Each discrepancy concerns a different bank transaction and has exactly one type. Report nothing \
else: no posting lags, no outstanding cheques, no other observations.

Answer with one JSON object in exactly this form:
{"discrepancies": [{"type": "<missing_entry|duplicate|amount_mismatch|date_drift>", \
"bank_ref": "<bank reference>", "gl_entry": "<entry_id, or null for missing_entry>"}, ...]}

Bank feed ($bank_file, $n_bank transactions):
$bank_csv
GL extract ($gl_file, $n_gl entries):
$gl_csv"""

OUTPUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["discrepancies"],
    "properties": {
        "discrepancies": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["type", "bank_ref", "gl_entry"],
                "properties": {
                    "type": {"type": "string", "enum": list(bank.TYPES)},
                    "bank_ref": {"type": "string"},
                    "gl_entry": {"type": ["string", "null"]},
                },
            },
        }
    },
}


def _item(rng: random.Random, index: int) -> Item:
    company = common.company(rng)
    start = dt.date(2026, rng.randint(1, 6), 1)
    month = bank.make_month(rng, start)
    return Item(
        id=common.item_id(index),
        input={
            "company": company,
            "month": start.strftime("%B %Y"),
            "bank_csv": bank.bank_csv(month),
            "gl_csv": bank.gl_csv(month),
        },
        truth={
            "discrepancies": month.discrepancies,
            "type_counts": dict(Counter(str(d["type"]) for d in month.discrepancies)),
            "noise_counts": dict(sorted(month.noise.items())),
        },
        strata=tuple(name for name in bank.NOISE if month.noise.get(name)),
    )


def generate(rng: random.Random, n: int = 15) -> Dataset:
    return Dataset(workload=WORKLOAD_ID, items=tuple(_item(rng, i) for i in range(n)))


def prompt(item: Item) -> Prompt:
    data = item.input
    user = Template(PROMPT_TEMPLATE).substitute(
        month=data["month"],
        company=data["company"],
        tolerance=bank.TOLERANCE_DAYS,
        bank_file=BANK_FILE,
        gl_file=GL_FILE,
        n_bank=data["bank_csv"].count("\n") - 1,
        n_gl=data["gl_csv"].count("\n") - 1,
        bank_csv=data["bank_csv"],
        gl_csv=data["gl_csv"],
    )
    return Prompt(system=SYSTEM, user=user)


def tools(item: Item, dataset: Dataset, workdir: Any) -> FileToolset:
    files = {BANK_FILE: item.input["bank_csv"], GL_FILE: item.input["gl_csv"]}
    return FileToolset(Path(workdir), files)


def _entry_id(value: Any) -> str:
    return value.strip().upper() if isinstance(value, str) else ""


def score(planted: list[dict[str, Any]], reported: list[Any]) -> dict[str, Any]:
    """Match reports to planted discrepancies by bank reference (one discrepancy per bank
    transaction); a planted one is found when its GL entry is named too (none for missing)."""
    by_ref = {bank.normalise_ref(p["bank_ref"]): p for p in planted}
    matched: dict[str, dict[str, Any]] = {}
    false_positives: list[str] = []
    for report in reported:
        ref = bank.normalise_ref(report.get("bank_ref")) if isinstance(report, dict) else ""
        if ref in by_ref and ref not in matched:
            matched[ref] = report
        else:
            false_positives.append(ref or "(no bank_ref)")
    found, wrong_type = [], []
    for ref, report in matched.items():
        truth = by_ref[ref]
        needs_entry = truth["type"] != "missing_entry"
        if not needs_entry or _entry_id(report.get("gl_entry")) == _entry_id(truth["gl_entry"]):
            found.append(ref)
        if report.get("type") != truth["type"]:
            wrong_type.append(ref)
    return {
        "found": found,
        "missed": sorted(set(by_ref) - set(found)),
        "wrong_type": sorted(wrong_type),
        "false_positives": false_positives,
    }


def grade(item: Item, answer: Answer) -> Grade:
    planted: list[dict[str, Any]] = item.truth["discrepancies"]
    try:
        data = extract_json(answer.text)
        reported = data.get("discrepancies")
        reason = "no 'discrepancies' list in the JSON object"
    except AnswerFormatError as exc:
        reported, reason = None, str(exc)
    if not isinstance(reported, list):
        return Grade(
            checks=(
                check("answer_is_json", False, reason),
                check("recall", False, f"0 of {len(planted)} planted discrepancies found"),
                check("types", False, "no discrepancies read"),
                check("false_positives", False, "no discrepancies read"),
            ),
            diagnostics={"recall": 0.0, "precision": 0.0, "reported": 0},
        )
    s = score(planted, reported)
    found, fps = len(s["found"]), len(s["false_positives"])
    diagnostics: dict[str, float | int | str | bool] = {
        "recall": round(found / len(planted), 4),
        "precision": round(found / len(reported), 4) if reported else 0.0,
        "reported": len(reported),
        "false_positive_count": fps,
    }
    for kind in bank.TYPES:
        refs = [bank.normalise_ref(p["bank_ref"]) for p in planted if p["type"] == kind]
        diagnostics[f"recall_{kind}"] = round(sum(r in s["found"] for r in refs) / len(refs), 4)
    return Grade(
        checks=(
            check("answer_is_json", True, "JSON object with a discrepancies list"),
            check(
                "recall",
                not s["missed"],
                f"{found} of {len(planted)} planted discrepancies found"
                + (f"; missed: {', '.join(s['missed'])}" if s["missed"] else ""),
            ),
            check(
                "types",
                not s["wrong_type"],
                f"{len(s['wrong_type'])} matched discrepancies with the wrong type"
                + (f": {', '.join(s['wrong_type'])}" if s["wrong_type"] else ""),
            ),
            check(
                "false_positives",
                fps <= MAX_FALSE_POSITIVES,
                f"{fps} reported that are not planted discrepancies; at most "
                f"{MAX_FALSE_POSITIVES} allowed"
                + (f": {', '.join(s['false_positives'][:10])}" if fps else ""),
            ),
        ),
        diagnostics=diagnostics,
    )


# ----------------------------------------------------------------------------- baseline
# The reference matcher a bookkeeper would script: references first, then amount and date for
# GL lines without one. It reads only the two CSVs.


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _amount(value: str) -> Decimal | None:
    try:
        return Decimal(value)
    except InvalidOperation:
        return None


def _days(a: str, b: str) -> int:
    return abs((dt.date.fromisoformat(a) - dt.date.fromisoformat(b)).days)


def match(bank_rows: list[dict[str, str]], gl_rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    by_ref: dict[str, list[dict[str, str]]] = {}
    unreferenced = []
    for row in gl_rows:
        ref = bank.normalise_ref(row["reference"])
        if ref:
            by_ref.setdefault(ref, []).append(row)
        else:
            unreferenced.append(row)
    used: set[str] = set()
    found: list[dict[str, Any]] = []
    for tx in bank_rows:
        entries = by_ref.get(bank.normalise_ref(tx["reference"]), [])
        if not entries:
            candidates = [
                r
                for r in unreferenced
                if r["entry_id"] not in used
                and _amount(r["amount"]) == _amount(tx["amount"])
                and _days(r["date"], tx["date"]) <= bank.TOLERANCE_DAYS
            ]
            candidates.sort(key=lambda r: (_days(r["date"], tx["date"]), r["entry_id"]))
            entries = candidates[:1]
        used.update(r["entry_id"] for r in entries)
        ref = tx["reference"]
        if not entries:
            found.append({"type": "missing_entry", "bank_ref": ref, "gl_entry": None})
        elif len(entries) > 1:
            later = max(entries, key=lambda r: int(r["entry_id"].split("-")[-1]))["entry_id"]
            found.append({"type": "duplicate", "bank_ref": ref, "gl_entry": later})
        elif _amount(entries[0]["amount"]) != _amount(tx["amount"]):
            found.append(
                {"type": "amount_mismatch", "bank_ref": ref, "gl_entry": entries[0]["entry_id"]}
            )
        elif _days(entries[0]["date"], tx["date"]) > bank.TOLERANCE_DAYS:
            found.append(
                {"type": "date_drift", "bank_ref": ref, "gl_entry": entries[0]["entry_id"]}
            )
    return found


def baseline(item: Item, dataset: Dataset) -> Answer:
    found = match(_rows(item.input["bank_csv"]), _rows(item.input["gl_csv"]))
    return Answer(text=json.dumps({"discrepancies": found}))


# The module itself is hashed with the grader and the generator: their thresholds and batch
# shape are module constants, which a function's source alone would not cover.
_MODULE = sys.modules[__name__]

WORKLOAD = Workload(
    id=WORKLOAD_ID,
    primitive="reconcile",
    function="finance-ops",
    version=1,
    title="Bank-to-ledger reconciliation",
    summary=(
        "Reconcile a month's bank feed (200 transactions) against the cash-account GL extract "
        "and list the 12 planted discrepancies by type, without flagging timing noise."
    ),
    modes=("single-shot", "agentic"),
    unit="Reconcile a month of transactions",
    volume=1,
    prompt_template=SYSTEM + "\n\n" + PROMPT_TEMPLATE,
    output_schema=OUTPUT_SCHEMA,
    generate=generate,
    prompt=prompt,
    grade=grade,
    tools=tools,
    baseline=baseline,
    pass_rule="Every planted discrepancy found with its type, and at most one false positive.",
    grader_sources=(score, _entry_id, bank.normalise_ref, answers, _MODULE),
    generator_sources=(_item, bank, common, _MODULE),
)
