"""`execute.month-end.v1`: a mini month-end close, agentic only, graded on the end state.

Each item is a desk of June paperwork (unbooked invoices, a payroll summary, the prepaid
schedule, the bank statement) beside the shared finance database. The model reads files,
queries the ledger with `run_sql`, and proposes entries with `post_journal_entry`; the grader
compares the ledger those entries produce with the reference close.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

from ledgerrate.sandbox.files import file_tools, materialise
from ledgerrate.sandbox.journal import JournalWriter, journal_tool
from ledgerrate.sandbox.sql import SqlSandbox, run_sql_tool
from ledgerrate.synth import finance_db, finance_schema
from ledgerrate.synth.common import item_id
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Prompt, Workload, check
from ledgerrate.workloads.execute_month_end import baseline as close_script
from ledgerrate.workloads.execute_month_end import grading, scenario

ID = "execute.month-end.v1"

SYSTEM = (
    "You are the accountant closing the books for the month. You work only through the tools "
    "you are given: read the documents, query the ledger, and post journal entries."
)

PROMPT_TEMPLATE = """\
Company: {company}

{policy}
Documents in your sandbox folder (read them with read_file):
{documents}

Tools: list_files and read_file for the documents; run_sql for one read-only SQLite SELECT \
at a time against the finance database (tables accounts, cost_centres, periods, vendors, \
customers, journal_entries, journal_lines, ap_bills, ap_payments, ar_invoices, ar_receipts; \
money in integer cents); post_journal_entry to propose one balanced entry (amounts in \
dollars with two decimals).

How the close is judged: only the entries you post count. After your entries, every \
account's net movement (debits minus credits) must equal the reference close within $0.01, \
and the trial balance must balance. How you group lines into entries is up to you. An entry \
posted by mistake cannot be deleted; reversing it with an opposite entry restores the \
account's net movement.
"""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "End state of the post_journal_entry tool; the final text is a summary.",
    "properties": {
        "journal_entries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "entry": {"type": "string"},
                    "memo": {"type": "string"},
                    "lines": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "account": {"type": "string"},
                                "debit": {"type": "string"},
                                "credit": {"type": "string"},
                                "memo": {"type": "string"},
                            },
                        },
                    },
                },
            },
        }
    },
    "required": ["journal_entries"],
}

PASS_RULE = (
    "The posted entries move every account as the reference close does (account, direction, "
    "amount within $0.01) and the trial balance after them balances."
)


# --------------------------------------------------------------------------- generation


def generate(rng: random.Random, n: int = 15) -> Dataset:
    db_seed = rng.getrandbits(63)
    data = finance_db.build_from_seed(db_seed)
    opening = scenario.opening_balances(data)
    items = []
    for index in range(n):
        case = scenario.scenario(rng, data)
        items.append(
            Item(
                id=item_id(index),
                input={
                    "company": case["company"],
                    "close_period": finance_schema.CLOSE_PERIOD,
                    "documents": sorted(case["files"]),
                },
                truth={
                    "entries": case["entries"],
                    "opening_balances": opening,
                    "db_seed": db_seed,
                    "db_hash": finance_db.content_hash(data),
                },
                strata=tuple(case["strata"]),
                files={name: text.encode("utf-8") for name, text in case["files"].items()},
            )
        )
    return Dataset(workload=ID, items=tuple(items), shared=data)


# --------------------------------------------------------------------------- prompt and tools


def prompt(item: Item) -> Prompt:
    user = PROMPT_TEMPLATE.format(
        company=item.input["company"],
        policy=scenario.POLICY,
        documents="\n".join(f"- {name}" for name in item.input["documents"]),
    )
    return Prompt(system=SYSTEM, user=user)


def account_names(data: dict[str, Any]) -> dict[str, str]:
    return {row[0]: row[1] for row in data["tables"]["accounts"]}


class MonthEndToolset:
    """Files, `run_sql` on a private read-only copy, and the journal writer (the graded state)."""

    def __init__(self, item: Item, data: dict[str, Any], workdir: Path) -> None:
        materialise(workdir, item.files)
        with tempfile.TemporaryDirectory(prefix="ledgerrate-close-") as tmp:
            # The sandbox copies the file; the materialised original is gone when this exits.
            self._box = SqlSandbox(finance_db.materialise(data, Path(tmp)))
        self.writer = JournalWriter(account_names(data))
        self.tools = [*file_tools(workdir), run_sql_tool(self._box), journal_tool(self.writer)]

    def state(self) -> dict[str, Any]:
        return self.writer.state()

    def close(self) -> None:
        self._box.close()


def tools(item: Item, dataset: Dataset, workdir: Any) -> MonthEndToolset:
    return MonthEndToolset(item, dict(dataset.shared), Path(workdir))


# --------------------------------------------------------------------------- grading


def grade(item: Item, answer: Answer) -> Grade:
    state = answer.tool_state or {}
    posted = state.get("journal_entries")
    if not isinstance(posted, list):
        reason = "no journal_entries in the tool state: nothing was posted"
        return Grade(
            checks=tuple(
                check(name, False, reason)
                for name in (
                    "entries_match",
                    "directions",
                    "amounts_within_cent",
                    "trial_balance_balances",
                )
            ),
            diagnostics={"entries_posted": 0},
        )
    checks = grading.close_checks(posted, item.truth["entries"], item.truth["opening_balances"])
    return Grade(
        checks=checks,
        diagnostics={
            "entries_posted": len(posted),
            "reference_entries": len(item.truth["entries"]),
            "summary_chars": len(answer.text or ""),
        },
    )


# --------------------------------------------------------------------------- baseline


def baseline(item: Item, dataset: Dataset) -> Answer:
    data = dict(dataset.shared)
    files = {name: raw.decode("utf-8") for name, raw in item.files.items()}
    writer = close_script.run_close(files, finance_db.cached_file(data), account_names(data))
    summary = f"Rule-based close script posted {len(writer.entries)} entries."
    return Answer(text=summary, tool_state=writer.state())


WORKLOAD = Workload(
    id=ID,
    primitive="execute",
    function="finance-ops",
    version=1,
    title="Mini month-end close",
    summary="Accrue, amortise and reconcile cash for June, then propose the journal entries.",
    modes=("agentic",),
    unit="Run a mini month-end close",
    volume=1,
    prompt_template=SYSTEM + "\n\n" + PROMPT_TEMPLATE + "\n" + scenario.POLICY,
    output_schema=OUTPUT_SCHEMA,
    generate=generate,
    prompt=prompt,
    grade=grade,
    tools=tools,
    baseline=baseline,
    pass_rule=PASS_RULE,
    grader_sources=(grading,),
    generator_sources=(scenario, finance_db, finance_schema),
)
