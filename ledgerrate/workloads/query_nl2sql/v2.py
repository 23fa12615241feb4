"""`query.nl2sql.v2`: v1's task over the same synthetic ledger, with questions that never repeat.

What changed, and why it is a version bump (standard §7: a change to the dataset design):

* every question template has at least seven variants and a dataset never asks one question
  twice, for any n up to 50 (v1 asked template `i % 15`, six of them without a parameter, so a
  dataset of more than 15 items repeated questions word for word);
* the database is served by `finance_db_v2` (cache made under its lock, each database hashed
  once) and queried through `ImmutableSqlSandbox` (the private copy opened `immutable=1`),
  the two fixes for v1's intermittent "attempt to write a readonly database" fault.

The prompt, the answer format, the comparison and the pass rule are v1's, imported.
"""

from __future__ import annotations

import calendar
import json
import random
import re
from pathlib import Path
from typing import Any

from ledgerrate.sandbox import immutable_sql
from ledgerrate.sandbox import sql as sql_sandbox
from ledgerrate.sandbox.immutable_sql import ImmutableSqlSandbox, SqlProblem, run_sql_tool
from ledgerrate.synth import finance_db, finance_db_v2, finance_schema
from ledgerrate.synth.common import item_id
from ledgerrate.tools import ToolSpec
from ledgerrate.workloads.answers import AnswerFormatError
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Workload, check
from ledgerrate.workloads.query_nl2sql import compare, questions_v2

# v1's code as registered (revision 1): v2 keeps v1's comparison, not a later v1 correction.
from ledgerrate.workloads.query_nl2sql import v1_revision1 as v1

ID = "query.nl2sql.v2"
# Each template gets this many draws to find a question the dataset has not asked yet whose
# reference answer is usable; every template has at least seven variants, so 50 items need at
# most four distinct ones per template.
MAX_DRAWS = 40
MAX_ITEMS = 50


# --------------------------------------------------------------------------- generation


def _reference_rows(box: ImmutableSqlSandbox, sql: str) -> list[list[Any]] | None:
    """The reference answer, or None when it is unusable (empty, all NULL, or truncated)."""
    result = box.run(sql)
    if result.truncated or not result.rows or all(v is None for v in result.rows[0]):
        return None
    return [list(row) for row in result.rows]


def draw(
    rng: random.Random, template: questions_v2.Template, tables: Any, box: Any, asked: set[str]
) -> tuple[questions_v2.Question, list[list[Any]]]:
    """A question from `template` not in `asked`, with its reference rows."""
    for _ in range(MAX_DRAWS):
        question = template(rng, tables)
        if question.text in asked:
            continue
        rows = _reference_rows(box, question.sql)
        if rows is not None:
            asked.add(question.text)
            return question, rows
    raise ValueError(
        f"template {template.__name__} gave no new usable question in {MAX_DRAWS} draws"
    )


def generate(rng: random.Random, n: int = 15) -> Dataset:
    if not 1 <= n <= MAX_ITEMS:
        raise ValueError(f"{ID} generates 1 to {MAX_ITEMS} items, not {n}")
    db_seed = rng.getrandbits(63)
    db = finance_db_v2.database(db_seed)
    tables = db.data["tables"]
    asked: set[str] = set()
    items = []
    with ImmutableSqlSandbox(db.sqlite_file()) as box:
        for index in range(n):
            template = questions_v2.TEMPLATES[index % len(questions_v2.TEMPLATES)]
            question, rows = draw(rng, template, tables, box, asked)
            items.append(
                Item(
                    id=item_id(index),
                    input={"question": question.text, "schema": db.data["ddl"]},
                    truth={
                        "template": question.key,
                        "sql": question.sql,
                        "ordered": question.ordered,
                        "rows": rows,
                        "db_seed": db_seed,
                        "db_hash": db.hash,
                    },
                    strata=question.strata,
                )
            )
    return Dataset(workload=ID, items=tuple(items), shared=db.data)


# --------------------------------------------------------------------------- tools and grading


def database_for(item: Item) -> Path:
    """The item's database file, rebuilt from its seed once per process and checked against the
    recorded hash."""
    db = finance_db_v2.database(int(item.truth["db_seed"]))
    if db.hash != item.truth["db_hash"]:
        raise RuntimeError("finance database does not match the dataset's recorded hash")
    return db.sqlite_file()


class SqlToolset:
    """Agentic mode: `run_sql` on a private immutable copy; nothing lands in the workdir."""

    def __init__(self, db_path: Path) -> None:
        self._box = ImmutableSqlSandbox(db_path)
        self.tools: list[ToolSpec] = [run_sql_tool(self._box)]

    def state(self) -> dict[str, Any] | None:
        return None

    def close(self) -> None:
        self._box.close()


def tools(item: Item, dataset: Dataset, workdir: Any) -> SqlToolset:
    return SqlToolset(database_for(item))


