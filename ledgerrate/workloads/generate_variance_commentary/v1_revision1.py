"""generate.variance-commentary.v1 — draft the variance commentary for a budget-vs-actual report.

Standard §4.4. Deterministic sub-checks run first (every cited figure exists in the source, the
top three drivers by absolute variance are the ones named, at most 300 words); a judge then
scores clarity and cause attribution against the published rubric.

How "named" is detected: the answer is a JSON object whose `drivers` list must hold the exact
line-item names from the table (compared case-insensitively, whitespace collapsed), and each of
those names must also appear in the commentary text, so the list cannot float free of the prose.
"""

from __future__ import annotations

import json
import random
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from ledgerrate.sandbox.files import FileToolset
from ledgerrate.synth import budget, common
from ledgerrate.synth.common import company, item_id
from ledgerrate.workloads import answers, figures
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Prompt, Workload, check

ID = "generate.variance-commentary.v1"
WORD_LIMIT = 300
PASS_SCORE = 4
CRITERIA = ("clarity", "cause_attribution")

SYSTEM = (
    "You are a management accountant writing the variance commentary that accompanies a "
    "budget-versus-actual report. Use only the figures and facts you are given."
)

PROMPT_TEMPLATE = """\
Company: {company}
Period: {period}
Currency: {currency}

Budget versus actual by line item (variance = actual - budget):

{table}

Context notes from the business:

{notes}

Write the variance commentary for this report.
- Identify the three line items with the largest absolute variance (the top-3 drivers).
- For each driver state the magnitude of the variance and its cause, using the context notes.
  Not every note explains a variance.
- Cite only figures that appear above (you may round them).
- The commentary must be at most {word_limit} words.

Reply with one JSON object and nothing else:
{{"drivers": ["<line item>", "<line item>", "<line item>"], "commentary": "<your commentary>"}}
The drivers must be written exactly as the line items are named in the table, largest first.
"""

RUBRIC = """\
You are grading a short variance commentary written for a budget-versus-actual report. You are
given the report exactly as the writer saw it (table and context notes) and the writer's
commentary. Score two criteria on a whole-number scale from 1 to 5.

clarity
  5  A finance reader grasps every driver, its size and its direction (over or under budget)
     on a first reading; the commentary is well ordered and free of padding.
  4  Clear throughout, with minor awkwardness or slight redundancy.
  3  Understandable, but the reader has to work for it: unclear direction, muddled order or
     noticeable padding.
  2  Hard to follow; drivers or directions are confused.
  1  Incoherent or not a commentary.

cause_attribution
  5  Each driver's cause is the one the context notes give for that line item; no cause is
     borrowed from a note about another line or from a note that says it had no effect, and
     nothing is invented.
  4  Causes are right, with one small imprecision that does not mislead.
  3  One driver's cause is missing, vague or speculative.
  2  A cause is wrong: taken from an unrelated note or invented.
  1  Causes are mostly missing or wrong.

Do not reward length. Do not check arithmetic or figures: that is verified separately.
Reply with one JSON object only:
{"clarity": <1-5>, "cause_attribution": <1-5>, "rationale": "<one or two sentences>"}
"""

PASS_RULE = (
    "Passes when every figure the commentary cites matches a figure in the table or notes "
    f"(tolerance: {figures.TOLERANCE_RULE}), the three drivers named are exactly the three line "
    "items with the largest absolute variance, the commentary is at most 300 words, and the "
    "judge scores both clarity and cause attribution at least 4 out of 5."
)

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "drivers": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3},
        "commentary": {"type": "string"},
    },
    "required": ["drivers", "commentary"],
}


# --------------------------------------------------------------------------- generation


def _item(index: int, table: budget.BudgetTable) -> Item:
    lines = [
        {
            "name": line.name,
            "budget": line.budget,
            "actual": line.actual,
            "variance": line.variance,
            "variance_pct": str(line.variance_pct),
        }
        for line in table.lines
    ]
    return Item(
        id=item_id(index),
        input={
            "company": table.company,
            "period": table.period,
            "currency": table.currency,
            "lines": lines,
            "notes": [{"id": note.id, "text": note.text} for note in table.notes],
        },
        truth={
            "drivers": list(table.drivers),
            "causes": {n.line: n.id for n in table.notes if n.role == "cause"},
            "herrings": [n.id for n in table.notes if n.role == "herring"],
        },
        strata=table.strata,
    )


