"""Five visibly different invoice layouts as self-contained HTML (inline CSS, no URLs).

Layouts differ in what a reader has to cope with, not only in colour: label wording, date
style, number style (1,234.56 vs 1.234,56), where the currency is shown, column order, a
two-column header whose text interleaves when extracted, and a narrow receipt whose line items
span two text rows. Every layout names the currency's ISO code somewhere, so the currency is
always recoverable from the text alone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from html import escape

from ledgerrate.synth.invoices import ZERO_DECIMAL_CURRENCIES, Invoice

_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$"}


def number(value: Decimal, currency: str, european: bool = False) -> str:
    """Grouped amount text in the layout's convention, with a leading minus for negatives."""
    places = 0 if currency in ZERO_DECIMAL_CURRENCIES else 2
    text = f"{abs(value):,.{places}f}"
    if european:
        text = text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")
    return f"-{text}" if value < 0 else text


def quantity(value: Decimal) -> str:
    return format(value.normalize(), "f")


def with_symbol(value: Decimal, currency: str) -> str:
    symbol = _SYMBOLS.get(currency)
    text = number(abs(value), currency)
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{text}" if symbol else f"{sign}{currency} {text}"


def percent(rate: Decimal) -> str:
    return f"{format((rate * 100).normalize(), 'f')}%"


def _long(day: dt.date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _short(day: dt.date) -> str:
    return f"{day:%b} {day.day:02d}, {day.year}"


def _rows(cells: list[list[str]], numeric_from: int, desc: int = 0) -> str:
    out = []
    for row in cells:
        tds = "".join(
            f'<td class="{"n" if i >= numeric_from else "d"}{" desc" if i == desc else ""}">'
            f"{escape(c)}</td>"
            for i, c in enumerate(row)
        )
        out.append(f"<tr>{tds}</tr>")
    return "".join(out)


def _head(cells: list[str], numeric_from: int) -> str:
    ths = "".join(
        f'<th class="{"n" if i >= numeric_from else "d"}">{escape(c)}</th>'
        for i, c in enumerate(cells)
    )
    return f"<thead><tr>{ths}</tr></thead>"


def _page(css: str, body: str, title: str) -> str:
    # Cells align at the top so a wrapped description's first line shares the row's numbers.
    base = (
        "td.n,th.n{text-align:right;white-space:nowrap}td.d,th.d{text-align:left}"
        "td{vertical-align:top}"
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{base}{css}</style></head><body>{body}</body></html>"
    )


def _lines_block(lines: list[str]) -> str:
    return "<br>".join(escape(line) for line in lines)


def classic(inv: Invoice) -> str:
    title = "CREDIT NOTE" if inv.credit_note else "INVOICE"
    label = "Credit Note No." if inv.credit_note else "Invoice No."
    meta = [(label, inv.invoice_number), ("Date", _long(inv.issue_date))]
    if inv.due_date:
        meta.append(("Due Date", _long(inv.due_date)))
    meta.append(("Original Invoice" if inv.credit_note else "PO Number", inv.reference))
    meta_html = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in meta)
    rows = [
        [
            ln.description,
            quantity(ln.quantity),
            with_symbol(ln.unit_price, inv.currency),
            with_symbol(ln.amount, inv.currency),
        ]
        for ln in inv.lines
    ]
    totals = [
        ("Subtotal", inv.subtotal),
        (f"Sales Tax ({percent(inv.tax_rate)})", inv.tax),
        ("Total Credit" if inv.credit_note else "Total Due", inv.total),
    ]
    totals_html = "".join(
        f'<tr><th>{escape(k)}</th><td class="n">{escape(with_symbol(v, inv.currency))}</td></tr>'
        for k, v in totals
    )
    body = (
        f"<h1>{title}</h1>"
        f'<div class="from"><b>{escape(inv.vendor)}</b><br>'
        f"{_lines_block(list(inv.vendor_address))}</div>"
        f'<table class="meta">{meta_html}</table>'
        f'<div class="to"><b>Bill To</b><br>{escape(inv.customer)}<br>'
        f"{_lines_block(list(inv.customer_address))}</div>"
        f'<table class="items">{_head(["Description", "Qty", "Unit Price", "Amount"], 1)}'
        f"<tbody>{_rows(rows, 1)}</tbody></table>"
        f'<table class="totals">{totals_html}</table>'
        f"<p>All amounts in {inv.currency}. Thank you for your business.</p>"
    )
    css = (
        "@page{size:letter;margin:18mm}body{font-family:'DejaVu Serif';font-size:10pt}"
        "h1{letter-spacing:4px}.meta{margin:8px 0}.meta th{text-align:left;padding-right:12px}"
        ".items{width:100%;border-collapse:collapse;margin-top:12px}"
        ".items th{border-bottom:2px solid #000}.desc{width:42%}"
        ".items td{border-bottom:1px solid #ccc;padding:2px}"
        ".totals{margin-left:auto;margin-top:8px}.totals th{text-align:left;padding-right:20px}"
    )
    return _page(css, body, title)


