"""synthesize.board-brief.v1 — turn a board pack into a one-page executive brief.

Standard §4.5. Deterministic sub-checks run first: zero fabricated figures (every number in the
brief exists somewhere in the pack, by `workloads.figures`) and the length limit (at most 500
words, our reading of "one page"). The judge then makes ONE structured call per brief: it
receives the hidden checklist of 20 planted facts and the brief, and returns a JSON verdict per
fact. The brief passes when at least 18 of the 20 facts (90%) are judged present.

The pack's PDFs are rendered on demand by `pack_pdfs` (see `synth.board_pack`): item.files stays
empty so generating a dataset is fast; the publisher calls `pack_pdfs` for the downloads.
"""

from __future__ import annotations

import math
import random
import re
import sys
from pathlib import Path
from typing import Any

from ledgerrate.sandbox.files import FileToolset
from ledgerrate.synth import board_pack, common
from ledgerrate.synth.common import company, item_id
from ledgerrate.workloads import figures
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Prompt, Workload, check

ID = "synthesize.board-brief.v1"
WORD_LIMIT = 500
FACTS = 20
PASS_SHARE = 0.9
PASS_FACTS = math.ceil(FACTS * PASS_SHARE)  # 18 of 20

SYSTEM = (
    "You are the company secretary preparing an executive brief for a director who has no time "
    "to read the board pack. Use only what the pack says."
)

PROMPT_TEMPLATE = """\
Below is the board pack of {company} for {period}: five documents.

{documents}

Write a one-page executive brief of this board pack for a director.
- Cover every decision, figure and risk a director must know about; leave out routine matters.
- Use only figures that appear in the pack. Do not compute new figures.
- At most {word_limit} words. Plain text or simple markdown; no preamble.
"""

RUBRIC = """\
You are checking an executive brief against a checklist of key facts from the board pack the
brief summarises. For each checklist fact decide whether the brief conveys it: the substance
must be there (the decision, the risk or the figure, with its meaning); the wording may differ
and a figure may be rounded. A fact that is contradicted, garbled or only hinted at is absent.
Judge each fact independently; do not judge style or length.
Reply with one JSON object only:
{"facts": [{"id": "F01", "present": true}, ...one entry per checklist fact...]}
"""

PASS_RULE = (
    "Passes when at least 18 of the 20 checklist facts (90%) are judged present in the brief, "
    "every figure the brief cites exists in the board pack "
    f"(tolerance: {figures.TOLERANCE_RULE}), and the brief is at most 500 words."
)

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "string",
    "description": "The executive brief as plain text or simple markdown, at most 500 words.",
}

PERIODS = ("Q1", "Q2", "Q3", "Q4")


# --------------------------------------------------------------------------- generation


def generate(rng: random.Random, n: int = 15) -> Dataset:
    items = []
    for index in range(n):
        name = company(rng)
        period = f"{rng.choice(PERIODS)} {rng.randint(2025, 2026)}"
        facts = board_pack.plant_facts(rng, name, period)
        documents = board_pack.build_documents(rng, name, period, facts)
        items.append(
            Item(
                id=item_id(index),
                input={"company": name, "period": period, "documents": documents},
                truth={
                    "checklist": [{"id": f.id, "fact": f.fact} for f in facts],
                    "sentences": {f.id: f.sentence for f in facts},
                },
                strata=("board-pack",),
            )
        )
    return Dataset(workload=ID, items=tuple(items))


def pack_text(item: Item) -> str:
    return "\n\n".join(f"=== {doc['name']} ===\n{doc['text']}" for doc in item.input["documents"])


def pack_pdfs(item: Item) -> dict[str, bytes]:
    """The pack as PDFs for publication (rendered on demand, deterministic)."""
    return board_pack.render_pdfs(item.input["documents"])


def prompt(item: Item) -> Prompt:
    user = PROMPT_TEMPLATE.format(
        company=item.input["company"],
        period=item.input["period"],
        documents=pack_text(item),
        word_limit=WORD_LIMIT,
    )
    return Prompt(system=SYSTEM, user=user)


def tools(item: Item, dataset: Dataset, workdir: Any) -> FileToolset:
    files = {doc["name"]: doc["text"] for doc in item.input["documents"]}
    return FileToolset(Path(workdir), files)


# --------------------------------------------------------------------------- grading


