"""`triage.ap-inbox.v1` — sort a batch of 20 accounts-payable emails into five labels.

Standard §4.2: 15 batches × 20 emails; pass = batch accuracy ≥ 95% (≥ 19 of 20). The emails are
built by `ledgerrate.synth.emails`, which plants the hard cases (forwards, quoted threads,
misleading subjects, keyword decoys) and records them per email; the wording they are built from
lives in `ledgerrate.synth.email_texts`.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections import Counter
from pathlib import Path
from string import Template
from typing import Any

from ledgerrate.sandbox.files import FileToolset
from ledgerrate.synth import common, email_texts, emails
from ledgerrate.workloads import answers
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Prompt, Workload, check

WORKLOAD_ID = "triage.ap-inbox.v1"
BATCH_SIZE = 20
PASS_ACCURACY = 0.95  # standard §4.2
# Hard cases per batch; the remaining emails are plain, one of each label at least.
HARD_PER_BATCH = {
    "forwarded-thread": 3,
    "quoted-other-type": 3,
    "misleading-subject": 3,
    "keyword-decoy": 2,
}

SYSTEM = (
    "You are an accounts-payable assistant sorting a shared AP inbox. "
    "Reply with the JSON object you are asked for and nothing else."
)

PROMPT_TEMPLATE = """\
Sort each email in this batch from the accounts-payable inbox of $buyer into exactly one label.

Labels:
- invoice: the message delivers an invoice, or a copy of one, to be processed for payment.
- statement: the message delivers a statement of account (the balance and open items, sent so \
the customer can reconcile), however many invoices it lists.
- dunning_notice: the message chases payment of an amount that is overdue or unpaid: a reminder, \
a final notice, a warning that the account is on hold.
- po_response: the supplier's response to a purchase order: acknowledgement, confirmation, \
delivery date, backorder or change.
- other: anything else, e.g. out-of-office replies, payment confirmations, bank-detail changes, \
price notices, surveys and marketing (marketing about invoice software included).

Rules:
1. Label what the newest message, at the top, does. Quoted earlier messages below it are context.
2. A forwarded email takes the label of the message it forwards; the forwarder only routes it.
3. Subject lines can mislead; the body decides.

Answer with one JSON object in exactly this form, labelling every email once:
{"labels": [{"email_id": "<Email-ID>", "label": "<invoice|statement|dunning_notice|po_response|\
other>"}, ...]}

The batch ($count emails, separated by lines of '='):

$emails
"""

OUTPUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["labels"],
    "properties": {
        "labels": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["email_id", "label"],
                "properties": {
                    "email_id": {"type": "string"},
                    "label": {"type": "string", "enum": list(emails.LABELS)},
                },
            },
        }
    },
}

_SEPARATOR = "\n\n" + "=" * 40 + "\n\n"


def _batch(rng: random.Random, index: int) -> Item:
    buyer, ap_clerk = common.company(rng), common.person(rng)
    kinds: list[str | email_texts.Hard] = list(emails.pick_hard(rng, HARD_PER_BATCH))
    plain = BATCH_SIZE - len(kinds)
    kinds += list(emails.LABELS) + [rng.choice(emails.LABELS) for _ in range(plain - 5)]
    rng.shuffle(kinds)
    batch = [
        emails.make_email(rng, f"msg-{n + 1:02d}", buyer, ap_clerk, kind, rng.choice(emails.STYLES))
        for n, kind in enumerate(kinds)
    ]
    counts = Counter(tag for email in batch for tag in email.tags)
    return Item(
        id=common.item_id(index),
        input={
            "buyer": buyer,
            "emails": [email.as_input() for email in batch],
        },
        truth={
            "labels": {email.email_id: email.label for email in batch},
            "tags": {email.email_id: list(email.tags) for email in batch},
            "strata_counts": dict(sorted(counts.items())),
            "label_counts": dict(sorted(Counter(e.label for e in batch).items())),
        },
        strata=tuple(s for s in email_texts.HARD_STRATA if counts[s]),
    )


def generate(rng: random.Random, n: int = 15) -> Dataset:
    return Dataset(workload=WORKLOAD_ID, items=tuple(_batch(rng, i) for i in range(n)))


def prompt(item: Item) -> Prompt:
    rendered = _SEPARATOR.join(emails.render(e) for e in item.input["emails"])
    user = Template(PROMPT_TEMPLATE).substitute(
        buyer=item.input["buyer"], count=len(item.input["emails"]), emails=rendered
    )
    return Prompt(system=SYSTEM, user=user)


def tools(item: Item, dataset: Dataset, workdir: Any) -> FileToolset:
    files = {f"inbox/{e['email_id']}.txt": emails.render(e) for e in item.input["emails"]}
    return FileToolset(Path(workdir), files)


def normalise_label(value: Any) -> str | None:
    """`Dunning notice`, `PO-response` → canonical label; anything else → None (wrong)."""
    if not isinstance(value, str):
        return None
    label = value.strip().lower().replace("-", "_").replace(" ", "_")
    return label if label in emails.LABELS else None


def read_labels(data: Any) -> tuple[dict[str, str | None], set[str]] | None:
    """The answer's labels by email id, and ids labelled twice differently; None if no list."""
    entries = data.get("labels") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    given: dict[str, str | None] = {}
    conflicting: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("email_id"), str):
            continue
        email_id, label = entry["email_id"].strip(), normalise_label(entry.get("label"))
        if email_id in given and given[email_id] != label:
            conflicting.add(email_id)
        given[email_id] = label
    return given, conflicting


