"""The workflows Inspect AI users really use, end to end against the fake provider.

An edition of three models is registered once. Inspect itself runs LedgerRate's task: one
`inspect eval-set` for the three models per mode (single-shot and agentic), each model found
from `--model openai/<api_model>` and sent, as `run` sends, by plain chat completions to the
edition's `base_url` with the key in its `api_key_env` (no OPENAI_BASE_URL is set); the
single-shot eval-set meets injected 500s on one model's item and gives up, and `inspect
eval-retry` finishes it. Everything is ingested, graded and summarised, and each cell's records,
tokens, cost and passes are checked against the fake's own log of what it answered; the edition
verifies. Then what must be refused is: a log whose temperature or output cap is not the
edition's (at ingest), an edited stored request body (by `verify`), an `--epochs 2` log (one
line, nothing written), and each task error the command line prints (one line, no traceback).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core.cost import call_cost
from ledgerrate.core.edition import load_edition
from ledgerrate.core.io import read_jsonl, read_yaml, write_yaml
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.schema import RunRecord, RunStatus, Usage
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply
from ledgerrate.verify.run import verify_path
from ledgerrate.workloads import catalogue
from tests.harness.roundtrip import BIN, TASK, WORKLOAD, Bench, N, write_edition
from tests.harness.scripted import Script

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
API_MODELS = {"m1": "scripted-a", "m2": "scripted-b", "m3": "scripted-c"}
MODELS = ",".join(f"openai/{api}" for api in API_MODELS.values())
MODES = ("single-shot", "agentic")
FAILING = ("scripted-b", 2)  # the item index whose requests answer 500 until the retry


@dataclass
class Ledger:
    """The fake's own log: every reply it gave an item request, by model, mode and item."""

    script: Script
    failing: set[tuple[str, int]] = field(default_factory=set)
    replies: list[tuple[str, str, int, Usage | None]] = field(default_factory=list)

    def responder(self, family: str, body: dict[str, Any]) -> FakeReply | None:
        users = [m.get("content") for m in body.get("messages", []) if m.get("role") == "user"]
        if not users or users[0] not in self.script.answers:
            return None
        index, _ = self.script.answers[users[0]]
        model, mode = body["model"], "agentic" if body.get("tools") else "single-shot"
        if (model, index) in self.failing:
            self.replies.append((model, mode, index, None))
            return FakeReply(status=500, error_message="injected: server error")
        reply = self.script.responder(family, body)
        assert reply is not None and not isinstance(reply.usage, str)
        self.replies.append((model, mode, index, reply.usage))
        return reply


@dataclass
class Workflows:
    bench: Bench
    ledger: Ledger
    logs: dict[str, list[Path]]
    ingested: Path


def _three_models(root: Path, base_url: str, opens: dt.datetime) -> None:
    write_edition(root, base_url, opens, opens + dt.timedelta(hours=3))
    manifest = read_yaml(root / "edition.yaml")
    pricing = read_yaml(root / "pricing.yaml")
    first = manifest["models"][0]
    manifest["models"] = [
        {**first, "id": mid, "name": f"Scripted {mid}", "api_model": api}
        for mid, api in API_MODELS.items()
    ]
    pricing["models"] = {mid: pricing["models"]["m1"] for mid in API_MODELS}
    write_yaml(root / "edition.yaml", manifest)
    write_yaml(root / "pricing.yaml", pricing)


def _env(bench: Bench) -> dict[str, str]:
    env = bench.env()
    env.pop("OPENAI_BASE_URL", None)
    # Inspect's OpenAI provider wants a key of its own; the task sends the edition's.
    return {**env, "OPENAI_API_KEY": "sk-inspect-provider", "COLUMNS": "300"}


def _inspect(bench: Bench, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "inspect"), *map(str, args)],
        env=_env(bench),
        capture_output=True,
        text=True,
        timeout=900,
    )


