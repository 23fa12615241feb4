"""Wording for the synthetic AP inbox: greetings, sign-offs, per-label phrasings and the table
of planted hard cases.

Kept apart from `emails` (which assembles messages) so the text can grow without burying the
assembly logic. This module is part of the triage generator's hash: editing a phrase here changes
the data, so it changes the generator hash too.
"""

from __future__ import annotations

from dataclasses import dataclass

HARD_STRATA = ("forwarded-thread", "quoted-other-type", "misleading-subject", "keyword-decoy")


GREETING = {
    "formal": ("Dear Accounts Payable team,", "Dear Sir or Madam,", "Dear {ap_first},"),
    "terse": ("", "Hi,", "{ap_first} -"),
    "chatty": ("Hi {ap_first}!", "Hey there,", "Morning {ap_first},"),
    "non-native": ("Good day,", "Dear Sir/Madam,", "Hello dear colleagues,"),
}
CLOSING = {
    "formal": (
        "Kind regards,\n{contact}\nCredit Control, {vendor}",
        "Yours faithfully,\n{contact}",
    ),
    "terse": ("{contact_first}", "- {contact_first}", "Thx\n{contact_first}"),
    "chatty": ("Cheers,\n{contact_first}", "Have a great week!\n{contact_first} :)"),
    "non-native": ("Best regards,\n{contact}\n{vendor}", "With friendly greetings,\n{contact}"),
}

# The newest message's own purpose, per label and style. Several phrasings per cell so that
# no fixed sentence identifies a label.
CORE: dict[str, dict[str, tuple[str, ...]]] = {
    "invoice": {
        "formal": (
            "Please find attached invoice {inv} dated {date} for {amount}, relating to "
            "purchase order {po}. Payment is due by {due} in line with our agreed terms.",
            "We enclose our invoice {inv} in the amount of {amount} for the services provided "
            "during {month}. We would be grateful if you could arrange settlement by {due}.",
        ),
        "terse": ("Invoice {inv} attached - {amount}, due {due}.", "Attached: {inv} for {po}."),
        "chatty": (
            "Just popping our latest bill over to you - it's {inv} for {amount}, covering the "
            "{month} deliveries. Usual terms, so due {due}. Shout if anything looks off!",
            "Happy {weekday}! Attached is {inv} for the work we wrapped up on {po} "
            "({amount}). Payable by {due} - thanks as always!",
        ),
        "non-native": (
            "Kindly find in attachment our invoice number {inv} for the amount of {amount}. "
            "Please to make the payment until {due}. We thank you for the business.",
            "Herewith we send you the invoice {inv} regarding your order {po}, amount "
            "{amount}, payable within the term ({due}).",
        ),
    },
    "statement": {
        "formal": (
            "Please find attached your statement of account as at {date}. The balance on your "
            "account is {balance}; items not yet due are shown for information only.",
            "For your reconciliation, we attach the statement of your account with {vendor} "
            "for the period ending {date}. Closing balance: {balance}.",
        ),
        "terse": (
            "Statement as at {date} attached. Balance {balance}.",
            "SOA attached, bal {balance}.",
        ),
        "chatty": (
            "Here's your account summary for {month} - closing balance {balance}. Nothing's "
            "wrong, just sending it so your records line up with ours.",
        ),
        "non-native": (
            "Please receive the statement of your account at date {date}. The open balance is "
            "{balance}. Please to compare with your books and inform us of differences.",
        ),
    },
    "dunning_notice": {
        "formal": (
            "Our records indicate that invoice {inv} for {amount}, which fell due on {due}, "
            "remains unpaid. Please arrange payment within seven days or let us know of any "
            "query.",
            "Despite our earlier reminder, invoice {inv} ({amount}) is now {days_over} days past "
            "due. Unless payment reaches us by {deadline}, we will have to place your account "
            "on hold.",
        ),
        "terse": (
            "{inv} ({amount}) is {days_over} days overdue. Pls pay or advise.",
            "Still no payment for {inv}, due {due}. ETA?",
        ),
        "chatty": (
            "Hope all's well! Just a gentle nudge - {inv} for {amount} slipped past its due date "
            "on {due}. Could you check where it is in your payment run? Thanks a million!",
        ),
        "non-native": (
            "We remind you that invoice {inv} is open since {due}. Please to transfer the "
            "amount of {amount} as soon as possible, otherwise we must stop the deliveries.",
            "Until today we did not receive your payment for {inv}, amount {amount}, expired at "
            "{due}. We ask you kindly to pay it immediately.",
        ),
    },
    "po_response": {
        "formal": (
            "We acknowledge receipt of your purchase order {po} dated {date}. All {n_lines} lines "
            "are confirmed at the agreed prices, with dispatch scheduled for {ship}.",
            "Thank you for order {po}. We can confirm all but one line; that item is on "
            "backorder and we expect to ship it on {ship}. Please tell us whether a partial "
            "delivery is acceptable.",
        ),
        "terse": (
            "{po} confirmed. Ships {ship}.",
            "Re {po}: line 2 backordered, rest ships {ship}.",
        ),
        "chatty": (
            "Thanks so much for order {po}! Everything's in stock, so it'll be on a truck by "
            "{ship}. Let me know if the delivery address has changed.",
        ),
        "non-native": (
            "We confirm to have received your order {po}. The delivery is foreseen for {ship}. "
            "One article is not more available, we propose a substitute with same price.",
        ),
    },
}

