"""Synthetic accounts-payable inbox emails for `triage.ap-inbox.v1`.

The point of this module is that the label is decided by what the newest message *does*, not by
which words it contains: forwards, quoted threads, misleading subjects and keyword-dense decoys
are planted so that a bag-of-words sorter stumbles where a careful reader does not. Every email
carries the tags of the hard cases it plants, so dataset cards can count them.

The wording itself (phrasings, subjects, the hard-case table) lives in `email_texts`; this
module draws the facts and assembles the messages.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any

from ledgerrate.synth.common import company, money, person
from ledgerrate.synth.email_texts import (
    CLOSING,
    CORE,
    GREETING,
    HARD_CASES,
    MARKETING,
    OTHER_PLAIN,
    SUBJECT,
    Hard,
)

LABELS = ("invoice", "statement", "dunning_notice", "po_response", "other")
STYLES = ("formal", "terse", "chatty", "non-native")

_WEEK_START = dt.date(2026, 6, 1)
_DATE_FORMATS = ("%d %B %Y", "%Y-%m-%d", "%B %d, %Y", "%d.%m.%Y")


@dataclass(frozen=True)
class Email:
    email_id: str
    sender: str
    to: str
    sent: str
    subject: str
    attachments: tuple[str, ...]
    body: str
    label: str
    tags: tuple[str, ...]

    def as_input(self) -> dict[str, Any]:
        """What a reader of the inbox sees: everything except the label and tags."""
        return {
            "email_id": self.email_id,
            "from": self.sender,
            "to": self.to,
            "date": self.sent,
            "subject": self.subject,
            "attachments": list(self.attachments),
            "body": self.body,
        }


def render(email: dict[str, Any]) -> str:
    """The plain-text form of an email input, as shown in the prompt and the sandbox files."""
    attachments = ", ".join(email["attachments"]) or "(none)"
    return (
        f"Email-ID: {email['email_id']}\nFrom: {email['from']}\nTo: {email['to']}\n"
        f"Date: {email['date']}\nSubject: {email['subject']}\nAttachments: {attachments}\n\n"
        f"{email['body']}"
    )


def _domain(name: str) -> str:
    return "".join(ch for ch in name.split()[0].lower() if ch.isalpha()) + ".example"


class Facts(dict[str, str]):
    """Every value a template may quote, drawn once per email so threads stay consistent."""


def draw_facts(rng: random.Random, buyer: str, ap_clerk: str, overdue: bool = False) -> Facts:
    """`overdue` dates the invoice so that its due date has passed by the week the mail arrives."""
    vendor = company(rng)
    contact, colleague = person(rng), person(rng)
    fmt = rng.choice(_DATE_FORMATS)
    term, days_over = rng.choice((14, 30, 45)), rng.randint(8, 65)
    age = term + days_over if overdue else rng.randint(0, 12)
    date = _WEEK_START - dt.timedelta(days=age)
    amount, balance = money(rng, 180, 48_000), money(rng, 2_000, 95_000)
    return Facts(
        vendor=vendor,
        vendor_short=vendor.split()[0],
        vendor_domain=_domain(vendor),
        contact=contact,
        contact_first=contact.split()[0],
        colleague=colleague,
        colleague_first=colleague.split()[0],
        buyer=buyer,
        buyer_domain=_domain(buyer),
        ap_first=ap_clerk.split()[0],
        inv=rng.choice(("INV-", "", "SI", "F2026-", "No. ")) + str(rng.randint(10_000, 99_999)),
        inv2=str(rng.randint(10_000, 99_999)),
        inv3=str(rng.randint(10_000, 99_999)),
        po=rng.choice(("PO-", "PO ", "PO#", "PO-4500")) + str(rng.randint(100_000, 999_999)),
        amount=f"${amount:,.2f}" if rng.random() < 0.8 else f"USD {amount:,.2f}",
        balance=f"${balance:,.2f}",
        date=date.strftime(fmt),
        due=(date + dt.timedelta(days=term)).strftime(fmt),
        deadline=(_WEEK_START + dt.timedelta(days=7)).strftime(fmt),
        days_over=str(days_over),
        ship=(_WEEK_START + dt.timedelta(days=rng.randint(3, 25))).strftime(fmt),
        month=date.strftime("%B"),
        n_lines=str(rng.randint(2, 9)),
        weekday=rng.choice(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")),
    )


def _pick(rng: random.Random, options: tuple[str, ...], facts: Facts) -> str:
    return rng.choice(options).format(**facts)


def plain_body(rng: random.Random, label: str, style: str, facts: Facts) -> str:
    """A single-message email whose purpose is `label` (not `other`), in `style`."""
    parts = [
        _pick(rng, GREETING[style], facts),
        _pick(rng, CORE[label][style], facts),
        _pick(rng, CLOSING[style], facts),
    ]
    return "\n\n".join(p for p in parts if p)


def _attach(label: str, facts: Facts) -> tuple[str, ...]:
    name = facts["inv"].replace(" ", "").replace(".", "")
    return {
        "invoice": (f"{name}.pdf",),
        "statement": (f"Statement_{facts['month']}.pdf",),
        "po_response": (f"OC_{facts['po'].replace(' ', '')}.pdf",),
    }.get(label, ())


def _statement_table(rng: random.Random) -> str:
    amounts = [money(rng, 90, 9_000) for _ in range(rng.randint(8, 14))]
    rows = [f"Invoice {rng.randint(10_000, 99_999)}   {a:>10,.2f}   not yet due" for a in amounts]
    return "\n".join(rows) + f"\nTotal open invoices: {sum(amounts):,.2f}"


def _vendor(f: Facts) -> str:
    return f"{f['contact']} <{f['contact_first'].lower()}@{f['vendor_domain']}>"


def _text(rng: random.Random, spec: str, style: str, f: Facts) -> str:
    if spec == "marketing":
        return MARKETING
    if spec.startswith("plain:"):
        return plain_body(rng, spec.removeprefix("plain:"), style, f)
    return spec.format(**f)


def build_hard(rng: random.Random, case: Hard, style: str, f: Facts) -> str:
    """The body of a hard case: the newest message over its quoted or forwarded history."""
    earlier = ""
    for author, spec, how in reversed(case.older):
        who = _vendor(f) if author == "vendor" else author.format(**f)
        text = _text(rng, spec, style, f) + (f"\n\n{earlier}" if earlier else "")
        if how == "forward":
            inner_label = spec.removeprefix("plain:")
            subject = _pick(rng, SUBJECT.get(inner_label, ("Never chase an invoice again",)), f)
            earlier = (
                f"---------- Forwarded message ---------\nFrom: {who}\nDate: {f['date']}\n"
                f"Subject: {subject}\n\n{text}"
            )
        else:
            quoted = "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
            earlier = f"On {f['date']}, {who} wrote:\n{quoted}"
    top = case.top.format(**f)
    if case.wrap:
        top = "\n\n".join(
            p for p in (_pick(rng, GREETING[style], f), top, _pick(rng, CLOSING[style], f)) if p
        )
    return top + (f"\n\n{earlier}" if earlier else "")


def _sent(rng: random.Random) -> str:
    minutes = rng.randint(0, 4 * 24 * 60)
    moment = dt.datetime.combine(_WEEK_START, dt.time(7)) + dt.timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%d %H:%M")


def pick_hard(rng: random.Random, counts: dict[str, int]) -> list[Hard]:
    """Hard cases for one batch, `counts` per stratum, no case used twice in the batch."""
    chosen: list[Hard] = []
    for stratum, count in counts.items():
        pool = [c for c in HARD_CASES if stratum in c.tags and c not in chosen]
        chosen += rng.sample(pool, count)
    return chosen


def make_email(
    rng: random.Random,
    email_id: str,
    buyer: str,
    ap_clerk: str,
    kind: str | Hard,
    style: str,
) -> Email:
    """One email: `kind` is a label (a plain email of that label) or a hard case."""
    case = kind if isinstance(kind, Hard) else None
    chased = case is not None and any("dunning" in spec for _a, spec, _h in case.older)
    overdue = (
        kind == "dunning_notice" or chased or (case is not None and case.label == "dunning_notice")
    )
    f = draw_facts(rng, buyer, ap_clerk, overdue=overdue)
    f["table"] = _statement_table(rng)
    f["invoice_core"] = _pick(rng, CORE["invoice"][style], f)
    sender, tags = _vendor(f), ()
    if case is not None:
        label, tags, subject = case.label, case.tags, _pick(rng, case.subjects, f)
        body, attachments = build_hard(rng, case, style, f), _attach(case.attach, f)
        if case.forwarded:
            sender = f"{f['colleague']} <{f['colleague_first'].lower()}@{f['buyer_domain']}>"
    elif kind == "other":
        subject_t, core = rng.choice(OTHER_PLAIN)
        subject = subject_t.format(subject_hint=f"Order {f['po']}", **f)
        parts = (_pick(rng, GREETING[style], f), core.format(**f), _pick(rng, CLOSING[style], f))
        body, attachments, label = "\n\n".join(p for p in parts if p), (), "other"
    else:
        subject, label = _pick(rng, SUBJECT[kind], f), kind
        body, attachments = plain_body(rng, kind, style, f), _attach(kind, f)
    return Email(
        email_id,
        sender,
        f"Accounts Payable <ap@{f['buyer_domain']}>",
        _sent(rng),
        subject,
        attachments,
        body,
        label,
        (*tags, f"style-{style}"),
    )
