"""Every number in a brief, and whether it exists in the board pack (standard §4.5).

§4.5 states the no-fabrication check exactly: "zero fabricated figures (deterministic — every
number in the brief must exist in the pack)". Two readings follow from those words:

- *Every number*: each numeral the brief writes, small counts ("3 new risks") and years
  included. Not numbers: a markdown list marker at the start of a line ("1. "), digits that are
  part of a name or label (Q3, FY2026, F01, item-03, 12th) and calendar dates, which are
  dates, not numbers.
- *Exist in the pack*: the same value is written somewhere in the pack, in any notation
  ("$1.2m", "1,200,000" and "1.2 million" are one value; "(3,400)" and "3,400" too, since sign
  is stated in words). A rounded figure is a new number: $1.2m does not exist in a pack that
  says $1,234,567. Percentages exist only as percentages, and two named currencies must agree.

Figure parsing is `workloads.figures` (v1's, unchanged); this module adds the numbers that
module leaves out and compares values exactly instead of to the precision shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from ledgerrate.workloads import figures

_LIST_MARKER = re.compile(r"^[ \t>*+-]*(\d+)[.)](?=\s)", re.MULTILINE)


def _bare_integers(text: str, *, skip_markers: bool) -> list[figures.Figure]:
    """The numbers `figures.find_figures` reads and then drops as counting words or years:
    its own scan, its own rules for what is glued to a label, keeping only what it skips."""
    clean = figures._DATES.sub(lambda m: " " * len(m.group(0)), text)
    markers = {m.start(1) for m in _LIST_MARKER.finditer(clean)} if skip_markers else set()
    found = []
    for match in figures._NUMBER.finditer(clean):
        start, end = match.span()
        digits = match.group(0)
        if (
            "," in digits
            or "." in digits
            or start in markers
            or figures._glued_before(clean, start)
        ):
            continue
        if figures._AFTER.match(clean, end) or figures._BEFORE_CURRENCY.search(
            clean[max(0, start - 6) : start]
        ):
            continue  # a money amount or a percentage: `find_figures` keeps those
        if end < len(clean) and (clean[end].isalpha() or clean[end] == "_"):
            continue  # 12th, 10x
        if end < len(clean) and clean[end] == "/" and clean[end + 1 : end + 2].isdigit():
            continue  # a fraction or a date
        value = int(digits)
        if value < 10 or (len(digits) == 4 and 1900 <= value <= 2100):
            found.append(
                figures.Figure(
                    text=digits, value=Decimal(value), kind="number", precision=Decimal(0)
                )
            )
    return found


def numbers(text: str, *, skip_markers: bool = True) -> list[figures.Figure]:
    """Every number written in `text`: `figures.find_figures` plus the small integers and years
    it leaves out. List markers are skipped in a brief (`skip_markers`), kept in a pack."""
    return figures.find_figures(text) + _bare_integers(text, skip_markers=skip_markers)


def same_value(cited: figures.Figure, source: figures.Figure) -> bool:
    if (cited.kind == "percent") != (source.kind == "percent"):
        return False
    if cited.currency and source.currency and cited.currency != source.currency:
        return False
    return cited.magnitude == source.magnitude


def not_in_pack(brief: str, pack: str) -> list[figures.Figure]:
    """The brief's numbers that exist nowhere in the pack."""
    pool: Iterable[figures.Figure] = numbers(pack, skip_markers=False)
    values = list(pool)
    return [n for n in numbers(brief) if not any(same_value(n, s) for s in values)]
