from __future__ import annotations

import asyncio
import datetime as dt
import io
import itertools
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import TornLineWarning, read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    InfraError,
    ModelError,
    ProviderError,
)
from ledgerrate.run import bodies, unfinished
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import CostBasis, ModelSpec, RunRecord, RunStatus, Usage, UsageBasis
from tests.run import stub
from tests.run.runkit import SENTINEL_KEY, model, write_edition

FAST = RetryPolicy(max_attempts=6, base_s=0.001, cap_s=0.01)


def run(root: Path, lookup: Any, script: Any, **kw: Any) -> tuple[Any, list[tuple[str, int]]]:
    factory = stub.factory(script)
    opts = kw.pop("options", RunOptions())
    summary = run_edition(
        root,
        opts,
        lookup=lookup,
        provider_factory=factory,
        retry=FAST,
        console=Console(file=io.StringIO()),
        show_progress=False,
        **kw,
    )
    return summary, factory.log


def records(root: Path, wid: str, mid: str, mode: str) -> list[RunRecord]:
    """A cell's records with their requests whole (new logs keep long strings in bodies/)."""
    log = root / "runs" / wid / mid / f"{mode}.jsonl"
    return [bodies.whole(r, root) for r in read_jsonl(log, RunRecord)]


def registered(edition_factory: Any, lookup: Any, **kw: Any) -> Path:
    root = edition_factory(**kw)
    register_edition(root, lookup=lookup)
    return root


def first_item_only(behaviour: Any) -> Any:
    """Script where the item whose prompt comes first gets `behaviour(n)` on its n-th call."""
    seen: Counter[str] = Counter()
    target: list[str] = []

    def script(spec: ModelSpec, request: CompletionRequest, index: int) -> Completion:
        key = request.messages[0].content
        if not target:
            target.append(key)
        n = seen[key]
        seen[key] += 1
        if key == target[0]:
            result = behaviour(n, spec, request)
            if result is not None:
                return result
        return stub.sum_script(spec, request, index)

    return script


def test_single_shot_records_usage_and_exact_cost(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])
    summary, log = run(root, lookup, stub.sum_script, options=RunOptions(modes=["single-shot"]))
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    assert len(recs) == 4 and len(log) == 4
    for r in recs:
        assert r.status == "completed" and r.attempt == 1 and r.sitting == 1
        assert r.usage == Usage(input_tokens=100, output_tokens=10)
        # 100 × $2/M + 10 × $8/M
        assert r.cost.model_usd == Decimal("0.00028")
        assert r.usage_basis == UsageBasis.provider_reported and r.cost_basis == "measured"
        assert r.request["sampling"] == {"temperature": 0} and r.request["tools"] == []
        assert r.answer is not None and r.answer.isdigit()
    assert len({r.run_id for r in recs}) == 4
    assert summary.missing == 0


def test_infra_error_then_success_records_two_attempts(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])

    def behaviour(n: int, spec: ModelSpec, request: CompletionRequest) -> None:
        if n == 0:
            raise InfraError("503 upstream", status=503, usage=Usage(input_tokens=7))
        return None

    run(root, lookup, first_item_only(behaviour), options=RunOptions(modes=["single-shot"]))
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    by_item = Counter(r.item_id for r in recs)
    (twice,) = [i for i, c in by_item.items() if c == 2]
    pair = sorted((r for r in recs if r.item_id == twice), key=lambda r: r.attempt)
    assert [p.status for p in pair] == [RunStatus.infra_excluded, RunStatus.completed]
    assert [p.attempt for p in pair] == [1, 2]
    assert pair[0].usage.input_tokens == 7 and pair[0].cost.model_usd == Decimal("0.000014")
    assert pair[0].run_id != pair[1].run_id


