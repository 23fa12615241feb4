"""The command line (ARCHITECTURE.md §6): a thin typer app that parses arguments and calls stages.

Stage code raises `FileProblem` or `UsageProblem` for anything a user can fix; this module turns
them into one line a problem and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from ledgerrate import cli_new
from ledgerrate.core.errors import FileProblem, UsageProblem
from ledgerrate.core.gc_policy import for_batch_work

# Commands are listed in the order an edition goes through them, not alphabetically.
PIPELINE = (
    "new",
    "prices",
    "generate",
    "register",
    "run",
    "inspect-tasks",
    "ingest",
    "grade",
    "spotcheck",
    "results",
    "build",
    "verify",
    "seeds",
    "bundle",
    "export",
    "reproduce",
    "schema",
)


class PipelineOrder(TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        rank = {name: index for index, name in enumerate(PIPELINE)}
        return sorted(super().list_commands(ctx), key=lambda name: rank.get(name, len(rank)))


def split_commas(values: list[str] | None) -> list[str] | None:
    """`--workloads a,b` and `--workloads a --workloads b` mean the same."""
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


app = typer.Typer(
    cls=PipelineOrder,
    help="LedgerRate: cost per successful outcome of AI models on finance-ops workloads.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
seeds_app = typer.Typer(help="Seed commitments and releases.", no_args_is_help=True)
spotcheck_app = typer.Typer(help="Human spot-checks of judged runs.", no_args_is_help=True)
app.add_typer(seeds_app, name="seeds")
app.add_typer(spotcheck_app, name="spotcheck")
local_app = typer.Typer(
    help="The local server of a self-hosted model (extra `local`).", no_args_is_help=True
)
app.add_typer(local_app, name="local-server")
prices_app = typer.Typer(help="An edition's prices before registration.", no_args_is_help=True)
app.add_typer(prices_app, name="prices")

err = Console(stderr=True, highlight=False, soft_wrap=True)
F = TypeVar("F", bound=Callable[..., Any])

EditionDir = Annotated[Path, typer.Argument(help="An edition folder, e.g. editions/2026-07.")]


def _register_families() -> None:
    """Every registered family's `provider:` is valid before an edition is read: the families
    register themselves when imported. Not at start-up: the providers bring httpx and the
    schema, most of a no-change `build`'s second."""
    from ledgerrate.providers import families  # noqa: F401


def friendly(func: F, *, families: bool = True) -> F:
    """Print user-fixable problems as one line each and exit 2 (every command is wrapped, so
    each also runs at the garbage collector's batch pace, see `gc_policy`). `families=False`:
    the command registers the provider families itself before it reads an edition."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for_batch_work()
        try:
            if families:
                _register_families()
            return func(*args, **kwargs)
        except (FileProblem, UsageProblem) as problem:
            for line in problem.lines:
                # The line is text, not markup: `ledgerrate[inspect]` must print as written.
                err.print(f"[red]error:[/red] {escape(line)}", markup=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


app.command("new")(friendly(cli_new.new))
prices_app.command("confirm")(friendly(cli_new.confirm))


@app.command()
@friendly
def schema(
    out: Annotated[Path, typer.Option(help="Folder for the JSON Schemas.")] = Path("build/schemas"),
) -> None:
    """Export the JSON Schema of every edition file."""
    from ledgerrate.core.schema_export import export_schemas

    for path in export_schemas(out):
        typer.echo(path)


@app.command()
@friendly
def generate(
    workload_id: Annotated[str, typer.Argument(help="e.g. extract.invoice.v1")],
    seed: Annotated[int, typer.Option(help="Generator seed.")],
    out: Annotated[Path, typer.Option(help="Output folder.")],
    n: Annotated[int, typer.Option(help="Items (the standard says 15).")] = 15,
) -> None:
    """Write a workload's dataset and its card, for inspection."""
    from ledgerrate import workloads
    from ledgerrate.generate.write import write_dataset

    try:
        workloads.get(workload_id)
    except KeyError:
        known = ", ".join(sorted(workloads.registry()))
        raise UsageProblem(
            f"WORKLOAD_ID {workload_id!r}: no such workload version; use one of: {known}"
        ) from None
    card = write_dataset(workload_id, seed=seed, n=n, out=out)
    typer.echo(f"{card.workload}: {card.n_items} items, dataset_hash {card.dataset_hash}")