def _eval_logs(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.eval"))


@pytest.fixture(scope="module")
def workflows(tmp_path_factory: pytest.TempPathFactory) -> Any:
    work = tmp_path_factory.mktemp("workflows")
    private = work / "private"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEDGERRATE_PRIVATE_DIR", str(private))
        ledger = Ledger(Script([]))
        fake = FakeProviderServer(responder=ledger.responder)
        fake.start()
        try:
            root = work / "registered" / "wf-1"
            opens = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(hours=1)
            _three_models(root, fake.base_url("openai"), opens)
            register_edition(root)
            workload = catalogue.get(WORKLOAD)
            ledger.script.answers.update(Script([(workload, dataset_for(root, WORKLOAD))]).answers)
            bench = Bench(root, private, fake, work)
            yield _run_everything(bench, ledger)
        finally:
            fake.close()


def _run_everything(bench: Bench, ledger: Ledger) -> Workflows:
    logs: dict[str, list[Path]] = {}
    common = ["-T", f"edition={bench.registered}", "--display", "none"]
    # Single-shot: one eval-set for the three models; model b's item 2 answers 500 and the
    # eval-set is told not to retry, so b's log ends in error.
    ledger.failing.add(FAILING)
    single = bench.work / "logs" / "single-shot"
    ran = _inspect(
        bench, "eval-set", TASK, *common, "-T", "mode=single-shot", "--model", MODELS,
        "--log-dir", single, "--retry-attempts", "0", "--max-retries", "0",
    )  # fmt: skip
    logs["single-shot"] = _eval_logs(single)
    assert len(logs["single-shot"]) == 3, ran.stdout + ran.stderr
    failed = [p for p in logs["single-shot"] if _status(p) == "error"]
    assert len(failed) == 1 and "scripted-b" in _model_of(failed[0]), [
        (_model_of(p), str(_header(p).error)[:2000]) for p in failed
    ]
    ledger.failing.clear()
    retry_dir = bench.work / "logs" / "retry"
    retried = _inspect(bench, "eval-retry", failed[0], "--log-dir", retry_dir, "--display", "none")
    assert retried.returncode == 0, retried.stdout + retried.stderr
    logs["retry"] = _eval_logs(retry_dir)
    assert len(logs["retry"]) == 1 and _status(logs["retry"][0]) == "success"
    agentic = bench.work / "logs" / "agentic"
    ran = _inspect(
        bench, "eval-set", TASK, *common, "-T", "mode=agentic", "--model", MODELS,
        "--log-dir", agentic,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    logs["agentic"] = _eval_logs(agentic)
    assert len(logs["agentic"]) == 3

    edition = bench.copy("ingested")
    everything = [p for group in logs.values() for p in group]
    ingest = bench.cli("ingest", edition, *everything, in_process=True)
    assert "already ingested from another log" in ingest.stdout, ingest.stdout
    bench.grade(edition)
    return Workflows(bench, ledger, logs, edition)


def _header(log: Path) -> Any:
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(log), header_only=True)


def _status(log: Path) -> str:
    return str(_header(log).status)


def _model_of(log: Path) -> str:
    return str(_header(log).eval.model)


def _records(edition: Path, model: str, mode: str) -> list[RunRecord]:
    return read_jsonl(edition / "runs" / WORKLOAD / model / f"{mode}.jsonl", RunRecord)


def test_every_model_and_mode_came_in_with_the_fakes_own_figures(workflows: Workflows) -> None:
    edition, ledger = workflows.ingested, workflows.ledger
    pricing = load_edition(edition).pricing
    results = workflows.bench.results(edition)
    # What the fake answered, per cell: each successful reply's usage, priced.
    answered: dict[tuple[str, str], list[Usage]] = defaultdict(list)
    for api, mode, _index, usage in ledger.replies:
        if usage is not None:
            answered[(api, mode)].append(usage)
    for model, api in API_MODELS.items():
        for mode in MODES:
            records = _records(edition, model, mode)
            finished = [r for r in records if r.status != RunStatus.infra_excluded]
            assert sorted(r.item_id for r in finished) == [f"item-{i:02d}" for i in range(1, 5)]
            assert all(r.source and r.source.harness == "inspect_ai" for r in records)
            replies = answered[(api, mode)]
            spent = sum((r.cost.total_usd for r in records), Decimal(0))
            priced = sum((call_cost(u, 0.0, pricing, model).total_usd for u in replies), Decimal(0))
            assert spent == priced > 0, (model, mode)
            assert sum(r.usage.output_tokens for r in records) == sum(
                u.output_tokens for u in replies
            )
            assert sum(len(r.calls) for r in records if r.status != RunStatus.infra_excluded) == (
                len(replies)
            )
            cell = results[(model, mode)]
            # The script answers every third item (index 1) wrongly: 3 passes of 4.
            assert (cell["n"], cell["passes"], cell["missing"]) == (N, 3, 0), cell
            assert Decimal(cell["spend_usd"]) == priced
    assert workflows.bench.verified(edition)


def test_eval_retry_reruns_only_the_attempt_the_500s_excluded(workflows: Workflows) -> None:
    from inspect_ai.log import read_eval_log

    records = _records(workflows.ingested, "m2", "single-shot")
    failed_item = f"item-{FAILING[1] + 1:02d}"
    excluded = [r for r in records if r.status == RunStatus.infra_excluded]
    assert failed_item in {r.item_id for r in excluded}
    assert all((r.failure or "").startswith("infra: Inspect recorded an error") for r in excluded)
    by_item: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        by_item[record.item_id].append(record)
    for item_id, attempts in by_item.items():
        # Excluded attempts first, then the one re-run that counts: numbered 1, 2, ...
        attempts.sort(key=lambda r: r.attempt)
        assert [r.attempt for r in attempts] == list(range(1, len(attempts) + 1))
        assert all(r.status == RunStatus.infra_excluded for r in attempts[:-1]), item_id
        assert attempts[-1].status != RunStatus.infra_excluded
    # The retry log repeated the samples that had finished, under their uuid: none of those
    # became a second record.
    retry_log = workflows.logs["retry"][0]
    retry = read_eval_log(str(retry_log))
    original = {
        r.source.sample_uuid for r in records if r.source and r.source.log_name != retry_log.name
    }
    repeated = {s.uuid for s in retry.samples or []} & original
    assert repeated
    from_retry = {
        r.source.sample_uuid for r in records if r.source and r.source.log_name == retry_log.name
    }
    assert not from_retry & repeated and from_retry
    # Ingesting the same logs again adds nothing.
    everything = [p for group in workflows.logs.values() for p in group]
    before = {p: p.read_bytes() for p in (workflows.ingested / "runs").rglob("*.jsonl")}
    again = workflows.bench.cli("ingest", workflows.ingested, *everything, in_process=True)
    assert "nothing new to ingest" in again.stdout
    assert {p: p.read_bytes() for p in before} == before


def _tampered(workflows: Workflows, name: str, setting: str, value: Any) -> Path:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(workflows.logs["agentic"][0]), resolve_attachments=True)
    for sample in log.samples or []:
        for event in sample.events:
            if isinstance(event, ModelEvent):
                event.config = event.config.model_copy(update={setting: value})
                if event.call is not None:
                    event.call.request[setting] = value
    target = workflows.bench.work / "tampered" / f"{name}.eval"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(target))
    return target


