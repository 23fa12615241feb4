"""A small edition on disk, and its results built by hand, for the publish tests.

The results are test fixtures, never shown as measurements outside these tests: they stand in
for the metrics stage so page rendering can be tested on known figures.
"""

from __future__ import annotations

import datetime as dt
import shutil
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ledgerrate.core.hashing import seed_commitment
from ledgerrate.core.io import append_jsonl, write_json, write_yaml
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import (
    CardItem,
    CellResult,
    Check,
    DatasetCard,
    EditionResults,
    GradeRecord,
    Interval,
    Mode,
    Outcome,
    RateLine,
    Registration,
    RoutingVerdict,
    RunRecord,
    RunStatus,
    TokenTotals,
    WorkloadRegistration,
    WorkloadResult,
)
from ledgerrate.stats.power import power_plan
from ledgerrate.testing.reference_edition import build_reference_edition

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "```\n</pre><script>alert(2)</script>\n```",
    "[x](javascript:alert(1))",
    '--8<-- "/etc/passwd"',
)
HOSTILE = " ".join(PAYLOADS)
WL = "extract.invoice.v1"
H = "ab" * 32
SEED, SALT = 123456789, "0f" * 16


def _per_thousand(cpo: Decimal | None) -> Decimal:
    """The rate card's line for 1,000 units (the factory's cells all have a CPO)."""
    assert cpo is not None
    return (cpo * 1000).quantize(Decimal("0.01"))


def manifest(edition_id: str, date: str, *, hostile: bool, reference_only: bool = False) -> dict:
    small_name = f"Small {HOSTILE}" if hostile else "Small model"
    models: list[dict[str, Any]] = [
        {
            "id": "ref",
            "name": "Reference solver",
            "provider": "baseline",
            "family": "reference",
        }
    ]
    if not reference_only:
        models += [
            {
                "id": "small",
                "name": small_name,
                "provider": "openai",
                "family": "openai",
                "api_model": "small-1",
                "base_url": "http://localhost:1/v1",
                "api_key_env": "SMALL_KEY",
                "sampling": {"temperature": 0},
                "sampling_notes": HOSTILE if hostile else "temperature 0",
            },
            {
                "id": "big",
                "name": "Big model",
                "provider": "anthropic",
                "family": "anthropic",
                "api_model": "big-1",
                "base_url": "http://localhost:2",
                "api_key_env": "BIG_KEY",
                "flagship": True,
            },
        ]
    return {
        "id": edition_id,
        "date": date,
        "methodology_version": "1.0",
        "window": {"opens": f"{date}T00:00:00Z", "closes": f"{date}T12:00:00Z"},
        "workloads": [{"id": WL}],
        "models": models,
        "reference_only": reference_only,
        "notes": [HOSTILE] if hostile else ["A plain note."],
    }


def _cell(model: str, mode: Mode, passes: int, spend: str, *, ref: bool = False) -> CellResult:
    cpo = (Decimal(spend) / passes).quantize(Decimal("1e-12")) if passes else None
    return CellResult(
        workload=WL,
        model=model,
        mode=mode,
        sitting=1,
        other_sittings=1 if model == "big" else 0,
        is_reference=ref,
        n=15,
        completed=15,
        model_failures=0,
        missing=0,
        passes=passes,
        pending_judge=0,
        pass_rate=passes / 15,
        pass_rate_ci=Interval(
            lo=max(0.0, passes / 15 - 0.25), hi=min(1.0, passes / 15 + 0.08), method="wilson-95"
        ),
        spend_usd=Decimal(spend),
        cpo_usd=cpo,
        cpo_ci=Interval(lo=cpo, hi=cpo * 2, method="bootstrap-percentile-95") if cpo else None,
        cost_per_attempt_usd=Decimal(spend) / 15,
        tokens=TokenTotals(input=15000, output=3000),
        latency_median_s=1.5,
        latency_p90_s=3.2,
        infra_excluded_attempts=1,
        infra_excluded_usd=Decimal("0.001"),
        grading_cost_usd=Decimal("0"),
        cost_basis="compute" if ref else "measured",
        qualifying=passes >= 12,
        diagnostics={"field_accuracy": passes / 15},
        flags=["judge–human disagreement 13%: full manual regrade"] if model == "big" else [],
    )