def grade(item: Item, answer: Answer) -> Grade:
    truth: dict[str, str] = item.truth["labels"]
    required = math.ceil(PASS_ACCURACY * len(truth))
    try:
        parsed = read_labels(extract_json(answer.text))
    except AnswerFormatError as exc:
        parsed, reason = None, str(exc)
    else:
        reason = "no 'labels' list in the JSON object"
    if parsed is None:
        return Grade(
            checks=(
                check("answer_is_json", False, reason),
                check("all_emails_labelled", False, "no labels read"),
                check("batch_accuracy", False, f"0 of {len(truth)} correct; {required} needed"),
            ),
            diagnostics={"accuracy": 0.0, "correct": 0},
        )
    given, conflicting = parsed
    missing = sorted(i for i in truth if i not in given or i in conflicting)
    unknown = sorted(set(given) - set(truth))
    correct_ids = {i for i in truth if i not in conflicting and given.get(i) == truth[i]}
    diagnostics: dict[str, float | int | str | bool] = {
        "accuracy": round(len(correct_ids) / len(truth), 4),
        "correct": len(correct_ids),
        "unknown_ids": len(unknown),
    }
    for label in emails.LABELS:
        ids = [i for i, t in truth.items() if t == label]
        if ids:
            diagnostics[f"recall_{label}"] = round(sum(i in correct_ids for i in ids) / len(ids), 4)
    wrong = sorted(set(truth) - correct_ids)
    labelled_detail = (
        f"{len(truth) - len(missing)} of {len(truth)} labelled exactly once"
        + (f"; missing or conflicting: {', '.join(missing)}" if missing else "")
        + (f"; {len(unknown)} unknown id(s) ignored" if unknown else "")
    )
    return Grade(
        checks=(
            check("answer_is_json", True, "JSON object with a labels list"),
            check("all_emails_labelled", not missing, labelled_detail),
            check(
                "batch_accuracy",
                len(correct_ids) >= required,
                f"{len(correct_ids)} of {len(truth)} correct; {required} needed"
                + (f"; wrong: {', '.join(wrong)}" if wrong else ""),
            ),
        ),
        diagnostics=diagnostics,
    )


# The reference sorter: keyword counts over subject and body, the way a mail rule would do it.
# Order breaks ties, most specific first. It reads only what a model reads.
_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "dunning_notice",
        ("overdue", "reminder", "past due", "final notice", "unpaid", "on hold", "arrears"),
    ),
    ("statement", ("statement", "balance")),
    (
        "po_response",
        ("purchase order", "order confirmation", "confirm", "acknowledge", "backorder", "ship"),
    ),
    ("invoice", ("invoice",)),
)


def keyword_label(subject: str, body: str) -> str:
    scores = {
        label: 2 * sum(subject.lower().count(w) for w in words)
        + sum(body.lower().count(w) for w in words)
        for label, words in _KEYWORDS
    }
    best = max(scores.values())
    if best == 0:
        return "other"
    return next(label for label, _ in _KEYWORDS if scores[label] == best)


def baseline(item: Item, dataset: Dataset) -> Answer:
    labels = [
        {"email_id": e["email_id"], "label": keyword_label(e["subject"], e["body"])}
        for e in item.input["emails"]
    ]
    return Answer(text=json.dumps({"labels": labels}))


# The module itself is hashed with the grader and the generator: their thresholds and batch
# shape are module constants, which a function's source alone would not cover.
_MODULE = sys.modules[__name__]

WORKLOAD = Workload(
    id=WORKLOAD_ID,
    primitive="classify",
    function="finance-ops",
    version=1,
    title="AP inbox triage",
    summary=(
        "Sort batches of 20 accounts-payable emails into invoice, statement, dunning notice, "
        "PO response or other, with forwards, quoted threads and misleading subjects planted."
    ),
    modes=("single-shot", "agentic"),
    unit="Sort 1,000 AP emails",
    volume=1000,
    prompt_template=SYSTEM + "\n\n" + PROMPT_TEMPLATE,
    output_schema=OUTPUT_SCHEMA,
    generate=generate,
    prompt=prompt,
    grade=grade,
    tools=tools,
    baseline=baseline,
    pass_rule="Every email labelled once and at least 19 of the 20 labels correct.",
    grader_sources=(normalise_label, read_labels, answers, _MODULE),
    generator_sources=(_batch, emails, email_texts, common, _MODULE),
    prompt_sources=(emails.render,),
)
