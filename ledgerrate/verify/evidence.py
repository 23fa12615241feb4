"""Seeds, datasets, prompts and grades: the chain from a released seed to every stored grade.

With the seeds released, anyone can regenerate the items, check that they are the registered
ones, that each logged prompt was built from them, and that the registered grader gives every
stored answer the stored grade. Judge scores cannot be re-derived offline; they are taken as
recorded, and their anonymisation is checked instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ledgerrate.core import forked
from ledgerrate.core.hashing import canonical_json, seed_commitment
from ledgerrate.core.io import load_model
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.dataset import build_dataset, stack_drift
from ledgerrate.metrics.void import accepted_graders
from ledgerrate.schema import (
    DatasetCard,
    EditionManifest,
    Outcome,
    Registration,
    RunStatus,
    SeedFile,
)
from ledgerrate.verify.parsed import EditionLogs, GradeFacts
from ledgerrate.verify.report import Report
from ledgerrate.workloads.base import Answer, Dataset, Grade, Workload

# Runs re-graded per worker job: one grading takes milliseconds, a hand-off far less.
_BATCH = 128


class RunFacts(NamedTuple):
    """What re-grading needs of a run: the records are streamed (verify/parsed.py), and an
    edition's every record held at once was most of verify's memory."""

    run_id: str
    workload: str
    item_id: str
    status: RunStatus
    answer: str | None
    tool_state: dict[str, Any] | None


def check_seeds_and_datasets(
    paths: EditionPaths,
    registration: Registration,
    lookup,
    report: Report,
) -> dict[str, Dataset]:
    """Released seeds open their commitments and regenerate the carded datasets."""
    datasets: dict[str, Dataset] = {}
    if not paths.seeds.exists():
        if paths.seeds_lost.exists():
            return datasets  # a disclosed limitation (seed_custody), not a pending release
        report.notes.append(
            "seeds withheld until the next edition: dataset regeneration, prompt provenance "
            "and re-grading are checked once they are released"
        )
        return datasets
    seeds = load_model(SeedFile, paths.seeds)
    for workload_id, sealed in sorted(registration.workloads.items()):
        entry = seeds.seeds.get(workload_id)
        if entry is None:
            report.fail(
                "seed commitments",
                file="seeds.json",
                record=workload_id,
                field="seed",
                expected="a released seed",
                found="missing",
            )
            continue
        opened = seed_commitment(entry.seed, entry.salt)
        if not report.expect(
            "seed commitments",
            opened == sealed.seed_commitment,
            file="seeds.json",
            record=workload_id,
            field="sha256(seed ‖ salt)",
            expected=sealed.seed_commitment,
            found=opened,
        ):
            continue
        try:
            workload = lookup(workload_id)
        except KeyError:
            report.fail(
                "dataset hashes",
                file="registration.json",
                record=workload_id,
                field="workload",
                expected="a registered workload version",
                found="unknown to this toolchain",
            )
            continue
        dataset = build_dataset(workload, entry.seed, sealed.n_items)
        found = dataset.hash_for(registration.hash_scheme)
        card_path = paths.card(workload_id)
        card = load_model(DatasetCard, card_path) if card_path.exists() else None
        if not report.expect(
            "dataset hashes",
            found == sealed.dataset_hash,
            file="registration.json",
            record=workload_id,
            field="dataset_hash",
            expected=sealed.dataset_hash,
            found=found,
        ):
            report.notes.append(
                f"{workload_id}: dataset hash differs; {stack_drift(card.stack if card else {})}"
            )
        if card is not None:
            report.expect(
                "dataset hashes",
                card.dataset_hash == found,
                file=_rel(paths, card_path),
                field="dataset_hash",
                expected=found,
                found=card.dataset_hash,
            )
        datasets[workload_id] = dataset
    return datasets


def check_prompts(
    paths: EditionPaths,
    registration: Registration,
    datasets: dict[str, Dataset],
    lookup,
    report: Report,
    logs: EditionLogs | None = None,
) -> dict[str, RunFacts]:
    """Every run answered the registered dataset, with a prompt built from its item."""
    logs = logs if logs is not None else EditionLogs.read(paths.root)
    runs: dict[str, RunFacts] = {}
    # A prompt is a function of its item alone, so every model's run of an item shares it.
    built_for: dict[tuple[str, str], str] = {}
    for log in logs.runs:
        rel = log.rel
        for record in log.records_or_raise():
            runs[record.run_id] = RunFacts(
                record.run_id,
                record.workload,
                record.item_id,
                record.status,
                record.answer,
                record.tool_state,
            )
            sealed = registration.workloads.get(record.workload)
            expected_hash = sealed.dataset_hash if sealed else "a registered workload"
            report.expect(
                "runs answered the registered dataset",
                record.dataset_hash == expected_hash,
                file=rel,
                record=record.run_id,
                field="dataset_hash",
                expected=expected_hash,
                found=record.dataset_hash,
            )
            dataset = datasets.get(record.workload)
            if dataset is None:
                continue
            try:
                item = dataset.item(record.item_id)
            except KeyError:
                report.fail(
                    "prompts built from the items",
                    file=rel,
                    record=record.run_id,
                    field="item_id",
                    expected="an item of the dataset",
                    found=record.item_id,
                )
                continue
            built = built_for.get((record.workload, record.item_id))
            if built is None:
                built = lookup(record.workload).prompt(item).hash
                built_for[(record.workload, record.item_id)] = built
            report.expect(
                "prompts built from the items",
                built == record.prompt_hash,
                file=rel,
                record=record.run_id,
                field="prompt_hash",
                expected=built,
                found=record.prompt_hash,
            )
    return runs


def latest_grades(logs: EditionLogs) -> dict[str, tuple[str, GradeFacts]]:
    latest: dict[str, tuple[str, GradeFacts]] = {}
    for log in logs.grades:
        for grade in log.grade_facts_or_raise():
            kept = latest.get(grade.run_id)
            if kept is None or grade.revision > kept[1].revision:
                latest[grade.run_id] = (log.rel, grade)
    return latest


def check_grades(
    paths: EditionPaths,
    manifest: EditionManifest,
    runs: dict[str, RunFacts],
    datasets: dict[str, Dataset],
    lookup,
    report: Report,
    logs: EditionLogs | None = None,
    *,
    remember: bool = True,
    registration: Registration | None = None,
) -> None:
    """Re-grade every stored answer whose items are known; check the judge saw no identity.

    Every stored grade is compared with the registered grader's verdict on that run's exact
    item, answer and tool state. A grader is a pure function of those, so one verdict serves
    every run that gave the same answer to the same item (`remember`; off, each run is graded
    on its own, as the benchmark does to show the cost when no two answers agree)."""
    logs = logs if logs is not None else EditionLogs.read(paths.root)
    identities = _identities(manifest)
    # A grader hash is the hash of the grader's source text: read once per workload, not once
    # per record (re-reading and tokenising the source cost more than the re-grading itself).
    grader_hashes: dict[str, str] = {}
    latest_by_run = latest_grades(logs)
    latest = sorted(latest_by_run.items())
    # Every verdict first, on every CPU (ledgerrate/core/forked.py): the re-grading is most of a
    # large edition's verification, and each verdict is independent of the others.
    regraded = [
        run
        for run_id, _ in latest
        if (run := runs.get(run_id)) is not None
        and run.workload in datasets
        and run.status == RunStatus.completed
    ]
    verdicts = dict(
        zip(
            (run.run_id for run in regraded),
            _Regrader(datasets, lookup, remember=remember).all(
                [(r.workload, r.item_id, r.answer or "", r.tool_state) for r in regraded]
            ),
            strict=True,
        )
    )
    for run_id, (rel, grade) in latest:
        run = runs.get(run_id)
        if run is None:
            report.fail(
                "grades re-derived",
                file=rel,
                record=run_id,
                field="run_id",
                expected="a run in the raw logs",
                found="no such run",
            )
            continue
        if grade.judge_text is not None:
            seen = grade.judge_text.lower()
            leaked = sorted(i for i in identities if i and i.lower() in seen)
            report.expect(
                "judge anonymisation",
                not leaked,
                file=rel,
                record=run_id,
                field="judge.anon_id/rationale",
                expected="no model identity",
                found=", ".join(leaked),
            )
        again = verdicts.get(run_id)
        if again is None:  # not re-graded: no dataset for its items, or not a completed run
            continue
        workload: Workload = lookup(run.workload)
        grader_hash = grader_hashes.get(run.workload)
        if grader_hash is None:
            grader_hash = grader_hashes[run.workload] = workload.grader_hash
        report.expect(
            "grades re-derived",
            grade.grader_hash == grader_hash,
            file=rel,
            record=run_id,
            field="grader_hash",
            expected=grader_hash,
            found=grade.grader_hash,
        )
        _compare(report, rel, grade, again)
    _check_superseded(logs, latest_by_run, runs, datasets, lookup, report, remember, registration)


def _compare(report: Report, rel: str, grade: GradeFacts, again: Grade) -> None:
    """A stored grade against its grader's verdict: outcome and every named check."""
    run_id = grade.run_id
    if again.deterministic_pass and again.needs_judge:
        expected = grade.outcome if grade.judge_text is not None else Outcome.pending_judge
    else:
        expected = Outcome.passed if again.deterministic_pass else Outcome.failed
    report.expect(
        "grades re-derived",
        expected == grade.outcome,
        file=rel,
        record=run_id,
        field="outcome",
        expected=expected.value,
        found=grade.outcome.value,
    )
    stored = dict(grade.checks)
    derived = {c.name: c.passed for c in again.checks}
    report.expect(
        "grades re-derived",
        stored == derived,
        file=rel,
        record=run_id,
        field="checks",
        expected=derived,
        found=stored,
    )


