"""Human spot-checks of judged runs (standard §5.3).

`sample_edition` draws, per cell, at least 20% (rounded up) of the judged runs with a seeded
random sample and records the seed and the chosen run ids in `spotchecks/<workload>.sample.json`.
Graders receive `spotchecks/<workload>.csv`: opaque ids, the task as the judge saw it, the
anonymised answer and the rubric, with empty grade columns; nothing in it names a model, a
provider, a mode or the judge's verdict.

`import_grades` reads the completed CSV back, appends a grade revision with a spot-check block
for each graded run (the outcome stays the judge's: a human grade checks the judge, and a cell
that disagrees is regraded in full by hand), and computes judge–human disagreement per cell.
More than 10% disagreement flags the cell "full manual regrade required"; flags and a
methodology note are kept in `spotchecks/<workload>.flags.json`, which
`ledgerrate/core/spotcheck_flags.py` reads for the stages that show them.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import random
import secrets
from collections.abc import Mapping
from pathlib import Path

from ledgerrate.core.edition import WorkloadLookup, load_edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import append_jsonl, atomic_write_text, load_model, read_jsonl, write_json
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.grade.anonymise import anon_id, identity_terms, strip_tells
from ledgerrate.grade.history import latest_grades
from ledgerrate.grade.judge import hooks_for
from ledgerrate.grade.private import judged_records, private_secret
from ledgerrate.grade.regrade import apply_regrade, regrade_runs
from ledgerrate.schema import (
    FlagCell,
    GradeRecord,
    RunRecord,
    SampleCell,
    SpotcheckBlock,
    SpotcheckFlags,
    SpotcheckSample,
)
from ledgerrate.workloads.base import Answer, Dataset, Workload

SHARE = 0.2  # standard §5.3: at least 20% of judged runs
DISAGREEMENT_LIMIT = 0.10  # standard §5.3: more than 10% triggers a full manual regrade
FLAG_REGRADE = "full manual regrade required"
FLAG_REGRADED = "fully regraded by hand: human verdicts replace the judge's"
COLUMNS = ("anon_id", "workload", "task", "answer", "rubric", "grader", "human_pass", "notes")
ANSWER_PLACEHOLDER = "(the answer to grade is in the `answer` column)"


def sample_size(population: int, share: float = SHARE) -> int:
    return min(population, math.ceil(round(population * share, 9)))


def draw_sample(
    cells: Mapping[str, list[str]], seed: int, share: float = SHARE
) -> dict[str, list[str]]:
    """Pure: per cell key, the sorted sample of run ids drawn from the sorted population."""
    rng = random.Random(seed)
    chosen: dict[str, list[str]] = {}
    for key in sorted(cells):
        population = sorted(cells[key])
        chosen[key] = sorted(rng.sample(population, sample_size(len(population), share)))
    return chosen


def _cell_key(model: str, mode: str) -> str:
    return f"{model}/{mode}"


def _judged(edition_dir: Path, workload: str, model: str, mode: str) -> list[GradeRecord]:
    """Latest grades of registered runs that the judge has graded."""
    paths = load_edition(edition_dir).paths
    latest = latest_grades(paths.grades(workload, model, mode))
    return [g for g in latest.values() if g.judge is not None and g.judge.passed is not None]


def _filled(path: Path) -> bool:
    if not path.exists():
        return False
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    return any((row.get("human_pass") or "").strip() for row in rows)


def sample_edition(edition_dir: Path, *, lookup: WorkloadLookup | None = None) -> list[Path]:
    """Draw (or redraw from the recorded seed) each judged workload's sample; write the CSVs."""
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    edition = load_edition(Path(edition_dir))
    paths, manifest = edition.paths, edition.manifest
    secret = private_secret(paths, judged_records(paths))
    terms = identity_terms(manifest)
    written: list[Path] = []
    for entry in manifest.workloads:
        workload = lookup(entry.id)
        if not workload.judged or workload.rubric is None:
            continue
        cells: dict[str, list[str]] = {}
        records: dict[str, GradeRecord] = {}
        # The models' cells and, when imported, the manual arm's: spot-checked like any other.
        walked = [
            *((spec.id, mode) for spec in manifest.models for mode in workload.modes),
            *paths.manual_cells(entry.id),
        ]
        for model_id, mode in walked:
            judged = _judged(paths.root, entry.id, model_id, mode)
            if judged:
                cells[_cell_key(model_id, mode)] = [g.run_id for g in judged]
                records.update({g.run_id: g for g in judged})
        if not cells:
            continue
        sample_path = paths.spotcheck_sample(entry.id)
        # One seed per workload for the life of the edition: redrawing reproduces the sample.
        seed = (
            load_model(SpotcheckSample, sample_path).seed
            if sample_path.exists()
            else secrets.randbits(63)
        )
        chosen = draw_sample(cells, seed)
        write_json(
            sample_path,
            SpotcheckSample(
                workload=entry.id,
                seed=seed,
                share=SHARE,
                drawn_at=dt.datetime.now(dt.UTC),
                cells={
                    key: SampleCell(population=len(cells[key]), runs=runs)
                    for key, runs in chosen.items()
                },
            ),
        )
        written.append(sample_path)
        dataset = dataset_for(paths.root, entry.id, lookup=lookup)
        answers: dict[str, RunRecord] = {}
        for model_id, mode in walked:
            for run in read_jsonl(paths.runs(entry.id, model_id, mode), RunRecord):
                answers[run.run_id] = run
        forms = [(paths.spotcheck(entry.id), sorted({r for runs in chosen.values() for r in runs}))]
        # Cells whose sample disagrees with the judge by more than 10%: every other judged run
        # of them goes to people too (the full manual regrade of §5.3).
        regrade = sorted(
            run_id for key in cells for run_id in regrade_runs(paths, entry.id, *key.split("/", 1))
        )
        if regrade:
            forms.append((paths.spotcheck_regrade(entry.id), regrade))
        for form, run_ids in forms:
            if _filled(form):
                continue  # never overwrite graders' work
            rows = [
                _row(workload, entry.id, dataset, answers[run_id], secret, terms)
                for run_id in run_ids
            ]
            rows.sort(key=lambda row: row["anon_id"])  # an order that says nothing of the cell
            buffer = io.StringIO()
            writer = csv.DictWriter(buffer, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
            atomic_write_text(form, buffer.getvalue())
            written.append(form)
    return written


def _row(
    workload: Workload,
    workload_id: str,
    dataset: Dataset,
    run: RunRecord,
    secret: bytes,
    terms: list[str],
) -> dict[str, str]:
    """One grader's row: the task as the judge saw it and the anonymised answer, nothing else."""
    item = dataset.item(run.item_id)
    grade = workload.grade(item, Answer(run.answer or "", run.tool_state))
    return {
        "anon_id": anon_id(secret, run.run_id),
        "workload": workload_id,
        "task": hooks_for(workload).material(item, ANSWER_PLACEHOLDER),
        "answer": strip_tells(grade.judge_input or run.answer or "", terms),
        "rubric": workload.rubric or "",
        "grader": "",
        "human_pass": "",
        "notes": "",
    }


def _verdict(text: str) -> bool | None:
    value = text.strip().casefold()
    if value in {"yes", "y", "pass", "true", "1"}:
        return True
    if value in {"no", "n", "fail", "false", "0"}:
        return False
    return None


def _clean_id(text: str) -> str:
    """An id as a grader may paste it: quotes, spaces or capitals around `a-…` do not matter."""
    return text.strip().strip("'\"`").strip().lower()


def import_grades(edition_dir: Path, csv_path: Path) -> list[str]:
    """Read graders' CSV into spot-check blocks; flag cells whose disagreement exceeds 10%.

    Rows come from the sample's form (scope `sample`) or from a flagged cell's regrade form
    (scope `regrade`). Every row is checked before anything is written. A flagged cell whose
    judged runs all have a human verdict is then regraded: the humans' verdicts become its
    outcomes (regrade.py)."""
    edition = load_edition(Path(edition_dir))
    paths = edition.paths
    secret = private_secret(paths, judged_records(paths))
    try:
        rows = list(csv.DictReader(io.StringIO(Path(csv_path).read_text(encoding="utf-8"))))
    except FileNotFoundError:
        raise UsageProblem(f"{csv_path}: file not found") from None
    lines: list[str] = []
    by_workload: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for number, row in enumerate(rows, start=2):
        if not (row.get("human_pass") or "").strip():
            continue
        if _verdict(row["human_pass"]) is None:
            raise UsageProblem(
                f"{csv_path}: line {number}: human_pass {row['human_pass']!r}; write yes or no"
            )
        by_workload.setdefault((row.get("workload") or "").strip(), []).append((number, row))
    imported_at = dt.datetime.now(dt.UTC)
    planned: list[tuple[str, Path, GradeRecord, SpotcheckBlock]] = []
    samples: dict[str, SpotcheckSample] = {}
    for workload, graded in sorted(by_workload.items()):
        sample_path = paths.spotcheck_sample(workload)
        if not sample_path.exists():
            raise UsageProblem(
                f"{csv_path}: workload {workload!r}: no spot-check sample at {sample_path}; "
                f"run `ledgerrate spotcheck sample {paths.root}` first"
            )
        sample = samples[workload] = load_model(SpotcheckSample, sample_path)
        # Every id a grader may return: the sample's runs, and the judged runs still owed by
        # a cell whose full manual regrade is required.
        known: dict[str, tuple[str, str, str, str]] = {}
        for key in sample.cells:
            model, mode = key.split("/", 1)
            for run_id in sample.cells[key].runs:
                known[anon_id(secret, run_id)] = (model, mode, run_id, "sample")
            for run_id in regrade_runs(paths, workload, model, mode):
                known.setdefault(anon_id(secret, run_id), (model, mode, run_id, "regrade"))
        for number, row in graded:
            anon = _clean_id(row.get("anon_id") or "")
            if anon not in known:
                raise UsageProblem(
                    f"{csv_path}: line {number}: anon_id {anon!r} is neither in the {workload} "
                    "sample nor owed by a cell whose manual regrade is required; copy the id "
                    "from the form `spotcheck sample` wrote"
                )
            model, mode, run_id, scope = known[anon]
            log = paths.grades(workload, model, mode)
            block = SpotcheckBlock(
                grader=(row.get("grader") or "").strip() or "anonymous",
                passed=bool(_verdict(row["human_pass"])),
                notes=(row.get("notes") or "").strip(),
                imported_at=imported_at,
                scope=scope,
            )
            planned.append((run_id, log, latest_grades(log)[run_id], block))
    for _run_id, log, latest, block in planned:
        append_jsonl(
            log,
            latest.model_copy(
                update={
                    "revision": latest.revision + 1,
                    "graded_at": imported_at,
                    "spotcheck": block,
                }
            ),
        )
    for workload, sample in sorted(samples.items()):
        done: dict[str, int] = {}
        for key in sample.cells:
            model, mode = key.split("/", 1)
            changed = apply_regrade(paths.grades(workload, model, mode), imported_at)
            if changed is not None:
                done[key] = changed
        lines += _write_flags(
            paths.root, workload, sample, _tallies(paths.root, workload, sample), done
        )
    return lines


def _tallies(root: Path, workload: str, sample: SpotcheckSample) -> dict[str, list[int]]:
    """Per cell [checked, disagreements], from the latest grade of every sampled run.

    Recomputed from the logs rather than accumulated, so importing a CSV twice counts once."""
    paths = load_edition(root).paths
    tallies: dict[str, list[int]] = {}
    for key, cell in sample.cells.items():
        model, mode = key.split("/", 1)
        latest = latest_grades(paths.grades(workload, model, mode))
        for run_id in cell.runs:
            record = latest.get(run_id)
            if record is None or record.spotcheck is None or record.judge is None:
                continue
            if record.judge.passed is None:
                continue
            tally = tallies.setdefault(key, [0, 0])
            tally[0] += 1
            tally[1] += int(record.judge.passed != record.spotcheck.passed)
    return tallies


def _write_flags(
    root: Path,
    workload: str,
    sample: SpotcheckSample,
    tallies: dict[str, list[int]],
    regraded: dict[str, int] | None = None,
) -> list[str]:
    path = EditionPaths(root).spotcheck_flags(workload)
    state = load_model(SpotcheckFlags, path) if path.exists() else SpotcheckFlags()
    lines = []
    for key, (checked, disagree) in sorted(tallies.items()):
        rate = disagree / checked
        required = sample_size(sample.cells[key].population) if key in sample.cells else 0
        done = regraded is not None and key in regraded
        flags = [FLAG_REGRADED if done else FLAG_REGRADE] if rate > DISAGREEMENT_LIMIT else []
        state.cells[key] = FlagCell(
            checked=checked,
            disagreements=disagree,
            rate=rate,
            sample_size=required,
            flags=flags,
        )
        lines.append(
            f"{workload} {key}: {disagree}/{checked} judge–human disagreements ({rate:.0%})"
            + (f" — {flags[0]}" if flags else "")
            + (f"; {required - checked} sampled runs still ungraded" if checked < required else "")
        )
        if flags:
            note = (
                f"{workload}, {key}: the judge and the human spot-check disagreed on "
                f"{disagree} of {checked} runs ({rate:.0%}), above the 10% limit, so every run "
                "of this cell is to be regraded by hand."
            )
            if note not in state.notes:
                state.notes.append(note)
        if done:
            note = (
                f"{workload}, {key}: every judged run of this cell was regraded by hand after "
                "the spot-check disagreed with the judge by more than 10%; the human verdicts "
                "replace the judge's in its pass rate and CPO."
            )
            if note not in state.notes:
                state.notes.append(note)
    write_json(path, state)
    return lines
