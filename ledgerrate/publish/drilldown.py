"""Per-cell drill-down pages: every run of a cell, down to the item and the check.

One page per cell (`runs/<edition>/<workload>/<model>/<mode>/`): data plus one page. The page is
plain HTML from one jinja template with autoescape on (`run_cell.html.j2`), written as the
folder's `index.html` outside the static site engine, which copies it as it is: one 4 KB block
for 15 runs (links relative to a `<base>`, no optional tags), where the same page through
mkdocs-material was 54 KB (23 KB of it the theme's frame), 2.2 GB at ten
215-model editions. Without scripts it is the cell's runs table (one row per attempt with its
stable anchor `#run-<id>`, its item's link, status, outcome, checks passed, tokens, cost and
latency) and the links to the run and grade logs. The data is those published logs themselves
(`data/<edition>/runs|grades/…jsonl.gz`, with `bodies/` beside them): `javascripts/drilldown.js`,
served from the site, reads them and adds each run's detail (what the model was sent after its
first turn, its answer, every check with its detail, the judge's verdict and, for agentic runs,
every step with its tool calls and the tools' answers), with DOM calls only, so model text stays
text. Nothing is stored twice for it.

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

import json
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup

from ledgerrate.publish import card, fmt
from ledgerrate.publish.cache import BuildCache, key_of, map_cached, place_product
from ledgerrate.publish.drilldown_records import (
    Attempt,
    Item,
    Published,
    attempts,
    items_of,
    published_dataset,
)
from ledgerrate.publish.safe import segment
from ledgerrate.schema import MANUAL_MODEL, CellResult, RunRecord, RunStatus, WorkloadResult

if TYPE_CHECKING:  # types only: the figures' code (publish.load) makes no cell page
    from ledgerrate.publish.carried import Carried, Noted
    from ledgerrate.publish.load import Edition

TEMPLATE = "run_cell.html.j2"
ITEMS_TEMPLATE = "run_items.md.j2"
PAGE = "index.html"  # a cell page's file: served as its folder's URL, outside mkdocs
# Long texts are cut on the page (the raw log download has them whole, and the dataset file
# is linked): the items page here, and each run's detail in the browser (javascripts/
# drilldown.js holds the same limits; tests/publish/test_drilldown_links.py compares them).
INPUT_LIMIT = 3000
ANSWER_LIMIT = 4000
TOOL_LIMIT = 2000


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
    """An HTML link to the cell's drill-down page at its folder URL, as mkdocs wrote the link to
    an `index.md` page (the page is a static `index.html` now, which mkdocs does not check: the
    results tables are raw HTML blocks, and `engine/raw_html.py` checks that it lands)."""
    target = f"{root}{page_dir(edition_id, cell.workload, cell.model, str(cell.mode))}/"
    return Markup('<a href="{}">{}</a>').format(Markup(target), text)


def html_env(pages: Environment) -> Environment:
    """The cell pages' jinja environment, reading the templates `pages` reads: HTML, so
    autoescape on (the markdown pages' escaping, `safe.finalize`, is for markdown). Not
    `pages`' compiled-template cache: jinja's bytecode does not record how it was escaped."""
    env = Environment(
        loader=pages.loader,
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(fmt=fmt)
    return env


def banner_headings(edition: Edition) -> list[str]:
    """The headings of the notes every page of the edition opens with (`_macros.md.j2:
    reference_banner`): a cell page fits one 4 KB block, and the notes in full are on every
    other page of the edition, its breadcrumb's second link."""
    manifest = edition.manifest
    notes = []
    if manifest.reference_only:
        notes.append("Reference baselines: no language model was called.")
    else:
        for found in (
            card.local_model_statement(manifest),
            card.self_judging_statement(manifest, edition.results),
        ):
            if found:
                notes.append(found.heading)
    if edition.provisional:
        notes.append("Provisional.")
    return notes


def _model_href(model: str, root: str) -> str:
    if model == MANUAL_MODEL:  # the manual arm is no model: its page is the method's
        return f"{root}methodology/1.0/manual-arm/"
    return f"{root}models/{segment(model)}/"


def anchor(record: RunRecord) -> Markup:
    """The run's anchor on its cell page (run ids are schema-checked hex, safe as is)."""
    return segment(f"run-{record.run_id}")


def _render(
    template: Template,
    edition: Edition,
    cell: CellResult,
    found: list[Attempt],
    dataset: Published | None,
    name: str,
    root: str,
) -> bytes:
    released = _seed_released(edition, cell.workload)
    ctx = {
        # Every link is relative to the page's <base>, the workload's items page two folders
        # up (so a run's item link is a bare fragment): `root` is the site's root from there,
        # `here` this page.
        "root": root,
        "here": f"{segment(cell.model)}/{segment(str(cell.mode))}/",
        "edition_seg": segment(edition.id),
        "workload_seg": segment(cell.workload),
        "brand": edition.manifest.brand,
        "edition": edition,
        "cell": cell,
        "name": name,
        "model_href": _model_href(cell.model, root),
        "banners": banner_headings(edition),
        "attempts": found,
        "ingested": [a.run for a in found if a.run.source],
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
        "infra": RunStatus.infra_excluded,
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
    carried: Carried | None = None,
    keys: dict[str, str] | None = None,
) -> int:
    """Write every cell's drill-down page and each workload's items page; returns how many
    cell pages there are. Each edition's workload is one job (`core/forked.py`: a worker
    process per CPU). With `carried` (`ledgerrate build`), a workload's cell folders go beside
    the docs, and not at all when the live site holds them as made from the same products
    (`publish/carried.py`); the items page is always a page of the docs.

    One compiled template for each kind of page; each workload's published dataset is read once
    (on the first of its pages not in the cache); each cell's two logs are parsed once (the
    items page reuses what its cells' pages parsed); an item's input and expected answer are
    escaped once, on the items page, and each run links there instead of repeating them.

    `keys` (with `carried`): each edition's key (`render.page_key`). A workload whose key, made
    of its edition's and the code's, names a cell folder the live site holds, and an items page
    in the cache, is placed without taking each of its cells' keys (28,000 at ten 215-model
    editions)."""
    compiled = (html_env(env).get_template(TEMPLATE), env.get_template(ITEMS_TEMPLATE))
    jobs = [(edition, workload) for edition in editions for workload in edition.results.workloads]
    job = partial(_render_workload, compiled, docs, cache, carried, keys or {})
    count = 0
    for made, folder in map_cached(job, jobs, cache, fork=fork):
        count += made
        if carried is not None and folder is not None:
            carried.note(*folder)
    return count


def _render_workload(
    templates: tuple[Template, Template],
    docs: Path,
    cache: BuildCache,
    carried: Carried | None,
    keys: dict[str, str],
    job: tuple[Edition, WorkloadResult],
) -> tuple[int, Noted | None]:
    """One edition's workload: its cell pages and its items page (one workload's dataset and
    parsed logs held at a time). Returns how many cell pages, and with `carried`, the cell
    folders' place, key, whether they were written and the pages they hold."""
    edition, workload = job
    whole = None
    if carried is not None and edition.id in keys and workload.cells:
        whole = _workload_key(docs, cache, keys[edition.id], edition, workload)
        kept = _kept_workload(docs, cache, carried, whole)
        if kept is not None:
            return kept
    made, noted, items = _render_cells(templates, docs, cache, carried, job)
    if whole is not None and noted is not None:
        record = json.dumps({"noted": noted, "count": made, "items": items}).encode()
        cache.product_path("drilldown-workload", whole, lambda: record)
    return made, noted


def _workload_key(
    docs: Path, cache: BuildCache, edition_key: str, edition: Edition, workload: WorkloadResult
) -> str:
    """What an edition's workload's drill-down is made from, as a whole: its edition (the
    folder, whether provisional, its index lines), the published dataset the pages read, and
    the code of its figures and pages."""
    dataset = docs / "data" / edition.id / "datasets" / workload.workload / "dataset.json"
    return key_of(
        "drilldown-workload",
        cache.code("drilldown"),
        cache.code("drilldown-items"),
        cache.code("results"),
        edition_key,
        workload.workload,
        cache.file_digest(dataset) if dataset.is_file() else None,
    )


def _kept_workload(
    docs: Path, cache: BuildCache, carried: Carried, whole: str
) -> tuple[int, Noted] | None:
    """The workload placed from its last build: its items page from the cache, and its cell
    folder kept in the live site; None when either is not there (it is then made as usual)."""
    found = cache.stored("drilldown-workload", whole)
    if found is None:
        return None
    record = json.loads(found.read_bytes())
    rel, folder, _, files = record["noted"]
    items = cache.stored("drilldown-items", record["items"])
    if items is None or carried.folder(rel, folder) is not None:
        return None
    place_product(items, docs / rel / "index.md")
    return record["count"], (rel, folder, False, files)


def _render_cells(
    templates: tuple[Template, Template],
    docs: Path,
    cache: BuildCache,
    carried: Carried | None,
    job: tuple[Edition, WorkloadResult],
) -> tuple[int, Noted | None, str | None]:
    """`_render_workload`, each cell's key taken; with the items page's key."""
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
        return _render(template, edition, cell, found, dataset_of(), name, root)

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
    pages: list[tuple[str, str, partial[bytes]]] = []
    for i, cell in enumerate(workload.cells):
        mode = str(cell.mode)
        rel = page_dir(edition.id, cell.workload, cell.model, mode)
        root = _root_of(items_dir(edition.id, cell.workload))  # from the page's <base>
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
            # The page's banner says so while the window is open (the manifest's own time).
            edition.provisional,
            digests,
        )
        name = names.get(cell.model, cell.model)
        pages.append((rel, key, partial(make, i, cell, name, root)))
    if not workload.cells:
        return 0, None, None
    rel = items_dir(edition.id, workload.workload)
    folder = key_of("drilldown-folder", [(page, key) for page, key, _ in pages])
    into = docs / rel if carried is None else carried.folder(rel, folder)
    if into is not None:
        for page, key, render in pages:
            # Linked, not read and written again: 30,000 such pages at ten 215-model editions.
            made = cache.product_path("drilldown", key, render)
            place_product(made, into / Path(page).relative_to(rel) / PAGE)
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
    if carried is None:
        return len(workload.cells), None, key
    files = [f"{Path(page).relative_to(rel).as_posix()}/{PAGE}" for page, _, _ in pages]
    return len(workload.cells), (rel, folder, into is not None, files), key