@app.command()
@friendly
def register(
    edition: EditionDir,
    seeds_kept_elsewhere: Annotated[
        str | None,
        typer.Option(
            help="Register without an escrow recipient: say where the operator keeps the seeds "
            "instead (sealed in the registration and shown on the edition page)."
        ),
    ] = None,
) -> None:
    """Seal registration.json once: hashes, dataset hashes, seed commitments, seed escrow."""
    from ledgerrate.generate.register import (
        judge_warnings,
        price_check_lines,
        register_edition,
    )

    registration = register_edition(edition, seeds_kept_elsewhere=seeds_kept_elsewhere)
    for warning in judge_warnings(edition):
        err.print(f"[yellow]warning:[/yellow] {warning}", markup=True)
    for line in price_check_lines(edition):
        typer.echo(line)
    typer.echo(f"registered {registration.edition} at {registration.registered_at.isoformat()}")
    if registration.seed_escrow is not None:
        escrow = registration.seed_escrow
        typer.echo(f"seeds escrowed to {len(escrow.recipients)} recipient(s) in {escrow.file}")
    else:
        typer.echo(f"seeds not escrowed: kept elsewhere ({registration.seeds_kept_elsewhere})")


@app.command()
@friendly
def run(
    edition: EditionDir,
    workloads: Annotated[
        list[str] | None,
        typer.Option("--workloads", help="Only these (a,b or repeated).", callback=split_commas),
    ] = None,
    models: Annotated[
        list[str] | None,
        typer.Option("--models", help="Only these (a,b or repeated).", callback=split_commas),
    ] = None,
    modes: Annotated[
        list[str] | None,
        typer.Option("--modes", help="Only these (a,b or repeated).", callback=split_commas),
    ] = None,
    concurrency: Annotated[int, typer.Option(help="Global concurrent requests.")] = 8,
    allow_outside_window: Annotated[
        bool, typer.Option(help="Run outside the 72-hour window (flagged in every record).")
    ] = False,
    new_sitting: Annotated[
        bool, typer.Option(help="Re-run finished cells as a new sitting (earlier ones kept).")
    ] = False,
) -> None:
    """Run every cell of an edition (resumable: finished runs are skipped)."""
    from ledgerrate.run.scheduler import RunOptions, run_edition

    summary = run_edition(
        edition,
        RunOptions(
            workloads=workloads,
            models=models,
            modes=modes,
            concurrency=concurrency,
            allow_outside_window=allow_outside_window,
            new_sitting=new_sitting,
        ),
    )
    if summary.missing or summary.refused:
        # Retries are spent and items still have no counted attempt, or a cell was refused: the
        # edition is incomplete, which a script driving `run` must be able to see without
        # parsing the summary.
        refused = f", {len(summary.refused)} cell(s) refused" if summary.refused else ""
        err.print(
            f"[red]error:[/red] {edition}: {summary.missing} item(s) still missing after "
            f"retries{refused} (the line above names them); run the same command again to "
            "retry them",
            markup=True,
        )
        sys.exit(1)


@app.command("inspect-tasks")
@friendly
def inspect_tasks(
    edition: Annotated[
        Path | None, typer.Argument(help="An edition folder: its commands to run.")
    ] = None,
) -> None:
    """The Inspect AI tasks (`inspect list tasks` cannot see them) and the commands to run."""
    from ledgerrate.harness.listing import task_lines

    for line in task_lines(edition):
        typer.echo(line)


