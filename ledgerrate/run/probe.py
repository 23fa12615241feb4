"""Does the endpoint really hand the tools to the model? Asked once per model per run, before its
first agentic cell.

An OpenAI-compatible server whose chat template has no place for tools (llama-cpp-python with
`--chat_format chatml`, for one) accepts a request with `tools` and ignores them: same prompt
tokens, same answer, and an "agentic" cell that was single-shot. So the same trivial question is
sent twice, without and with one tool. The tools reach the model when the reply with the tool
calls it, or when the reported prompt grew by the tool's definition; otherwise the model's
agentic cells are refused with the evidence. The probe's spend is infrastructure, recorded in
`probes/<model>.jsonl`, never in a cell.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers.base import Completion, CompletionRequest, Message
from ledgerrate.run.calls import Complete, recorded_call
from ledgerrate.run.rawlog import seal_call
from ledgerrate.schema import (
    CallRecord,
    Cost,
    ModelSpec,
    PricingTable,
    ProbeRecord,
    Usage,
)

TOKEN = "ledgerrate-probe-7"
TOOL = ToolSpec(
    name="record_token",
    description="Records the token you were given. Call it with that token.",
    parameters={
        "type": "object",
        "properties": {"token": {"type": "string", "description": "The token to record."}},
        "required": ["token"],
    },
    run=lambda _args: "recorded",
)
SYSTEM = "You are checking that tool calling works. Use the tool when one is offered."
USER = f'Call the tool record_token with the token "{TOKEN}".'


@dataclass(frozen=True)
class ProbeResult:
    record: ProbeRecord

    @property
    def ok(self) -> bool:
        return self.record.tools_received

    def line(self) -> str:
        verdict = "tools reach the model" if self.ok else "tools do NOT reach the model"
        return (
            f"tools probe of {self.record.model}: {verdict} ({self.record.evidence}); "
            f"{self.record.cost.total_usd} USD infrastructure spend"
        )


async def _one(
    complete: Complete,
    request: CompletionRequest,
    step: int,
    spec: ModelSpec,
    pricing: PricingTable,
    secrets: list[str],
) -> tuple[CallRecord, Completion | None]:
    """One probe call, recorded as an attempt's call is; unreported usage stays unknown (the
    probe is infrastructure, never estimated into a figure), and a failed call's text is sealed
    against the keys as a run record's is."""
    done = await recorded_call(complete, request, step, pricing, spec.id, estimate_unreported=False)
    return seal_call(done.record, secrets), done.completion


def _prompt_tokens(usage: Usage | None) -> int | None:
    if usage is None:
        return None
    return usage.input_tokens + usage.cached_input_tokens + usage.cache_write_tokens


def judge(bare: Completion | None, tooled: Completion | None) -> tuple[bool, str]:
    """Whether the tools reached the model, and the evidence in one line."""
    if tooled is None or bare is None:
        return False, "a probe call failed, so tool support could not be shown"
    if any(call.name == TOOL.name for call in tooled.tool_calls):
        return True, f"the model called {TOOL.name} when it was offered"
    without, with_tool = _prompt_tokens(bare.usage), _prompt_tokens(tooled.usage)
    if without is not None and with_tool is not None:
        if with_tool > without:
            return True, (
                f"the prompt grew from {without} to {with_tool} tokens with one tool attached"
            )
        return False, (
            f"the prompt was {without} tokens without and {with_tool} with a tool attached, and "
            "no tool was called: the server drops `tools` (start it with a tool-capable chat "
            "format, e.g. llama-cpp-python's chatml-function-calling)"
        )
    return False, "no tool was called and the server reports no usage to compare"


async def probe_tools(
    complete: Complete,
    spec: ModelSpec,
    edition: str,
    pricing: PricingTable,
    secrets: list[str],
) -> ProbeResult:
    """Send the probe (without, then with the tool) and judge it."""
    started = dt.datetime.now(dt.UTC)
    bare_request = CompletionRequest(system=SYSTEM, messages=[Message("user", USER)])
    tool_request = CompletionRequest(system=SYSTEM, messages=[Message("user", USER)], tools=[TOOL])
    first, bare = await _one(complete, bare_request, 0, spec, pricing, secrets)
    second, tooled = await _one(complete, tool_request, 1, spec, pricing, secrets)
    received, evidence = judge(bare, tooled)
    calls = [first, second]
    return ProbeResult(
        ProbeRecord(
            edition=edition,
            model=spec.id,
            started_at=started,
            tools_received=received,
            evidence=evidence,
            calls=calls,
            usage=sum((c.usage for c in calls), Usage()),
            cost=sum((c.cost for c in calls), Cost()),
        )
    )