def results(edition_id: str, date: str, *, hostile: bool, reference_only: bool = False):
    small_name = f"Small {HOSTILE}" if hostile else "Small model"
    ref = _cell("ref", Mode.single_shot, 15, "0.00015", ref=True)
    cells = [ref]
    cheapest = flagship = None
    if not reference_only:
        small = _cell("small", Mode.single_shot, 13, "0.039")
        big = _cell("big", Mode.single_shot, 14, "0.42")
        zero = _cell("small", Mode.agentic, 0, "0.2")
        cells += [small, zero, big]
        cheapest = RateLine(
            model="small",
            model_name=small_name,
            mode=Mode.single_shot,
            cpo_usd=small.cpo_usd,
            rate_usd=_per_thousand(small.cpo_usd),
            pass_rate=13 / 15,
            pass_rate_ci=small.pass_rate_ci,
            cost_basis="measured",
        )
        flagship = RateLine(
            model="big",
            model_name="Big model",
            mode=Mode.single_shot,
            cpo_usd=big.cpo_usd,
            rate_usd=_per_thousand(big.cpo_usd),
            pass_rate=14 / 15,
            pass_rate_ci=big.pass_rate_ci,
            cost_basis="measured",
        )
    reference = RateLine(
        model="ref",
        model_name="Reference solver",
        mode=Mode.single_shot,
        cpo_usd=ref.cpo_usd,
        rate_usd=_per_thousand(ref.cpo_usd),
        pass_rate=1.0,
        pass_rate_ci=ref.pass_rate_ci,
        cost_basis="compute",
    )
    workload = WorkloadResult(
        workload=WL,
        title="Invoice extraction",
        unit="Process 1,000 invoices",
        volume=1000,
        judged=False,
        cells=cells,
        cheapest_qualifying=cheapest,
        flagship=flagship,
        frontier_premium=10.0 if flagship else None,
        agentic_multiplier={"small": None} if not reference_only else {},
        reference=reference,
        routing=RoutingVerdict(
            verdict="inconclusive",
            reason="n = 15 cannot establish a 10-point margin.",
            remedy="a larger-n workload version or a repeat edition would settle it",
        ),
    )
    return EditionResults(
        edition=edition_id,
        date=dt.date.fromisoformat(date),
        methodology_version="1.0",
        brand="LedgerRate",
        reference_only=reference_only,
        bootstrap_seed=7,
        bootstrap_reps=1000,
        workloads=[workload],
    )


def _run(
    edition_id: str, model: str, item: int, answer: str, prompt: str | None = None
) -> RunRecord:
    t = dt.datetime(2026, 7, 1, 1, tzinfo=dt.UTC)
    return RunRecord(
        run_id=f"r-{item:016x}",
        edition=edition_id,
        sitting=1,
        workload=WL,
        model=model,
        mode=Mode.single_shot,
        item_id=f"item-{item:02d}",
        attempt=1,
        started_at=t,
        finished_at=t,
        latency_s=1.0,
        status=RunStatus.completed,
        dataset_hash=H,
        prompt_hash=H,
        request={
            "messages": [{"role": "user", "content": f"{prompt} ({item:02d})"}] if prompt else []
        },
        answer=answer,
        usage_basis="provider_reported",
        cost_basis="measured",
    )


def write_edition(
    root: Path,
    edition_id: str,
    date: str,
    *,
    hostile: bool = False,
    reference_only: bool = False,
    errata: list[dict] | None = None,
    release_seeds: bool = False,
    prompt: str | None = None,
) -> EditionResults:
    """Write a mini edition under root/edition_id and return its hand-built results."""
    paths = EditionPaths(root / edition_id)
    write_yaml(
        paths.manifest, manifest(edition_id, date, hostile=hostile, reference_only=reference_only)
    )
    write_yaml(
        paths.pricing,
        {
            "frozen_at": f"{date}T00:00:00Z",
            "models": {
                "small": {
                    "input_per_mtok": "0.15",
                    "output_per_mtok": "0.60",
                    "source_url": "javascript:alert(1)"
                    if hostile
                    else "https://example.com/prices",
                    "retrieved_at": f"{date}T00:00:00Z",
                }
            },
        },
    )
    commitment = seed_commitment(SEED, SALT)
    write_json(
        paths.registration,
        Registration(
            edition=edition_id,
            registered_at=dt.datetime.fromisoformat(f"{date}T00:00:00+00:00"),
            edition_hash=H,
            pricing_hash=H,
            toolchain_version="0.1.0",
            workloads={
                WL: WorkloadRegistration(
                    workload_hash=H,
                    prompt_hash=H,
                    grader_hash=H,
                    generator_hash=H,
                    dataset_hash=H,
                    seed_commitment=commitment,
                    n_items=15,
                )
            },
        ),
    )
    write_json(
        paths.card(WL),
        DatasetCard(
            workload=WL,
            dataset_hash=H,
            generator_hash=H,
            seed_commitment=commitment,
            n_items=15,
            strata={"credit-note": 2},
            items=[CardItem(id=f"item-{i:02d}") for i in range(15)],
            power_plan=power_plan(15),
        ),
    )
    if release_seeds:
        write_json(
            paths.seeds,
            {
                "edition": edition_id,
                "released_at": f"{date}T00:00:00Z",
                "seeds": {WL: {"seed": SEED, "salt": SALT, "commitment": commitment}},
            },
        )
    models = ["ref"] if reference_only else ["ref", "small", "big"]
    for model in models:
        for item in range(2):
            answer = HOSTILE if hostile and model == "small" else '{"total": "10.00"}'
            record = _run(edition_id, model, item, answer, prompt)
            append_jsonl(paths.runs(WL, model, "single-shot"), record)
            append_jsonl(
                paths.grades(WL, model, "single-shot"),
                GradeRecord(
                    run_id=record.run_id,
                    edition=edition_id,
                    sitting=1,
                    workload=WL,
                    model=model,
                    mode=Mode.single_shot,
                    item_id=record.item_id,
                    graded_at=record.finished_at,
                    outcome=Outcome.passed,
                    checks=[Check(name="total", passed=True)],
                    grader_hash=H,
                ),
            )
    if errata:
        write_yaml(paths.errata, {"edition": edition_id, "entries": errata})
    return results(edition_id, date, hostile=hostile, reference_only=reference_only)


