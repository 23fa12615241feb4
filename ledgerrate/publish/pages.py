"""Render the site's markdown pages from jinja2 templates (plain markdown + inline HTML).

Templates receive schema objects and a few helpers; every `{{ … }}` is escaped by
`safe.finalize`, so text from edition files can only ever appear as text.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from ledgerrate.core.forked import batches
from ledgerrate.generate.price_check import rate_text
from ledgerrate.metrics.trend import trend_points
from ledgerrate.publish import card as card_mod
from ledgerrate.publish import (
    charts,
    corrected,
    drilldown,
    explore,
    filelist,
    fmt,
    links,
    reprice_view,
    sealed_list,
    site_paths,
    tables,
)
from ledgerrate.publish import errata as errata_mod
from ledgerrate.publish.cache import BuildCache, map_cached, write_plain
from ledgerrate.publish.card import RateCard, rate_card
from ledgerrate.publish.cell_figures import CellFigures
from ledgerrate.publish.downloads import DataSection, section_json
from ledgerrate.publish.engine.compiled_templates import CompiledTemplates
from ledgerrate.publish.engine.raw_html import region
from ledgerrate.publish.erratum_kind import changes_a_figure
from ledgerrate.publish.html_table import html_table
from ledgerrate.publish.inspect_export import reader_commands
from ledgerrate.publish.load import Edition
from ledgerrate.publish.page_products import PageJob, PageStore, Recording
from ledgerrate.publish.price_check_data import edition_price_check
from ledgerrate.publish.safe import (
    external_link,
    finalize,
    html_only,
    md_text,
    pre_block,
    segment,
)
from ledgerrate.publish.site import Site, footer, in_card_order, workload_base
from ledgerrate.publish.verifier import install_commands, verifier_files
from ledgerrate.publish.workload_facts import workload_facts
from ledgerrate.schema import EditionResults, TrendPoint, WorkloadResult
from ledgerrate.workloads.base import PRIMITIVES

ANSWER_LIMIT = 4000
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.S)


def make_env(templates: Path, cache: BuildCache | None = None) -> Recording:
    """The pages' jinja environment; with a `cache`, templates are compiled once per toolchain,
    not once per build."""
    env = Recording(  # notes the templates each page job reads (`page_products.py`)
        loader=FileSystemLoader(templates),
        bytecode_cache=CompiledTemplates(cache) if cache is not None else None,
        autoescape=False,  # markdown, not HTML: `finalize` does the escaping
        finalize=finalize,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(
        fmt=fmt,
        links=links,
        md=md_text,
        pre=pre_block,
        ext=external_link,
        card=card_mod,
        tables=tables,
        drill=drilldown,
    )
    env.filters["pre"] = pre_block
    # `changing`: an erratum that changed or withdrew a figure (not a disclosure).
    env.tests["changing"] = changes_a_figure
    # A large table or block of our own HTML skips markdown (publish/html_table.py, raw_html.py).
    env.filters["html_table"] = html_table
    env.filters["raw_html"] = lambda html: region(html_only(html))
    # jinja's own `tojson` marks its output safe for HTML, which is not safe for markdown.
    env.filters["tojson"] = lambda v: md_text(json.dumps(v, sort_keys=True, default=str))
    env.filters["json_pre"] = lambda v: pre_block(json.dumps(v, indent=2, sort_keys=True))
    # Plain JSON text for `pre()`, which escapes it (record contents: never marked safe).
    env.filters["tojson_text"] = lambda v: json.dumps(
        v, indent=2, sort_keys=True, ensure_ascii=False, default=str
    )
    return env


def _write(docs: Path, rel: str, text: str) -> None:
    # `docs` is a staging tree, swapped in whole or thrown away: no fsync per page.
    write_plain(docs / rel, (text.rstrip("\n") + "\n").encode("utf-8"))


def _svg_img(docs: Path, rel_dir: str, name: str, svg: str, up: str = "") -> Markup:
    """Charts are files shown with `<img>` (alt text from the SVG's own title): an SVG inline in
    markdown would be parsed as markdown, and an `<img>` never runs script in the SVG. `up`
    leads from the page to `rel_dir` (a page in a sub-folder of it)."""
    write_plain(docs / rel_dir / name, svg.encode("utf-8"))
    found = _TITLE.search(svg)
    alt = found.group(1).strip() if found else name
    alt_attr = md_text(re.sub(r"<[^>]*>", "", alt))
    return Markup(f'<img class="lr-chart" src="{up}{name}" alt="{alt_attr}">')


def _edition_notes(edition: Edition, *, workload: str | None = None, model: str | None = None):
    entries = edition.errata.entries if edition.errata else []
    return [e for e in entries if errata_mod.touches(e, workload=workload, model=model)]


def edition_card(edition: Edition) -> RateCard:
    return rate_card(
        edition.results,
        edition.manifest,
        provisional=edition.provisional,
        errata=edition.errata,
    )


def render_home(env: Environment, site: Site, docs: Path, cache: BuildCache | None = None) -> None:
    """The latest *published* edition's card; an edition whose window is still open never
    takes over the home page, it is only pointed to."""
    published = [e for e in site.editions if not e.provisional]
    latest = published[-1] if published else None
    provisional = [e for e in site.editions if e.provisional and e not in published]
    ctx: dict[str, Any] = {
        "root": "",
        "site": site,
        "edition": latest,
        "provisional": list(reversed(provisional)),
    }
    if latest is not None:
        ctx.update(
            card=edition_card(latest),
            results=latest.results,
            notes=_edition_notes(latest),
            **reprice_view.context(latest, ""),
            methodology=site.methodology_versions,
            **explore.card_extras(
                latest,
                edition_card(latest),
                docs,
                "",
                site_paths.HOME_CHART.format(edition=latest.id),
                cache=cache,
            ),
        )
    _write(docs, site_paths.HOME, env.get_template("home.md.j2").render(ctx))


def spotcheck_notes(root: Path) -> list[str]:
    from ledgerrate.core.spotcheck_flags import methodology_notes

    return methodology_notes(root)


def render_edition(
    env: Environment,
    site: Site,
    edition: Edition,
    docs: Path,
    cache: BuildCache | None = None,
    figures: CellFigures | None = None,
) -> None:
    root = "../../"
    figures = figures if figures is not None else CellFigures()
    judge_overlap: list[str] = []
    judge_spec = None
    if edition.manifest.judge is not None:
        judge_spec = edition.manifest.model(edition.manifest.judge.model)
        judge_overlap = [m.name for m in edition.manifest.models if m.family == judge_spec.family]
    names = {m.id: m.name for m in edition.manifest.models}
    void_cells = [c for w in edition.results.workloads for c in w.cells if c.void]
    flagged = [c for w in edition.results.workloads for c in w.cells if c.flags]
    ctx = {
        "root": root,
        "edition": edition,
        "m": edition.manifest,
        "footer": footer(edition),
        "card": edition_card(edition),
        "cells": [
            (w, c, figures(edition, c, root), names.get(c.model, c.model))
            for w in edition.results.workloads
            for c in w.cells
        ],
        "judge": judge_spec,
        "judge_overlap": judge_overlap,
        "void_cells": void_cells,
        "flagged": flagged,
        "sittings": [c for w in edition.results.workloads for c in w.cells if c.other_sittings],
        "notes": _edition_notes(edition),
        "spot_notes": spotcheck_notes(edition.paths.root),
        "methodology": site.methodology_versions,
        "price_check": edition_price_check(edition),
        "rate_text": rate_text,
        **reprice_view.context(edition, root),
    }
    rel_dir = f"{site_paths.EDITIONS}/{segment(edition.id)}"
    extras = explore.card_extras(
        edition, ctx["card"], docs, root, "gap", rel_dir=rel_dir, cache=cache
    )
    ctx.update(extras)
    ctx["vendors"] = explore.vendors(edition)
    ctx["cells_table"] = tables.write_cell_table(
        docs, rel_dir, "cells", edition.results, [c for _, c, _, _ in ctx["cells"]], root, cache
    )
    rel = f"{rel_dir}/index.md"
    _write(docs, rel, env.get_template("edition.md.j2").render(ctx))


def _trend_section(site: Site, workload_id: str, docs: Path, rel_dir: str) -> dict[str, Any]:
    base = workload_base(workload_id)
    all_results: list[EditionResults] = [e.results for e in site.editions]
    points: list[TrendPoint] = [
        p for p in trend_points(all_results) if workload_base(p.workload) == base
    ]
    chart = None
    if points and site.latest is not None:
        # The chart breaks the line at each version bump itself (charts.trendline_svg).
        svg = charts.trendline_svg(points, base, footer(site.latest))
        chart = _svg_img(docs, rel_dir, "trend.svg", svg)
    points.sort(key=lambda p: (p.workload, p.model, str(p.mode), p.date))
    # Each version's volume, so a point's CPO reads per job as its own edition's card read it.
    volumes = {w.workload: w.volume for results in all_results for w in results.workloads}
    return {
        "points": points,
        "chart": chart,
        "versions": site.versions_of(base),
        "base": base,
        "volumes": volumes,
    }


def _reproductions(
    edition: Edition, workload_id: str, names: dict[str, str]
) -> list[dict[str, Any]]:
    """The workload's cells with reproductions, each with its reproduction sittings."""
    return [
        {"model": model, "name": names.get(model, model), "mode": mode, "sittings": rows}
        for (wid, model, mode), rows in sorted(edition.reproductions.items())
        if wid == workload_id
    ]


def _price_cells(edition: Edition, workload_id: str) -> dict[str, Any]:
    """The workload's cells beside the price database (its evidence section)."""
    check = edition_price_check(edition)
    return {
        "price_check": check,
        "price_cells": [c for c in check.cells if c.workload == workload_id],
    }


def _workload_run(
    docs: Path,
    rel_dir: str,
    edition: Edition,
    result: WorkloadResult,
    root: str,
    cache: BuildCache | None,
    figures: CellFigures,
    up: str = "",
    reprice: bool = True,
) -> dict[str, Any]:
    """What `_workload_edition.md.j2` shows of one edition's results of a workload. Its chart and
    its tables' CSV and JSON stay in the workload's folder (`rel_dir`) whichever page shows
    them: `up` leads there from the page. `reprice`: the page carries the re-price panel."""
    workload_id = result.workload
    names = {m.id: m.name for m in edition.manifest.models}
    vendor_of = explore.vendors(edition)
    examples = edition.examples_of(workload_id)
    chart_svg = charts.cost_vs_pass_svg(result, footer(edition), names)
    name = f"cost-vs-pass-{segment(edition.id)}.svg"
    return {
        "edition": edition,
        "result": result,
        "chart": _svg_img(docs, rel_dir, name, chart_svg, up),
        "rows": [
            {
                "cell": c,
                "fig": figures(edition, c, root),
                "name": names.get(c.model, c.model),
                "examples": examples.get((c.workload, c.model, str(c.mode)), []),
                "vendor": vendor_of.get(c.model, ""),
                "runs": drilldown.link(c, edition.id, root, f"{c.n} runs"),
            }
            for c in result.cells
        ],
        "table": tables.write_cell_table(
            docs,
            rel_dir,
            f"cells-{segment(edition.id)}",
            edition.results,
            result.cells,
            root,
            cache,
            up,
        ),
        "names": names,
        "notes": _edition_notes(edition, workload=workload_id),
        "diag_keys": sorted({k for c in result.cells for k in c.diagnostics}),
        "reproductions": _reproductions(edition, workload_id, names),
        **_price_cells(edition, workload_id),
        "reprice_script": reprice_view.script_for(edition, workload_id) if reprice else None,
    }


def render_workload(
    env: Environment,
    site: Site,
    workload_id: str,
    docs: Path,
    cache: BuildCache | None = None,
    figures: CellFigures | None = None,
) -> None:
    """The workload's page shows its newest edition's results in full, and each older edition's
    are on a page of their own (`workloads/<workload>/<edition>/`): at ten 215-model editions
    one page holding every edition's tables was 10-13 MB. Every edition has that page, the
    newest's pointing back here, so a link to one edition's results never has to change."""
    figures = figures if figures is not None else CellFigures()
    for edition, result in site.workloads[workload_id]:
        render_workload_edition(env, site, workload_id, edition, result, docs, cache, figures)
    render_workload_page(env, site, workload_id, docs, cache, figures)


def _workload_common(site: Site, workload_id: str) -> dict[str, Any]:
    return {
        "workload_id": workload_id,
        "title": site.workloads[workload_id][-1][1].title,
        "answer_limit": ANSWER_LIMIT,
    }


def render_workload_edition(
    env: Environment,
    site: Site,
    workload_id: str,
    edition: Edition,
    result: WorkloadResult,
    docs: Path,
    cache: BuildCache | None = None,
    figures: CellFigures | None = None,
) -> None:
    """One edition's page of a workload (`render_workload`): the newest edition's points back
    to the workload's page, which shows it."""
    figures = figures if figures is not None else CellFigures()
    rel_dir = f"{site_paths.WORKLOADS}/{segment(workload_id)}"
    newest = edition is site.workloads[workload_id][-1][0]
    sub_root = "../../../"
    ctx = {
        **_workload_common(site, workload_id),
        "root": sub_root,
        "edition_id": edition.id,
        "run": None
        if newest
        else _workload_run(
            docs, rel_dir, edition, result, sub_root, cache, figures, "../", reprice=False
        ),
        "reprice_here": False,
        "reprice_method": reprice_view.METHOD.format(root=sub_root),
    }
    text = env.get_template("workload_edition.md.j2").render(ctx)
    _write(docs, f"{rel_dir}/{segment(edition.id)}/index.md", text)


def render_workload_page(
    env: Environment,
    site: Site,
    workload_id: str,
    docs: Path,
    cache: BuildCache | None = None,
    figures: CellFigures | None = None,
) -> None:
    """The workload's own page (`render_workload`)."""
    root = "../../"
    figures = figures if figures is not None else CellFigures()
    rel_dir = f"{site_paths.WORKLOADS}/{segment(workload_id)}"
    appearances = site.workloads[workload_id]
    latest_edition, latest_result = appearances[-1]
    ctx = {
        **_workload_common(site, workload_id),
        "root": root,
        "unit": latest_result.unit,
        "meta": workload_facts(workload_id, cache),
        "latest": _workload_run(docs, rel_dir, latest_edition, latest_result, root, cache, figures),
        "older": [
            {"edition": e, "notes": _edition_notes(e, workload=workload_id)}
            for e, _ in reversed(appearances[:-1])
        ],
        "reprice_here": True,
        "trend": _trend_section(site, workload_id, docs, rel_dir),
        "reprice_method": reprice_view.METHOD.format(root=root),
    }
    _write(docs, f"{rel_dir}/index.md", env.get_template("workload.md.j2").render(ctx))


def render_model(
    env: Environment,
    site: Site,
    model_id: str,
    docs: Path,
    cache: BuildCache | None = None,
    figures: CellFigures | None = None,
) -> None:
    root = "../../"
    figures = figures if figures is not None else CellFigures()
    rows = site.models[model_id]
    ctx = {
        "root": root,
        "model_id": model_id,
        "rows": [
            {
                "row": r,
                "notes": _edition_notes(r.edition, model=model_id),
                "cells": [(c, figures(r.edition, c, root)) for c in r.cells],
                "table": tables.write_cell_table(
                    docs,
                    f"{site_paths.MODELS}/{segment(model_id)}",
                    f"cells-{segment(r.edition.id)}",
                    r.edition.results,
                    r.cells,
                    root,
                    cache,
                ),
            }
            for r in reversed(rows)
        ],
        "name": rows[-1].spec.name,
    }
    rel = f"{site_paths.MODELS}/{segment(model_id)}/index.md"
    _write(docs, rel, env.get_template("model.md.j2").render(ctx))


def render_data(env: Environment, edition: Edition, section: DataSection, docs: Path) -> None:
    ctx = {
        "root": "../../",
        "edition": edition,
        "section": section,
        "footer": footer(edition),
        "has_pdf": any(f.path == "ratecard.pdf" for f in section.files),
        "has_published": any(f.path == "published.json" for f in section.files),
        "files_html": filelist.files_html(section.files),
        "sealed_html": sealed_list.sealed_html(section.sealed),
        "has_current": any(f.path == "results-current.json" for f in section.files),
        # The index is copied to the site's root only when it exists (publish/published.py).
        "has_index": edition.paths.index.is_file(),
        "short_hash": lambda sha: Markup(filelist.hash_html(sha)),
        "corrections": corrected.corrected_results(edition, None).corrections,
        "export_commands": reader_commands,  # the Inspect logs made from the bundle
    }
    rel = f"{site_paths.DATA}/{segment(edition.id)}/index.md"
    _write(docs, rel, env.get_template("data.md.j2").render(ctx))


def render_errata(env: Environment, site: Site, docs: Path) -> None:
    for note in site.errata:
        ctx = {"root": "../../", "note": note, "e": note.erratum}
        rel = f"{site_paths.ERRATA}/{segment(note.erratum.id)}/index.md"
        _write(docs, rel, env.get_template("erratum.md.j2").render(ctx))
    _write(
        docs,
        f"{site_paths.ERRATA}/index.md",
        env.get_template("errata_index.md.j2").render(
            {"root": "../", "site": site, "errata_by_edition": errata_mod.by_edition}
        ),
    )


def render_indexes(env: Environment, site: Site, docs: Path) -> None:
    """Section landing pages, so each nav section has a page listing its permanent URLs."""
    for name in (site_paths.EDITIONS, site_paths.WORKLOADS, site_paths.MODELS, site_paths.DATA):
        context = {
            "root": "../",
            "site": site,
            "verifier": verifier_files(),
            "verifier_commands": install_commands,
            "workload_order": in_card_order(site),
        }
        text = env.get_template(f"{name}_index.md.j2").render(context)
        _write(docs, f"{name}/index.md", text)


def render_primitives(
    env: Environment, site: Site, docs: Path, cache: BuildCache | None = None
) -> None:
    """One page per primitive of the frozen taxonomy (standard §1): its workload versions across
    editions, the level at which results are comparable."""
    by_primitive: dict[str, list[dict[str, Any]]] = {p: [] for p in PRIMITIVES}
    for workload_id, appearances in site.workloads.items():
        meta = workload_facts(workload_id, cache)
        if meta is not None:
            by_primitive[meta.primitive].append(
                {"id": workload_id, "title": appearances[-1][1].title, "appearances": appearances}
            )
    listed = [{"name": p, "versions": v} for p, v in by_primitive.items()]
    index = env.get_template("primitives_index.md.j2").render({"root": "../", "primitives": listed})
    _write(docs, f"{site_paths.PRIMITIVES}/index.md", index)
    for primitive, versions in by_primitive.items():
        ctx = {"root": "../../", "primitive": primitive, "versions": versions}
        rel = f"{site_paths.PRIMITIVES}/{segment(primitive)}/index.md"
        _write(docs, rel, env.get_template("primitive.md.j2").render(ctx))


def render_pages(
    env: Environment,
    site: Site,
    sections: dict[str, DataSection],
    docs: Path,
    cache: BuildCache | None = None,
    *,
    fork: bool = True,
    store: PageStore | None = None,
    keys: dict[str, str] | None = None,
) -> None:
    """Every page but the drill-downs; with a `cache`, each table's CSV and JSON downloads are
    reused while the table's rows are unchanged. `fork=False` writes them in this process.
    With a `store` (`page_products.py`, given by `build` with each edition's key in `keys`), a
    page job whose key is unchanged places the files it wrote last time instead of running."""
    figures = CellFigures()  # each cell is on three pages: its figures are made once
    jobs = page_jobs(env, site, sections, cache, figures, keys or {})
    # The pages share nothing but what is already loaded: at ten 215-model editions they
    # were written on one core of two. Each worker formats the figures of its own pages.
    if cache is None:
        for job in jobs:
            job.write(docs)
        return
    if store is None:
        map_cached(partial(_call, docs=docs), jobs, cache, fork=fork)
        return
    try:
        map_cached(partial(store.run, docs=docs), jobs, cache, fork=fork)
    finally:
        shutil.rmtree(store.scratch, ignore_errors=True)


def loader_folder(env: Environment) -> Path:
    """The one folder `env` loads its templates from (`make_env`)."""
    loader = env.loader
    assert isinstance(loader, FileSystemLoader) and len(loader.searchpath) == 1
    return Path(loader.searchpath[0])


def page_jobs(
    env: Environment,
    site: Site,
    sections: dict[str, DataSection],
    cache: BuildCache | None,
    figures: CellFigures,
    keys: dict[str, str],
) -> list[PageJob]:
    """The site's pages in jobs, each with what it shows (`PageJob.inputs`): the keys of the
    editions it shows, and what else it shows of the site."""
    common = {
        "methodology": sorted(site.methodology_versions),
        "facts": site.facts.model_dump(mode="json"),
    }

    def shows(*editions: Edition, **more: Any) -> dict[str, Any]:
        return {**common, "editions": [[e.id, keys.get(e.id)] for e in editions], **more}

    every = site.editions
    jobs = [
        PageJob("home", shows(*every), lambda d: render_home(env, site, d, cache)),
        PageJob("indexes", shows(*every), lambda d: render_indexes(env, site, d)),
        PageJob("primitives", shows(*every), lambda d: render_primitives(env, site, d, cache)),
        PageJob("errata", shows(*every), lambda d: render_errata(env, site, d)),
    ]
    for edition in site.editions:
        # the log folders are listed as downloads in `files`; their entries name the cache
        section = section_json(sections[edition.id], log_folders=False)
        jobs.append(
            PageJob(
                f"edition/{edition.id}",
                shows(edition, section=section),
                partial(_edition_pages, env, site, edition, sections, cache=cache, figures=figures),
            )
        )
    for workload_id, appearances in site.workloads.items():
        newest = appearances[-1][0]
        title = appearances[-1][1].title
        for edition, result in appearances:
            jobs.append(
                PageJob(
                    f"workload/{workload_id}/{edition.id}",
                    shows(edition, workload=workload_id, title=title, newest=edition is newest),
                    partial(
                        render_workload_edition,
                        env,
                        site,
                        workload_id,
                        edition,
                        result,
                        cache=cache,
                        figures=figures,
                    ),
                )
            )
        jobs.append(
            PageJob(
                f"workload/{workload_id}",
                shows(*every, workload=workload_id),
                partial(render_workload_page, env, site, workload_id, cache=cache, figures=figures),
            )
        )
    models = list(site.models)
    for batch in batches(models, _MODELS_A_JOB):
        jobs.append(
            PageJob(
                f"models/{batch[0]}",
                shows(*every, models=list(batch)),
                partial(_model_pages, env, site, batch, cache=cache, figures=figures),
            )
        )
    return jobs


# A job of ~20 model pages: worth its hand-off to a worker, and 215 models still spread well.
_MODELS_A_JOB = 20


def _call(job: PageJob, docs: Path) -> None:
    job.write(docs)


def _edition_pages(
    env: Environment,
    site: Site,
    edition: Edition,
    sections: dict[str, DataSection],
    docs: Path,
    *,
    cache: BuildCache | None,
    figures: CellFigures,
) -> None:
    render_edition(env, site, edition, docs, cache, figures)
    render_data(env, edition, sections[edition.id], docs)


def _model_pages(
    env: Environment,
    site: Site,
    models: Sequence[str],
    docs: Path,
    *,
    cache: BuildCache | None,
    figures: CellFigures,
) -> None:
    for model_id in models:
        render_model(env, site, model_id, docs, cache, figures)
