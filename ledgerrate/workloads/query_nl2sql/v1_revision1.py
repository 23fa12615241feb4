"""`query.nl2sql.v1`: answer finance questions with one SQLite SELECT over a synthetic ledger.

The model's SQL runs in the same sandbox the agentic `run_sql` tool uses (read-only copy,
authorizer, deadline, row cap), and passes when its result set equals the reference SQL's.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from ledgerrate.sandbox import sql as sql_sandbox
from ledgerrate.sandbox.sql import SqlProblem, SqlSandbox, run_sql_tool
from ledgerrate.synth import finance_db, finance_schema
from ledgerrate.synth.common import item_id
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Prompt, Workload, check
from ledgerrate.workloads.query_nl2sql import compare, questions

ID = "query.nl2sql.v1"

SYSTEM = (
    "You are a finance data analyst. You answer questions about a company's accounting "
    "database by writing one SQLite SELECT statement."
)

PROMPT_TEMPLATE = """\
The database is SQLite. Its schema:

{schema}

Conventions: money is stored as integer cents (columns ending in _cents); return money in \
cents exactly as stored or summed, never converted to dollars, even when the question states \
a threshold in dollars. Dates are ISO text (YYYY-MM-DD).

Question: {question}

How your query is judged: it is run read-only and its rows are compared with the reference \
answer. Return exactly the columns the question asks for, in the order it names them; column \
names do not matter. Row order matters only when the question asks for an order. Numbers are \
compared after rounding to cents. Only one SELECT statement is allowed.

Reply with a JSON object and nothing else: {{"sql": "<your SELECT statement>"}}
"""

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"sql": {"type": "string", "description": "One SQLite SELECT statement."}},
    "required": ["sql"],
}

PASS_RULE = (
    "The SQL executes in the read-only sandbox and its result set equals the reference result "
    "(order-insensitive unless the question asks for an order; numbers rounded to cents)."
)


# --------------------------------------------------------------------------- generation


def _reference_rows(box: SqlSandbox, sql: str) -> list[list[Any]]:
    result = box.run(sql)
    if result.truncated or not result.rows or all(v is None for v in result.rows[0]):
        raise ValueError(f"reference SQL gave an unusable result: {sql}")
    return [list(row) for row in result.rows]


def generate(rng: random.Random, n: int = 15) -> Dataset:
    db_seed = rng.getrandbits(63)
    data = finance_db.build_from_seed(db_seed)
    db_hash = finance_db.content_hash(data)
    items = []
    with tempfile.TemporaryDirectory(prefix="nl2sql-gen-") as tmp:
        path = finance_db.materialise(data, Path(tmp))
        with SqlSandbox(path) as box:
            for index in range(n):
                template = questions.TEMPLATES[index % len(questions.TEMPLATES)]
                question = template(rng, data["tables"])
                items.append(
                    Item(
                        id=item_id(index),
                        input={"question": question.text, "schema": data["ddl"]},
                        truth={
                            "template": question.key,
                            "sql": question.sql,
                            "ordered": question.ordered,
                            "rows": _reference_rows(box, question.sql),
                            "db_seed": db_seed,
                            "db_hash": db_hash,
                        },
                        strata=question.strata,
                    )
                )
    return Dataset(workload=ID, items=tuple(items), shared=data)


# --------------------------------------------------------------------------- prompt and tools


def prompt(item: Item) -> Prompt:
    user = PROMPT_TEMPLATE.format(schema=item.input["schema"], question=item.input["question"])
    return Prompt(system=SYSTEM, user=user)


class SqlToolset:
    """Agentic mode: `run_sql` on a private read-only copy of the dataset's database."""

    def __init__(self, data: dict[str, Any], workdir: Path) -> None:
        path = finance_db.materialise(data, Path(workdir) / ".db")
        self._box = SqlSandbox(path)
        path.unlink()  # the sandbox holds its own copy; nothing writable stays in the workdir
        self.tools = [run_sql_tool(self._box)]

    def state(self) -> dict[str, Any] | None:
        return None

    def close(self) -> None:
        self._box.close()


def tools(item: Item, dataset: Dataset, workdir: Any) -> SqlToolset:
    return SqlToolset(dict(dataset.shared), Path(workdir))


# --------------------------------------------------------------------------- grading


def database_for(item: Item) -> Path:
    """The item's database, rebuilt from its seed and checked against the recorded hash."""
    data = finance_db.build_from_seed(int(item.truth["db_seed"]))
    if finance_db.content_hash(data) != item.truth["db_hash"]:
        raise RuntimeError("finance database does not match the dataset's recorded hash")
    return finance_db.cached_file(data)


def read_sql(text: str) -> str:
    value = extract_json(text, dict)
    sql = value.get("sql")
    if not isinstance(sql, str) or not sql.strip():
        raise AnswerFormatError("the JSON object has no non-empty 'sql' string")
    return sql


