"""extract.invoice.v2's layouts: v1's five as they were, a symbol-only classic, and remittance.

v1's renderers are imported, never edited (v1 is frozen and its generator hash covers them).
The remittance layout paginates itself when the invoice carries totals forward: fixed rows per
page, the table header repeated, a "Carried forward" row closing each page and a "Brought
forward" row opening the next, as accounting systems print long invoices. Those running totals
look like amounts but are neither line items nor the subtotal.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from html import escape

from ledgerrate.synth import invoice_layouts as v1
from ledgerrate.synth.invoices import Line
from ledgerrate.synth.invoices_v2 import InvoiceV2

# Rows per page of a carried-forward invoice. The first page also holds the letterhead and the
# last the totals and slip, so these leave room; the generator checks the page count it gets.
ROWS_FIRST_PAGE = 20
ROWS_NEXT_PAGES = 24


def classic_symbol_only(inv: InvoiceV2) -> str:
    """v1's classic layout minus its one line naming the ISO code: amounts keep their symbol."""
    html = v1.classic(inv)
    footer = f"<p>All amounts in {inv.currency}. "
    if footer not in html:
        raise RuntimeError("v1 classic layout no longer prints its currency footer")
    return html.replace(footer, "<p>")


def _money(value: Decimal, inv: InvoiceV2) -> str:
    return (
        v1.with_symbol(value, inv.currency) if inv.symbol_only else v1.number(value, inv.currency)
    )


def _date(day: dt.date) -> str:
    return f"{day.day} {day:%B} {day.year}"


def pages_of(lines: tuple[Line, ...], carried: bool) -> list[tuple[Line, ...]]:
    """The line items each printed page holds; one page unless totals are carried forward."""
    if not carried or len(lines) <= ROWS_FIRST_PAGE:
        return [lines]
    chunks = [lines[:ROWS_FIRST_PAGE]]
    rest = lines[ROWS_FIRST_PAGE:]
    while rest:
        chunks.append(rest[:ROWS_NEXT_PAGES])
        rest = rest[ROWS_NEXT_PAGES:]
    return chunks


def _table(
    inv: InvoiceV2, chunk: tuple[Line, ...], before: Decimal | None, after: Decimal | None
) -> str:
    code = "" if inv.symbol_only else f" ({inv.currency})"
    head = v1._head(["Description", "Quantity", f"Unit price{code}", f"Amount{code}"], 1)
    rows = [
        [
            ln.description,
            v1.quantity(ln.quantity),
            _money(ln.unit_price, inv),
            _money(ln.amount, inv),
        ]
        for ln in chunk
    ]
    body = v1._rows(rows, 1)
    if before is not None:
        body = _running("Brought forward", before, inv) + body
    if after is not None:
        body += _running("Carried forward", after, inv)
    return f'<table class="items">{head}<tbody>{body}</tbody></table>'


def _running(label: str, value: Decimal, inv: InvoiceV2) -> str:
    return (
        f'<tr class="run"><td class="d" colspan="3">{label}</td>'
        f'<td class="n">{escape(_money(value, inv))}</td></tr>'
    )


def remittance(inv: InvoiceV2) -> str:
    title = "CREDIT NOTE" if inv.credit_note else "INVOICE"
    number_label = "Credit note number" if inv.credit_note else "Invoice number"
    meta = [
        ("Customer account", inv.account_number),
        ("Original invoice" if inv.credit_note else "Purchase order", inv.reference),
        (number_label, inv.invoice_number),
        ("Date of issue", _date(inv.issue_date)),
    ]
    if inv.due_date:
        meta.append(("Payment due", _date(inv.due_date)))
    meta_html = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in meta)
    chunks = pages_of(inv.lines, inv.carried_forward)
    tables, running = [], Decimal(0)
    for index, chunk in enumerate(chunks):
        before = running if index else None
        running += sum((ln.amount for ln in chunk), Decimal(0))
        after = running if index < len(chunks) - 1 else None
        page_note = f'<p class="pg">{escape(inv.invoice_number)} continued</p>' if index else ""
        tables.append(page_note + _table(inv, chunk, before, after))
    code = "" if inv.symbol_only else f" {inv.currency}"
    totals = [
        ("Subtotal", inv.subtotal),
        (f"Tax {v1.percent(inv.tax_rate)}", inv.tax),
        (f"{'Credit' if inv.credit_note else 'Invoice'} total{code}", inv.total),
    ]
    totals_html = "".join(
        f'<tr><th>{escape(k)}</th><td class="n">{escape(_money(v, inv))}</td></tr>'
        for k, v in totals
    )
    body = (
        f'<table class="top"><tr><td><b class="v">{escape(inv.vendor)}</b><br>'
        f"{v1._lines_block(list(inv.vendor_address))}</td>"
        f'<td class="t">{title}</td></tr></table>'
        f'<table class="meta">{meta_html}</table>'
        f"<p>Bill to: {escape(inv.customer)}, {escape(', '.join(inv.customer_address))}</p>"
        + '<div class="brk"></div>'.join(tables)
        + f'<table class="totals">{totals_html}</table>{_slip(inv)}'
    )
    css = (
        "@page{size:letter;margin:15mm}body{font-family:'DejaVu Sans';font-size:9pt}"
        ".top{width:100%}.top td{vertical-align:top}.t{text-align:right;font-size:16pt}"
        ".v{font-size:12pt}.meta th{text-align:left;padding-right:14px}"
        ".items{width:100%;border-collapse:collapse;margin-top:8px}.desc{width:55%}"
        ".items th{border-bottom:1px solid #000}.items td{padding:1px 3px}"
        ".run td{font-style:italic;border-top:1px solid #999}.brk{break-after:page}"
        ".totals{margin-left:auto;margin-top:6px}.totals th{text-align:left;padding-right:16px}"
        ".slip{margin-top:18px;border-top:1px dashed #000;padding-top:6px}"
        ".slip th{text-align:left;padding-right:14px}"
    )
    return v1._page(css, body, title)


def _slip(inv: InvoiceV2) -> str:
    """The tear-off remittance advice: the number and amount again, beside look-alike numbers."""
    if inv.credit_note:
        rows = [
            ("Customer account", inv.account_number),
            ("Credit note number", inv.invoice_number),
            ("Note", "This credit will be applied to your account. No payment is due."),
        ]
    else:
        rows = [
            ("Payee", inv.vendor),
            ("Customer account", inv.account_number),
            ("Invoice number", inv.invoice_number),
            ("Your PO reference", inv.reference),
            ("Amount due", _money(inv.total, inv)),
            ("Amount enclosed", "________________"),
            ("Bank transfer to", inv.bank_account),
        ]
    rows_html = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return (
        '<div class="slip">- - - cut here - - -<br><b>REMITTANCE ADVICE</b> '
        f"Please return this part with your payment.<table>{rows_html}</table></div>"
    )


def html_for(inv: InvoiceV2) -> str:
    if inv.layout == "remittance":
        return remittance(inv)
    if inv.symbol_only:
        if inv.layout != "classic":
            raise ValueError(f"layout {inv.layout!r} cannot hide the currency code")
        return classic_symbol_only(inv)
    return v1.html_for(inv)
