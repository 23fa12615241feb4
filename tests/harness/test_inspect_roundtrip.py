"""Runs or ingests: the same scripted answers and usage, through `ledgerrate run` and through
Inspect AI (`inspect eval ledgerrate/<task>` → `ledgerrate ingest`), give the same figures.

One edition is registered once; a copy is run directly, another is evaluated by Inspect against
the same fake OpenAI-compatible server (the same responder answers both), ingested, graded and
summarised. Pass counts, spend (to the cent, and exactly), tokens and the prompts the server
received must agree; tampered logs are refused with their reason; an ingest killed with -9
loses nothing.
"""

from __future__ import annotations

import datetime as dt
import signal
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import read_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.ingested import ingested_cells
from ledgerrate.run import bodies
from ledgerrate.schema import RunRecord
from tests.harness.roundtrip import MODEL, WORKLOAD, Bench

# inspect_ai is imported by the tests that read it, not at collection: importing it costs about
# 2 CPU-seconds, which every xdist worker paid although one runs this module.

# A module-scoped edition is registered, run and evaluated by Inspect once; the first test of
# the module pays for it (about ten minutes on a loaded 2-core machine), hence the timeout.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
MODES = ("single-shot", "agentic")


def _user_prompts(bench: Bench, since: int) -> list[str]:
    """The first user message of every item request the fake received since request `since`."""
    seen = []
    for request in bench.fake.requests[since:]:
        users = [m["content"] for m in request.body.get("messages", []) if m["role"] == "user"]
        seen.append(users[0])
    return sorted(seen)


@pytest.fixture(scope="module")
def direct(bench: Bench) -> tuple[Path, list[str]]:
    edition = bench.copy("direct")
    before = len(bench.fake.requests)
    bench.cli("run", edition, "--modes", ",".join(MODES), "--concurrency", "2")
    seen = _user_prompts(bench, before)
    bench.grade(edition)
    return edition, seen


@pytest.fixture(scope="module")
def inspect_logs(bench: Bench) -> dict[str, Path]:
    """One Inspect eval per mode, on a pristine copy (Inspect reads the private seeds too)."""
    logs = {}
    for mode in MODES:
        before = len(bench.fake.requests)
        logs[mode] = bench.inspect_eval(bench.registered, mode, bench.work / "logs" / mode)
        logs[f"{mode}:prompts"] = _user_prompts(bench, before)  # type: ignore[assignment]
    return logs


@pytest.fixture(scope="module")
def ingested(bench: Bench, inspect_logs: dict[str, Path]) -> Path:
    edition = bench.copy("ingested")
    bench.cli("ingest", edition, inspect_logs["single-shot"], inspect_logs["agentic"])
    bench.grade(edition)
    return edition


def test_ingested_figures_equal_a_direct_run(bench, direct, ingested) -> None:
    direct_edition, _ = direct
    by_run, by_inspect = bench.results(direct_edition), bench.results(ingested)
    for mode in MODES:
        ran, came = by_run[(MODEL, mode)], by_inspect[(MODEL, mode)]
        assert ran["n"] == came["n"] == 4 and came["missing"] == 0
        assert came["passes"] == ran["passes"]
        assert 0 < ran["passes"] < 4  # the script answers some items wrongly
        assert Decimal(came["spend_usd"]) == Decimal(ran["spend_usd"]) > 0
        assert round(Decimal(came["spend_usd"]), 2) == round(Decimal(ran["spend_usd"]), 2)
        assert came["tokens"] == ran["tokens"]
        assert came["cost_basis"] == ran["cost_basis"] == "measured"
        assert came["infra_excluded_attempts"] == ran["infra_excluded_attempts"] == 0
    from inspect_ai import __version__ as inspect_version

    # Every record was ingested and says from where: the log's sha256, Inspect's version.
    logs = {p.name: sha256_bytes(p.read_bytes()) for p in (bench.work / "logs").rglob("*.eval")}
    for mode in MODES:
        records = read_jsonl(ingested / "runs" / WORKLOAD / MODEL / f"{mode}.jsonl", RunRecord)
        assert len(records) == 4
        for record in records:
            source = record.source
            assert source is not None and source.harness == "inspect_ai"
            assert logs[source.log_name] == source.log_sha256
            assert source.harness_version == inspect_version and source.task
            assert source.eval_id
        if mode == "agentic":
            assert all(r.steps[0].tool_results for r in records)  # the tool ran in Inspect
    assert bench.cli("verify", ingested).returncode == 0
    # The pages name the ingested cells and their harness; a direct run's cells are not named.
    label = f"Inspect AI {inspect_version}"
    shown = ingested_cells(EditionPaths(ingested), edition_results(ingested))
    assert shown == {(WORKLOAD, MODEL, mode): [label] for mode in MODES}
    assert ingested_cells(EditionPaths(direct_edition), edition_results(direct_edition)) == {}


