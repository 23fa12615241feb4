"""`query.nl2sql.v1`, grader revision 2: rows tied on the order asked may come in any order.

Standard §4.6: pass when the "generated SQL executes and returns a result set equal to the
reference result (order-insensitive unless ordering is asked)". Revision 1
(`v1_revision1.py`, the registered source kept byte for byte so editions sealed under it still
verify; dataset, prompt, tools and sandbox are still its own) compared an ordered answer row by
row with the reference, so two vendors with the same total, or two customers tied for a
month's top spot, had to come in the order the reference query happened to return them,
which the question never asked for. Revision 2 compares ordered answers by their order key
(`tied_order`); everything else is revision 1's rule. Dataset, prompt and pass criterion are
unchanged, so the workload id stays `v1`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ledgerrate.sandbox.sql import SqlProblem, SqlSandbox
from ledgerrate.workloads.answers import AnswerFormatError
from ledgerrate.workloads.base import Answer, Grade, Item, check
from ledgerrate.workloads.query_nl2sql import compare, tied_order
from ledgerrate.workloads.query_nl2sql import v1_revision1 as v1

CHANGELOG = (
    "Grader revision 2: where a question asks for an order, rows that tie on the key it orders "
    "by may come in any order; the rows must still be the reference's and their keys in the "
    "order asked. Revision 1 also required the reference's order among tied rows, which "
    "§4.6 ('order-insensitive unless ordering is asked') does not."
)
PASS_RULE = (
    "The SQL executes in the read-only sandbox and its result set equals the reference result "
    "(order-insensitive unless the question asks for an order, and then rows tied on the order "
    "asked in any order; numbers rounded to cents)."
)


def _matches(item: Item, rows: Sequence[Sequence[Any]]) -> tuple[bool, str]:
    expected = item.truth["rows"]
    if not item.truth["ordered"]:
        return compare.compare_results(expected, rows, ordered=False)
    keys = tied_order.ORDER_KEYS.get(str(item.truth["template"]))
    if keys is None:  # an ordered question without a declared key: every column orders it
        return compare.compare_results(expected, rows, ordered=True)
    return tied_order.compare_ordered(expected, rows, keys)


def grade(item: Item, answer: Answer) -> Grade:
    try:
        sql = v1.read_sql(answer.text)
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
        with SqlSandbox(v1.database_for(item)) as box:
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
        equal, diff = _matches(item, result.rows)
        matches = check("result_matches", equal, diff)
    return Grade(
        checks=(parsed, ran, matches),
        diagnostics={"rows_returned": len(result.rows), "rows_expected": len(item.truth["rows"])},
    )


_MODULE = sys.modules[__name__]
# Re-exported: dataset, prompt, tools, sandbox and baseline are revision 1's, unchanged.
ID, SYSTEM, PROMPT_TEMPLATE, OUTPUT_SCHEMA = v1.ID, v1.SYSTEM, v1.PROMPT_TEMPLATE, v1.OUTPUT_SCHEMA
SqlToolset, database_for, read_sql, translate = (
    v1.SqlToolset,
    v1.database_for,
    v1.read_sql,
    v1.translate,
)
generate, prompt, tools, baseline = v1.generate, v1.prompt, v1.tools, v1.baseline

WORKLOAD = replace(
    v1.WORKLOAD,
    grade=grade,
    pass_rule=PASS_RULE,
    grader_sources=(*v1.WORKLOAD.grader_sources, tied_order, _MODULE),
    changelog=v1.WORKLOAD.changelog + " " + CHANGELOG,
    superseded=(v1.WORKLOAD,),
)
