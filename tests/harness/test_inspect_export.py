"""`ledgerrate export --format inspect`: a run's cells as Inspect eval logs, read back by Inspect's
own reader and ingested back into a fresh copy of the registered edition as the same records.

One edition is registered once (tests/harness/roundtrip.py); a copy is run by `ledgerrate run`
against the scripted fake and graded, its cells are exported, the logs are read with
`inspect_ai.log.read_eval_log` (sample count, scores, usage), then `ledgerrate ingest` brings them
into another pristine copy, which is graded: records, pass counts and costs must be those of
the run the logs came from.
"""

from __future__ import annotations

import socket
import subprocess
import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import yaml

from ledgerrate.core.io import read_jsonl
from ledgerrate.publish.inspect_export import reader_commands
from ledgerrate.run import bodies
from ledgerrate.schema import GradeRecord, RunRecord
from ledgerrate.testing.fake_shapes import FakeReply
from tests.harness.roundtrip import BIN, MODEL, WORKLOAD, Bench
from tests.harness.scripted import Script

REPO = Path(__file__).resolve().parents[2]

# Inspect is imported inside the tests (about 2 CPU-seconds); the module registers, runs and
# grades an edition once, which takes minutes on a loaded machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
MODES = ("single-shot", "agentic")


class Failing:
    """The script's replies, with the failures a real sitting has: the last item's first
    request in each mode is a 503 (an infrastructure exclusion, so `run` makes a second attempt)
    and the third item's single-shot answer is cut at the output cap (a model failure)."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.failed: set[tuple[int, bool]] = set()

    def __call__(self, family: str, body: dict[str, Any]) -> FakeReply | None:
        reply = self.script.responder(family, body)
        users = [m.get("content") for m in body.get("messages") or [] if m.get("role") == "user"]
        if reply is None or not users or users[0] not in self.script.answers:
            return reply
        index, _ = self.script.answers[users[0]]
        key = (index, bool(body.get("tools")))
        if index == 3 and key not in self.failed:
            self.failed.add(key)
            return FakeReply(status=503, error_message="the fake is overloaded")
        if index == 2 and not body.get("tools"):
            return replace(reply, finish_reason="length")
        return reply


@pytest.fixture(scope="module")
def ran(bench: Bench) -> Path:
    edition = bench.copy("ran")
    script = bench.fake.responder.__self__  # type: ignore[union-attr]
    bench.fake.responder = Failing(script)
    try:
        bench.cli("run", edition, "--modes", ",".join(MODES), "--concurrency", "2")
    finally:
        bench.fake.responder = script.responder
    bench.grade(edition)
    for mode in MODES:
        statuses = sorted(str(r.status) for r in _records(edition, mode))
        assert statuses.count("infra-excluded") == 1, statuses
    assert any(str(r.failure).startswith("truncated") for r in _records(edition, "single-shot"))
    return edition


@pytest.fixture(scope="module")
def exported(bench: Bench, ran: Path) -> Path:
    out = bench.work / "exported"
    result = bench.cli("export", ran, "--format", "inspect", "--out", out)
    assert "2 Inspect log(s)" in result.stdout, result.stdout
    return out


def _log(exported: Path, mode: str) -> Path:
    found = sorted(exported.glob(f"*_{MODEL}_{mode}_sitting-1.eval"))
    assert len(found) == 1, sorted(exported.iterdir())
    return found[0]


def _records(edition: Path, mode: str) -> list[RunRecord]:
    path = edition / "runs" / WORKLOAD / MODEL / f"{mode}.jsonl"
    return [bodies.whole(r, edition) for r in read_jsonl(path, RunRecord)]


def test_inspect_reads_the_exported_logs_back(ran: Path, exported: Path) -> None:
    from inspect_ai.log import read_eval_log

    for mode in MODES:
        log = read_eval_log(str(_log(exported, mode)))
        records = {r.run_id: r for r in _records(ran, mode)}
        grades = {
            g.run_id: g
            for g in read_jsonl(ran / "grades" / WORKLOAD / MODEL / f"{mode}.jsonl", GradeRecord)
        }
        assert log.status == "success" and log.samples is not None
        # Every attempt of the sitting: four items, one of them attempted twice.
        assert len(log.samples) == len(records) == 5
        assert log.eval.model == "openai-api/ledgerrate/scripted"
        passes = 0
        for sample in log.samples:
            record = records[sample.metadata["ledgerrate_run"]["run_id"]]
            assert sample.metadata["ledgerrate"]["item_id"] == record.item_id
            usage = sample.model_usage["openai-api/ledgerrate/scripted"]
            assert usage.input_tokens == record.usage.input_tokens
            assert usage.output_tokens == record.usage.output_tokens
            assert (usage.input_tokens_cache_read or 0) == record.usage.cached_input_tokens
            assert len([e for e in sample.events if e.event == "model"]) == len(record.calls)
            meta = sample.metadata["ledgerrate_run"]
            assert Decimal(meta["model_usd"]) == record.cost.model_usd
            assert meta["status"] == str(record.status) and meta["failure"] == record.failure
            if str(record.status) == "infra-excluded":
                # Inspect's own place for it: a sample error, and no score (never graded).
                assert sample.error is not None and sample.error.message == record.failure
                assert not sample.scores
                continue
            assert sample.output.completion == record.answer
            assert sample.messages[-1].text == record.answer
            if str(record.failure).startswith("truncated"):
                assert sample.output.stop_reason == "max_tokens"
            grade = grades.get(record.run_id)
            if grade is None:
                assert not sample.scores
                continue
            assert sample.scores is not None
            score = sample.scores["ledgerrate"]
            assert score.value == ("C" if grade.outcome == "pass" else "I")
            assert score.metadata is not None
            assert [c["name"] for c in score.metadata["checks"]] == [c.name for c in grade.checks]
            assert all(c.name in (score.explanation or "") for c in grade.checks)
            passes += score.value == "C"
        assert 0 < passes < 4  # the script answers some items wrongly
        assert log.results is not None
        assert log.results.scores[0].metrics["passes"].value == passes
        assert log.results.scores[0].metrics["accuracy"].value == passes / 4


def _comparable(record: RunRecord) -> dict[str, Any]:
    """A record as both paths must agree on. Left out, each for its reason: `source` (an
    ingested record says where it came from; a run's does not) and, per call, `http_status`
    (an Inspect log keeps no HTTP status) and the raw response of calls after the first (a run
    record keeps only the first request whole, so only the first call is exported with its
    provider body; the later ones carry Inspect's normalised output)."""
    data = record.model_dump(mode="json", exclude={"source"})
    for number, call in enumerate(data["calls"]):
        call.pop("http_status")
        if number > 0:
            call.pop("response")
    return data


def test_ingesting_the_export_gives_the_same_records_and_figures(
    bench: Bench, ran: Path, exported: Path
) -> None:
    fresh = bench.copy("from-export")
    logs = [_log(exported, mode) for mode in MODES]
    bench.cli("ingest", fresh, *logs)
    bench.grade(fresh)
    for mode in MODES:
        # The same records; a log's lines may differ in order (a run appends each attempt as it
        # finishes, two at a time; ingest in the order they started).
        original = sorted(_records(ran, mode), key=lambda r: r.run_id)
        back = sorted(_records(fresh, mode), key=lambda r: r.run_id)
        assert [r.run_id for r in back] == [r.run_id for r in original]
        for came, went in zip(back, original, strict=True):
            a, b = _comparable(came), _comparable(went)
            assert a == b, [k for k in a if a[k] != b[k]]
        assert all(r.source is not None and r.source.harness == "inspect_ai" for r in back)
        assert back[0].calls[0].response == original[0].calls[0].response
    by_run, by_export = bench.results(ran), bench.results(fresh)
    for mode in MODES:
        before, after = by_run[(MODEL, mode)], by_export[(MODEL, mode)]
        for figure in ("n", "passes", "tokens", "cost_basis", "infra_excluded_attempts"):
            assert after[figure] == before[figure], figure
        assert Decimal(after["spend_usd"]) == Decimal(before["spend_usd"]) > 0
        assert round(Decimal(after["spend_usd"]), 2) == round(Decimal(before["spend_usd"]), 2)
    assert bench.verified(fresh)


def test_an_evidence_bundle_exports_as_its_folder_does(
    bench: Bench, ran: Path, exported: Path
) -> None:
    """What the data page tells a reader to run: the bundle from the site, no edition folder."""
    bundle = Path(bench.cli("bundle", ran, "--out", bench.work / "bundles").stdout.strip())
    out = bench.work / "from-bundle"
    # The data page's line, run where the reader downloaded the bundle.
    line = reader_commands(bundle.name, str(out))[1].split()
    assert line[:2] == [".venv/bin/ledgerrate", "export"] and line[2] == bundle.name
    bench.cli(*[str(bundle) if arg == bundle.name else arg for arg in line[1:]], in_process=True)
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in exported.iterdir())
    from inspect_ai.log import read_eval_log

    for mode in MODES:
        a = read_eval_log(str(_log(out, mode)))
        b = read_eval_log(str(_log(exported, mode)))
        # The same log whenever and from wherever it is made: ids, times and order included.
        where = {"location", "etag"}
        assert a.model_dump(exclude=where) == b.model_dump(exclude=where)
    renamed = bench.work / "bundles" / "ledgerrate-evidence-x.tar.gz"
    renamed.write_bytes(bundle.read_bytes())
    refused = bench.cli("export", renamed, check=False, in_process=True)
    assert refused.returncode == 2 and "name carries its sha256" in refused.stderr


def _bodies(system: str, user: str) -> dict[str, dict[str, Any]]:
    """The first request of each API family, as its adapter sends a prompt (with a tool whose
    description is text too, which must not be taken for the prompt)."""
    tool = {"name": "run_sql", "description": "Run one SELECT statement."}
    return {
        "openai": {
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "tools": [{"type": "function", "function": tool}],
        },
        "openai-responses": {"instructions": system, "input": user, "store": False},
        "anthropic": {"system": system, "messages": [{"role": "user", "content": user}]},
        "gemini": {
            "systemInstruction": {"parts": [{"text": system}]},
            "contents": [{"role": "user", "parts": [{"text": user}]}],
        },
    }


def test_the_prompt_is_found_in_every_familys_request(ran: Path) -> None:
    from ledgerrate.core.errors import UsageProblem
    from ledgerrate.harness.export_eval import sent_prompt
    from ledgerrate.workloads.base import Prompt

    record = _records(ran, "single-shot")[0]
    prompt = sent_prompt(record)
    assert prompt.hash == record.prompt_hash and prompt.user
    for family, body in _bodies(prompt.system, prompt.user).items():
        assert sent_prompt(record.model_copy(update={"request": body})) == prompt, family
    no_system = Prompt(system="", user=prompt.user)
    bare = record.model_copy(
        update={
            "request": {"messages": [{"role": "user", "content": prompt.user}]},
            "prompt_hash": no_system.hash,
        }
    )
    assert sent_prompt(bare) == no_system
    changed = _bodies(prompt.system, prompt.user + " Also ignore the schema.")["anthropic"]
    with pytest.raises(
        UsageProblem, match=f"{record.run_id} \\({record.item_id}\\): its request holds"
    ):
        sent_prompt(record.model_copy(update={"request": changed}))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_inspect_view_lists_and_serves_the_exported_logs(exported: Path) -> None:
    """`inspect view` itself, started and stopped here: its API lists both logs and serves
    each one whole, as its viewer page loads them."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    view = subprocess.Popen(
        [
            str(BIN / "inspect"),
            "view",
            "--log-dir",
            str(exported),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with httpx.Client(base_url=base, timeout=30, trust_env=False) as client:
            deadline = time.monotonic() + 180
            while True:
                try:
                    listing = client.get("/api/log-files")
                    break
                except httpx.TransportError:
                    assert view.poll() is None, "inspect view exited"
                    assert time.monotonic() < deadline, "inspect view did not start"
                    time.sleep(0.5)
            assert listing.status_code == 200, listing.text
            names = {Path(f["name"]).name: f["name"] for f in listing.json()["files"]}
            assert set(names) == {_log(exported, mode).name for mode in MODES}
            for mode in MODES:
                served = client.get(f"/api/logs/{quote(names[_log(exported, mode).name])}")
                assert served.status_code == 200, served.text[:200]
                log = served.json()
                assert len(log["samples"]) == 5
                scored = [
                    s["scores"]["ledgerrate"]["value"] for s in log["samples"] if s.get("scores")
                ]
                assert set(scored) == {"C", "I"}
            assert client.get("/").status_code == 200  # the viewer's own page
    finally:
        view.terminate()
        view.wait(timeout=30)


def test_an_exported_logs_own_failure_text_never_sets_a_status(
    bench: Bench, exported: Path
) -> None:
    """`ingest` keeps the run's own failure text from an exported log only beside the status
    the log itself shows: a claim in the metadata never turns a pass into a failure or back."""
    from inspect_ai.log import read_eval_log, write_eval_log

    from ledgerrate.ingest.inspect_log import read_log

    log = read_eval_log(str(_log(exported, "single-shot")))
    assert log.samples is not None
    for sample in log.samples:
        own = sample.metadata["ledgerrate_run"]
        if own["status"] == "completed":
            own.update(status="model-failure", failure="claimed: a failure the log does not show")
        elif own["status"] == "infra-excluded":
            own.update(status="completed", failure="claimed: fine")
    target = bench.work / "claims" / "claims.eval"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(target))
    incoming = read_log(target, "0" * 64)
    errors = {str(s.id): s.error.message for s in log.samples if s.error is not None}
    assert len(errors) == 1
    assert len(incoming) == 5
    for came in incoming:
        assert not str(came.failure).startswith("claimed"), came.failure
        if came.status == "completed":
            assert came.failure is None
        if came.status == "infra-excluded":
            # Inspect's own paraphrase of the sample error, not the claimed text.
            message = errors[came.sample.split("#")[0]]
            assert came.failure == f"infra: Inspect recorded an error: {message}"


def test_the_bundled_local_model_edition_exports_its_published_figures(tmp_path: Path) -> None:
    """The real case: edition 2026-12's cells of SmolLM2, each log's passes, spend and tokens
    those its results give, the spend to the cent and exactly."""
    from inspect_ai.log import read_eval_log

    from ledgerrate.metrics.report import edition_results
    from ledgerrate.publish.inspect_export import export_inspect, log_name

    edition = REPO / "editions" / "2026-12"
    summary = export_inspect(edition, tmp_path)
    # Seven reference-baseline cells are a solver's, and one cell of the model never ran.
    assert len(summary.written) == 12 and len(summary.skipped) == 8, summary.skipped
    assert sum("reference baseline" in line for line in summary.skipped) == 7
    results = edition_results(edition)
    for workload in results.workloads:
        for cell in workload.cells:
            if cell.model == "reference":
                continue
            name = log_name("2026-12", cell.workload, cell.model, str(cell.mode), cell.sitting)
            if not (tmp_path / name).exists():
                assert cell.n == 0 and cell.missing > 0, cell
                assert any(f"{cell.workload}/{cell.model}/" in x for x in summary.skipped)
                continue
            log = read_eval_log(str(tmp_path / name))
            assert log.samples is not None and log.results is not None
            own = log.results.metadata["ledgerrate"]  # type: ignore[index]
            assert own["passes"] == cell.passes and own["n"] == cell.n
            assert Decimal(own["spend_usd"]) == cell.spend_usd + cell.infra_excluded_usd
            assert round(Decimal(own["spend_usd"]), 2) == round(
                cell.spend_usd + cell.infra_excluded_usd, 2
            )
            # A cell's tokens are its counted attempts' (infrastructure exclusions are apart).
            usages = [
                s.model_usage[log.eval.model]
                for s in log.samples
                if s.metadata["ledgerrate_run"]["status"] != "infra-excluded"
            ]
            assert sum(u.input_tokens for u in usages) == cell.tokens.input
            assert sum(u.output_tokens for u in usages) == cell.tokens.output


def test_a_judged_grade_is_the_score_with_the_judges_verdict(ran: Path) -> None:
    """The bundled judged cells hold no verdict (every answer was cut at the cap), so a judge's
    grade is put on one of the run's attempts: a pass names the judge and its reasons, and a
    grade still waiting for the judge is never scored as a pass."""
    from ledgerrate.harness.export_eval import ExportCell, cell_log
    from ledgerrate.schema import EditionManifest, JudgeBlock

    records = [r for r in _records(ran, "single-shot") if str(r.status) == "completed"]
    manifest = EditionManifest.model_validate(yaml.safe_load((ran / "edition.yaml").read_text()))
    grades = {
        g.run_id: g
        for g in read_jsonl(ran / "grades" / WORKLOAD / MODEL / "single-shot.jsonl", GradeRecord)
    }
    judged, waiting = records[0].run_id, records[1].run_id
    judge = JudgeBlock(
        judge_model="j1",
        rubric_hash="a" * 64,
        anon_id="x1",
        passed=True,
        rationale="states the variance and its cause",
    )
    grades[judged] = grades[judged].model_copy(update={"outcome": "pass", "judge": judge})
    grades[waiting] = grades[waiting].model_copy(update={"outcome": "pending-judge"})
    log = cell_log(
        ExportCell(
            edition=ran.name,
            workload=WORKLOAD,
            title="t",
            spec=manifest.models[0],
            mode="single-shot",
            sitting=1,
            n=4,
            records=records,
            grades=grades,
            ledgerrate_version="test",
        )
    )
    assert log.samples is not None
    scores = {s.metadata["ledgerrate_run"]["run_id"]: s.scores["ledgerrate"] for s in log.samples}  # type: ignore[index]
    assert scores[judged].value == "C"
    assert "judge j1: pass; states the variance and its cause" in (scores[judged].explanation or "")
    assert scores[judged].metadata["judge"]["judge_model"] == "j1"  # type: ignore[index]
    assert scores[waiting].value == "I"
    assert (scores[waiting].explanation or "").startswith("pending judge: not a pass")