OTHER_PLAIN: tuple[tuple[str, str], ...] = (
    (
        "Automatic reply: {subject_hint}",
        "Thank you for your message. I am out of the office until {ship} with limited access "
        "to email. For anything urgent please contact {colleague}.",
    ),
    (
        "Office closure over the summer",
        "Our offices will be closed from {ship} for two weeks. Orders placed in that period "
        "will be processed on our return.",
    ),
    (
        "Tax certificate request",
        "As part of our annual customer review, could you send us your current tax "
        "registration certificate? Our compliance team needs it on file by {due}.",
    ),
    (
        "Customer satisfaction survey",
        "We would love to hear how we did this year. The survey takes five minutes and every "
        "response enters a draw for a gift hamper.",
    ),
    (
        "Price list {month}",
        "Please note that from {ship} our list prices rise by 4% on average. Orders confirmed "
        "before that date keep the current prices.",
    ),
)

SUBJECT = {
    "invoice": (
        "Invoice {inv}",
        "{vendor_short} - Invoice {inv}",
        "{inv} / {po}",
        "New document from {vendor_short}",
    ),
    "statement": (
        "Statement of account - {month}",
        "Your statement from {vendor_short}",
        "Account statement {date}",
        "Monthly statement",
    ),
    "dunning_notice": (
        "Payment reminder: {inv}",
        "OVERDUE - {inv}",
        "Second reminder",
        "Outstanding balance - action required",
    ),
    "po_response": (
        "Order confirmation {po}",
        "{po} acknowledgement",
        "Re: Purchase Order {po}",
        "Your order {po}",
    ),
}

MARKETING = (
    "Still keying invoices by hand? InvoiceFlow reads every invoice, matches each invoice to its "
    "purchase order and routes invoice approvals automatically. Teams like yours cut invoice "
    "processing costs by 60% and never miss an invoice due date again. Overdue invoices, "
    "duplicate invoices, lost statements - gone. Book a 20-minute demo this week."
)


@dataclass(frozen=True)
class Hard:
    """A planted hard case. `top` is the newest message; `older` are earlier messages in the
    thread, newest first, each (author, text, how) where text is a template, `plain:<label>`
    (a generated email of that label) or `marketing`, and how is `quote` or `forward`."""

    label: str
    tags: tuple[str, ...]
    subjects: tuple[str, ...]
    top: str
    older: tuple[tuple[str, str, str], ...] = ()
    wrap: bool = False  # add the sender's greeting and sign-off around `top`
    attach: str = ""  # label whose usual attachment the email carries

    @property
    def forwarded(self) -> bool:
        # Forwards are sent on by a colleague at the buyer, so the sender is not the vendor.
        return HARD_STRATA[0] in self.tags