def generate(rng: random.Random, n: int = 15) -> Dataset:
    items = []
    for index in range(n):
        # Every third item puts the fourth-largest variance close to the third.
        table = budget.make_table(rng, company(rng), close_fourth=index % 3 == 2)
        items.append(_item(index, table))
    return Dataset(workload=ID, items=tuple(items))


# --------------------------------------------------------------------------- prompt and tools


def _table_text(item: Item) -> str:
    cur = item.input["currency"]
    rows = [
        f"| Line item | Budget ({cur}) | Actual ({cur}) | Variance ({cur}) | Variance % |",
        "|---|---:|---:|---:|---:|",
    ]
    for line in item.input["lines"]:
        rows.append(
            f"| {line['name']} | {line['budget']:,} | {line['actual']:,} | {line['variance']:,} "
            f"| {line['variance_pct']}% |"
        )
    return "\n".join(rows)


def _notes_text(item: Item) -> str:
    return "\n".join(f"{note['id']}. {note['text']}" for note in item.input["notes"])


def prompt(item: Item) -> Prompt:
    user = PROMPT_TEMPLATE.format(
        company=item.input["company"],
        period=item.input["period"],
        currency=item.input["currency"],
        table=_table_text(item),
        notes=_notes_text(item),
        word_limit=WORD_LIMIT,
    )
    return Prompt(system=SYSTEM, user=user)


def tools(item: Item, dataset: Dataset, workdir: Any) -> FileToolset:
    report = f"{_table_text(item)}\n\nContext notes:\n{_notes_text(item)}\n"
    return FileToolset(Path(workdir), {"report.md": report})


# --------------------------------------------------------------------------- grading


def _norm(name: str) -> str:
    return " ".join(str(name).casefold().split()).strip(" .:;,")


def count_words(text: str) -> int:
    """Whitespace-separated tokens that contain a letter or digit (a lone dash is no word)."""
    return sum(1 for token in text.split() if re.search(r"\w", token))


def source_figures(item: Item) -> list[figures.Figure]:
    cur = item.input["currency"]
    found: list[figures.Figure] = []
    for line in item.input["lines"]:
        for key in ("budget", "actual", "variance"):
            found.append(figures.source_figure(line[key], "money", cur))
        found.append(figures.source_figure(Decimal(line["variance_pct"]), "percent"))
    found.extend(figures.find_figures(_notes_text(item)))
    return found


def read_answer(text: str) -> tuple[list[str], str]:
    data = extract_json(text, dict)
    drivers = data.get("drivers")
    commentary = data.get("commentary")
    if not isinstance(drivers, list) or not all(isinstance(d, str) for d in drivers):
        raise AnswerFormatError("`drivers` must be a list of line-item names")
    if not isinstance(commentary, str) or not commentary.strip():
        raise AnswerFormatError("`commentary` must be non-empty text")
    return drivers, commentary


def grade(item: Item, answer: Answer) -> Grade:
    try:
        drivers, commentary = read_answer(answer.text)
    except AnswerFormatError as exc:
        reason = f"no readable answer: {exc}"
        return Grade(
            checks=(
                check("answer_format", False, reason),
                check("figures_exist", False, reason),
                check("top3_drivers", False, reason),
                check("word_limit", False, reason),
            ),
            diagnostics={"drivers_correct": 0},
        )
    cited = figures.find_figures(commentary)
    missing = figures.unmatched(cited, source_figures(item))
    truth = [_norm(d) for d in item.truth["drivers"]]
    named = [_norm(d) for d in drivers]
    right = len(set(named) & set(truth))
    body = _norm(commentary)
    not_in_text = [d for d in drivers if _norm(d) not in body]
    top3_ok = len(named) == 3 and set(named) == set(truth) and not not_in_text
    words = count_words(commentary)
    top3_detail = f"expected {item.truth['drivers']}, named {drivers}"
    if not_in_text:
        top3_detail += f"; not mentioned in the commentary: {not_in_text}"
    checks = (
        check("answer_format", True, "JSON object with drivers and commentary"),
        check(
            "figures_exist",
            not missing,
            f"{len(cited)} figures cited; not in the source: {[f.text for f in missing]}"
            if missing
            else f"all {len(cited)} cited figures found in the source",
        ),
        check("top3_drivers", top3_ok, top3_detail),
        check("word_limit", words <= WORD_LIMIT, f"{words} words (limit {WORD_LIMIT})"),
    )
    passed = all(c.passed for c in checks)
    return Grade(
        checks=checks,
        diagnostics={
            "figures_cited": len(cited),
            "figures_unmatched": len(missing),
            "drivers_correct": right,
            "drivers_in_order": named == truth,
            "words": words,
        },
        needs_judge=passed,
        judge_input=commentary if passed else None,
    )


