"""Normalising extracted values before exact comparison (standard §4.1: "after normalization").

Graders compare a model's answer with the truth only after both pass through these functions,
so a result never hinges on formatting the standard says not to grade: letter case, runs of
whitespace, `2026-03-05` vs `5 March 2026`, `1234.5` vs `"1,234.50"`. Anything these functions
cannot read becomes None, which never equals a truth value: unreadable is wrong, not a crash.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

_MONTHS = {
    name: index
    for index, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}

# Only layouts whose day/month order is unambiguous are read; `03/05/2026` is refused because
# guessing between March and May would grade a coin toss.
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?$")
_YMD_SLASH = re.compile(r"^(\d{4})/(\d{1,2})/(\d{1,2})$")
_DMY_DOT = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4})$")
_D_MONTH_Y = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?\s+(\d{4})$")
_MONTH_D_Y = re.compile(r"^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$")

_CURRENCY_MARKS = re.compile(r"[$€£¥]|\b[A-Z]{3}\b")
_ISO_CURRENCY = re.compile(r"^[A-Z]{3}$")


def text(value: Any) -> str | None:
    """Case-folded, whitespace-collapsed text; None for anything that is not a string."""
    if not isinstance(value, str):
        return None
    return " ".join(value.split()).casefold()


def iso_date(value: Any) -> str | None:
    """`YYYY-MM-DD` for an unambiguous date written in a common layout, else None."""
    if not isinstance(value, str):
        return None
    raw = " ".join(value.split()).lower()
    parts: tuple[str, str, str] | None = None
    if match := _ISO.match(raw) or _YMD_SLASH.match(raw):
        parts = (match.group(1), match.group(2), match.group(3))
    elif match := _DMY_DOT.match(raw):
        parts = (match.group(3), match.group(2), match.group(1))
    elif (match := _D_MONTH_Y.match(raw)) and match.group(2) in _MONTHS:
        parts = (match.group(3), str(_MONTHS[match.group(2)]), match.group(1))
    elif (match := _MONTH_D_Y.match(raw)) and match.group(1) in _MONTHS:
        parts = (match.group(3), str(_MONTHS[match.group(1)]), match.group(2))
    if parts is None:
        return None
    try:
        return dt.date(int(parts[0]), int(parts[1]), int(parts[2])).isoformat()
    except ValueError:
        return None


def amount(value: Any) -> Decimal | None:
    """An exact Decimal for a JSON number or a plainly written amount string, else None.

    Floats go through their shortest repr, which is exactly what the JSON text said, so
    `1234.56` in an answer becomes Decimal("1234.56") with no binary-float residue.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if not isinstance(value, str):
        return None
    return _amount_text(value)


def _amount_text(value: str) -> Decimal | None:
    raw = _CURRENCY_MARKS.sub("", value.strip().upper()).replace(" ", "").replace("\u00a0", "")
    negative = False
    if raw.startswith("(") and raw.endswith(")"):
        negative, raw = True, raw[1:-1]
    if raw.endswith("-"):
        negative, raw = True, raw[:-1]
    if "," in raw and "." in raw:
        # Whichever separator comes last is the decimal mark.
        decimal_mark = "," if raw.rfind(",") > raw.rfind(".") else "."
    elif "," in raw:
        decimal_mark = "," if re.search(r",\d{1,2}$", raw) else "."
    else:
        decimal_mark = "."
    thousands = "." if decimal_mark == "," else ","
    raw = raw.replace(thousands, "").replace(decimal_mark, ".")
    if not re.fullmatch(r"[+-]?\d+(\.\d+)?", raw):
        return None
    try:
        number = Decimal(raw)
    except InvalidOperation:
        return None
    return -number if negative else number


def currency(value: Any) -> str | None:
    """An ISO 4217-shaped code in upper case; symbols such as `€` are not codes and give None."""
    if not isinstance(value, str):
        return None
    code = value.strip().upper()
    return code if _ISO_CURRENCY.match(code) else None