def test_inspect_sent_the_prompts_run_sends(direct, inspect_logs) -> None:
    _, run_prompts = direct
    inspect_prompts = sorted(
        p
        for mode in MODES
        for p in inspect_logs[f"{mode}:prompts"]  # type: ignore[union-attr]
    )
    assert inspect_prompts == run_prompts and len(run_prompts) == 4 * 3  # 1 + 2 calls per item


def test_ingesting_a_log_twice_adds_nothing(bench, inspect_logs, ingested) -> None:
    # In process: a `ledgerrate ingest` subprocess skipping samples ingested before is taken by
    # the kill -9 test's resumed ingest.
    runs = sorted((ingested / "runs").rglob("*.jsonl"))
    before = {p: p.read_bytes() for p in runs}
    logs = (inspect_logs["agentic"], inspect_logs["single-shot"])
    again = bench.cli("ingest", ingested, *logs, in_process=True)
    assert "8 samples were ingested before; skipped" in again.stdout
    assert "nothing new to ingest" in again.stdout
    assert {p: p.read_bytes() for p in runs} == before


def _tampered(bench: Bench, log: Path, name: str, change) -> Path:
    from inspect_ai.log import read_eval_log, write_eval_log

    data = read_eval_log(str(log), resolve_attachments=True)
    change(data)
    target = bench.work / "tampered" / f"{name}.eval"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(data, str(target))
    return target


def _edit_prompt(log) -> None:
    sample = log.samples[0]
    sample.messages[1].content = sample.messages[1].text + " Also ignore the schema."


def _foreign_item(log) -> None:
    log.samples[1].metadata["ledgerrate"]["item_id"] = "item-99"


def _outside_window(log) -> None:
    log.samples[2].started_at = (dt.datetime.now(dt.UTC) - dt.timedelta(days=3)).isoformat()


def _unknown_model(log) -> None:
    log.eval.model = "openai-api/fake/someone-else"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_edit_prompt, "is not the registered prompt of item-01"),
        (_foreign_item, "item 'item-99' is not an item of the registered"),
        (_outside_window, "outside the edition window"),
        (_unknown_model, "model 'openai-api/fake/someone-else'"),
    ],
    ids=["changed-prompt", "foreign-item", "outside-window", "unknown-model"],
)
def test_a_tampered_log_is_refused_with_its_reason(bench, inspect_logs, change, reason) -> None:
    """Through the CLI app in process: a refusal's exit code and stderr from a `ledgerrate
    ingest` subprocess are checked by the interchange test, and the subprocess reading Inspect
    logs by the round trip itself. Each case starts from a pristine copy and the pristine log."""
    edition = bench.copy(f"tampered-{change.__name__}")
    log = _tampered(bench, inspect_logs["single-shot"], change.__name__, change)
    result = bench.cli("ingest", edition, log, check=False, in_process=True)
    assert result.returncode != 0
    assert reason in result.stderr and "refused" in result.stderr, result.stderr
    assert "nothing was ingested" in result.stderr
    assert not (edition / "runs").exists()  # no file changed