def test_infra_errors_exhaust_attempts_and_item_stays_missing(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])

    def behaviour(n: int, spec: ModelSpec, request: CompletionRequest) -> None:
        raise InfraError("timeout")

    summary, _ = run(
        root, lookup, first_item_only(behaviour), options=RunOptions(modes=["single-shot"])
    )
    assert summary.missing == 1
    assert "missing" in "\n".join(summary.lines())
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    assert Counter(r.status for r in recs) == {RunStatus.infra_excluded: 6, RunStatus.completed: 3}
    # a later run resumes the missing item, numbering attempts on from 7
    run(root, lookup, stub.sum_script, options=RunOptions(modes=["single-shot"]))
    last = records(root, "toy.add.v1", "m1", "single-shot")[-1]
    assert last.status == "completed" and last.attempt == 7


def test_model_failure_is_never_retried(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])

    def behaviour(n: int, spec: ModelSpec, request: CompletionRequest) -> None:
        raise ModelError("refused", status=200, usage=Usage(input_tokens=10, output_tokens=1))

    _, log = run(
        root, lookup, first_item_only(behaviour), options=RunOptions(modes=["single-shot"])
    )
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    assert len(recs) == 4 and len(log) == 4
    failed = [r for r in recs if r.status == RunStatus.model_failure]
    assert len(failed) == 1 and failed[0].failure and "refused" in failed[0].failure
    assert failed[0].cost.model_usd == Decimal("0.000028")


def test_empty_answer_is_model_failure(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])
    behaviour = lambda n, spec, request: stub.answer("  ")  # noqa: E731
    run(root, lookup, first_item_only(behaviour), options=RunOptions(modes=["single-shot"]))
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    assert Counter(r.failure for r in recs) == {None: 3, "empty_answer": 1}


def test_agentic_tools_and_step_cap(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])

    def behaviour(n: int, spec: ModelSpec, request: CompletionRequest) -> Completion:
        return stub.tool_call(["refuse", "boom", "nope"][n % 3], {}, call_id=f"c{n}")

    run(root, lookup, first_item_only(behaviour), options=RunOptions(modes=["agentic"]))
    recs = records(root, "toy.add.v1", "m1", "agentic")
    capped = [r for r in recs if r.status == RunStatus.model_failure]
    assert len(capped) == 1 and capped[0].failure == "step_cap"
    assert len(capped[0].calls) == 25 and len(capped[0].steps) == 25
    outputs = [s.tool_results[0].output for s in capped[0].steps[:3]]
    assert outputs[0] == "error: refused: not allowed"
    assert "RuntimeError: tool exploded" in outputs[1]
    assert "no tool named 'nope'" in outputs[2]
    assert not any(s.tool_results[0].ok for s in capped[0].steps)
    ok = [r for r in recs if r.status == "completed"]
    assert len(ok) == 3
    for r in ok:
        assert len(r.calls) == 2 and r.steps[0].tool_results[0].ok
        assert r.tool_state == {"used": ["add"], "workdir_existed": True}
        assert r.answer == r.steps[0].tool_results[0].output
        assert [t["name"] for t in r.request["tools"]] == ["add", "refuse", "boom"]
        assert r.cost.model_usd == Decimal("0.00014") + Decimal("0.00028")