def _check_superseded(
    logs: EditionLogs,
    latest_by_run: dict[str, tuple[str, GradeFacts]],
    runs: dict[str, RunFacts],
    datasets: dict[str, Dataset],
    lookup,
    report: Report,
    remember: bool,
    registration: Registration | None,
) -> None:
    """Superseded grade revisions are evidence too (the figures once published rest on them):
    each is re-derived under the grader revision whose hash it names, which the workload keeps
    verbatim (`Workload.superseded`). A grade naming no revision of its workload's grader, or
    one older than the registration sealed, cannot stand and is reported."""
    latest = {facts.at for _rel, facts in latest_by_run.values()}
    groups: dict[tuple[str, str], list[tuple[str, GradeFacts, RunFacts]]] = {}
    graders: dict[str, dict[str, Workload]] = {}
    for log in logs.grades:
        for grade in log.grade_facts_or_raise():
            if grade.at in latest:
                continue
            run = runs.get(grade.run_id)
            if run is None or run.workload not in datasets or run.status != RunStatus.completed:
                continue  # the latest grade's checks report a run that is not there
            if run.workload not in graders:
                workload: Workload = lookup(run.workload)
                graders[run.workload] = {r.grader_hash: r for r in (*workload.superseded, workload)}
            accepted = accepted_graders(run.workload, registration)
            if grade.grader_hash not in graders[run.workload] or (
                accepted is not None and grade.grader_hash not in accepted
            ):
                report.fail(
                    "grades re-derived",
                    file=log.rel,
                    record=grade.run_id,
                    field=f"grader_hash (revision {grade.revision})",
                    expected="the grader revision registered, or a later correction of it",
                    found=grade.grader_hash,
                )
                continue
            key = (run.workload, grade.grader_hash)
            groups.setdefault(key, []).append((log.rel, grade, run))
    for (workload_id, grader_hash), members in sorted(groups.items(), key=lambda kv: kv[0]):
        revision = graders[workload_id][grader_hash]
        verdicts = _Regrader(datasets, lambda _id, r=revision: r, remember=remember).all(
            [(run.workload, run.item_id, run.answer or "", run.tool_state) for *_, run in members]
        )
        for (rel, grade, _run), again in zip(members, verdicts, strict=True):
            _compare(report, rel, grade, again)