@pytest.mark.parametrize(
    ("setting", "value", "line"),
    [
        ("temperature", 0.9, "temperature is 0.9 in the log (call 0's generate config) and "
         "edition.yaml gives 0 for model"),
        ("max_tokens", 50, "max_tokens is 50 in the log (call 0's generate config) and "
         "edition.yaml gives 4096 for model"),
    ],
)  # fmt: skip
def test_a_log_run_with_other_settings_is_refused(workflows, setting, value, line) -> None:
    edition = workflows.bench.copy(f"settings-{setting}")
    log = _tampered(workflows, setting, setting, value)
    refused = workflows.bench.cli("ingest", edition, log, check=False, in_process=True)
    assert refused.returncode != 0 and line in refused.stderr, refused.stderr
    assert "nothing was ingested" in refused.stderr
    assert not (edition / "runs").exists()


def test_an_edited_stored_request_body_fails_verification(workflows: Workflows) -> None:
    edition = workflows.bench.work / "edited-body" / workflows.ingested.name
    shutil.copytree(workflows.ingested, edition)
    assert verify_path(edition).ok
    log = edition / "runs" / WORKLOAD / "m3" / "single-shot.jsonl"
    lines = log.read_text().splitlines()
    record = json.loads(lines[0])
    body = record["request"] or record["request_stored"]["body"]
    body["temperature"] = 0.9
    lines[0] = json.dumps(record)
    log.write_text("\n".join(lines) + "\n")
    report = verify_path(edition)
    assert [(m.record, m.field, m.expected, m.found) for m in report.mismatches] == [
        (record["run_id"], "request.temperature", "0", "0.9")
    ]