def write_two_editions(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reference-only edition and one with released seeds under `root`, their hand-built
    results standing in for computed ones (while `monkeypatch` lasts)."""
    _stand_in(_two_editions(root), monkeypatch)


def _two_editions(root: Path) -> dict[str, Any]:
    return {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(root, "2026-07", "2026-07-01", release_seeds=True),
    }


def _stand_in(fixtures: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # Here, not at the top: the loader brings in the metrics stack (scipy), and most tests that
    # import this module never build a site.
    from ledgerrate.publish import load as load_mod

    monkeypatch.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])


# The two editions as `rendered_two_editions` first rendered them in this test process: the
# folder holding `editions` and `docs`, and the results standing in for computed ones.
_RENDERED: list[tuple[Path, dict[str, Any]]] = []


def rendered_two_editions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`write_two_editions` under `tmp_path/editions`, rendered: the docs folder mkdocs builds.

    Rendered once per test process, into a folder of its own beside the tests' folders, and
    copied into each caller's `tmp_path`: the callers build these docs with mkdocs in different
    ways and compare the sites, so the rendering is input, not what they test (rendering is
    tests/publish/test_site_build.py's). Rendering again cost each of about fifteen tests some
    2.5 CPU-seconds; a copy of the two folders costs a few milliseconds, and each caller still
    has its own files to write into and link from."""
    from ledgerrate.publish.render import render_into

    if not _RENDERED:
        master = tmp_path.parent / "two-editions-rendered"
        fixtures = _two_editions(master / "editions")
        with pytest.MonkeyPatch.context() as patch:
            _stand_in(fixtures, patch)
            render_into(master / "editions", master / "docs")
        _RENDERED.append((master, fixtures))
    master, fixtures = _RENDERED[0]
    for folder in ("editions", "docs"):
        shutil.copytree(master / folder, tmp_path / folder, symlinks=True)
    _stand_in(fixtures, monkeypatch)
    return tmp_path / "docs"


# Items pages each test of the engine's plug-ins adds, copies of the real ones: enough pages of
# the one kind outside the navigation and the search for a plug-in to learn, confirm and reuse.
ITEMS_COPIES = 8


def with_items_copies(docs: Path, copies: int = ITEMS_COPIES) -> Path:
    """`docs` with `copies` more items pages (`runs/<edition>/<workload>-copy<N>/`), copied from
    the rendered ones. The cell pages, on which the plug-ins were tested, are plain HTML written
    outside mkdocs now (publish/drilldown.py): the items pages are the kind left to them, and
    the two editions have two. Their links are relative at the same depth, so each still lands."""
    pages = sorted(docs.glob("runs/*/*/index.md"))
    for i in range(copies):
        page = pages[i % len(pages)]
        target = page.parent.parent / f"{page.parent.name}-copy{i}" / "index.md"
        target.parent.mkdir(parents=True)
        shutil.copyfile(page, target)
    return docs


def mkdocs_drilldowns(paths: Iterable[str]) -> list[str]:
    """The drill-down pages of a built site that mkdocs wrote: the items pages, not the cells'."""
    return [p for p in paths if p.startswith("runs/") and p.count("/") == 3]


def texts_sent_through(
    tmp_path_factory: pytest.TempPathFactory,
    editions: dict[str, dict[str, Any]],
    name: str,
    convert: Callable[[str], Any],
) -> list[str]:
    """Every text the templates send through the filter `pages.<name>` while the site renders
    `editions` (id → write_edition's flags), each still converted by `convert`."""
    from ledgerrate.core import forked
    from ledgerrate.publish import load as load_mod
    from ledgerrate.publish import pages
    from ledgerrate.publish.render import render_into

    root = tmp_path_factory.mktemp("editions")
    fixtures = {
        edition_id: write_edition(root, edition_id, f"{edition_id}-01", **flags)
        for edition_id, flags in editions.items()
    }
    seen: list[str] = []

    def record(text: str) -> Any:
        seen.append(text)
        return convert(text)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
        mp.setattr(pages, name, record)
        mp.setenv(forked.WORKERS_ENV, "1")  # pages rendered in this process, where `seen` is
        render_into(root, tmp_path_factory.mktemp("docs"))
    return seen


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under `root` by its relative POSIX path: two trees compared byte for byte."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def private_reference_edition(
    tmp_path_factory: pytest.TempPathFactory, name: str, workloads: list[str]
) -> Path:
    """A reference edition `editions/<name>` made by the toolchain's own stages, its private
    seeds in a folder of their own (never the developer's)."""
    base = tmp_path_factory.mktemp(name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LEDGERRATE_PRIVATE_DIR", str(base / "private"))
        return build_reference_edition(base / "editions" / name, workloads=workloads)