def test_missing_usage_is_estimated_never_measured(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])

    def script(spec: ModelSpec, request: CompletionRequest, index: int) -> Completion:
        done = stub.sum_script(spec, request, index)
        done.usage = None
        return done

    run(root, lookup, script, options=RunOptions(modes=["single-shot"]))
    for r in records(root, "toy.add.v1", "m1", "single-shot"):
        assert r.usage_basis == UsageBasis.estimated and r.cost_basis == CostBasis.estimated
        prompt_chars = len("You add numbers.") + len(r.request["messages"][0]["content"])
        assert r.usage.input_tokens == -(-prompt_chars // 4)
        assert r.usage.output_tokens == -(-len(r.answer or "") // 4)
        assert r.cost.model_usd > 0


@pytest.mark.parametrize("spelling", ["reference", "baseline"])
def test_baseline_costs_compute_only(edition_factory, lookup, spelling: str) -> None:
    """The reference solver runs in-process at compute cost, spelled `solver: reference` or as
    sealed editions spell it (`provider: baseline`)."""
    root = registered(
        edition_factory,
        lookup,
        models=[model("ref", spelling)],
        workloads=["toy.add.v1", "toy.mul.v1"],
    )
    _, log = run(root, lookup, stub.sum_script)
    assert log == []  # no model was called
    assert not (root / "runs" / "toy.mul.v1").exists()  # no baseline: skipped
    assert not (root / "runs" / "toy.add.v1" / "ref" / "agentic.jsonl").exists()  # runs once
    recs = records(root, "toy.add.v1", "ref", "single-shot")
    assert len(recs) == 4
    for r in recs:
        assert r.status == "completed" and r.cost_basis == "compute" and r.usage_basis == "none"
        assert r.cost.model_usd == 0 and r.calls == []
        assert r.cpu_seconds is not None and r.cpu_seconds > 0
        expected = (Decimal(str(r.cpu_seconds)) * Decimal("0.05") / Decimal(3600)).quantize(
            Decimal("1e-12")
        )
        assert r.cost.compute_usd == expected
        assert r.request["provider"] == "baseline"


def test_window_refusal_and_override(tmp_path: Path, lookup) -> None:
    opens = dt.datetime.now(dt.UTC) - dt.timedelta(days=10)
    root = write_edition(tmp_path / "2026-01", models=[model("m1")], opens=opens)
    register_edition(root, lookup=lookup)
    with pytest.raises(UsageProblem, match="outside its window"):
        run(root, lookup, stub.sum_script)
    assert not (root / "runs").exists()
    run(root, lookup, stub.sum_script, options=RunOptions(allow_outside_window=True))
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    assert recs and all(r.outside_window for r in recs)


def test_the_manual_arms_mode_is_refused_with_the_commands_that_record_it(
    edition_factory, lookup
) -> None:
    """No model runs `by-hand`: asking for it names the manual arm's commands and writes nothing
    (before, the run went through and silently made no cell)."""
    root = registered(edition_factory, lookup, models=[model("m1")])
    with pytest.raises(UsageProblem, match="ledgerrate manual packet"):
        run(root, lookup, stub.sum_script, options=RunOptions(modes=["by-hand"]))
    assert not (root / "runs").exists()
    with pytest.raises(UsageProblem, match="unknown mode 'by-hnad'; this edition has: single-shot"):
        run(root, lookup, stub.sum_script, options=RunOptions(modes=["by-hnad"]))


def test_unregistered_and_drifted_editions_are_refused(edition_factory, lookup) -> None:
    root = edition_factory(models=[model("m1")])
    with pytest.raises(UsageProblem, match="not registered"):
        run(root, lookup, stub.sum_script)
    register_edition(root, lookup=lookup)
    import dataclasses

    from tests.run import toy

    drifted = dataclasses.replace(toy.TOY, prompt_template="changed", generator_sources=())

    with pytest.raises(UsageProblem) as info:
        run(root, lambda w: drifted, stub.sum_script)
    text = str(info.value)
    for name in ("workload hash", "prompt hash", "generator hash"):
        assert name in text
    assert not (root / "runs").exists()


def test_missing_price_and_key_refused_before_any_call(
    edition_factory, lookup, monkeypatch
) -> None:
    # A remote endpoint: a loopback server may run without a key.
    remote = model("m1", base_url="https://api.example.test/v1")
    root = registered(edition_factory, lookup, models=[remote])
    pricing = root / "pricing.yaml"
    original = pricing.read_text()
    pricing.write_text(original.replace("  m1:", "  other:"))
    factory = stub.factory(stub.sum_script)
    quiet = {"console": Console(file=io.StringIO()), "show_progress": False}
    with pytest.raises(UsageProblem, match="no price for model 'm1'"):
        run_edition(root, RunOptions(), lookup=lookup, provider_factory=factory, **quiet)
    pricing.write_text(original)
    monkeypatch.delenv("TOY_API_KEY")
    with pytest.raises(UsageProblem, match="TOY_API_KEY is not set"):
        run_edition(root, RunOptions(), lookup=lookup, provider_factory=factory, **quiet)
    assert factory.log == [] and not (root / "runs").exists()


def test_config_error_stops_the_run(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])

    def script(spec: ModelSpec, request: CompletionRequest, index: int) -> Completion:
        raise ProviderError(f"401 unauthorized for key {SENTINEL_KEY}", status=401)

    with pytest.raises(UsageProblem) as info:
        run(root, lookup, script)
    assert "refused" in str(info.value) and SENTINEL_KEY not in str(info.value)
    assert not (root / "runs" / "toy.add.v1" / "m1" / "single-shot.jsonl").exists()


def test_resume_after_torn_line_and_sittings(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])
    opts = RunOptions(modes=["single-shot"])
    run(root, lookup, stub.sum_script, options=opts)
    path = root / "runs" / "toy.add.v1" / "m1" / "single-shot.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    # simulate a crash: the last record was half-written, the one before it never happened
    path.write_bytes(b"".join(lines[:2]) + lines[3][:40])
    with pytest.warns(TornLineWarning):
        summary, log = run(root, lookup, stub.sum_script, options=opts)
    assert len(log) == 2
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    # The journal shows both lost attempts' requests left: each is accounted as estimated infra
    # spend, then the item runs again.
    lost = [r for r in recs if r.failure == unfinished.FAILURE]
    assert len(lost) == 2 and all(r.status == RunStatus.infra_excluded for r in lost)
    assert len(recs) == 6 and {r.sitting for r in recs} == {1}
    assert [json.loads(line) for line in lines[:2]] == [
        json.loads(line) for line in path.read_bytes().splitlines()[:2]
    ]
    # complete sitting: left alone
    summary, log = run(root, lookup, stub.sum_script, options=opts)
    assert log == [] and "already complete (--new-sitting to re-run)" in summary.lines()[0]
    # new sitting: earlier records kept, new ones in sitting 2 with their own ids
    summary, log = run(
        root, lookup, stub.sum_script, options=RunOptions(modes=["single-shot"], new_sitting=True)
    )
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    assert Counter(r.sitting for r in recs) == {1: 6, 2: 4}
    assert len({r.run_id for r in recs}) == 10


