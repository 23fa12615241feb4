"""Per-cell drill-down pages: every run of a cell, down to the item and the check.

One page per cell (`runs/<edition>/<workload>/<model>/<mode>/`), rendered from one template
with the cell's run and grade records, one section per attempt: a link to the item on the
workload's items page, what the model was sent after its first turn (agentic runs), the
model's answer, every check with its detail, the judge's verdict, tokens, cost, latency and, for
agentic runs, every step with its tool calls and the tools' answers.

One items page per edition and workload (`runs/<edition>/<workload>/`): each item's input the
model saw (each distinct prompt once, whatever number of models and modes were sent it), the
dataset file it was given and the expected answer (only where the dataset is published, i.e. its
seed was released and opened its commitment). Before it, every cell page repeated those texts,
most of a large edition's drill-down markdown. Every string from a record goes through the same
escaping as the rest of the site.

A cell page is a function of the cell's two logs, the edition's manifest, the published dataset
and the code that renders it (`publish/product_code.py`); the items page of all its cells'
logs: both come from the build cache (`publish/cache.py`) while those are unchanged, so they
cost nothing on a rebuild that changes no record.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path

from jinja2 import Environment, Template
from markupsafe import Markup

from ledgerrate.publish.cache import BuildCache, key_of, map_cached, place_product
from ledgerrate.publish.drilldown_records import (
    Attempt,
    Item,
    Published,
    attempts,
    items_of,
    published_dataset,
)
from ledgerrate.publish.load import Edition
from ledgerrate.publish.safe import pre_block, segment
from ledgerrate.schema import CellResult, RunRecord, RunStatus, WorkloadResult

TEMPLATE = "run_cell.md.j2"
ITEMS_TEMPLATE = "run_items.md.j2"
# Long texts are cut on the page (the raw log download has them whole, and the dataset file
# is linked): a cell's page stays small enough that an edition of 10^4 runs builds quickly.
INPUT_LIMIT = 3000
ANSWER_LIMIT = 4000
TOOL_LIMIT = 2000
# Escaped texts kept per build for what many cells show alike (a baseline's request, which is
# not a chat body and so stays on its cell page): a bound, not a need.
SHARED_TEXTS = 1024


def page_dir(edition_id: str, workload: str, model: str, mode: str) -> str:
    return "/".join(["runs", segment(edition_id), segment(workload), segment(model), segment(mode)])


def items_dir(edition_id: str, workload: str) -> str:
    """The workload's items page: each item's input and expected answer, once for all cells
    (a cell page sits two folders below it, so a model id can never collide with it)."""
    return "/".join(["runs", segment(edition_id), segment(workload)])


def item_anchor(item_id: str) -> Markup:
    return segment(f"item-{item_id}")


def _root_of(rel: str) -> str:
    """The docs root, relative to the page in folder `rel` (a page is `rel/index.md`)."""
    return "../" * rel.count("/") + "../"


def _seed_released(edition: Edition, workload: str) -> bool:
    return edition.seeds is not None and workload in edition.seeds.seeds


def link(cell: CellResult, edition_id: str, root: str, text: str = "runs") -> Markup:
    """A markdown link to the cell's drill-down page (checked by mkdocs --strict)."""
    target = f"{root}{page_dir(edition_id, cell.workload, cell.model, str(cell.mode))}/index.md"
    return Markup(f"[{text}]({target})")


def anchor(record: RunRecord) -> Markup:
    """The run's anchor on its cell page (run ids are schema-checked hex, safe as is)."""
    return segment(f"run-{record.run_id}")


def _render(
    template: Template,
    shared_pre: Callable[..., Markup],
    edition: Edition,
    cell: CellResult,
    found: list[Attempt],
    dataset: Published | None,
    name: str,
    root: str,
) -> bytes:
    released = _seed_released(edition, cell.workload)
    ctx = {
        "root": root,
        "edition": edition,
        "cell": cell,
        "name": name,
        "attempts": found,
        "items_page": Markup("../../index.md"),
        # The same page as a URL, for links inside the raw HTML blocks (directory URLs).
        "items_url": Markup("../../"),
        "item_anchor": item_anchor,
        "released": released and dataset is not None,
        "seed_released": released,
        "data_root": f"{root}data/{segment(edition.id)}/",
        # Linked only when the edition has the log (the data page publishes every one it has).
        "log": f"runs/{cell.workload}/{cell.model}/{cell.mode}.jsonl.gz"
        if edition.paths.runs(cell.workload, cell.model, str(cell.mode)).exists()
        else None,
        "grade_log": f"grades/{cell.workload}/{cell.model}/{cell.mode}.jsonl.gz"
        if edition.paths.grades(cell.workload, cell.model, str(cell.mode)).exists()
        else None,
        "anchor": anchor,
        "limits": {"input": INPUT_LIMIT, "answer": ANSWER_LIMIT, "tool": TOOL_LIMIT},
        "infra": RunStatus.infra_excluded,
        "pre_shared": shared_pre,
    }
    text = template.render(ctx)
    return (text.rstrip("\n") + "\n").encode("utf-8")