# --------------------------------------------------------------------------- judged part


def judge_material(item: Item, answer_text: str) -> str:
    """What the judge reads: the report as the writer saw it, then the (anonymised) answer."""
    return (
        f"REPORT\n\nPeriod: {item.input['period']}\nCurrency: {item.input['currency']}\n\n"
        f"{_table_text(item)}\n\nContext notes:\n{_notes_text(item)}\n\n"
        f"COMMENTARY TO GRADE\n\n{answer_text}\n"
    )


def judge_outcome(item: Item, verdict: dict[str, Any]) -> tuple[bool, dict[str, float], float]:
    """(passed, per-criterion scores, overall score) from the judge's JSON; raises ValueError."""
    scores: dict[str, float] = {}
    for name in CRITERIA:
        value = verdict.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 5:
            raise ValueError(f"judge verdict lacks a 1-5 score for {name!r}")
        scores[name] = float(value)
    passed = all(score >= PASS_SCORE for score in scores.values())
    return passed, scores, min(scores.values())


# --------------------------------------------------------------------------- reference answers


def _commentary(item: Item, drivers: list[str], causes: dict[str, str]) -> str:
    lines = {line["name"]: line for line in item.input["lines"]}
    symbol = dict(budget.CURRENCIES)[item.input["currency"]]
    parts = []
    for name in drivers:
        line = lines[name]
        direction = "above" if line["variance"] > 0 else "below"
        parts.append(
            f"{name} was {symbol}{abs(line['variance']):,} ({line['variance_pct'].lstrip('-')}%) "
            f"{direction} budget. {causes.get(name, 'No cause was given in the notes.')}"
        )
    return " ".join(parts)


def baseline(item: Item, dataset: Dataset) -> Answer:
    """Template writer over the input only: sort by |variance|, quote the note naming the line."""
    ranked = sorted(item.input["lines"], key=lambda line: -abs(line["variance"]))[:3]
    drivers = [line["name"] for line in ranked]
    causes = {}
    for name in drivers:
        for note in item.input["notes"]:
            if name.casefold() in note["text"].casefold():
                causes[name] = note["text"]
                break
    text = {"drivers": drivers, "commentary": _commentary(item, drivers, causes)}

    return Answer(text=json.dumps(text))


def reference_answer(item: Item) -> str:
    """The answer built from the hidden truth (tests grade it against itself)."""

    notes = {note["id"]: note["text"] for note in item.input["notes"]}
    causes = {line: notes[nid] for line, nid in item.truth["causes"].items()}
    drivers = list(item.truth["drivers"])
    return json.dumps({"drivers": drivers, "commentary": _commentary(item, drivers, causes)})


# Thresholds and templates are module constants: the whole module is part of both hashes.
_MODULE = sys.modules[__name__]

WORKLOAD = Workload(
    id=ID,
    primitive="generate",
    function="finance-ops",
    version=1,
    title="Variance commentary",
    summary="Name the top-3 budget variances, their size and cause, in at most 300 words.",
    modes=("single-shot", "agentic"),
    unit="Draft 50 variance commentaries",
    volume=50,
    prompt_template=SYSTEM + "\n\n" + PROMPT_TEMPLATE,
    output_schema=OUTPUT_SCHEMA,
    generate=generate,
    prompt=prompt,
    grade=grade,
    tools=tools,
    baseline=baseline,
    rubric=RUBRIC,
    judged=True,
    pass_rule=PASS_RULE,
    grader_sources=(
        read_answer,
        source_figures,
        count_words,
        _norm,
        judge_outcome,
        judge_material,
        figures,
        answers,
        _MODULE,
    ),
    generator_sources=(budget, common, _MODULE),
)