@app.command()
@friendly
def ingest(
    edition: EditionDir,
    logs: Annotated[list[Path], typer.Argument(help="Inspect eval logs (.eval/.json) or JSONL.")],
    log_format: Annotated[
        str,
        typer.Option("--format", help="`inspect` (Inspect AI eval logs) or `jsonl` (run records)."),
    ] = "inspect",
    new_sitting: Annotated[
        bool, typer.Option(help="Ingest into a new sitting once the open one is complete.")
    ] = False,
) -> None:
    """Bring runs made by another harness into an edition, under the rules of `run`."""
    from ledgerrate.ingest.stage import ingest_logs

    if log_format not in ("inspect", "jsonl"):
        raise UsageProblem(f"--format {log_format!r}: use `inspect` or `jsonl`")
    summary = ingest_logs(
        edition,
        logs,
        log_format="jsonl" if log_format == "jsonl" else "inspect",
        new_sitting=new_sitting,
    )
    for line in summary.lines():
        typer.echo(line)


@app.command()
@friendly
def grade(
    edition: EditionDir,
    regrade: Annotated[bool, typer.Option(help="Grade again, keeping earlier grades.")] = False,
    workloads: Annotated[
        list[str] | None,
        typer.Option("--workloads", help="Only these (a,b or repeated).", callback=split_commas),
    ] = None,
) -> None:
    """Grade every completed, ungraded run (deterministic checks, then the blinded judge)."""
    from ledgerrate.grade.judging import regrade_lines
    from ledgerrate.grade.stage import grade_edition

    summary = grade_edition(edition, regrade=regrade, only=workloads)
    typer.echo(
        f"graded {summary.written} run(s), skipped {summary.skipped} already graded: "
        f"{summary.passed} pass, {summary.failed} fail, {summary.pending_judge} pending judge"
    )
    if summary.judge:
        typer.echo(
            f"judge {summary.judge}: {summary.judge_calls} call(s), "
            f"{summary.judge_failures} failed, ${summary.judge_cost_usd} grading cost "
            f"(never in CPO); {summary.second_opinions} second opinion(s)"
            + (
                f"; {summary.judge_retries} re-sent after 429/5xx/timeouts"
                if summary.judge_retries
                else ""
            )
        )
        if summary.judge_failures:
            typer.echo(
                f"{summary.judge_failures} judge call(s) still failing after retries: those runs "
                f"stay pending judge; run `ledgerrate grade {edition}` again to retry them"
            )
    if regrade:
        for line in regrade_lines(summary):
            typer.echo(line)
    if summary.judge_unavailable:
        typer.echo(f"judge unavailable: {summary.judge_unavailable}")
    for line in summary.family_overlap:
        typer.echo(f"disclosure: {line}")


@app.command("server-time")
@friendly
def server_time(
    edition: EditionDir,
    model: Annotated[str, typer.Option(help="A locally served model of the edition.")],
) -> None:
    """A local model's server time and spend, rebuilt from its recorded call clocks.

    A call was served from the later of its start and the previous call's end (one slot)."""
    from ledgerrate.core.server_time import cell_line, edition_server_time, summary_line

    time = edition_server_time(edition, model)
    for cell in time.cells:
        typer.echo(cell_line(cell))
    if time.cells:
        typer.echo(summary_line(model, time.cells))
    if time.unknowable_after is not None:
        typer.echo(
            f"{time.open_calls} call(s) have no recorded end, the first started "
            f"{time.unknowable_after.isoformat()}: calls ending after it read `at most`"
        )


@app.command()
@friendly
def results(
    edition: EditionDir,
    as_json: Annotated[bool, typer.Option("--json", help="Emit results.json to stdout.")] = False,
    wide: Annotated[
        bool, typer.Option("--wide", help="Every figure per cell (16 columns, ~230 wide).")
    ] = False,
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices",
            help="Your own prices (YAML: models, hourly, percent): the figures re-priced from "
            "each cell's totals, labelled, never written to the edition.",
        ),
    ] = None,
) -> None:
    """The per-cell table (compact: model, mode, pass rate, CPO, status) and derived indices."""
    if prices is not None:
        from ledgerrate.publish.repriced import print_repriced

        print_repriced(edition, prices, as_json=as_json, wide=wide)
        return
    from ledgerrate.metrics.report import print_results

    print_results(edition, as_json=as_json, wide=wide)


