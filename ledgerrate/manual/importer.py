"""`ledgerrate manual import EDITION FOLDER`: an analyst's returned packet as a new sitting.

Straight through, like `ingest`: refuse an edition `grade` would refuse; read the packet, the
timing sheet and every answer (`manual/returned.py`); refuse, in one line each, a packet made for
another edition, workload or dataset, a fixture bound for the bundled editions, and answers
timed before the registration, before the window opened or after it closed; then record the
sitting (`manual/<workload>/sitting-<n>.json`) and, unless it is void, one run record per item
in `runs/<workload>/manual/by-hand.jsonl`, ungraded. A sitting is never overwritten or pooled:
the next return of the same workload is sitting n + 1. Importing the same returned folder again
adds only the records still missing (nothing doubles).

Void, not refused: a sheet without a timing statement, or an item without its elapsed time. The
sitting is recorded with its reasons and no run records, and shows as void everywhere.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from ledgerrate.core.edition import load_edition, require_current_registration
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import load_model, read_jsonl, write_json
from ledgerrate.core.layout import BY_HAND, MANUAL_MODEL, EditionPaths
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.manual.returned import (
    ReturnedAnswer,
    read_answer,
    read_packet,
    read_timesheet,
    returned_digest,
)
from ledgerrate.run import rawlog
from ledgerrate.schema import (
    CostBasis,
    ManualItem,
    ManualSitting,
    ManualTimesheet,
    Mode,
    RunRecord,
    RunStatus,
    UsageBasis,
)
from ledgerrate.workloads.base import Workload

NO_ANSWER = "no_answer: the analyst returned no answer for this item (a fail, as for a model)"
BUNDLED_EDITIONS = Path(__file__).resolve().parents[2] / "editions"


@dataclass
class ManualImport:
    sitting: ManualSitting
    path: Path
    written: list[RunRecord] = field(default_factory=list)
    already: bool = False

    def lines(self) -> list[str]:
        s = self.sitting
        head = f"{s.workload}/{MANUAL_MODEL}/{BY_HAND}: sitting {s.sitting}"
        if s.void_reasons:
            return [f"{head} recorded as VOID: {'; '.join(s.void_reasons)}", f"  {self.path}"]
        answered = sum(i.answered for i in s.items)
        done = "already recorded; " if self.already else ""
        return [
            f"{head}: {done}{len(self.written)} records written ({answered} of {len(s.items)} "
            "items answered), ungraded: run `ledgerrate grade` next",
            f"  {self.path}",
        ]


def void_reasons(sheet: ManualTimesheet) -> list[str]:
    """The standard's void conditions for a manual arm (the Ledger's rules): no stated timing
    method, or an elapsed time missing."""
    reasons = []
    if not (sheet.timing_statement or "").strip():
        reasons.append("no timing statement: the analyst did not state how the time was measured")
    untimed = [item for item, clock in sheet.items.items() if clock.elapsed_minutes is None]
    if untimed:
        reasons.append(
            f"no elapsed time for {len(untimed)} item(s) ({', '.join(sorted(untimed)[:5])})"
        )
    return reasons


def _when_problems(
    sheet: ManualTimesheet,
    timing: Path,
    registered_at: dt.datetime,
    opens: dt.datetime,
    closes: dt.datetime,
    now: dt.datetime,
) -> list[str]:
    problems = []
    for item, clock in sorted(sheet.items.items()):
        started = clock.started_at
        minutes = clock.elapsed_minutes or Decimal(0)
        finished = started + dt.timedelta(seconds=float(minutes) * 60)
        where = f"{timing}: items.{item}.started_at"
        if started < registered_at:
            problems.append(
                f"{where}: {started.isoformat()} is before the edition's registration "
                f"({registered_at.isoformat()}); a packet answered before registration is refused"
            )
        elif started < opens:
            problems.append(
                f"{where}: {started.isoformat()} is before the window opens ({opens.isoformat()}); "
                "work inside the window"
            )
        elif finished > closes:
            problems.append(
                f"{where}: the item ends at {finished.isoformat()}, after the window closed "
                f"({closes.isoformat()}); answers after the window are refused"
            )
        elif finished > now:
            problems.append(f"{where}: the item ends in the future; check the time and zone")
    return problems


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def _sittings(paths: EditionPaths, workload: str) -> list[ManualSitting]:
    return [load_model(ManualSitting, p) for p in paths.manual_sittings().get(workload, [])]


def import_manual(
    edition_dir: Path,
    folder: Path,
    *,
    lookup: Callable | None = None,
    now: Callable[[], dt.datetime] | None = None,
    bundled: Path = BUNDLED_EDITIONS,
) -> ManualImport:
    if lookup is None:
        from ledgerrate import workloads

        lookup = workloads.get
    clock = now or (lambda: dt.datetime.now(dt.UTC))
    edition = load_edition(Path(edition_dir))
    registration = require_current_registration(edition, lookup)
    paths, manifest = edition.paths, edition.manifest
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageProblem(f"{folder}: no such folder; pass the returned packet folder")
    packet, packet_sha = read_packet(folder)
    sheet = read_timesheet(folder)
    timing = folder / "timing.yaml"
    workload_id = str(packet.get("workload"))
    problems = []
    if packet.get("edition") != manifest.id or sheet.edition != manifest.id:
        problems.append(
            f"{timing}: edition: the packet is for {sheet.edition}, not {manifest.id}; import it "
            "into its own edition"
        )
    if sheet.workload != workload_id:
        problems.append(
            f"{timing}: workload: {sheet.workload} does not match packet.json's {workload_id}; "
            "restore the pre-filled value"
        )
    if sheet.packet_sha256 != packet_sha:
        problems.append(
            f"{timing}: packet_sha256: does not match packet.json; return the packet.json "
            "`manual packet` wrote, unchanged"
        )
    sealed = registration.workloads.get(workload_id)
    if sealed is None or packet.get("dataset_hash") != sealed.dataset_hash:
        problems.append(
            f"{folder / 'packet.json'}: dataset_hash: not the registered dataset of "
            f"{workload_id}; make a new packet with `ledgerrate manual packet`"
        )
    if sheet.test_fixture and _inside(paths.root, bundled):
        problems.append(
            f"{timing}: test_fixture: a test fixture is never recorded in the bundled editions "
            f"({bundled}); import real answers only"
        )
    if problems or sealed is None:
        raise UsageProblem(*problems)
    workload = lookup(workload_id)
    dataset = dataset_for(paths.root, workload_id, lookup=lookup)
    item_ids = [item.id for item in dataset.items]
    unknown = sorted(set(sheet.items) - set(item_ids))
    absent = [item for item in item_ids if item not in sheet.items]
    if unknown or absent:
        raise UsageProblem(
            *(f"{timing}: items.{i}: not an item of this packet; remove it" for i in unknown),
            *(
                f"{timing}: items.{i}: missing; add its started_at and elapsed_minutes"
                for i in absent
            ),
        )
    window = manifest.window
    problems = _when_problems(
        sheet, timing, registration.registered_at, window.opens, window.closes, clock()
    )
    if problems:
        raise UsageProblem(*problems, "nothing was imported")
    with tempfile.TemporaryDirectory(prefix="ledgerrate-manual-") as scratch:
        answers: dict[str, ReturnedAnswer] = {
            item.id: read_answer(folder, workload, item, dataset, Path(scratch))
            for item in dataset.items
        }
    digest = returned_digest(folder)

    earlier = _sittings(paths, workload_id)
    again = next((s for s in earlier if s.returned_sha256 == digest), None)
    sitting = again or ManualSitting(
        edition=manifest.id,
        workload=workload_id,
        sitting=len(earlier) + 1,
        # The real clock, whatever `now` says: when the sitting entered the edition.
        imported_at=dt.datetime.now(dt.UTC),
        packet_sha256=packet_sha,
        returned_sha256=digest,
        test_fixture=sheet.test_fixture,
        analyst_role=sheet.analyst_role,
        analyst_name=sheet.analyst_name if sheet.name_consent else None,
        timing_statement=(sheet.timing_statement or "").strip() or None,
        hourly_rate_usd=None if sheet.hourly_rate_usd == "unknown" else sheet.hourly_rate_usd,
        rate_basis=sheet.rate_basis,
        tools=list(sheet.tools),
        tool_costs=list(sheet.tool_costs),
        items=[
            ManualItem(
                item_id=item_id,
                started_at=sheet.items[item_id].started_at.astimezone(dt.UTC),
                elapsed_s=(
                    None
                    if sheet.items[item_id].elapsed_minutes is None
                    else float(sheet.items[item_id].elapsed_minutes * 60)  # type: ignore[operator]
                ),
                answered=answers[item_id].text is not None,
            )
            for item_id in item_ids
        ],
        void_reasons=void_reasons(sheet),
    )
    where = paths.manual_sitting(workload_id, sitting.sitting)
    if again is None:
        write_json(where, sitting)
    result = ManualImport(sitting=sitting, path=where, already=again is not None)
    if sitting.void_reasons:
        return result
    log = paths.runs(workload_id, MANUAL_MODEL, BY_HAND)
    have = {r.run_id for r in read_jsonl(log, RunRecord)} if log.exists() else set()
    for entry in sitting.items:
        prompt_hash = workload.prompt(dataset.item(entry.item_id)).hash
        record = _record(
            manifest.id,
            workload,
            sitting,
            entry,
            answers[entry.item_id],
            sealed.dataset_hash,
            prompt_hash,
        )
        if record.run_id in have:
            continue
        rawlog.append_record(log, record)
        result.written.append(record)
    return result


def _record(
    edition: str,
    workload: Workload,
    sitting: ManualSitting,
    entry: ManualItem,
    answer: ReturnedAnswer,
    dataset_hash: str,
    prompt_hash: str,
) -> RunRecord:
    assert entry.elapsed_s is not None  # a sitting without elapsed times is void
    item_id = entry.item_id
    return RunRecord(
        run_id=rawlog.run_id(
            edition, sitting.sitting, workload.id, MANUAL_MODEL, BY_HAND, item_id, 1
        ),
        edition=edition,
        sitting=sitting.sitting,
        workload=workload.id,
        model=MANUAL_MODEL,
        mode=Mode.by_hand,
        item_id=item_id,
        attempt=1,
        started_at=entry.started_at,
        finished_at=entry.started_at + dt.timedelta(seconds=entry.elapsed_s),
        latency_s=entry.elapsed_s,
        status=RunStatus.completed if answer.text is not None else RunStatus.model_failure,
        failure=None if answer.text is not None else NO_ANSWER,
        dataset_hash=dataset_hash,
        prompt_hash=prompt_hash,
        request={
            "manual_packet_sha256": sitting.packet_sha256,
            "answer_file": answer.file,
            "answer_sha256": answer.sha256,
        },
        answer=answer.text,
        tool_state=answer.tool_state,
        usage_basis=UsageBasis.none,
        cost_basis=CostBasis.manual,
    )