def modern(inv: Invoice) -> str:
    title = "Credit note" if inv.credit_note else "Invoice"
    right = [f"{title} #{inv.invoice_number}", f"Issued {inv.issue_date.isoformat()}"]
    if inv.due_date:
        right.append(f"Due {inv.due_date.isoformat()}")
    right.append(("Against invoice " if inv.credit_note else "Your order ") + inv.reference)
    rows = [
        [
            ln.description,
            quantity(ln.quantity),
            number(ln.unit_price, inv.currency),
            number(ln.amount, inv.currency),
        ]
        for ln in inv.lines
    ]
    body = (
        '<table class="top"><tr>'
        f'<td class="brand"><div class="name">{escape(inv.vendor)}</div>'
        f"{_lines_block(list(inv.vendor_address))}</td>"
        f'<td class="info">{_lines_block(right)}</td></tr></table>'
        f'<p class="billed">Billed to {escape(inv.customer)}, '
        f"{escape(', '.join(inv.customer_address))}</p>"
        f'<p class="cur">Amounts in {inv.currency}</p>'
        f'<table class="items">{_head(["Item", "Qty", "Rate", "Line total"], 1)}'
        f"<tbody>{_rows(rows, 1)}</tbody></table>"
        f'<div class="sum">Net {number(inv.subtotal, inv.currency)}<br>'
        f"Tax {percent(inv.tax_rate)} {number(inv.tax, inv.currency)}<br>"
        f"<b>{'Credit total' if inv.credit_note else 'Amount due'} {inv.currency} "
        f"{number(inv.total, inv.currency)}</b></div>"
    )
    css = (
        "@page{size:A4;margin:15mm}body{font-family:'DejaVu Sans';font-size:9.5pt;color:#223}"
        ".top{width:100%}.brand{width:55%;vertical-align:top}.info{text-align:right;"
        "vertical-align:top;color:#556}.name{font-size:18pt;font-weight:bold;color:#2a4d9b}"
        ".items{width:100%;border-collapse:collapse}.items th{background:#2a4d9b;color:#fff;"
        "padding:4px}.items td{padding:3px 4px}.desc{width:40%}"
        ".items tr:nth-child(even) td{background:#eef2fb}"
        ".sum{text-align:right;margin-top:10px;font-size:11pt}"
    )
    return _page(css, body, title)


def receipt(inv: Invoice) -> str:
    title = "CREDIT NOTE" if inv.credit_note else "TAX INVOICE"
    head = [f"No: {inv.invoice_number}", f"Date: {inv.issue_date:%d %b %Y}"]
    if inv.due_date:
        head.append(f"Pay by: {inv.due_date:%d %b %Y}")
    head.append(f"Ref: {inv.reference}")
    items = "".join(
        f'<div class="ln">{escape(ln.description)}<br><span class="qty">'
        f"{quantity(ln.quantity)} x {number(ln.unit_price, inv.currency)}</span>"
        f'<span class="amt">{number(ln.amount, inv.currency)}</span></div>'
        for ln in inv.lines
    )
    sums = [
        ("SUBTOTAL", inv.subtotal),
        (f"TAX {percent(inv.tax_rate)}", inv.tax),
        (f"TOTAL {inv.currency}", inv.total),
    ]
    sums_html = "".join(
        f'<div class="ln"><span>{escape(k)}</span><span class="amt">'
        f"{number(v, inv.currency)}</span></div>"
        for k, v in sums
    )
    body = (
        f'<div class="c"><b>{escape(inv.vendor)}</b><br>{_lines_block(list(inv.vendor_address))}'
        f"<br>{title}</div><hr>{_lines_block(head)}<br>Customer: {escape(inv.customer)}<hr>"
        f"{items}<hr>{sums_html}<hr><div class='c'>Currency: {inv.currency}</div>"
    )
    css = (
        "@page{size:90mm 220mm;margin:6mm}body{font-family:'DejaVu Sans Mono';font-size:7.5pt}"
        ".c{text-align:center}.ln{overflow:hidden;margin:2px 0}.amt{float:right}"
        ".qty{padding-left:12px}hr{border:0;border-top:1px dashed #000}"
    )
    return _page(css, body, title)