_FWD, _QUO, _MIS, _DEC = HARD_STRATA
_AP = "Accounts Payable <ap@{buyer_domain}>"
# fmt: off
HARD_CASES: tuple[Hard, ...] = (
    Hard("invoice", (_FWD,), ("Fwd: Invoice {inv}", "FW: can you pay this?"),
         "Hi {ap_first}, this landed in my inbox instead of yours - can you process it? "
         "Thanks, {colleague_first}", (("vendor", "plain:invoice", "forward"),), attach="invoice"),
    Hard("dunning_notice", (_FWD,), ("FW: Payment reminder: {inv}", "Fwd: see below"),
         "{vendor_short} are chasing me about this one. Not my area - over to you. "
         "{colleague_first}", (("vendor", "plain:dunning_notice", "forward"),)),
    Hard("po_response", (_FWD,), ("Fwd: Order confirmation {po}", "FW: {po}"),
         "FYI - their confirmation for {po}, in case the invoice turns up before the goods do.",
         (("vendor", "plain:po_response", "forward"),), attach="po_response"),
    Hard("statement", (_FWD,), ("FW: {vendor_short} paperwork", "Fwd: Statement"),
         "Handed to me at the {vendor_short} quarterly review - I think this is yours. "
         "{colleague_first}", (("vendor", "plain:statement", "forward"),), attach="statement"),
    Hard("other", (_FWD, _DEC), ("Fwd: Never chase an invoice again", "FW: invoices"),
         "Saw this and thought of you - worth a look given the invoice backlog? {colleague_first}",
         (("InvoiceFlow <hello@invoiceflow.example>", "marketing", "forward"),)),
    Hard("invoice", (_QUO, _MIS), ("RE: RE: Payment reminder {inv}",),
         "Apologies - it seems our original never reached you. Attached is a copy of invoice "
         "{inv} ({amount}) for order {po}; please process it.\n\n{contact_first}",
         ((_AP, "We have no record of invoice {inv} - could you send us a copy?\n\n{ap_first}",
           "quote"), ("vendor", "plain:dunning_notice", "quote")), attach="invoice"),
    Hard("dunning_notice", (_QUO, _MIS), ("RE: Invoice {inv}",),
         "Second reminder: the invoice below is now {days_over} days past due and we have not "
         "received payment. Please settle {amount} this week.\n\n{contact}",
         (("vendor", "plain:invoice", "quote"),)),
    Hard("po_response", (_QUO,), ("RE: Purchase order {po}",),
         "Confirmed - all lines in stock, shipping {ship}. Our invoice will follow on dispatch "
         "and will quote your PO number.\n\n{contact_first}",
         (("{colleague} <purchasing@{buyer_domain}>", "Please find attached our purchase order "
           "{po}. Kindly confirm price and delivery date.\n\n{colleague}, Purchasing", "quote"),)),
    Hard("other", (_QUO, _DEC), ("RE: Remittance advice",),
         "Thanks {ap_first}, received - all settled on our side.\n\n{contact_first}",
         ((_AP, "Remittance advice: today we paid invoices {inv}, {inv2} and {inv3}, total "
           "{amount}.\n\nAccounts Payable, {buyer}", "quote"),)),
    Hard("other", (_QUO,), ("Automatic reply: Invoice {inv} query",),
         "I am on leave until {ship} and will not be reading email. For account queries please "
         "write to {colleague}.",
         ((_AP, "Could you confirm whether invoice {inv} for {amount} was credited? We show it "
           "as paid.\n\n{ap_first}", "quote"),)),
    Hard("statement", (_QUO, _MIS), ("RE: {inv} paid twice?",),
         "As requested, attached is your statement as at {date}. It shows {inv} paid once; "
         "closing balance {balance}.\n\n{contact}",
         ((_AP, "Could you send us a current statement? We think {inv} was paid twice."
           "\n\n{ap_first}", "quote"),), attach="statement"),
    Hard("invoice", (_MIS,), ("RE: {po} order confirmation",),
         "The goods on {po} were delivered on {date}. Our invoice {inv} for {amount} is "
         "attached, payable by {due}.", wrap=True, attach="invoice"),
    Hard("dunning_notice", (_MIS,), ("Statement of account - {month}",),
         "FINAL NOTICE. Your account is {days_over} days in arrears and has been placed on stop. "
         "Deliveries will resume once the overdue {amount} is paid in full.\n\n{contact}\n"
         "Credit Control, {vendor}"),
    Hard("po_response", (_MIS, _DEC), ("Invoice to follow - {po}",),
         "We accept your order {po} and will ship on {ship}. Invoicing: one invoice per "
         "shipment, sent to ap@{buyer_domain}, each invoice quoting the PO.",
         wrap=True, attach="po_response"),
    Hard("other", (_MIS, _DEC),
         ("FINAL NOTICE: your AP team is overpaying", "Overdue invoices? Not any more"),
         MARKETING),
    Hard("other", (_MIS,), ("Statement regarding price adjustments",),
         "From {ship} our list prices rise by 4% to cover freight costs. Open orders keep their "
         "confirmed prices.", wrap=True),
    Hard("statement", (_DEC,), ("Open invoices", "Statement of account - {month}"),
         "Your statement of account as at {date}:\n\n{table}\n\nNo action needed if your "
         "ledger agrees.", wrap=True, attach="statement"),
    Hard("invoice", (_DEC,), ("Invoice {inv}", "{vendor_short} - Invoice {inv}"),
         "{invoice_core}\n\nReminder: this charge will also appear on your monthly statement. "
         "Purchase order {po} is now fully delivered.", wrap=True, attach="invoice"),
    Hard("other", (_DEC,), ("Change of bank details - invoices",),
         "Please update our bank details before paying any further invoices: all invoices "
         "dated after {date} show our new account. Overdue reminders and statements will carry "
         "the same details.", wrap=True),
)
# fmt: on
