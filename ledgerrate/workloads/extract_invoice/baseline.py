"""The reference solver for extract.invoice.v1: regular expressions over the text layer.

It reads only `item.input["pages"]`, the text a model is given, and never the truth or the
layout name, so its pass rate is an honest floor: what a careful afternoon of regexes gets
without any model. It knows what any invoice reader knows (date styles, currency codes, legal
suffixes of company names) and checks line items arithmetically (qty × price = amount) to tell
columns apart; it does not know the generator's word lists.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from ledgerrate.workloads import normalise
from ledgerrate.workloads.base import Answer, Dataset, Item

_CODES = ("USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "SEK", "DKK", "NOK", "PLN", "CZK")
_SYMBOL_CODES = (("CA$", "CAD"), ("A$", "AUD"), ("€", "EUR"), ("£", "GBP"), ("¥", "JPY"))
_MARKS = re.compile(r"CA\$|A\$|[$€£¥]|\b(?:" + "|".join(_CODES) + r")\b")
_SUFFIX = re.compile(r"^(.*?(?:\b(?:Ltd|LLC|Inc\.|GmbH|plc|S\.A\.|B\.V\.|AG|SAS|Corp\.?)|& Co\.))")
_NUMBER_LABEL = re.compile(
    r"(?:invoice|credit note|credit memo)[ \t]*(?:no\.?|#)?[ \t]*:?[ \t]*#?([A-Za-z0-9][\w/\-]*)",
    re.IGNORECASE,
)
_RECEIPT_NUMBER = re.compile(r"^No:\s*(\S+)", re.MULTILINE)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b"
    r"|\b[A-Z][a-z]+\.? \d{1,2},? \d{4}\b|\b\d{1,2} [A-Z][a-z]+\.? \d{4}\b"
)
_DUE_LABEL = re.compile(r"(due|pay by|payable by)[^\n]{0,12}$", re.IGNORECASE)
_SUBTOTAL = re.compile(r"^(subtotal|sub-total|net amount|net)\b", re.IGNORECASE)
_TAX = re.compile(r"^(sales tax|tax|vat)\b", re.IGNORECASE)
_TOTAL = re.compile(
    r"^(total due|total credit|total amount|total|amount due|credit total|balance due"
    r"|credit due to customer)\b",
    re.IGNORECASE,
)


def baseline(item: Item, dataset: Dataset) -> Answer:
    """Parse one invoice's text layer; fields it cannot find come back as null."""
    return Answer(text=decimal_json(parse(list(item.input["pages"]))))