def count_words(text: str) -> int:
    """Whitespace-separated tokens holding a letter or digit (markdown bullets are no words)."""
    return sum(1 for token in text.split() if re.search(r"\w", token))


def grade(item: Item, answer: Answer) -> Grade:
    brief = (answer.text or "").strip()
    if not brief:
        reason = "empty answer"
        return Grade(
            checks=(
                check("answer_format", False, reason),
                check("no_fabricated_figures", False, reason),
                check("length_limit", False, reason),
            ),
        )
    cited = figures.find_figures(brief)
    invented = figures.unmatched(cited, figures.find_figures(pack_text(item)))
    words = count_words(brief)
    checks = (
        check("answer_format", True, "non-empty brief"),
        check(
            "no_fabricated_figures",
            not invented,
            f"not in the pack: {[f.text for f in invented]}"
            if invented
            else f"all {len(cited)} cited figures found in the pack",
        ),
        check("length_limit", words <= WORD_LIMIT, f"{words} words (limit {WORD_LIMIT})"),
    )
    passed = all(c.passed for c in checks)
    return Grade(
        checks=checks,
        diagnostics={
            "figures_cited": len(cited),
            "figures_invented": len(invented),
            "words": words,
        },
        needs_judge=passed,
        judge_input=brief if passed else None,
    )


# --------------------------------------------------------------------------- judged part


def judge_material(item: Item, answer_text: str) -> str:
    """The checklist and the (anonymised) brief. The pack itself is not needed to match facts."""
    checklist = "\n".join(f"{f['id']}: {f['fact']}" for f in item.truth["checklist"])
    return f"CHECKLIST\n\n{checklist}\n\nBRIEF TO CHECK\n\n{answer_text}\n"


def judge_outcome(item: Item, verdict: dict[str, Any]) -> tuple[bool, dict[str, float], float]:
    """(passed, scores, facts present) from the per-fact verdict; raises ValueError if partial."""
    entries = verdict.get("facts")
    if not isinstance(entries, list):
        raise ValueError("judge verdict has no `facts` list")
    seen: dict[str, bool] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("present"), bool):
            seen[str(entry.get("id"))] = entry["present"]
    wanted = [f["id"] for f in item.truth["checklist"]]
    missing = [fid for fid in wanted if fid not in seen]
    if missing:
        # A verdict that skips facts cannot be scored: treating skipped as absent would blame
        # the model for the judge's omission.
        raise ValueError(f"judge verdict lacks facts {missing}")
    present = sum(1 for fid in wanted if seen[fid])
    scores = {fid: 1.0 if seen[fid] else 0.0 for fid in wanted}
    scores["facts_present"] = float(present)
    return present >= PASS_FACTS, scores, float(present)


# --------------------------------------------------------------------------- reference answers


_SIGNALS = re.compile(
    r"\b(approved|declared|resolved|resignation|critical|claim|covenant|refinanc|deficit|"
    r"proposes|recommends|new risk|churn|over its approved|fell to|against a budget|"
    r"headcount|cash at|targets|brought back)",
    re.IGNORECASE,
)


def baseline(item: Item, dataset: Dataset) -> Answer:
    """Extractive: keep pack sentences with decision and risk signal words, up to the limit."""
    lines: list[str] = []
    words = 0
    for doc in item.input["documents"]:
        for sentence in re.split(r"(?<=[.!?])\s+", doc["text"]):
            sentence = sentence.strip()
            if sentence.startswith("#") or not _SIGNALS.search(sentence):
                continue
            size = count_words(sentence) + 1
            if words + size > WORD_LIMIT:
                break
            lines.append(f"- {sentence}")
            words += size
    return Answer(text="\n".join(lines))


def reference_answer(item: Item) -> str:
    """Every planted fact sentence, verbatim (tests grade it against itself)."""
    return "\n".join(f"- {s}" for s in item.truth["sentences"].values())


# Thresholds and templates are module constants: the whole module is part of both hashes.
_MODULE = sys.modules[__name__]

WORKLOAD = Workload(
    id=ID,
    primitive="synthesize",
    function="finance-ops",
    version=1,
    title="Board-pack executive brief",
    summary="Condense a five-document board pack into a one-page brief without inventing figures.",
    modes=("single-shot", "agentic"),
    unit="Turn a board pack into an exec brief",
    volume=1,
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
    grader_sources=(pack_text, count_words, judge_material, judge_outcome, figures, _MODULE),
    generator_sources=(board_pack, common, _MODULE),
)