@seeds_app.command("release")
@friendly
def seeds_release(edition: EditionDir) -> None:
    """Publish an edition's seeds as seeds.json (at the next edition): from the private folder,
    else from the escrow opened with the identity file named by LEDGERRATE_OPERATOR_IDENTITY.
    Then write the released datasets' files into the edition folder (released/), once: run
    again on an edition already released, it stores only what is missing."""
    from ledgerrate.generate.release import release_edition

    done = release_edition(edition)
    typer.echo(f"released: {done.seeds.path} (from {done.seeds.source}; every commitment opened)")
    stored = done.datasets
    if stored.written or stored.kept:
        typer.echo(
            f"datasets stored: {stored.manifest} ({len(stored.written)} written, "
            f"{len(stored.kept)} already stored; {stored.files} files, "
            f"{stored.size / 1e6:.1f} MB)"
        )
    for workload, why in stored.not_stored.items():
        typer.echo(f"dataset not stored: {workload}: {why} (`build` makes it as before)")


@seeds_app.command("lost")
@friendly
def seeds_lost(
    edition: EditionDir,
    reason: Annotated[
        str, typer.Option(help="Why the seeds are lost; published as given on every page.")
    ],
) -> None:
    """Record, once, a sealed and dated statement that an edition's seeds cannot be opened."""
    from ledgerrate.generate.seed_loss import declare_seeds_lost

    statement = declare_seeds_lost(edition, reason)
    typer.echo(f"recorded {statement.edition}/seeds-lost.json: {statement.statement}")


@spotcheck_app.command("sample")
@friendly
def spotcheck_sample(edition: EditionDir) -> None:
    """Draw the seeded ≥ 20% spot-check sample of judged runs into CSVs for graders."""
    from ledgerrate.grade.spotcheck import sample_edition

    for path in sample_edition(edition):
        typer.echo(path)


@spotcheck_app.command("import")
@friendly
def spotcheck_import(
    edition: EditionDir,
    csv: Annotated[Path, typer.Argument(help="The graders' completed CSV.")],
) -> None:
    """Read human spot-check grades back and flag cells that disagree with the judge."""
    from ledgerrate.grade.spotcheck import import_grades

    for line in import_grades(edition, csv):
        typer.echo(line)


def _register_manual() -> None:
    from ledgerrate.manual.commands import register

    register(app, friendly)


_register_manual()


def _local_spec(edition: Path, model: str) -> Any:
    from ledgerrate.core.edition import load_edition

    manifest = load_edition(edition).manifest
    try:
        spec = manifest.model(model)
    except KeyError:
        known = ", ".join(m.id for m in [*manifest.models, *manifest.judges] if m.local)
        raise UsageProblem(
            f"MODEL {model!r}: not in {edition}/edition.yaml; local models there: {known or 'none'}"
        ) from None
    if spec.local is None:
        raise UsageProblem(
            f"MODEL {model!r}: edition.yaml gives it no `local:` section, so it is not served here"
        )
    return spec


@local_app.command("start")
@friendly
def local_start(
    edition: EditionDir, model: Annotated[str, typer.Argument(help="A model id with `local:`.")]
) -> None:
    """Start llama.cpp's OpenAI-compatible server for MODEL (127.0.0.1, its base_url's port)."""
    from ledgerrate.providers import local

    spec = _local_spec(edition, model)
    served = local.start(spec)
    typer.echo(
        f"serving {model} at {spec.base_url}: {served.file} ({served.distribution} "
        f"{served.version}, sha256 {served.sha256}), n_ctx {served.n_ctx}, chat format "
        f"{served.chat_format}, {served.runtime}"
    )


@local_app.command("stop")
@friendly
def local_stop(
    edition: EditionDir, model: Annotated[str, typer.Argument(help="A model id with `local:`.")]
) -> None:
    """Stop the server `local-server start` started for MODEL."""
    from ledgerrate.providers import local

    spec = _local_spec(edition, model)
    typer.echo(f"stopped {model}" if local.stop(spec) else f"no server recorded for {model}")


def _registers_later(func: F) -> F:
    return friendly(func, families=False)