def _render_items(
    template: Template,
    edition: Edition,
    workload: str,
    items: list[Item],
    dataset: Published | None,
    root: str,
) -> bytes:
    released = _seed_released(edition, workload)
    ctx = {
        "root": root,
        "edition": edition,
        "workload": workload,
        "items": items,
        "released": released and dataset is not None,
        "seed_released": released,
        "data_root": f"{root}data/{segment(edition.id)}/",
        "item_anchor": item_anchor,
        "limits": {"input": INPUT_LIMIT, "answer": ANSWER_LIMIT},
    }
    text = template.render(ctx)
    return (text.rstrip("\n") + "\n").encode("utf-8")


def render_drilldowns(
    env: Environment,
    editions: list[Edition],
    docs: Path,
    cache: BuildCache,
    *,
    fork: bool = True,
) -> int:
    """Write every cell's drill-down page and each workload's items page; returns how many
    cell pages were written. Each edition's workload is one job (`core/forked.py`: a worker
    process per CPU).

    One compiled template for each kind of page; each workload's published dataset is read once
    (on the first of its pages not in the cache); each cell's two logs are parsed once (the
    items page reuses what its cells' pages parsed); an item's input and expected answer are
    escaped once, on the items page, and each run links there instead of repeating them."""
    templates = (env.get_template(TEMPLATE), env.get_template(ITEMS_TEMPLATE))
    shared_pre = lru_cache(maxsize=SHARED_TEXTS)(pre_block)
    jobs = [(edition, workload) for edition in editions for workload in edition.results.workloads]
    job = partial(_render_workload, templates, shared_pre, docs, cache)
    return sum(map_cached(job, jobs, cache, fork=fork))


def _render_workload(
    templates: tuple[Template, Template],
    shared_pre: Callable[..., Markup],
    docs: Path,
    cache: BuildCache,
    job: tuple[Edition, WorkloadResult],
) -> int:
    """One edition's workload: its cell pages and its items page (one workload's dataset and
    parsed logs held at a time)."""
    template, items_template = templates
    edition, workload = job
    loaded: list[Published | None] = []  # the workload's published dataset, read when needed
    parsed: dict[int, list[Attempt]] = {}  # the workload's cells, by position
    strings: dict[str, str] = {}  # the workload's stored request strings, read once

    def dataset_of() -> Published | None:
        if not loaded:
            loaded.append(published_dataset(docs, edition.id, workload.workload))
        return loaded[0]

    def attempts_of(i: int, cell: CellResult) -> list[Attempt]:
        if i not in parsed:
            parsed[i] = attempts(edition, cell, strings)
        return parsed[i]

    def make(i: int, cell: CellResult, name: str, root: str) -> bytes:
        found = attempts_of(i, cell)
        return _render(template, shared_pre, edition, cell, found, dataset_of(), name, root)

    def make_items(root: str) -> bytes:
        found = [attempts_of(i, c) for i, c in enumerate(workload.cells)]
        dataset = dataset_of()
        items = items_of(found, dataset)
        return _render_items(items_template, edition, workload.workload, items, dataset, root)

    names = {m.id: m.name for m in edition.manifest.models}
    manifest_digest = cache.file_digest(edition.paths.manifest)
    dataset = docs / "data" / edition.id / "datasets" / workload.workload / "dataset.json"
    dataset_digest = cache.file_digest(dataset) if dataset.is_file() else None
    released = _seed_released(edition, workload.workload)
    log_digests = []
    for i, cell in enumerate(workload.cells):
        mode = str(cell.mode)
        rel = page_dir(edition.id, cell.workload, cell.model, mode)
        root = _root_of(rel)
        logs = [
            edition.paths.runs(cell.workload, cell.model, mode),
            edition.paths.grades(cell.workload, cell.model, mode),
        ]
        digests = [cache.file_digest(p) if p.exists() else None for p in logs]
        log_digests.append(digests)
        key = key_of(
            "drilldown",
            cache.code("drilldown"),
            edition.id,
            cell.model_dump(mode="json"),
            manifest_digest,
            dataset_digest,
            released,
            digests,
        )
        name = names.get(cell.model, cell.model)
        # Linked, not read and written again: 30,000 such pages at ten 215-model editions.
        page = cache.product_path("drilldown", key, partial(make, i, cell, name, root))
        place_product(page, docs / rel / "index.md")
    if not workload.cells:
        return 0
    rel = items_dir(edition.id, workload.workload)
    root = _root_of(rel)
    key = key_of(
        "drilldown-items",
        cache.code("drilldown-items"),
        edition.id,
        workload.workload,
        [c.model_dump(mode="json") for c in workload.cells],
        manifest_digest,
        dataset_digest,
        released,
        log_digests,
    )
    items = cache.product_path("drilldown-items", key, partial(make_items, root))
    place_product(items, docs / rel / "index.md")
    return len(workload.cells)