def test_sentinel_key_never_written_or_printed(edition_factory, lookup, capsys) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])

    def leaky(spec: ModelSpec, request: CompletionRequest, index: int) -> Completion:
        if index == 0:
            raise InfraError(f"bad gateway at https://x/?key={SENTINEL_KEY}", raw=SENTINEL_KEY)
        return stub.sum_script(spec, request, index)

    buffer = io.StringIO()
    run_edition(
        root,
        RunOptions(),
        lookup=lookup,
        provider_factory=stub.factory(leaky),
        retry=FAST,
        console=Console(file=buffer),
    )
    written = [p for p in root.rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in written)
    for path in written:
        assert SENTINEL_KEY not in path.read_text(encoding="utf-8", errors="replace"), path
    captured = capsys.readouterr()
    assert SENTINEL_KEY not in buffer.getvalue() + captured.out + captured.err
    assert "[redacted]" in "".join(p.read_text() for p in written if p.suffix == ".jsonl")


def test_window_closing_mid_run_stops_it(edition_factory, lookup) -> None:
    root = registered(edition_factory, lookup, models=[model("m1")])
    from ledgerrate.core.edition import load_edition

    closes = load_edition(root).manifest.window.closes
    # The check, then two attempts (a start and a finish each, in whatever order the event loop
    # interleaves them); every later reading of the clock is past the close.
    ticks = iter([closes - dt.timedelta(minutes=1)] * 5)
    after = closes + dt.timedelta(seconds=1)

    def clock() -> dt.datetime:
        return next(ticks, after)

    opts = RunOptions(modes=["single-shot"], concurrency=1)
    with pytest.raises(UsageProblem, match="window closed"):
        run(root, lookup, stub.sum_script, options=opts, now=clock)
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    assert 1 <= len(recs) < 4 and not any(r.outside_window for r in recs)