class _Regrader:
    """The registered grader's verdicts on runs' (workload, item, answer, tool state), each
    distinct input graded once when `remember` is set."""

    def __init__(self, datasets: dict[str, Dataset], lookup, *, remember: bool) -> None:
        self._datasets = datasets
        self._lookup = lookup
        self._remember = remember

    def all(self, inputs: list[tuple[str, str, str, dict[str, Any] | None]]) -> list[Grade]:
        """The verdict on each (workload, item, answer, tool state), in order."""
        keys = [
            (workload, item, text, None if state is None else canonical_json(state))
            for workload, item, text, state in inputs
        ]
        # The workers read each input's tool state from here (a fork copies it).
        states = {key: state for key, (*_, state) in zip(keys, inputs, strict=True)}

        def grade(batch: Sequence[tuple[str, str, str, str | None]]) -> list[Grade]:
            out = []
            for key in batch:
                workload_id, item_id, text, _ = key
                item = self._datasets[workload_id].item(item_id)
                out.append(self._lookup(workload_id).grade(item, Answer(text, states[key])))
            return out

        todo = list(dict.fromkeys(keys)) if self._remember else keys
        graded = [
            verdict
            for batch in forked.map_forked(grade, forked.batches(todo, _BATCH))
            for verdict in batch
        ]
        if not self._remember:
            return graded
        seen = dict(zip(todo, graded, strict=True))
        return [seen[key] for key in keys]


def _identities(manifest: EditionManifest) -> set[str]:
    names = set()
    for spec in manifest.models:
        names.update({spec.id, spec.name, spec.api_model or ""})
    return {n for n in names if len(n) >= 4}


def _rel(paths: EditionPaths, path: Path) -> str:
    return path.relative_to(paths.root).as_posix()
