"""The site as data: which pages exist and what each one is about. Pure, no I/O.

Pages are keyed by permanent ids (edition, workload version, model, erratum), so adding an
edition only adds rows; it never moves an earlier page.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ledgerrate.publish.card import footer_text
from ledgerrate.publish.errata import Note, all_errata
from ledgerrate.publish.load import Edition
from ledgerrate.schema import CellResult, ModelSpec, SiteFacts, WorkloadResult

_VERSION = re.compile(r"\.v[0-9]+$")


def workload_base(workload_id: str) -> str:
    """`extract.invoice.v2` → `extract.invoice`: the trendline that a version bump breaks."""
    return _VERSION.sub("", workload_id)


@dataclass
class ModelRow:
    edition: Edition
    spec: ModelSpec
    cells: list[CellResult]


@dataclass
class Site:
    editions: list[Edition]  # oldest first
    errata: list[Note]
    methodology_versions: set[str]
    # workload version id → (edition, its result), oldest edition first
    workloads: dict[str, list[tuple[Edition, WorkloadResult]]] = field(default_factory=dict)
    # model id → its appearances, oldest edition first
    models: dict[str, list[ModelRow]] = field(default_factory=dict)
    # The operator's facts about the site (editions/site.yaml): who runs it, the next edition.
    facts: SiteFacts = field(default_factory=SiteFacts)

    @property
    def latest(self) -> Edition | None:
        return self.editions[-1] if self.editions else None

    def versions_of(self, base: str) -> list[str]:
        return sorted(w for w in self.workloads if workload_base(w) == base)


def build_site_model(editions: list[Edition], methodology_versions: set[str]) -> Site:
    site = Site(editions, all_errata(editions), methodology_versions)
    workloads: dict[str, list[tuple[Edition, WorkloadResult]]] = defaultdict(list)
    models: dict[str, list[ModelRow]] = defaultdict(list)
    for edition in editions:
        cells_by_model: dict[str, list[CellResult]] = defaultdict(list)
        for result in edition.results.workloads:
            workloads[result.workload].append((edition, result))
            for cell in result.cells:
                cells_by_model[cell.model].append(cell)
        for spec in edition.manifest.models:
            models[spec.id].append(ModelRow(edition, spec, cells_by_model.get(spec.id, [])))
    site.workloads = dict(sorted(workloads.items()))
    site.models = dict(sorted(models.items()))
    return site


def in_card_order(site: Site) -> list[str]:
    """Workload versions in the order a rate card lists their jobs (the newest edition's card
    first, then any job it no longer runs), each job's versions oldest first."""
    order: list[str] = []
    for edition in reversed(site.editions):
        for result in edition.results.workloads:
            if workload_base(result.workload) not in order:
                order.append(workload_base(result.workload))
    return sorted(
        site.workloads,
        key=lambda w: (
            order.index(workload_base(w)) if workload_base(w) in order else len(order),
            w,
        ),
    )


def footer(edition: Edition) -> str:
    m = edition.manifest
    return footer_text(m.brand, m.methodology_version, m.id, m.date.isoformat())
