"""What a real server does to the runner: prompts longer than the context, answers cut at the
output cap, endpoints that drop tools, and calls slower than the timeout (all over HTTP to the
fake provider on 127.0.0.1)."""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ledgerrate.core.io import read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.metrics.report import edition_results
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import ProbeRecord, RunRecord, RunStatus
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply
from tests.run.runkit import model

FAST = RetryPolicy(base_s=0.001, cap_s=0.01)
OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 2048 tokens. However, you requested "
        "4634 tokens (4122 in the messages, 512 in the completion). Please reduce the length of "
        "the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}


def _records(root: Path, mode: str = "single-shot", model_id: str = "oa") -> list[RunRecord]:
    path = root / "runs" / "toy.add.v1" / model_id / f"{mode}.jsonl"
    return read_jsonl(path, RunRecord) if path.exists() else []


def _every_other() -> Callable[[], bool]:
    """True for every other request, in arrival order. A rule on the items' content (their
    first number odd) left the mix to the seeds, which each registration draws afresh: all six
    items alike one time in 32."""
    arrivals = itertools.count()
    return lambda: next(arrivals) % 2 == 0


def _run(root: Path, lookup: Any, **options: Any) -> tuple[Any, str]:
    out = io.StringIO()
    summary = run_edition(
        root,
        RunOptions(**options),
        lookup=lookup,
        retry=FAST,
        console=Console(file=out, width=200),
        show_progress=False,
    )
    return summary, out.getvalue()


def test_overflowing_items_are_model_failures_and_the_run_goes_on(edition_factory, lookup):
    overflows = _every_other()

    def responder(_family: str, _body: dict[str, Any]) -> FakeReply | None:
        # Every other item "does not fit": the rest are answered.
        return FakeReply(status=400, raw=OVERFLOW) if overflows() else None

    with FakeProviderServer(responder=responder) as fake:
        root = edition_factory(models=[model("oa", base_url=fake.base_url("openai"))], n=6)
        register_edition(root, lookup=lookup)
        summary, _out = _run(root, lookup, modes=["single-shot"])
    recs = _records(root)
    assert summary.missing == 0 and len(recs) == 6  # nothing stopped, nothing left missing
    over = [r for r in recs if r.status == RunStatus.model_failure]
    fine = [r for r in recs if r.status == "completed"]
    assert len(over) == len(fine) == 3
    for r in over:
        assert r.failure is not None and r.failure.startswith("context_exceeded: ")
        assert "4,634 tokens" in r.failure and "context is 2,048 tokens" in r.failure
        assert "characters" in r.failure  # the request's size as sent, too
        assert r.attempt == 1  # never re-run
    cell = edition_results(root, lookup=_meta(lookup)).workloads[0].cells[0]
    assert cell.context_exceeded == len(over) and cell.truncated == 0


def test_an_answer_cut_at_the_cap_is_recorded_truncated(edition_factory, lookup):
    cuts = _every_other()

    def responder(_family: str, _body: dict[str, Any]) -> FakeReply | None:
        if cuts():
            return FakeReply(text="The sum is", finish_reason="length")
        return None

    with FakeProviderServer(responder=responder) as fake:
        root = edition_factory(
            models=[model("oa", base_url=fake.base_url("openai"), max_output_tokens=512)], n=6
        )
        register_edition(root, lookup=lookup)
        _run(root, lookup, modes=["single-shot"])
    recs = _records(root)
    cut = [r for r in recs if r.status == RunStatus.model_failure]
    assert len(cut) == 3 and len(recs) == 6
    for r in cut:
        assert r.failure is not None and r.failure.startswith("truncated: ")
        assert "cap of 512 tokens" in r.failure and "'length'" in r.failure
        assert r.answer == "The sum is"  # what the model wrote is kept, byte for byte
    cell = edition_results(root, lookup=_meta(lookup)).workloads[0].cells[0]
    assert cell.truncated == len(cut) and cell.model_failures == len(cut)


