"""`execute.month-end.v2`: the mini month-end close, told the standard's pass rule.

What changed from v1, and why it is a version bump (standard §7: prompt and dataset design):

* the prompt states the rule the close is graded by (standard §4.7, grader revision 2 of v1):
  the posted entries are matched one to one against the reference entries (accounts, direction,
  amounts within $0.01), an extra entry fails, and the trial balance must balance. v1's frozen
  prompt still describes its first grader's net-movement rule;
* every item has its own prepaid contracts (two to four, varied starts and lengths), booked
  into that item's ledger; in v1 all items of a dataset shared one amortisation schedule;
* the database comes from `finance_db_v2` (race-free cache, hashed once) and is queried on a
  private copy opened immutable.

The close policy, the other documents, the tools, the grader (v1's revision 2) and the
close script are v1's, imported.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ledgerrate.sandbox import immutable_sql
from ledgerrate.sandbox.files import file_tools, materialise
from ledgerrate.sandbox.immutable_sql import ImmutableSqlSandbox, run_sql_tool
from ledgerrate.sandbox.journal import JournalWriter, journal_tool
from ledgerrate.synth import finance_db, finance_db_v2, finance_schema
from ledgerrate.synth.common import item_id
from ledgerrate.tools import ToolSpec
from ledgerrate.workloads.base import Answer, Dataset, Item, Prompt, Workload
from ledgerrate.workloads.execute_month_end import baseline as close_script
from ledgerrate.workloads.execute_month_end import entry_match, scenario

# v1's prompt text lives in the module of its first grader revision (v1_revision2 re-exports it).
from ledgerrate.workloads.execute_month_end import v1_revision1 as v1_prompt
from ledgerrate.workloads.execute_month_end import v1_revision2 as v1

ID = "execute.month-end.v2"

_V1_RULE = """\
How the close is judged: only the entries you post count. After your entries, every \
account's net movement (debits minus credits) must equal the reference close within $0.01, \
and the trial balance must balance. How you group lines into entries is up to you. An entry \
posted by mistake cannot be deleted; reversing it with an opposite entry restores the \
account's net movement.
"""
_V2_RULE = """\
How the close is judged: only the entries you post count. They are matched one to one against \
the reference entries of the close policy: each reference entry must be matched by exactly one \
of your entries with the same accounts, each account on the same side (debit or credit) and \
each amount within $0.01. An entry that matches no reference entry fails the close, and so does \
a reference entry left unmatched. The trial balance after your entries must balance, and so \
must every entry. Post each adjustment the policy asks for as its own entry. An entry cannot be \
deleted, and a reversing entry is itself an extra entry: check before you post.
"""


def _amend(template: str) -> str:
    # A silent no-op would publish v1's rule as v2's.
    if template.count(_V1_RULE) != 1:
        raise RuntimeError("v1 prompt no longer contains its judging paragraph exactly once")
    return template.replace(_V1_RULE, _V2_RULE)


SYSTEM = v1_prompt.SYSTEM
PROMPT_TEMPLATE = _amend(v1_prompt.PROMPT_TEMPLATE)
PASS_RULE = v1.PASS_RULE  # revision 2's: the rule the prompt now states


# --------------------------------------------------------------------------- generation


def _prepaid_strata(contracts: list[dict[str, Any]]) -> list[str]:
    june = finance_schema.CLOSE_START.month
    lines = [c for c in contracts if int(c["start"][5:7]) + c["months"] - 1 >= june]
    ending = [c for c in lines if int(c["start"][5:7]) + c["months"] - 1 == june]
    return [f"prepaid_june_lines_{len(lines)}", *(["prepaid_final_month"] if ending else [])]


def generate(rng: random.Random, n: int = 15) -> Dataset:
    db_seed = rng.getrandbits(63)
    items = []
    for index in range(n):
        contracts = finance_db_v2.prepaid_contracts(rng)
        db = finance_db_v2.database(db_seed, contracts)
        case = scenario.scenario(rng, db.data)
        items.append(
            Item(
                id=item_id(index),
                input={
                    "company": case["company"],
                    "close_period": finance_schema.CLOSE_PERIOD,
                    "documents": sorted(case["files"]),
                    # The environment the tools serve, not an answer: the database the
                    # model queries, with the contracts its prepaid_schedule.txt shows.
                    "db_seed": db_seed,
                    "prepaid_contracts": contracts,
                },
                truth={
                    "entries": case["entries"],
                    "opening_balances": scenario.opening_balances(db.data),
                    "db_hash": db.hash,
                },
                strata=(*case["strata"], *_prepaid_strata(contracts)),
                files={name: text.encode("utf-8") for name, text in case["files"].items()},
            )
        )
    # Every item's ledger is this one plus its own prepaid contracts.
    base = finance_db_v2.database(db_seed, [])
    return Dataset(workload=ID, items=tuple(items), shared=base.data)


# --------------------------------------------------------------------------- prompt and tools


def prompt(item: Item) -> Prompt:
    user = PROMPT_TEMPLATE.format(
        company=item.input["company"],
        policy=scenario.POLICY,
        documents="\n".join(f"- {name}" for name in item.input["documents"]),
    )
    return Prompt(system=SYSTEM, user=user)


def ledger(item: Item) -> finance_db_v2.FinanceDb:
    """The item's ledger: the dataset's database plus the item's prepaid contracts, built and
    hashed once per process."""
    return finance_db_v2.database(int(item.input["db_seed"]), item.input["prepaid_contracts"])


def database_for(item: Item) -> finance_db_v2.FinanceDb:
    """The item's ledger, checked against the hash the dataset recorded."""
    db = ledger(item)
    if db.hash != item.truth["db_hash"]:
        raise RuntimeError("finance database does not match the dataset's recorded hash")
    return db