def parse(pages: list[str]) -> dict[str, Any]:
    text = "\n".join(pages)
    european = _is_european(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    issue, due = _dates(text)
    return {
        "vendor": _vendor(lines),
        "invoice_number": _invoice_number(text),
        "issue_date": issue,
        "due_date": due,
        "currency": _currency(text),
        "line_items": _line_items(lines, european),
        **_totals(lines, european),
    }


def decimal_json(value: Any) -> str:
    """JSON text with Decimals written as exact JSON numbers (json.dumps has no hook for that)."""

    def mark(obj: Any) -> Any:
        if isinstance(obj, Decimal):
            return f"\x00{obj:f}\x00"
        if isinstance(obj, dict):
            return {key: mark(val) for key, val in obj.items()}
        if isinstance(obj, list):
            return [mark(val) for val in obj]
        return obj

    return re.sub(r'"\\u0000(-?[0-9.]+)\\u0000"', r"\1", json.dumps(mark(value)))


def _is_european(text: str) -> bool:
    comma = len(re.findall(r"\d,\d{2}(?!\d)", text))
    dot = len(re.findall(r"\d\.\d{2}(?![\d.])", text))
    return comma > dot


def _number(token: str, european: bool) -> Decimal | None:
    group, point = (".", ",") if european else (",", ".")
    pattern = rf"-?(?:\d{{1,3}}(?:\{group}\d{{3}})+|\d+)(?:\{point}\d+)?"
    if not re.fullmatch(pattern, token):
        return None
    try:
        return Decimal(token.replace(group, "").replace(point, "."))
    except InvalidOperation:
        return None


def _vendor(lines: list[str]) -> str | None:
    for line in lines[:8]:
        if re.match(r"(bill|billed|customer)", line, re.IGNORECASE):
            continue
        if match := _SUFFIX.match(line):
            return match.group(1).strip()
    return None


def _invoice_number(text: str) -> str | None:
    for match in _NUMBER_LABEL.finditer(text):
        if any(char.isdigit() for char in match.group(1)):
            return match.group(1)
    receipt = _RECEIPT_NUMBER.search(text)
    return receipt.group(1) if receipt else None


def _dates(text: str) -> tuple[str | None, str | None]:
    issue = due = None
    for match in _DATE.finditer(text):
        iso = normalise.iso_date(match.group(0))
        if iso is None:
            continue
        before = text[max(0, match.start() - 40) : match.start()].split("·")[-1]
        if _DUE_LABEL.search(before):
            due = due or iso
        elif issue is None:
            issue = iso
    return issue, due


def _currency(text: str) -> str | None:
    counts = {code: len(re.findall(rf"\b{code}\b", text)) for code in _CODES}
    best = max(counts, key=lambda code: counts[code])
    if counts[best]:
        return best
    for symbol, code in _SYMBOL_CODES:
        if symbol in text:
            return code
    return "USD" if "$" in text else None


def _unmarked(raw: str) -> str:
    """The line without currency symbols or codes, keeping a minus sign on its number."""
    line = " ".join(_MARKS.sub(" ", raw).split())
    return re.sub(r"(?<![\w.,])- (?=\d)", "-", line)


def _consistent(quantity: Decimal, price: Decimal, amount: Decimal) -> bool:
    return abs(quantity * price - amount) <= max(Decimal("0.01"), abs(amount) / 10_000)


def _line_items(lines: list[str], european: bool) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    pending: list[str] = []  # text lines since the last row: a receipt's description
    last_was_row = False
    for raw in lines:
        tokens = _unmarked(raw).split(" ")
        found = _receipt_row(tokens, pending[-2:], european) or _table_row(tokens, european)
        if found is None:
            if last_was_row and _is_continuation(raw) and items and "receipt" not in items[-1]:
                # A description wrapped inside its cell: the rest sits on the next text line.
                items[-1]["description"] += " " + raw
            else:
                last_was_row = False
            pending = [] if _is_boundary(raw) else [*pending, raw]
            continue
        description, quantity, price, amount, receipt = found
        # A leading running number ("1 Copier paper…") is a position column, not text.
        position = re.match(r"^(\d+) (.+)$", description)
        if position and int(position.group(1)) == len(items) + 1:
            description = position.group(2)
        item = {"description": description, "quantity": quantity, "unit_price": price}
        item["amount"] = amount
        if receipt:
            item["receipt"] = True
        items.append(item)
        pending, last_was_row = [], True
    for item in items:
        item.pop("receipt", None)
    return items


def _is_continuation(raw: str) -> bool:
    if any(label.match(raw) for label in (_SUBTOTAL, _TAX, _TOTAL)):
        return False
    if re.search(r"\d[\d,.]*\s*(?:[A-Z]{3}|€)?$", raw) and not raw.endswith(")"):
        return False
    return not re.match(r"(description|item|qty|pos\.|all amounts|amounts in)", raw, re.I)


def _is_boundary(raw: str) -> bool:
    # Lines that end a receipt's header: whatever follows them starts the first description.
    return bool(re.match(r"(customer|ref|no|date|pay by):", raw, re.IGNORECASE))


_Row = tuple[str, Decimal, Decimal, Decimal, bool]


def _receipt_row(tokens: list[str], before: list[str], european: bool) -> _Row | None:
    if len(tokens) != 4 or tokens[1] != "x":
        return None
    quantity, price, amount = (_number(tokens[i], european) for i in (0, 2, 3))
    if quantity is None or price is None or amount is None or not before:
        return None
    if not _consistent(quantity, price, amount):
        return None
    return " ".join(before), quantity, price, amount, True


def _table_row(tokens: list[str], european: bool) -> _Row | None:
    if len(tokens) < 4:
        return None
    price, amount = _number(tokens[-2], european), _number(tokens[-1], european)
    if price is None or amount is None:
        return None
    # Quantity last before the prices (most layouts), else first on the line (ledger style).
    trailing = _number(tokens[-3], european)
    if trailing is not None and _consistent(trailing, price, amount):
        description = " ".join(tokens[:-3])
        if re.search(r"[A-Za-z]", description):
            return description, trailing, price, amount, False
    leading = _number(tokens[0], european)
    if leading is not None and _consistent(leading, price, amount):
        description = " ".join(tokens[1:-2])
        if re.search(r"[A-Za-z]", description):
            return description, leading, price, amount, False
    return None


def _totals(lines: list[str], european: bool) -> dict[str, Decimal | None]:
    found: dict[str, Decimal | None] = {"subtotal": None, "tax": None, "total": None}
    for raw in lines:
        line = _unmarked(raw)
        value = _number(line.rsplit(" ", 1)[-1], european) if " " in line else None
        if value is None:
            continue
        for key, label in (("subtotal", _SUBTOTAL), ("tax", _TAX), ("total", _TOTAL)):
            if label.match(line):
                found[key] = value
                break
    return found