def test_an_endpoint_that_drops_tools_has_its_agentic_cells_refused(edition_factory, lookup):
    with FakeProviderServer(drops_tools=True) as fake:
        root = edition_factory(
            models=[model("oa", api_model="fake-tool", base_url=fake.base_url("openai"))], n=2
        )
        register_edition(root, lookup=lookup)
        summary, out = _run(root, lookup)
        probes = fake.probe_requests
    assert len(probes) == 2  # once without, once with the tool
    assert "tools" not in probes[0].body and "tools" in probes[1].body
    assert not _records(root, "agentic")  # not one agentic request was sent
    assert len(_records(root, "single-shot")) == 2  # the single-shot cell ran
    (refused,) = summary.refused
    assert refused.mode == "agentic"
    assert "does not hand tools" in refused.refused and "chatml-function-calling" in out
    (probe,) = read_jsonl(root / "probes" / "oa.jsonl", ProbeRecord)
    assert not probe.tools_received and probe.spend == "infrastructure"
    assert probe.cost.total_usd > 0 and len(probe.calls) == 2
    assert "left undone: 2 item(s)" in summary.left()


def test_a_tool_capable_endpoint_passes_the_probe(edition_factory, lookup):
    with FakeProviderServer() as fake:
        root = edition_factory(
            models=[model("oa", api_model="fake-tool", base_url=fake.base_url("openai"))], n=2
        )
        register_edition(root, lookup=lookup)
        summary, out = _run(root, lookup, modes=["agentic"])
    assert not summary.refused and len(_records(root, "agentic")) == 2
    (probe,) = read_jsonl(root / "probes" / "oa.jsonl", ProbeRecord)
    assert probe.tools_received and "called record_token" in probe.evidence
    assert "tools probe of oa: tools reach the model" in out


@pytest.mark.parametrize("family", ["openai", "openai-responses", "anthropic", "gemini"])
def test_the_probe_sees_tools_behind_a_translating_gateway(edition_factory, lookup, family):
    """LiteLLM's Anthropic and Gemini routes pass no tool choice on unless the request names
    one, and llama-cpp-python behind them then drops the tools: every adapter names the
    documented default, so the probe sees the tools and the agentic cell runs."""
    with FakeProviderServer(needs_tool_choice=True) as fake:
        root = edition_factory(
            models=[model("oa", family, api_model="fake-tool", base_url=fake.base_url(family))],
            n=2,
        )
        register_edition(root, lookup=lookup)
        summary, out = _run(root, lookup, modes=["agentic"])
        sent = fake.requests
    (probe,) = read_jsonl(root / "probes" / "oa.jsonl", ProbeRecord)
    assert probe.tools_received, probe.evidence
    assert not summary.refused and len(_records(root, "agentic")) == 2, out
    assert all(r.status == RunStatus.completed for r in _records(root, "agentic"))
    assert any(fake_tool_call(family, r.body) for r in sent)


def fake_tool_call(family: str, body: dict[str, Any]) -> bool:
    """Whether a request carried a tool result back (the model's call was run)."""
    from ledgerrate.testing.fake_shapes import tool_results

    return bool(tool_results(family, body))


def test_timeouts_are_bounded_and_the_run_names_what_is_left(edition_factory, lookup):
    with FakeProviderServer(slow_s=3) as fake:
        root = edition_factory(
            models=[
                model("oa", api_model="fake-slow", base_url=fake.base_url("openai"), timeout_s=0.2)
            ],
            n=2,
        )
        register_edition(root, lookup=lookup)
        _summary, out = _run(root, lookup, modes=["single-shot"])
    recs = _records(root)
    assert len(recs) == 2 * FAST.max_timeouts  # two tries per item, not max_attempts
    assert all(r.status == RunStatus.infra_excluded for r in recs)
    assert all("raise models[oa].timeout_s" in (r.failure or "") for r in recs)
    last = out.strip().splitlines()[-1]
    assert last.startswith("left undone: 2 item(s): toy.add.v1/oa/single-shot: item-00, item-01")
    assert "repeated timeouts at 0.2 s: raise models[oa].timeout_s in edition.yaml" in last


def _meta(lookup: Any) -> Any:
    from ledgerrate.metrics.meta import WorkloadMeta

    def meta(workload_id: str) -> Any:
        w = lookup(workload_id)
        return WorkloadMeta(w.id, w.title, w.unit, w.volume, w.judged, tuple(w.modes))

    return meta