def test_baseline_harness_errors_are_infra_not_failures() -> None:
    """A solver that hits a machine fault (a read-only or locked database, a disk error) is an
    infrastructure error to exclude and re-run; a solver bug is a failure that counts."""
    import sqlite3

    from ledgerrate.workloads.reference import is_harness_error

    assert is_harness_error(sqlite3.OperationalError("attempt to write a readonly database"))
    assert is_harness_error(sqlite3.OperationalError("disk I/O error"))
    assert is_harness_error(OSError(28, "No space left on device"))
    assert not is_harness_error(sqlite3.OperationalError("no such table: gl_lines"))
    assert not is_harness_error(KeyError("total"))


def test_baseline_harness_error_is_retried(edition_factory, lookup) -> None:
    import dataclasses
    import sqlite3

    from tests.run import toy

    calls = {"n": 0}

    def flaky(item, dataset):
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        return toy.baseline(item, dataset)

    flaky_add = dataclasses.replace(lookup("toy.add.v1"), baseline=flaky)

    def flaky_lookup(workload_id: str):
        return flaky_add if workload_id == "toy.add.v1" else lookup(workload_id)

    root = registered(
        edition_factory, flaky_lookup, models=[model("ref", "baseline")], workloads=["toy.add.v1"]
    )
    run(root, flaky_lookup, stub.sum_script)
    recs = records(root, "toy.add.v1", "ref", "single-shot")
    statuses = Counter(r.status for r in recs)
    assert statuses[RunStatus.infra_excluded] == 1 and statuses[RunStatus.model_failure] == 0
    assert statuses["completed"] == 4  # the excluded item was re-run and completed


class _SlowStub(stub.StubProvider):
    """A provider that takes DELAY_S per call, so attempts queue for the one request slot."""

    DELAY_S = 0.1

    async def complete(self, request: CompletionRequest) -> Completion:
        await asyncio.sleep(self.DELAY_S)
        return await super().complete(request)


def test_started_at_and_latency_exclude_waiting_for_a_slot(edition_factory, lookup) -> None:
    # One request slot, so each attempt waits while the one before it holds the slot. An
    # attempt starts when its request leaves: the recorded spans follow one another, and no
    # latency holds another attempt's call (before, every queued attempt's span began at the
    # queue and overlapped the one it waited for by a whole call).
    root = registered(edition_factory, lookup, models=[model("m1")])
    calls: list[tuple[str, int]] = []

    def make(spec: ModelSpec, client: Any, api_key: str) -> _SlowStub:
        return _SlowStub(spec, stub.sum_script, calls)

    run_edition(
        root,
        RunOptions(modes=["single-shot"], concurrency=1),
        lookup=lookup,
        provider_factory=make,
        retry=FAST,
        console=Console(file=io.StringIO()),
        show_progress=False,
    )
    recs = sorted(records(root, "toy.add.v1", "m1", "single-shot"), key=lambda r: r.started_at)
    assert len(recs) == 4
    slack = dt.timedelta(milliseconds=10)  # the event loop's own step between two attempts
    for before, after in itertools.pairwise(recs):
        assert after.started_at >= before.finished_at - slack, (before, after)
    # Each call's own clock starts when its request leaves too: a self-hosted model is costed
    # as call time × the instance price, so time spent waiting for a slot would be billed.
    spans = sorted(
        (c.started_at, c.started_at + dt.timedelta(seconds=c.latency_s))
        for r in recs
        for c in r.calls
    )
    assert len(spans) == 4
    for (_, first_end), (second_start, _) in itertools.pairwise(spans):
        assert second_start >= first_end - slack, spans
