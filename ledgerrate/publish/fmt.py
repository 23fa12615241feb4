"""How figures read on a page. Formatting only: never rounds a figure into a different claim.

Money goes through the project's one formatter (`ledgerrate.core.usd`); on a page, a rounded
amount carries its exact value on hover (`title`), and the downloads keep every digit.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from markupsafe import Markup

from ledgerrate.core.usd import Amount, Reading, as_decimal, job_and_item, plain, reading
from ledgerrate.core.usd import exact as exact_usd
from ledgerrate.core.usd import usd as usd_text
from ledgerrate.publish.safe import md_text
from ledgerrate.publish.withdrawals import is_withdrawn
from ledgerrate.schema import CellResult, EditionResults, Interval, RateLine, Verdict

NO_SUCCESS = "no successful outcome"
PENDING = "awaiting judge — not counted"
WITHDRAWN_TEXT = "withdrawn (see errata)"
NO_JUDGE = "this edition has no judge, so these runs stay ungraded"
VERDICTS = {
    Verdict.passed: "pass",
    Verdict.failed: "fail",
    Verdict.inconclusive: "inconclusive",
    Verdict.not_applicable: "not applicable",
}


def usd(value: Decimal | float | None) -> str:
    """A total as plain text (table cells that an erratum may strike through)."""
    return usd_text(value)


def shown(value: Reading) -> Markup:
    """An amount as read, its exact value one hover away when the text rounds it."""
    if value.text == value.exact:
        return md_text(value.text)
    title = f"exactly {value.exact}"
    return Markup(f'<span class="lr-money" title="{md_text(title)}">{md_text(value.text)}</span>')


def plain_usd(value: Amount) -> str:
    """Plain dollars to three significant digits, never rescaled (the card's one unit)."""
    return plain(value)


def job_cost(line: Any, strong: bool = False) -> Markup:
    """A card line's cost in the job's own unit: per job at the card's volume, and per single
    item, both in plain dollars (never "per billion"); every digit one hover away."""
    if line.per_item is None:
        return Markup("—")
    title = md_text(f"exactly {exact_usd(line.cpo * line.volume)} per job, "
                    f"{exact_usd(line.cpo)} per item")  # fmt: skip
    job = md_text(line.per_job)
    if strong:
        job = Markup(f"<strong>{job}</strong>")
    return Markup(
        f'<span class="lr-money" title="{title}">{job} per job</span>'
        f"<br><small>{md_text(line.per_item)} per item</small>"
    )


def money_text(text: str, value: Amount | None) -> Markup:
    """Text that reads an amount, with the amount's every digit one hover away."""
    if value is None:
        return md_text(text)
    title = md_text(f"exactly {exact_usd(value)}")
    return Markup(f'<span class="lr-money" title="{title}">{md_text(text)}</span>')


def money(value: Amount | None) -> Markup:
    """A total, its exact value on hover."""
    return Markup("—") if value is None else shown(reading(value))


def rate_of(line: RateLine, volume: int) -> Markup:
    """A workload's rate line (cheapest, flagship, reference) as the card reads it: per job at
    the job's volume and per single item, every digit one hover away."""
    return line_cost(line.cpo_usd, volume)


def line_cost(cpo: Amount, volume: int) -> Markup:
    """A cost per successful item in the job's own unit (`job_and_item`), exact on hover."""
    title = f"exactly {exact_usd(as_decimal(cpo) * volume)} per job, {exact_usd(cpo)} per item"
    return Markup(
        f'<span class="lr-money" title="{md_text(title)}">'
        f"{md_text(job_and_item(cpo, volume))}</span>"
    )


def per_attempt(value: Amount | None) -> str:
    """A cost per attempt in plain dollars, the card's unit (never "per million attempts")."""
    return "—" if value is None else f"{plain(value)} per attempt"


def volume_of(results: EditionResults, workload: str) -> int:
    """The job's volume (items per job) in an edition: what its per-job costs are per."""
    for result in results.workloads:
        if result.workload == workload:
            return result.volume
    raise KeyError(f"{workload}: not a workload of edition {results.edition}")


def rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def interval(ci: Interval | None) -> str:
    """A rate interval; money intervals are read with their point (`cpo_value`)."""
    if ci is None or ci.lo is None or ci.hi is None:
        return "[undefined]"
    return f"[{float(ci.lo):.2f}, {float(ci.hi):.2f}]"


def cpo_value(value: Amount | None, ci: Interval | None, volume: int) -> str:
    """A CPO in the job's own unit with its interval per item:
    "$0.000157 per job · $0.000000157 per item [$0.000000121, $0.000000201]"."""
    if value is None:
        return NO_SUCCESS
    lo, hi = (ci.lo, ci.hi) if ci is not None else (None, None)
    return job_and_item(value, volume, lo, hi)


def verdict(value: str) -> str:
    return VERDICTS[Verdict(value)]


def pending_text(cell: CellResult, *, judge: bool = True) -> str:
    text = f"{PENDING} ({cell.pending_judge} of {cell.n} runs)"
    return text if judge else f"{text}; {NO_JUDGE}"


def pass_rate(cell: CellResult, *, judge: bool = True) -> str:
    if is_withdrawn(cell, "pass_rate"):
        return WITHDRAWN_TEXT
    if cell.pending_judge:
        return pending_text(cell, judge=judge)
    if cell.pass_rate is None:
        return "not graded yet"
    return f"{cell.passes}/{cell.n} = {rate(cell.pass_rate)} {interval(cell.pass_rate_ci)}"


def cpo(cell: CellResult, volume: int) -> str:
    """A cell's CPO in the job's own unit; `volume` is the job's items per job."""
    if is_withdrawn(cell, "cpo_usd") or is_withdrawn(cell, "spend_usd"):
        return WITHDRAWN_TEXT
    if cell.pending_judge:
        return PENDING
    return cpo_value(cell.cpo_usd, cell.cpo_ci, volume)


def cpo_html(cell: CellResult, volume: int) -> Markup:
    """`cpo` with the exact CPO on hover."""
    shown = cpo(cell, volume)
    if cell.cpo_usd is None or shown in (WITHDRAWN_TEXT, PENDING):
        return md_text(shown)
    title = (
        f"exactly {exact_usd(cell.cpo_usd * volume)} per job, "
        f"{exact_usd(cell.cpo_usd)} per successful item"
    )
    return Markup(f'<span class="lr-money" title="{md_text(title)}">{md_text(shown)}</span>')


def sample_label(n: int) -> str:
    """Every n here is small; the label says so instead of letting a rate look like a census."""
    return f"small sample: n = {n}"


def short_samples(entries: list[Any]) -> list[tuple[int, str | None, list[str]]]:
    """Workload entries whose n differs from 15 or carries a reason, grouped by (n, reason):
    a reason shared by five jobs is said once, with the five named."""
    groups: dict[tuple[int, str | None], list[str]] = {}
    for entry in entries:
        if entry.n != 15 or entry.n_reason:
            groups.setdefault((entry.n, entry.n_reason), []).append(entry.id)
    return [(n, reason, ids) for (n, reason), ids in groups.items()]


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"


def tokens(cell: CellResult) -> str:
    t = cell.tokens
    cached = f" (+{t.cached_input:,} cached)" if t.cached_input else ""
    return f"{t.input:,}{cached} in / {t.output:,} out"


_TITLE_UNSAFE = re.compile(r"[^\w\s.,()+\-:/=]")


def title(value: object) -> str:
    """Text for a page heading. The heading becomes the nav entry and the HTML `<title>`,
    which the theme prints unescaped (after `striptags`), so a name from an edition file
    keeps only letters, digits, spaces and plain punctuation there; the page body shows it
    in full, escaped."""
    return _TITLE_UNSAFE.sub("", str(value)).strip()


def text(value: object) -> Markup:
    return md_text(value)