class MonthEndToolset:
    """Files, `run_sql` on a private immutable copy, and the journal writer (the graded state)."""

    def __init__(self, item: Item, db: finance_db_v2.FinanceDb, workdir: Path) -> None:
        materialise(workdir, item.files)
        self._box = ImmutableSqlSandbox(db.sqlite_file())
        self.writer = JournalWriter(v1.account_names(db.data))
        self.tools: list[ToolSpec] = [
            *file_tools(workdir),
            run_sql_tool(self._box),
            journal_tool(self.writer),
        ]

    def state(self) -> dict[str, Any]:
        return self.writer.state()

    def close(self) -> None:
        self._box.close()


def tools(item: Item, dataset: Dataset, workdir: Any) -> MonthEndToolset:
    return MonthEndToolset(item, database_for(item), Path(workdir))


# --------------------------------------------------------------------------- baseline


def baseline(item: Item, dataset: Dataset) -> Answer:
    db = ledger(item)  # the environment a model queries; `item.truth` is never read
    files = {name: raw.decode("utf-8") for name, raw in item.files.items()}
    writer = close_script.run_close(
        files, db.sqlite_file(), v1.account_names(db.data), sandbox=ImmutableSqlSandbox
    )
    summary = f"Rule-based close script posted {len(writer.entries)} entries."
    return Answer(text=summary, tool_state=writer.state())


CHANGELOG = (
    "v2 states the standard's pass rule in the prompt: the posted entries are matched one to "
    "one against the reference entries (accounts, direction, amounts within $0.01), an extra "
    "entry fails, and the trial balance must balance; it is graded by v1's corrected grader "
    "(revision 2). v1's frozen prompt described the net-movement rule of its first grader. "
    "Each item now has its own prepaid contracts (two to four, with varied starts and lengths, "
    "at least one still running in June and one ended before it), booked into that item's "
    "ledger; in v1 every item of a dataset shared one schedule. The database is served "
    "race-free and queried on a private copy opened immutable. v1 and v2 results are not "
    "comparable: the trendline breaks here."
)

WORKLOAD = Workload(
    id=ID,
    primitive=v1.WORKLOAD.primitive,
    function=v1.WORKLOAD.function,
    version=2,
    title=v1.WORKLOAD.title,
    summary=(
        "Accrue, amortise each item's own prepaid contracts and reconcile cash for June, then "
        "propose the journal entries, matched one to one against the reference close."
    ),
    modes=v1.WORKLOAD.modes,
    unit=v1.WORKLOAD.unit,
    volume=v1.WORKLOAD.volume,
    prompt_template=SYSTEM + "\n\n" + PROMPT_TEMPLATE + "\n" + scenario.POLICY,
    output_schema=v1.WORKLOAD.output_schema,
    generate=generate,
    prompt=prompt,
    grade=v1.grade,
    tools=tools,
    baseline=baseline,
    pass_rule=PASS_RULE,
    grader_sources=(entry_match,),
    generator_sources=(
        _prepaid_strata,
        scenario,
        finance_db_v2,
        finance_db,
        finance_schema,
        immutable_sql,
    ),
    prompt_sources=(_amend,),
    changelog=CHANGELOG,
)