def european(inv: Invoice) -> str:
    title = "Credit note" if inv.credit_note else "Invoice"
    unit = "€" if inv.currency == "EUR" else inv.currency
    vat_id = f"VAT ID: EU{hash_digits(inv.vendor):09d}"
    meta = [
        (f"{title} no.", inv.invoice_number),
        (f"{title} date", f"{inv.issue_date:%d.%m.%Y}"),
    ]
    if inv.due_date:
        meta.append(("Payable by", f"{inv.due_date:%d.%m.%Y}"))
    meta.append(("Relating to invoice" if inv.credit_note else "Your order", inv.reference))
    meta_html = "".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in meta)
    rows = [
        [
            str(i),
            ln.description,
            quantity(ln.quantity).replace(".", ","),
            f"{number(ln.unit_price, inv.currency, True)} {unit}",
            f"{number(ln.amount, inv.currency, True)} {unit}",
        ]
        for i, ln in enumerate(inv.lines, start=1)
    ]
    rate = percent(inv.tax_rate).replace("%", " %").replace(".", ",")
    totals = [
        ("Net amount", inv.subtotal),
        (f"VAT {rate}", inv.tax),
        (f"Total amount {inv.currency}", inv.total),
    ]
    totals_html = "".join(
        f'<tr><td>{escape(k)}</td><td class="n">{number(v, inv.currency, True)} {unit}</td></tr>'
        for k, v in totals
    )
    body = (
        f'<p class="sender">{escape(inv.vendor)} · {escape(" · ".join(inv.vendor_address))}</p>'
        f'<p class="addr">{escape(inv.customer)}<br>{_lines_block(list(inv.customer_address))}</p>'
        f'<table class="meta">{meta_html}</table><h2>{title}</h2>'
        f'<table class="items">{_head(["Pos.", "Description", "Qty", "Unit price", "Amount"], 2)}'
        f"<tbody>{_rows(rows, 2, desc=1)}</tbody></table>"
        f'<table class="totals">{totals_html}</table>'
        f'<p class="foot">{escape(inv.vendor)} · {vat_id} · Currency {inv.currency}</p>'
    )
    css = (
        "@page{size:A4;margin:20mm 18mm}body{font-family:'DejaVu Sans Condensed';font-size:9pt}"
        ".sender{font-size:7pt;text-decoration:underline}.addr{margin-bottom:14px}"
        ".meta{margin-left:auto}.meta td{padding:0 6px}h2{font-weight:normal}"
        ".items{width:100%;border-collapse:collapse}.items th{border-top:1px solid #000;"
        "border-bottom:1px solid #000}.desc{width:45%}"
        ".totals{margin-left:auto;margin-top:6px}.totals td{padding:0 6px}"
        ".foot{font-size:7pt;color:#444;margin-top:16px}"
    )
    return _page(css, body, title)


def hash_digits(text: str) -> int:
    """A stable nine-digit number from text (Python's hash() is salted per process)."""
    total = 7
    for char in text:
        total = (total * 131 + ord(char)) % 1_000_000_000
    return total


def ledger(inv: Invoice) -> str:
    heading = "Credit memo" if inv.credit_note else "Invoice"
    dates = f"Dated {_short(inv.issue_date)}"
    if inv.due_date:
        dates += f" · Payment due {_short(inv.due_date)}"
    rows = [
        [
            quantity(ln.quantity),
            ln.description,
            f"{number(ln.unit_price, inv.currency)} {inv.currency}",
            f"{number(ln.amount, inv.currency)} {inv.currency}",
        ]
        for ln in inv.lines
    ]
    totals = (
        f"Sub-total {number(inv.subtotal, inv.currency)} {inv.currency}<br>"
        f"Tax @ {percent(inv.tax_rate)} {number(inv.tax, inv.currency)} {inv.currency}<br>"
        f"<b>{'Credit due to customer' if inv.credit_note else 'Balance due'} "
        f"{number(inv.total, inv.currency)} {inv.currency}</b>"
    )
    body = (
        f'<div class="band">{heading} {escape(inv.invoice_number)}</div><p>{dates}</p>'
        '<table class="parties"><tr><th>From</th><th>To</th></tr><tr>'
        f"<td>{escape(inv.vendor)}<br>{_lines_block(list(inv.vendor_address))}</td>"
        f"<td>{escape(inv.customer)}<br>{_lines_block(list(inv.customer_address))}</td>"
        f"</tr></table><p>Reference: {escape(inv.reference)}</p>"
        f'<table class="items">{_head(["Qty", "Description", "Unit cost", "Line total"], 2)}'
        f"<tbody>{_rows(rows, 2, desc=1)}</tbody></table>"
        f'<p class="totals">{totals}</p>'
    )
    css = (
        "@page{size:letter;margin:16mm}body{font-family:'DejaVu Sans';font-size:9pt}"
        ".band{background:#333;color:#fff;padding:8px;font-size:14pt}"
        ".parties{width:100%}.parties th{text-align:left;color:#777}.parties td{vertical-align:top}"
        ".items{width:100%;border-collapse:collapse;margin-top:8px}.items td,.items th{"
        "border:1px solid #999;padding:2px 4px}.desc{width:40%}.totals{text-align:right}"
    )
    return _page(css, body, heading)


RENDERERS: dict[str, Callable[[Invoice], str]] = {
    "classic": classic,
    "modern": modern,
    "receipt": receipt,
    "european": european,
    "ledger": ledger,
}


def html_for(invoice: Invoice) -> str:
    return RENDERERS[invoice.layout](invoice)