CRASH = """
import os, signal, sys
from pathlib import Path
from ledgerrate.ingest.stage import ingest_logs
from ledgerrate.core.io import to_json

written = 0
def write(path, record):
    global written
    written += 1
    line = (to_json(record) + "\\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    # The third record is torn half-way, as a kill mid-write leaves it.
    os.write(fd, line if written < 3 else line[: len(line) // 2])
    os.fsync(fd)
    os.close(fd)
    if written == 3:
        os.kill(os.getpid(), signal.SIGKILL)

ingest_logs(Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]], write=write)
"""


def _records(edition: Path) -> list[dict]:
    """Every run record with its request whole, less the ingest time."""
    out = []
    for path in sorted((edition / "runs").rglob("*.jsonl")):
        for record in read_jsonl(path, RunRecord):
            whole = bodies.whole(record, edition)
            data = whole.model_dump(mode="json")
            data["source"].pop("ingested_at")
            out.append(data)
    return sorted(out, key=lambda d: d["run_id"])


def test_ingest_after_kill_9_loses_nothing(bench, inspect_logs, ingested) -> None:
    edition = bench.copy("killed")
    logs = [inspect_logs["single-shot"], inspect_logs["agentic"]]
    killed = subprocess.run(
        [sys.executable, "-c", CRASH, str(edition), *map(str, logs)],
        env=bench.env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    partial = sorted((edition / "runs").rglob("*.jsonl"))
    assert any(not p.read_bytes().endswith(b"\n") for p in partial)  # a torn line was left
    resumed = bench.cli("ingest", edition, *logs)
    assert "2 samples were ingested before; skipped" in resumed.stdout
    assert _records(edition) == _records(ingested)
    assert bench.verified(edition)


def test_jsonl_interchange_gives_the_figures_of_the_run_it_came_from(bench, direct) -> None:
    """`ingest --format jsonl`: a direct run's records, exported whole, re-enter a fresh copy
    with the same figures, each cost recomputed from its usage (a forged cost is not kept)."""
    direct_edition, _ = direct
    lines = []
    for mode in MODES:
        path = direct_edition / "runs" / WORKLOAD / MODEL / f"{mode}.jsonl"
        for record in read_jsonl(path, RunRecord):
            whole = bodies.whole(record, direct_edition)
            forged = whole.model_copy(
                update={"cost": whole.cost.model_copy(update={"model_usd": Decimal("99")})}
            )
            lines.append(forged.model_dump_json())
    exported = bench.work / "exported.jsonl"
    exported.write_text("\n".join(lines) + "\n")
    edition = bench.copy("interchange")
    bench.cli("ingest", edition, exported, "--format", "jsonl")
    bench.grade(edition)
    ran, came = bench.results(direct_edition), bench.results(edition)
    for mode in MODES:
        for figure in ("n", "passes", "spend_usd", "tokens", "cost_basis"):
            assert came[(MODEL, mode)][figure] == ran[(MODEL, mode)][figure], figure
    assert bench.verified(edition)
    records = read_jsonl(edition / "runs" / WORKLOAD / MODEL / "agentic.jsonl", RunRecord)
    assert {r.source.harness for r in records if r.source} == {"jsonl"}
    # A line with a changed prompt hash is refused, and nothing is written.
    tampered = bench.work / "tampered.jsonl"
    first = RunRecord.model_validate_json(lines[0])
    tampered.write_text(first.model_copy(update={"prompt_hash": "0" * 64}).model_dump_json() + "\n")
    fresh = bench.copy("interchange-tampered")
    refused = bench.cli("ingest", fresh, tampered, "--format", "jsonl", check=False)
    assert refused.returncode != 0 and "prompt_hash 000000000000…" in refused.stderr
    assert not (fresh / "runs").exists()
