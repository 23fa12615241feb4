"""Void conditions: a cell whose records cannot stand as a measurement of what was registered.

A void cell keeps its figures on its page (with the reasons) but never enters a rate card, an
index, a routing verdict or a trendline. The conditions:

- an answered dataset differs from the registered one (the question was not the sealed one);
- the two modes of one model answered different datasets (the arms are not comparable);
- any attempt was simulated (a measurement we did not make);
- a grade came from a grader or a rubric other than the registered one (the bar moved after
  the answers were in). A published correction of the registered grader (a grader revision of
  the same workload version, announced by an erratum) is the one exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ledgerrate import workloads
from ledgerrate.core.hashing import LEGACY_SCHEME, HashScheme
from ledgerrate.metrics.cells import CellData
from ledgerrate.metrics.load import CellKey
from ledgerrate.metrics.rows import is_missing
from ledgerrate.schema import Registration, WorkloadRegistration


def _known(values: list[Any]) -> list[str]:
    """The values `Series.dropna()` keeps (a hash column's: strings)."""
    return [v for v in values if not is_missing(v)]


def _short(value: str) -> str:
    return value[:12]


def _accepted_graders(
    workload_id: str, sealed: WorkloadRegistration, scheme: HashScheme
) -> frozenset[str]:
    try:
        workload = workloads.get(workload_id)
    except KeyError:
        return frozenset({sealed.grader_hash})
    return workload.graders_since(sealed.workload_hash, scheme) | {sealed.grader_hash}


def accepted_graders(
    workload_id: str, registration: Registration | None, found: Iterable[str] | None = None
) -> frozenset[str] | None:
    """The grader hashes that may grade `workload_id` in this edition (None: not registered),
    as far as `void_reasons` asks: with `found`, the grader hashes the workload's grades carry.

    A grader hash is read from the grader's source text, so this is worked out once per
    workload and handed to `void_reasons` for each of its cells. When every grade is by the
    sealed grader, which later corrections are accepted too is never asked: the sealed hash
    alone answers, without importing the workload (and the PDF renderer some import)."""
    if registration is None or (sealed := registration.workloads.get(workload_id)) is None:
        return None
    if found is not None and set(found) <= {sealed.grader_hash}:
        return frozenset({sealed.grader_hash})
    return _accepted_graders(workload_id, sealed, registration.hash_scheme)


def void_reasons(
    data: CellData,
    registration: Registration | None,
    accepted: frozenset[str] | None = None,
) -> list[str]:
    """Reasons one cell is void, judged on its own records (`accepted`: the workload's
    `accepted_graders`, worked out here when not given)."""
    workload = data.key[0]
    items = data.items
    reasons: list[str] = []
    if data.all_runs.empty:
        return reasons
    # bool() of each value, as pandas' astype(bool) reads them; on the column as a list, since a
    # pandas operation per column cost most of this function at 215 models.
    simulated = sum(bool(v) for v in data.all_runs["simulated"])
    if simulated:
        reasons.append(f"{simulated} attempts were simulated, not measured")
    sealed = registration.workloads.get(workload) if registration else None
    if registration is None:
        reasons.append("the edition has no registration.json: nothing sealed to check against")
    elif sealed is None:
        reasons.append(f"{workload} was not registered for this edition")
    if sealed is None or items.empty:
        return reasons
    answered = sorted(set(items["dataset_hash"]) - {sealed.dataset_hash})
    if answered:
        reasons.append(
            f"runs answered dataset {', '.join(map(_short, answered))}, not the registered "
            f"{_short(sealed.dataset_hash)}"
        )
    if accepted is None:
        scheme = registration.hash_scheme if registration else LEGACY_SCHEME
        accepted = _accepted_graders(workload, sealed, scheme)
    graders = sorted(set(_known(items["grader_hash"])) - accepted)
    if graders:
        reasons.append(
            f"graded by grader {', '.join(map(_short, graders))}, not the registered "
            f"{_short(sealed.grader_hash)}"
        )
    rubrics = sorted(set(_known(items["rubric_hash"])) - {sealed.rubric_hash})
    if rubrics:
        reasons.append(
            f"judged against rubric {', '.join(map(_short, rubrics))}, not the registered "
            f"{_short(sealed.rubric_hash or 'none')}"
        )
    return reasons


def cross_mode_reasons(cells: Mapping[CellKey, CellData]) -> dict[CellKey, list[str]]:
    """Both arms of a model are void when they answered different datasets."""
    answered: dict[tuple[str, str], dict[str, frozenset[str]]] = {}
    for (workload, model, mode), data in cells.items():
        if not data.items.empty:
            hashes = frozenset(data.items["dataset_hash"])
            answered.setdefault((workload, model), {})[mode] = hashes
    found: dict[CellKey, list[str]] = {}
    for (workload, model), by_mode in answered.items():
        if len(set(by_mode.values())) > 1:
            shown = "; ".join(
                f"{mode}: {', '.join(sorted(map(_short, h)))}"
                for mode, h in sorted(by_mode.items())
            )
            for mode in by_mode:
                found[(workload, model, mode)] = [
                    f"the modes of {model} answered different datasets ({shown})"
                ]
    return found