@app.command()
@_registers_later
def build(
    editions: Annotated[Path, typer.Option(help="Folder of editions.")] = Path("editions"),
    out: Annotated[Path, typer.Option(help="Build folder.")] = Path("build"),
    site_url: Annotated[
        str | None,
        typer.Option(help="Hosting URL, e.g. https://example.org/ledgerrate/ (sitemap, 404)."),
    ] = None,
    engine: Annotated[
        str, typer.Option(help="Site generator: mkdocs, or zensical (given an explicit nav).")
    ] = "mkdocs",
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            help="Cache of build products (datasets, PDFs, gzips, bundles, charts); default "
            "$LEDGERRATE_CACHE_DIR, else $XDG_CACHE_HOME/ledgerrate or ~/.cache/ledgerrate."
        ),
    ] = None,
) -> None:
    """Render every edition into build/docs, then `mkdocs build --strict` into build/site."""
    from ledgerrate.publish.unchanged import nothing_to_do

    if nothing_to_do(editions, out, engine, site_url):  # before importing the renderers
        typer.echo(f"site built: {out.resolve() / 'site'} (nothing changed)")
        return
    _register_families()
    from ledgerrate.publish.load import edition_dirs

    if not editions.is_dir():
        raise UsageProblem(
            f"--editions {editions}: no such folder; pass the folder that holds the edition "
            "folders (each with an edition.yaml), e.g. --editions editions"
        )
    if not edition_dirs(editions):
        raise UsageProblem(
            f"--editions {editions}: no edition folder inside (none holds an edition.yaml); "
            "pass the folder that holds them, e.g. --editions editions"
        )
    from ledgerrate.publish.build import build_site

    site = build_site(
        editions=editions, out=out, site_url=site_url, engine=engine, cache_dir=cache_dir
    )
    typer.echo(f"site built: {site}")


@app.command()
@friendly
def verify(
    target: Annotated[Path, typer.Argument(help="An edition folder or an evidence bundle.")],
    expect: Annotated[
        str | None,
        typer.Option(
            help="A publication digest obtained elsewhere (the site, an announcement): the "
            "edition must be that publication, or it plus errata appended since."
        ),
    ] = None,
) -> None:
    """Recompute and re-check every published figure offline; non-zero exit on any mismatch."""
    from ledgerrate.verify.run import verify_path

    report = verify_path(target, expect=expect)
    for line in report.lines():
        typer.echo(line)
    if not report.ok:
        sys.exit(1)


@app.command()
@friendly
def bundle(
    edition: EditionDir,
    out: Annotated[Path, typer.Option(help="Folder for the bundle.")] = Path("build/bundles"),
) -> None:
    """Write the edition's content-addressed evidence bundle (verify accepts it directly)."""
    from ledgerrate.publish.bundle import write_bundle

    typer.echo(write_bundle(edition, out))


@app.command()
@friendly
def export(
    edition: Annotated[
        Path, typer.Argument(help="An edition folder, or its evidence bundle (.tar.gz).")
    ],
    export_format: Annotated[
        str, typer.Option("--format", help="`inspect`: Inspect AI eval logs (.eval).")
    ] = "inspect",
    out: Annotated[
        Path | None, typer.Option(help="Folder for the logs (default build/inspect/EDITION).")
    ] = None,
) -> None:
    """Write each cell's published sitting as an Inspect AI eval log (extra `inspect`)."""
    if export_format != "inspect":
        raise UsageProblem(f"--format {export_format!r}: the one format is `inspect`")
    from ledgerrate.publish.inspect_export import export_inspect

    for line in export_inspect(edition, out).lines():
        typer.echo(line)


@app.command()
@friendly
def reproduce(
    edition: EditionDir,
    cell: Annotated[str, typer.Option("--cell", help="The cell, as workload/model/mode.")],
    items: Annotated[
        list[str] | None,
        typer.Option("--items", help="Only these item ids (default: all).", callback=split_commas),
    ] = None,
) -> None:
    """Run a cell again live, recorded as a reproduction (never replaces the registered one)."""
    from ledgerrate.run.reproduce import reproduce_cell

    typer.echo(reproduce_cell(edition, cell, items=items).line())
