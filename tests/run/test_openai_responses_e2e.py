"""The built-in Responses family (`provider: openai-responses`) end to end against the fake
provider: `register`, `run` (both modes, tools probe included) and `grade` on a tiny edition,
every request a `POST /v1/responses` with `store: false`, the agentic loop carried by
`function_call` / `function_call_output` items, usage read back from the Responses accounting,
and the model failures (a refusal, a reply cut at `max_output_tokens`) recorded as such."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from rich.console import Console

from ledgerrate.core.io import read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.grade.stage import grade_edition
from ledgerrate.providers import families
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import RunRecord, Usage
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply, FakeToolCall
from tests.run import toy
from tests.run.runkit import SENTINEL_KEY, model, price

NAME = "openai-responses"
FAST = RetryPolicy(base_s=0.001, cap_s=2.0)
ADD = re.compile(r"Add (\d+) and (\d+)")
WIRE = families.get(NAME).fake


def _adds(family: str, body: dict[str, Any]) -> FakeReply | None:
    """A model that adds correctly: with tools, it calls `add` once and then reports its result."""
    assert family == NAME
    a, b = map(int, ADD.findall(str(body["input"]))[0])
    results = WIRE.tool_results(body)
    if results:
        return FakeReply(text=results[-1])
    if "add" in WIRE.declared_tools(body):
        return FakeReply(text="", tool_calls=[FakeToolCall("add", {"a": a, "b": b})])
    return FakeReply(text=str(a + b))


def _run(edition_factory: Any, fake: FakeProviderServer, n: int = 2) -> tuple[Path, Any]:
    root = edition_factory(
        models=[model("r1", NAME, api_model="resp-small", base_url=fake.base_url(NAME))],
        prices={"r1": price("1.00", "4.00")},
        n=n,
    )
    register_edition(root, lookup=toy.lookup)
    summary = run_edition(
        root,
        RunOptions(),
        lookup=toy.lookup,
        retry=FAST,
        console=Console(file=io.StringIO()),
        show_progress=False,
    )
    return root, summary


def _records(root: Path) -> list[RunRecord]:
    return [r for p in sorted((root / "runs").rglob("*.jsonl")) for r in read_jsonl(p, RunRecord)]


def test_register_run_and_grade_through_the_responses_api(
    edition_factory: Any, private_dir: Path
) -> None:
    with FakeProviderServer(responder=_adds) as fake:
        root, summary = _run(edition_factory, fake)
        sent = fake.requests
        probes = fake.probe_requests
    assert summary.missing == 0
    assert sent and all(r.family == NAME and r.path == "/v1/responses" for r in sent)
    assert all(r.headers["authorization"] == f"Bearer {SENTINEL_KEY}" for r in sent)
    assert all(r.body["store"] is False and "previous_response_id" not in r.body for r in sent)
    # The probe was answered in the Responses format and saw its tool called.
    assert probes and all(r.family == NAME for r in probes)

    records = _records(root)
    assert {r.mode for r in records} == {"single-shot", "agentic"}
    assert len(records) == 4 and all(r.status == "completed" for r in records)
    per_call = WIRE.default_usage
    assert per_call == Usage(
        input_tokens=1000, cached_input_tokens=200, output_tokens=300, reasoning_tokens=100
    )
    for r in records:
        assert r.usage == sum([per_call] * len(r.calls), Usage())
        assert r.cost.model_usd > 0
    agentic = [r for r in records if r.mode == "agentic"]
    assert all(len(r.calls) == 2 for r in agentic)
    assert all(t.call.name == "add" for r in agentic for s in r.steps for t in s.tool_results)
    # The second call of each loop sent the call back and answered it by its call_id.
    followups = [r.body for r in sent if WIRE.tool_results(r.body)]
    assert len(followups) == len(agentic)
    for body in followups:
        calls = [i for i in body["input"] if i.get("type") == "function_call"]
        outputs = [i for i in body["input"] if i.get("type") == "function_call_output"]
        assert [c["call_id"] for c in calls] == [o["call_id"] for o in outputs]

    graded = grade_edition(root, lookup=toy.lookup, show_progress=False)
    assert (graded.passed, graded.failed) == (4, 0)


def _refuses_or_runs_out(family: str, body: dict[str, Any]) -> FakeReply | None:
    """Refuses every single-shot item (a `refusal` content part) and runs out of output tokens
    on every agentic one."""
    if WIRE.declared_tools(body):
        return FakeReply(text="Let me think about 3", finish_reason="max_output_tokens")
    return FakeReply(
        raw={
            "id": "resp_refused",
            "object": "response",
            "status": "completed",
            "error": None,
            "incomplete_details": None,
            "model": body["model"],
            "output": [
                {
                    "type": "message",
                    "id": "msg_refused",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "refusal", "refusal": "I can't help with that."}],
                }
            ],
            "usage": WIRE.usage_wire(Usage(input_tokens=40, output_tokens=8)),
        }
    )


def test_refusals_and_cut_off_answers_are_the_models_failures(
    edition_factory: Any, private_dir: Path
) -> None:
    with FakeProviderServer(responder=_refuses_or_runs_out) as fake:
        root, summary = _run(edition_factory, fake)
    assert summary.missing == 0
    records = _records(root)
    assert len(records) == 4 and all(r.status == "model-failure" for r in records)
    single = [r for r in records if r.mode == "single-shot"]
    assert all("refusal" in (r.failure or "") for r in single)
    # A refusal still costs what it used.
    assert all(r.usage == Usage(input_tokens=40, output_tokens=8) for r in single)
    agentic = [r for r in records if r.mode == "agentic"]
    assert all(len(r.calls) == 1 and r.usage.output_tokens > 0 for r in agentic)
    assert all(
        (r.failure or "").startswith("truncated") and "'max_output_tokens'" in (r.failure or "")
        for r in agentic
    )
    assert all(r.answer == "Let me think about 3" for r in agentic)