def test_an_epochs_log_is_refused_in_one_line(workflows: Workflows) -> None:
    bench = workflows.bench
    folder = bench.work / "logs" / "epochs"
    ran = _inspect(
        bench, "eval", TASK, "-T", f"edition={bench.registered}", "--model", "openai/scripted-a",
        "--epochs", "2", "--limit", "1", "--log-dir", folder, "--display", "none",
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    edition = bench.copy("epochs")
    refused = bench.cli("ingest", edition, *_eval_logs(folder), check=False, in_process=True)
    lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert refused.returncode != 0 and len(lines) == 1, refused.stderr
    assert "a log of 2 epochs (inspect eval --epochs 2)" in lines[0]
    assert "run `inspect eval` once per sitting without --epochs" in lines[0]
    assert not (edition / "runs").exists()


def test_each_task_error_is_one_line_naming_the_fix(workflows: Workflows, tmp_path) -> None:
    bench = workflows.bench
    unregistered = tmp_path / "unregistered" / "wf-2"
    _three_models(unregistered, "http://127.0.0.1:9/v1", dt.datetime.now(dt.UTC))
    cases = [
        ([f"edition={tmp_path / 'nowhere'}"], {}, "pass -T edition=<edition folder>"),
        ([f"edition={unregistered}"], {}, "run `ledgerrate register"),
        (
            [f"edition={bench.registered}"],
            {"LEDGERRATE_PRIVATE_DIR": str(tmp_path / "no-seeds")},
            "set LEDGERRATE_PRIVATE_DIR",
        ),
        ([f"edition={bench.registered}"], {"MODEL": "openai/fake-gpt-2"}, "is none of the"),
    ]
    for task_args, env, fix in cases:
        model = env.pop("MODEL", "openai/scripted-a")
        args = [arg for value in task_args for arg in ("-T", value)]
        result = subprocess.run(
            [str(BIN / "inspect"), "eval", TASK, *args, "--model", model, "--log-dir", tmp_path],
            # Inspect's console wraps a message at the terminal's width (80 columns without a
            # terminal), and a temporary path can make the one line longer than that.
            env={**_env(bench), "COLUMNS": "1000", **env},
            capture_output=True,
            text=True,
            timeout=600,
        )
        output = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
        assert result.returncode != 0, output
        assert len(output) == 1 and fix in output[0], output
        assert "Traceback" not in result.stderr
    overridden = _inspect(
        bench, "eval", TASK, "-T", f"edition={bench.registered}", "--model", "openai/scripted-a",
        "--temperature", "0.9", "--log-dir", tmp_path,
    )  # fmt: skip
    output = [line for line in (overridden.stdout + overridden.stderr).splitlines() if line]
    assert len(output) == 1 and "temperature 0.9 (edition.yaml gives 0 for model m1)" in output[0]