def grade(item: Item, answer: Answer) -> Grade:
    try:
        sql = read_sql(answer.text)
    except AnswerFormatError as exc:
        return Grade(
            checks=(
                check("answer_is_json", False, str(exc)),
                check("sql_executes", False, "no SQL to run"),
                check("result_matches", False, "no result to compare"),
            ),
        )
    parsed = check("answer_is_json", True, "read a JSON object with 'sql'")
    try:
        with SqlSandbox(database_for(item)) as box:
            result = box.run(sql)
    except SqlProblem as exc:
        return Grade(
            checks=(
                parsed,
                check("sql_executes", False, f"{type(exc).__name__}: {exc}"),
                check("result_matches", False, "no result to compare"),
            ),
            diagnostics={"outcome": type(exc).__name__},
        )
    ran = check("sql_executes", True, f"{len(result.rows)} rows")
    if result.truncated:
        matches = check("result_matches", False, "result exceeded the sandbox row cap")
    else:
        equal, diff = compare.compare_results(
            item.truth["rows"], result.rows, ordered=bool(item.truth["ordered"])
        )
        matches = check("result_matches", equal, diff)
    return Grade(
        checks=(parsed, ran, matches),
        diagnostics={"rows_returned": len(result.rows), "rows_expected": len(item.truth["rows"])},
    )


# --------------------------------------------------------------------------- baseline

_MONTHS = {
    name.lower(): number
    for number, name in enumerate(
        (
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
        start=1,
    )
}
_LAST_DAY = {1: 31, 2: 28, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}


def _quoted(text: str) -> str | None:
    found = re.search(r"'([^']+)'", text)
    return found.group(1).replace("'", "''") if found else None


def _month_range(text: str) -> tuple[str, str] | None:
    found = re.search(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{4})\b", text, re.IGNORECASE)
    if not found:
        return None
    month, year = _MONTHS[found.group(1).lower()], int(found.group(2))
    return f"{year}-{month:02d}-01", f"{year}-{month:02d}-{_LAST_DAY[month]:02d}"


def translate(question: str) -> str | None:
    """A keyword translator: a few fixed patterns for simple questions, no understanding.

    It stands for the cheapest possible non-model approach, so it is deliberately generic:
    count/total/largest over one table, a quoted name filter, a month date range.
    """
    q = question.lower()
    name = _quoted(question)
    month = _month_range(question)
    if q.startswith("how many customers") and "country" in q and name:
        return f"SELECT COUNT(*) FROM customers WHERE country = '{name}'"
    if q.startswith("how many ap bills") and "unpaid" in q:
        return "SELECT COUNT(*) FROM ap_bills WHERE status = 'open'"
    if "total amount" in q and "ar invoices" in q and month:
        return (
            "SELECT SUM(amount_cents) FROM ar_invoices "
            f"WHERE invoice_date BETWEEN '{month[0]}' AND '{month[1]}'"
        )
    if "largest" in q and "receipt" in q and month:
        return (
            "SELECT MAX(amount_cents) FROM ar_receipts "
            f"WHERE receipt_date BETWEEN '{month[0]}' AND '{month[1]}'"
        )
    kind = re.search(r"every (asset|liability|equity|revenue|expense) account", q)
    if kind and "account code and name" in q:
        order = " ORDER BY account_code" if "ordered by account code" in q else ""
        return (
            f"SELECT account_code, name FROM accounts WHERE account_type = '{kind.group(1)}'"
            + order
        )
    if "billed by the vendor" in q and name:
        return (
            "SELECT SUM(b.amount_cents) FROM ap_bills b JOIN vendors v "
            f"ON v.vendor_id = b.vendor_id WHERE v.name = '{name}'"
        )
    return None


def baseline(item: Item, dataset: Dataset) -> Answer:
    sql = translate(item.input["question"])
    if sql is None:
        return Answer(text="I cannot translate this question.")
    return Answer(text=json.dumps({"sql": sql}))


WORKLOAD = Workload(
    id=ID,
    primitive="query",
    function="finance-ops",
    version=1,
    title="Ad-hoc finance questions in SQL",
    summary="Translate a finance question into one SQLite SELECT over a synthetic ledger.",
    modes=("single-shot", "agentic"),
    unit="Answer 100 ad-hoc finance questions",
    volume=100,
    prompt_template=SYSTEM + "\n\n" + PROMPT_TEMPLATE,
    output_schema=OUTPUT_SCHEMA,
    generate=generate,
    prompt=prompt,
    grade=grade,
    tools=tools,
    baseline=baseline,
    pass_rule=PASS_RULE,
    grader_sources=(read_sql, database_for, compare, sql_sandbox, finance_db, finance_schema),
    generator_sources=(_reference_rows, questions, finance_db, finance_schema),
)
