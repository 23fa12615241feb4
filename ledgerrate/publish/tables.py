"""Results tables made explorable: sort keys in the page, and each table's data beside it.

A results table stays a plain markdown table, readable with JavaScript off. Each figure cell
carries its exact sort key (`data-sort`), so `javascripts/tables.js` sorts numbers as numbers
($0.0000000367 beside $12.35 still sorts by value, not as text) and puts a
figure that does not exist ("no successful outcome", withdrawn, pending) last in either
direction. The paragraph before a table links its rows as CSV and JSON, each row a `CellResult`
of the published `results.json` schema, so the download is described by a schema already on
the data page.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ledgerrate.publish import downloads
from ledgerrate.publish.by_hand import NO_MANUAL, by_hand
from ledgerrate.publish.cache import BuildCache, key_of, place_product, write_plain
from ledgerrate.publish.card import RateCard, reference_lines
from ledgerrate.publish.safe import md_text, segment
from ledgerrate.publish.withdrawals import is_withdrawn
from ledgerrate.schema import MANUAL_MODEL, CellResult, EditionResults, Mode, WorkloadResult

# `results.json` is an EditionResults; its schema's `$defs` name every row type we publish.
RESULTS_SCHEMA = "results-json.schema.json"


def key(value: Decimal | float | int | None, shown: Any) -> Markup:
    """A figure with its sort key; no key (an undefined figure) sorts last."""
    text = shown if isinstance(shown, Markup) else md_text(shown)
    raw = "" if value is None else format(Decimal(str(value)), "f")
    return Markup(f'<span data-sort="{raw}">{text}</span>')


def pass_key(cell: CellResult) -> float | None:
    if is_withdrawn(cell, "pass_rate") or cell.pending_judge:
        return None
    return cell.pass_rate


def cpo_key(cell: CellResult) -> Decimal | None:
    if any(is_withdrawn(cell, f) for f in ("cpo_usd", "spend_usd")) or cell.pending_judge:
        return None
    return cell.cpo_usd


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _rows(rows: list[Any]) -> str:
    """A JSON array with one row a line: a fifth smaller than indented, and as readable a row
    at a time (three tables show each cell, so at ten 215-model editions these were 100 MB)."""
    return "[\n" + ",\n".join(_compact(row) for row in rows) + "\n]" if rows else "[]"


def _cells_json(cells: Iterable[CellResult]) -> bytes:
    return (_rows([c.model_dump(mode="json") for c in cells]) + "\n").encode()


def _cells_csv(edition: EditionResults, cells: list[CellResult]) -> bytes:
    # The same columns as the edition's results.csv, restricted to this table's rows.
    one = edition.model_copy(
        update={"workloads": [_holder(edition.workloads, cells)]} if cells else {"workloads": []}
    )
    return downloads.results_frame(one).to_csv(index=False, lineterminator="\n").encode()


def _holder(workloads: list[WorkloadResult], cells: list[CellResult]) -> WorkloadResult:
    return workloads[0].model_copy(update={"cells": cells})


def write_cell_table(
    docs: Path,
    rel_dir: str,
    stem: str,
    edition: EditionResults,
    cells: list[CellResult],
    root: str,
    cache: BuildCache | None = None,
    up: str = "",
) -> Markup:
    """Write `<stem>.csv` and `<stem>.json` into `rel_dir`; returns the paragraph that links
    them (placed right before the table, which is how tables.js finds the table) from a page in
    `rel_dir`, or in a sub-folder of it that `up` (`../`) leads back from."""
    # Products of the rows (and the edition id, the CSV's first column): at ten editions of 215
    # models the 2,230 tables' pandas frames and indented JSON were 20 s of a build.
    rows = [c.model_dump_json() for c in cells] if cache is not None else []
    _write_pair(
        docs / rel_dir,
        stem,
        ("cell-table", edition.edition, rows),
        lambda: _cells_json(cells),
        lambda: _cells_csv(edition, cells),
        cache,
        ("cells-json", "cells-csv"),
    )
    schema = f"{root}data/{segment(edition.edition)}/schemas/{RESULTS_SCHEMA}"
    return Markup(
        f'<p class="lr-table-data">This table as <a href="{up}{stem}.csv" download>CSV</a> · '
        f'<a href="{up}{stem}.json" download>JSON</a> (each row a <code>CellResult</code>, '
        f'<a href="{schema}">results.json schema</a> <code>$defs/CellResult</code>)</p>'
    )


def _write_pair(
    folder: Path,
    stem: str,
    inputs: tuple[str, str, list[str]],
    as_json: Callable[[], bytes],
    as_csv: Callable[[], bytes],
    cache: BuildCache | None,
    products: tuple[str, str],
) -> None:
    """`<stem>.json` and `<stem>.csv` in `folder`; with a cache, each is a product keyed by the
    tables' code and `inputs` (what the table is, its edition and its rows as JSON)."""
    if cache is None:
        write_plain(folder / f"{stem}.json", as_json())
        write_plain(folder / f"{stem}.csv", as_csv())
        return
    label, edition_id, rows = inputs
    key = key_of(label, cache.code(products[0]), edition_id, rows)
    place_product(cache.product_path(products[0], key, as_json), folder / f"{stem}.json")
    place_product(cache.product_path(products[1], key, as_csv), folder / f"{stem}.csv")


_CARD_COLUMNS = ("edition", "workload", "unit", "volume", "line", "model", "mode", "cpo_usd",
                 "rate_usd", "pass_rate", "premium", "reason",
                 "manual_ratio")  # fmt: skip


def _money(value: Decimal | None) -> str | None:
    """An exact decimal in plain notation (never 1.5E-7, never rounded to the cent)."""
    return None if value is None else format(value.normalize(), "f")


