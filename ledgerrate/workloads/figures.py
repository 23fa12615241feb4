"""Figures cited in prose: find them, normalise them, and match them against source figures.

Graders of written workloads (variance commentary, board briefs) must decide whether every
number a model wrote exists in what it was given. Writers round and reformat, so "$1.2m",
"1,200,000", "USD 1.2 million" and "(1,203,456)" can all be the same source figure. This module
is the one place that decides what counts as a figure and when two of them agree.

What counts as a figure
    Any number in the text, with its currency marker ($ € £ USD EUR GBP), magnitude suffix
    (k, m, mn, bn, thousand, million, billion) and percent marker (%, percent, per cent, pp),
    except: bare integers below 10 (counting words in prose, list numbering: "top 3"), bare
    four-digit years 1900–2100, numbers glued to letters (Q3, FY2026, 12th, item-03) and
    calendar dates (2026-07-01, 01/07/2026). Those exclusions are a documented limitation:
    a fabricated "3 risks" is not caught.

Sign
    Direction is carried by words ("over budget", "adverse"), so "(3,400)", "-3,400" and
    "3,400 adverse" are the same figure: matching compares absolute values.

Tolerance (published as `TOLERANCE_RULE`)
    A cited figure matches a source figure when they agree to the precision the citation shows:
    |cited − source| ≤ half a unit of the cited figure's last significant digit. Trailing zeros
    of a whole number are read as rounding ("1,200,000" is shown to the nearest 100,000), but at
    least two significant digits are always compared for figures of 10 or more ("$1m" must be
    within 0.95m–1.05m). Percentages match only percentages; when both figures name a currency
    the currencies must agree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

Kind = Literal["money", "number", "percent"]

TOLERANCE_RULE = (
    "A cited figure matches a source figure when the two agree to the precision shown in the "
    "citation: the difference is at most half a unit of the citation's last significant digit. "
    "Trailing zeros of a whole number count as rounding, but at least two significant digits "
    "are compared for any figure of 10 or more. Signs are ignored (direction is stated in "
    "words), percentages match only percentages, and two named currencies must agree."
)

_CURRENCY = {
    "$": "USD",
    "US$": "USD",
    "USD": "USD",
    "€": "EUR",
    "EUR": "EUR",
    "£": "GBP",
    "GBP": "GBP",
}
_SUFFIX = {
    "k": Decimal(1_000),
    "thousand": Decimal(1_000),
    "m": Decimal(1_000_000),
    "mn": Decimal(1_000_000),
    "mm": Decimal(1_000_000),
    "million": Decimal(1_000_000),
    "b": Decimal(1_000_000_000),
    "bn": Decimal(1_000_000_000),
    "billion": Decimal(1_000_000_000),
}

_DATES = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_AFTER = re.compile(
    r"\s?(?P<suffix>thousand|million|billion|mn|mm|bn|k|m|b)(?![A-Za-z])"
    r"|\s?(?P<pct>%|percent\b|per\s+cent\b|pp\b|percentage\s+points?\b)",
    re.IGNORECASE,
)
_BEFORE_CURRENCY = re.compile(r"(?P<cur>US\$|USD|EUR|GBP|[$€£])\s?(?P<minus>[-−])?$")


@dataclass(frozen=True)
class Figure:
    """A number as cited. `value` is in base units (dollars, or percent points for percents)."""

    text: str
    value: Decimal
    kind: Kind
    precision: Decimal
    currency: str | None = None
    negative: bool = False

    @property
    def magnitude(self) -> Decimal:
        return abs(self.value)


def _precision(digits: str, scale: Decimal, value: Decimal) -> Decimal:
    whole, _, frac = digits.replace(",", "").partition(".")
    if frac:
        shown = Decimal(1).scaleb(-len(frac))
    else:
        trailing = len(whole) - len(whole.rstrip("0")) if whole.strip("0") else 0
        shown = Decimal(1).scaleb(trailing)
    shown *= scale
    if value >= 10:
        # Two significant digits at least: "$1m" is not a licence to cite anything 0.5m–1.5m.
        shown = min(shown, Decimal(1).scaleb(value.adjusted() - 1))
    return shown


def _glued_before(text: str, start: int) -> bool:
    if start == 0:
        return False
    prev = text[start - 1]
    if prev.isalnum() or prev in "_.":
        return True
    # item-03, 12/5: a hyphen or slash right after a letter or digit joins an identifier.
    return prev in "-/" and start >= 2 and text[start - 2].isalnum()


def find_figures(text: str) -> list[Figure]:
    """Every figure cited in `text`, in order of appearance."""
    if not text:
        return []
    # Blank dates out so their parts are not read as amounts; positions stay aligned.
    clean = _DATES.sub(lambda m: " " * len(m.group(0)), text)
    found: list[Figure] = []
    for match in _NUMBER.finditer(clean):
        start, end = match.span()
        if _glued_before(clean, start):
            continue
        after = _AFTER.match(clean, end)
        if after is None and end < len(clean) and (clean[end].isalpha() or clean[end] == "_"):
            continue  # 12th, 10x, 3rd
        if end < len(clean) and clean[end] == "/" and clean[end + 1 : end + 2].isdigit():
            continue  # a fraction or a date we did not recognise
        digits = match.group(0)
        suffix = (after.group("suffix") or "").lower() if after else ""
        is_pct = bool(after and after.group("pct"))
        head = clean[max(0, start - 6) : start]
        cur_match = _BEFORE_CURRENCY.search(head)
        currency = _CURRENCY.get(cur_match.group("cur").upper() if cur_match else "")
        if cur_match and currency is None:
            currency = _CURRENCY.get(cur_match.group("cur"))
        lead_at = start - (len(cur_match.group(0)) if cur_match else 0)
        lead = clean[lead_at - 1] if lead_at > 0 else ""
        minus = bool(cur_match and cur_match.group("minus")) or (
            lead in "-−" and (lead_at < 2 or not clean[lead_at - 2].isalnum())
        )
        tail_at = after.end() if after else end
        paren = lead == "(" and clean[tail_at : tail_at + 1] == ")"
        scale = _SUFFIX.get(suffix, Decimal(1))
        value = Decimal(digits.replace(",", "")) * scale
        kind: Kind = "percent" if is_pct else ("money" if currency or suffix else "number")
        if kind == "number" and "," not in digits and "." not in digits:
            as_int = int(digits)
            if as_int < 10 or (len(digits) == 4 and 1900 <= as_int <= 2100):
                continue
        shown = text[lead_at - (1 if minus or paren else 0) : tail_at + (1 if paren else 0)]
        found.append(
            Figure(
                text=shown.strip(),
                value=-value if (minus or paren) else value,
                kind=kind,
                precision=_precision(digits, scale, value),
                currency=currency,
                negative=minus or paren,
            )
        )
    return found


def source_figure(
    value: Decimal | int | str, kind: Kind = "money", currency: str | None = None
) -> Figure:
    """A figure from structured source data (a table cell), taken as exact."""
    number = Decimal(str(value))
    return Figure(text=str(value), value=number, kind=kind, precision=Decimal(0), currency=currency)


def matches(cited: Figure, source: Figure) -> bool:
    """True when `cited` is `source` written to the precision the citation shows."""
    if (cited.kind == "percent") != (source.kind == "percent"):
        return False
    if cited.currency and source.currency and cited.currency != source.currency:
        return False
    return abs(cited.magnitude - source.magnitude) <= cited.precision / 2


def unmatched(cited: Iterable[Figure], sources: Iterable[Figure]) -> list[Figure]:
    """The cited figures that match no source figure (candidates for fabrication)."""
    pool = list(sources)
    return [fig for fig in cited if not any(matches(fig, src) for src in pool)]
