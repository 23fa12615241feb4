"""The journal-entry writer tool: validates proposed entries and keeps them as the run's state.

Nothing is written to the database: posted entries live only in this writer, and the
month-end grader reads them from the toolset's `state()`. Validation errors are raised as
`ToolError`, so the model sees what was wrong and can correct it within its step budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from ledgerrate.core.tools import ToolError, ToolSpec

MAX_LINES_PER_ENTRY = 40
MAX_ENTRIES = 60
MAX_MEMO_CHARS = 300
CENT = Decimal("0.01")


def parse_amount(value: Any, where: str) -> Decimal:
    """A non-negative dollar amount with at most two decimals (numbers or numeric strings)."""
    if value is None or value == "":
        return Decimal("0.00")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ToolError(f"{where}: amount must be a number like 1234.56")
    try:
        # str() first: a float such as 0.1 must mean ten cents, not its binary expansion.
        amount = Decimal(str(value).replace(",", "").strip())
    except InvalidOperation as exc:
        raise ToolError(f"{where}: {str(value)[:40]!r} is not a number") from exc
    if not amount.is_finite():
        raise ToolError(f"{where}: amount must be finite")
    if amount < 0:
        raise ToolError(f"{where}: amounts must be positive; use the other column instead")
    if amount != amount.quantize(CENT):
        raise ToolError(f"{where}: amounts have at most two decimals (cents)")
    return amount.quantize(CENT)


def validate_entry(args: Mapping[str, Any], accounts: Mapping[str, str]) -> dict[str, Any]:
    """The canonical form of one entry, or ToolError naming the first problem found."""
    if not isinstance(args, Mapping):
        raise ToolError("arguments must be an object with 'lines' and optional 'memo'")
    memo = args.get("memo", "")
    if not isinstance(memo, str):
        raise ToolError("memo must be text")
    lines = args.get("lines")
    if not isinstance(lines, list) or len(lines) < 2:
        raise ToolError("an entry needs a 'lines' list with at least two lines")
    if len(lines) > MAX_LINES_PER_ENTRY:
        raise ToolError(f"an entry may have at most {MAX_LINES_PER_ENTRY} lines")
    clean: list[dict[str, str]] = []
    debits = credits = Decimal(0)
    for number, line in enumerate(lines, start=1):
        where = f"line {number}"
        if not isinstance(line, Mapping):
            raise ToolError(f"{where}: each line is an object with account, debit, credit")
        account = str(line.get("account", "")).strip()
        if account not in accounts:
            raise ToolError(
                f"{where}: unknown account {account[:20]!r}; use an account_code from accounts"
            )
        debit = parse_amount(line.get("debit"), where)
        credit = parse_amount(line.get("credit"), where)
        if (debit > 0) == (credit > 0):
            raise ToolError(f"{where}: give a positive debit or a positive credit, not both")
        line_memo = line.get("memo", "")
        if not isinstance(line_memo, str):
            raise ToolError(f"{where}: memo must be text")
        debits += debit
        credits += credit
        clean.append(
            {
                "account": account,
                "debit": str(debit),
                "credit": str(credit),
                "memo": line_memo[:MAX_MEMO_CHARS],
            }
        )
    if debits != credits:
        raise ToolError(
            f"entry does not balance: debits {debits} vs credits {credits}; nothing was posted"
        )
    return {"memo": memo[:MAX_MEMO_CHARS], "lines": clean}


class JournalWriter:
    """Entries posted during one run, in order; the state the month-end grader reads."""

    def __init__(self, accounts: Mapping[str, str]) -> None:
        self.accounts = dict(accounts)
        self.entries: list[dict[str, Any]] = []

    def post(self, args: Mapping[str, Any]) -> str:
        if len(self.entries) >= MAX_ENTRIES:
            raise ToolError(f"at most {MAX_ENTRIES} entries may be posted in one close")
        entry = validate_entry(args, self.accounts)
        entry = {"entry": f"JE-{len(self.entries) + 1:03d}", **entry}
        self.entries.append(entry)
        total = sum(Decimal(line["debit"]) for line in entry["lines"])
        return f"posted {entry['entry']}: {len(entry['lines'])} lines, total {total}"

    def state(self) -> dict[str, Any]:
        return {"journal_entries": [dict(entry) for entry in self.entries]}


def journal_tool(writer: JournalWriter) -> ToolSpec:
    return ToolSpec(
        name="post_journal_entry",
        description=(
            "Propose one balanced journal entry for the close. Each line has an account code, "
            "a debit or a credit in dollars (positive, two decimals) and an optional memo. "
            "Entries that do not balance or use unknown accounts are refused and not posted."
        ),
        parameters={
            "type": "object",
            "properties": {
                "memo": {"type": "string", "description": "What the entry is for."},
                "lines": {
                    "type": "array",
                    "minItems": 2,
                    "items": {
                        "type": "object",
                        "properties": {
                            "account": {"type": "string", "description": "account_code"},
                            "debit": {"type": "number", "minimum": 0},
                            "credit": {"type": "number", "minimum": 0},
                            "memo": {"type": "string"},
                        },
                        "required": ["account"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["lines"],
            "additionalProperties": False,
        },
        run=lambda args: writer.post(args),
    )