def card_rows(edition: EditionResults, card: RateCard | None = None) -> list[dict[str, Any]]:
    """One row per card line (cheapest qualifying, flagship) and per reference baseline: the
    model, its pass rate, the exact cost per item (`cpo_usd`) and per job at the card's volume
    (`rate_usd`), and, where a line has no rate, the card's reason for it. The CSV and the
    JSON of the card are these rows."""
    rows: list[dict[str, Any]] = []
    lines = {line.workload: line for line in card.lines} if card else {}

    def add(w: WorkloadResult, label: str, **values: Any) -> None:
        row = dict.fromkeys(_CARD_COLUMNS)
        row.update(edition=edition.edition, workload=w.workload, unit=w.unit, volume=w.volume)
        row.update(line=label, **values)
        rows.append(row)

    for w in edition.workloads:
        shown = lines.get(w.workload)
        for label, line, reason in (
            ("cheapest_qualifying", w.cheapest_qualifying, shown.rate_status if shown else None),
            ("flagship", w.flagship, shown.flagship_status if shown else None),
        ):
            if line is None:
                add(w, label, reason=reason)
                continue
            premium = w.frontier_premium if label == "flagship" else None
            add(w, label, model=line.model, mode=line.mode.value, cpo_usd=_money(line.cpo_usd),
                rate_usd=_money(line.cpo_usd * w.volume), pass_rate=line.pass_rate,
                premium=premium)  # fmt: skip
        _by_hand_row(w, shown, add)
        refs = [c for c in w.cells if c.is_reference]
        for cell, ref in zip(refs, reference_lines(w), strict=True):
            cpo = None if ref.status else cell.cpo_usd
            add(w, "reference", model=cell.model, mode=cell.mode.value, cpo_usd=_money(cpo),
                rate_usd=_money(None if cpo is None else cpo * w.volume),
                pass_rate=None if pass_key(cell) is None else cell.pass_rate,
                reason=ref.status)  # fmt: skip
    return rows


def _by_hand_row(w: WorkloadResult, shown: Any, add: Callable[..., None]) -> None:
    """The job's by-hand line (publish/by_hand.py): the manual cell's exact CPO and rate, or why
    there is none, and `manual_ratio` = manual CPO ÷ cheapest qualifying CPO where both qualify."""
    if shown is not None:
        hand = shown.by_hand
    else:
        flag = w.flagship
        held = flag is not None and any(
            c.qualifying for c in w.cells if (c.model, c.mode) == (flag.model, flag.mode)
        )
        hand = by_hand(w, flag, held)
    if hand is None:
        add(w, "by_hand", reason=NO_MANUAL)
        return
    add(w, "by_hand", model=MANUAL_MODEL, mode=Mode.by_hand.value, cpo_usd=_money(hand.cpo),
        rate_usd=_money(None if hand.cpo is None else hand.cpo * w.volume),
        pass_rate=hand.pass_rate, reason=hand.status,
        manual_ratio=hand.vs_cheapest)  # fmt: skip


def _workloads_json(edition: EditionResults, card: RateCard | None = None) -> bytes:
    """The card's rows (exact decimals, reasons) and the edition's workloads, each a
    `WorkloadResult` of the results.json schema."""
    # One line a card row and one a workload (its cells included): 3.9 MB an edition of 215
    # models indented, on the edition page and, for the newest, the home page.
    lines = _rows(card_rows(edition, card))
    workloads = _rows([w.model_dump(mode="json") for w in edition.workloads])
    head = f'{{\n"edition":{_compact(edition.edition)},\n'
    return f'{head}"lines":{lines},\n"workloads":{workloads}\n}}\n'.encode()


def _workloads_csv(edition: EditionResults, card: RateCard | None = None) -> bytes:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(_CARD_COLUMNS)
    for row in card_rows(edition, card):
        out.writerow(["" if row[k] is None else row[k] for k in _CARD_COLUMNS])
    return buffer.getvalue().encode("utf-8")


def write_workload_table(
    docs: Path,
    rel_dir: str,
    stem: str,
    edition: EditionResults,
    root: str,
    cache: BuildCache | None = None,
    card: RateCard | None = None,
) -> Markup:
    """The rate card's data: the edition's workloads (each a `WorkloadResult`) as JSON, and the
    cheapest-qualifying, flagship and reference lines as CSV with the card's reasons."""
    # Every cell of the edition is in the JSON: at 215 models its indented dump was most of a
    # second, made twice a build (home page and edition page) for each edition.
    rows = [w.model_dump_json() for w in edition.workloads] if cache is not None else []
    if card is not None and cache is not None:  # the reasons come from the card, not the rows
        rows += [f"{line.rate_status}|{line.flagship_status}" for line in card.lines]
    _write_pair(
        docs / rel_dir,
        stem,
        ("workload-table", edition.edition, rows),
        lambda: _workloads_json(edition, card),
        lambda: _workloads_csv(edition, card),
        cache,
        ("card-json", "card-csv"),
    )
    schema = f"{root}data/{segment(edition.edition)}/schemas/{RESULTS_SCHEMA}"
    return Markup(
        f'<p class="lr-card-data">The figures of this card as <a href="{stem}.csv" download>CSV'
        f'</a> · <a href="{stem}.json" download>JSON</a> (a row per line with the exact cost per '
        "item and per job and the reason a line has no rate; the JSON adds "
        f"<code>workloads</code>, each a <code>WorkloadResult</code>, "
        f'<a href="{schema}">results.json schema</a> <code>$defs/WorkloadResult</code>)</p>'
    )