def grade(item: Item, answer: Answer) -> Grade:
    not_run = (
        check("sql_executes", False, "no SQL to run"),
        check("result_matches", False, "no result to compare"),
    )
    try:
        sql = v1.read_sql(answer.text)
    except AnswerFormatError as exc:
        return Grade(checks=(check("answer_is_json", False, str(exc)), *not_run))
    parsed = check("answer_is_json", True, "read a JSON object with 'sql'")
    try:
        with ImmutableSqlSandbox(database_for(item)) as box:
            result = box.run(sql)
    except SqlProblem as exc:
        failed = check("sql_executes", False, f"{type(exc).__name__}: {exc}")
        return Grade(
            checks=(parsed, failed, not_run[1]), diagnostics={"outcome": type(exc).__name__}
        )
    if result.truncated:
        equal, diff = False, "result exceeded the sandbox row cap"
    else:
        equal, diff = compare.compare_results(
            item.truth["rows"], result.rows, ordered=bool(item.truth["ordered"])
        )
    return Grade(
        checks=(
            parsed,
            check("sql_executes", True, f"{len(result.rows)} rows"),
            check("result_matches", equal, diff),
        ),
        diagnostics={"rows_returned": len(result.rows), "rows_expected": len(item.truth["rows"])},
    )


# --------------------------------------------------------------------------- baseline

_MONTH_NUMBER = {calendar.month_name[number].lower(): number for number in range(1, 13)}
_MONTH = "(" + "|".join(_MONTH_NUMBER) + ")"


def _month_range(q: str) -> tuple[str, str] | None:
    span = re.search(rf"from {_MONTH} 2026 to {_MONTH} 2026", q)
    if span:
        return questions_v2.month_bounds(_MONTH_NUMBER[span[1]], _MONTH_NUMBER[span[2]])
    single = re.search(rf"\b{_MONTH} 2026\b", q)
    return questions_v2.month_bounds(_MONTH_NUMBER[single[1]]) if single else None


def translate(question: str) -> str | None:
    """v1's keyword translator, widened to the variants of the questions it answered in v1
    (the five easy templates and the one-join vendor total), and no further: it stands for the
    cheapest non-model approach, not for understanding."""
    q = question.lower()
    name = v1._quoted(question)
    months = _month_range(q)
    table = re.match(r"how many (customers|vendors) are based in the country", q)
    if table and name:
        return f"SELECT COUNT(*) FROM {table[1]} WHERE country = '{name}'"
    cutoff = re.search(r"ap bills with a due date on or before ([\d-]{10}) are still unpaid", q)
    if cutoff:
        return f"SELECT COUNT(*) FROM ap_bills WHERE status = 'open' AND due_date <= '{cutoff[1]}'"
    if "total amount" in q and "ar invoices" in q and months:
        return (
            "SELECT SUM(amount_cents) FROM ar_invoices "
            f"WHERE invoice_date BETWEEN '{months[0]}' AND '{months[1]}'"
        )
    extreme = re.search(r"(largest|smallest) single customer receipt", q)
    if extreme and months:
        function = "MAX" if extreme[1] == "largest" else "MIN"
        return (
            f"SELECT {function}(amount_cents) FROM ar_receipts "
            f"WHERE receipt_date BETWEEN '{months[0]}' AND '{months[1]}'"
        )
    listing = re.search(r"every (\w+) account, ordered by account (code|name)", q)
    if listing and "account code and name" in q:
        column = "account_code" if listing[2] == "code" else "name"
        return (
            f"SELECT account_code, name FROM accounts WHERE account_type = '{listing[1]}' "
            f"ORDER BY {column}"
        )
    return v1.translate(question)  # the vendor total is asked exactly as in v1


def baseline(item: Item, dataset: Dataset) -> Answer:
    sql = translate(item.input["question"])
    if sql is None:
        return Answer(text="I cannot translate this question.")
    return Answer(text=json.dumps({"sql": sql}))


CHANGELOG = (
    "v2 keeps v1's task, prompt, answer format, comparison and pass rule over the same "
    "synthetic ledger, and redesigns the questions: every template has at least seven variants "
    "(a month range, a party, a threshold, a top-N, an order) and a dataset never asks the same "
    "question twice for any n up to 50. v1 asked template i mod 15 for item i and six of its "
    "templates had no parameter, so a dataset of more than 15 items repeated questions word for "
    "word. The database is served race-free (its cache is created under a lock, each database "
    "is hashed once) and queried on a private copy opened immutable. v1 and v2 results are not "
    "comparable: the trendline breaks here."
)

WORKLOAD = Workload(
    id=ID,
    primitive=v1.WORKLOAD.primitive,
    function=v1.WORKLOAD.function,
    version=2,
    title=v1.WORKLOAD.title,
    summary=(
        "Translate a finance question into one SQLite SELECT over a synthetic ledger; questions "
        "never repeat within a dataset."
    ),
    modes=v1.WORKLOAD.modes,
    unit=v1.WORKLOAD.unit,
    volume=v1.WORKLOAD.volume,
    prompt_template=v1.WORKLOAD.prompt_template,
    output_schema=v1.OUTPUT_SCHEMA,
    generate=generate,
    prompt=v1.prompt,
    grade=grade,
    tools=tools,
    baseline=baseline,
    pass_rule=v1.PASS_RULE,
    grader_sources=(
        v1.read_sql,
        database_for,
        compare,
        immutable_sql,
        sql_sandbox,
        finance_db_v2,
        finance_db,
        finance_schema,
    ),
    generator_sources=(
        _reference_rows,
        draw,
        questions_v2,
        v1.questions,
        finance_db_v2,
        finance_db,
        finance_schema,
    ),
    changelog=CHANGELOG,
)
