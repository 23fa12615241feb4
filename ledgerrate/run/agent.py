"""One attempt of one item: a single request, or the agentic tool loop (standard §3).

Every call is priced as it happens and kept, including calls of attempts that later fail, so
spend is never lost from the record. What went wrong decides the status: infra trouble excludes
the attempt (the scheduler re-runs it), the model's own trouble is a model failure (never
retried), and a configuration error stops the run. Nothing here grades.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    ContextExceeded,
    InfraError,
    Message,
    ModelError,
    ProviderError,
    TimedOut,
    Unreachable,
)
from ledgerrate.run.calls import Complete, prompt_chars, recorded_call
from ledgerrate.schema import (
    AgentStep,
    CallRecord,
    ModelSpec,
    PricingTable,
    RunStatus,
    ToolCall,
    ToolResult,
)
from ledgerrate.workloads.base import (
    Dataset,
    Item,
    Prompt,
    ToolError,
    Toolset,
    ToolSpec,
    Workload,
)
from ledgerrate.workloads.toolsets import end_state, item_toolset

MAX_STEPS = 25  # standard §3: exceeding it is a failure
# Reason codes that open a model failure's text (`RunRecord.failure`), read back by the metrics.
CONTEXT_EXCEEDED = "context_exceeded"
TRUNCATED = "truncated"

# An adapter's `request_body`: the exact JSON it sends (never holding the key).
BodyFn = Callable[[CompletionRequest], dict[str, Any]]


@dataclass
class Attempt:
    """What one attempt produced, before it becomes a RunRecord."""

    status: RunStatus
    request: dict[str, Any]
    calls: list[CallRecord] = field(default_factory=list)
    steps: list[AgentStep] = field(default_factory=list)
    answer: str | None = None
    tool_state: dict[str, Any] | None = None
    failure: str | None = None
    retry_after: float | None = None
    rate_limited: bool = False
    # The call got no complete reply within the model's timeout_s.
    timed_out: bool = False
    # The request never reached a server (refused, DNS, TLS): the one-line cause and remedy.
    unreachable: str | None = None
    # Set when the provider refused our configuration (bad key, unknown model): stops the run.
    config_error: ProviderError | None = None


class _Stop(Exception):
    """An attempt ends early with `attempt` filled in."""


def request_body(
    spec: ModelSpec, request: CompletionRequest, body: BodyFn | None = None
) -> dict[str, Any]:
    """The first request as stored in the record: the adapter's wire body when it can tell us,
    else a family-neutral form. Neither holds credentials (keys travel in headers or the URL,
    and the scheduler redacts the record as a second lock)."""
    if body is not None:
        try:
            return body(request)
        except (ProviderError, ValueError):
            pass  # the call itself will fail the same way and say why
    return {
        "model": spec.api_model,
        "provider": spec.provider,
        "system": request.system,
        "messages": [_message_json(m) for m in request.messages],
        "tools": [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in request.tools or []
        ],
        "sampling": dict(spec.sampling),
        "max_output_tokens": spec.max_output_tokens,
    }


def _message_json(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [c.model_dump(mode="json") for c in message.tool_calls]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
        data["is_error"] = message.is_error
    return data


async def _call(
    complete: Complete,
    request: CompletionRequest,
    step: int,
    pricing: PricingTable,
    model_id: str,
    attempt: Attempt,
    max_output: int = 0,
) -> Completion:
    """One priced, recorded call. Raises _Stop with `attempt` set when the attempt is over."""
    done = await recorded_call(complete, request, step, pricing, model_id)
    attempt.calls.append(done.record)
    exc, completion = done.failure, done.completion
    if completion is None:
        if isinstance(exc, ContextExceeded):
            attempt.status = RunStatus.model_failure
            attempt.failure = context_failure(exc, prompt_chars(request))
        elif isinstance(exc, ModelError):
            attempt.status = RunStatus.model_failure
            attempt.failure = f"model_error: {exc}"
        elif isinstance(exc, (InfraError, httpx.TimeoutException, httpx.TransportError)):
            status = exc.status if isinstance(exc, ProviderError) else None
            attempt.status = RunStatus.infra_excluded
            attempt.failure = f"infra: {type(exc).__name__}: {exc}"
            attempt.retry_after = getattr(exc, "retry_after", None)
            attempt.rate_limited = status == 429 or type(exc).__name__ == "RateLimited"
            attempt.timed_out = isinstance(exc, (TimedOut, httpx.TimeoutException))
            attempt.unreachable = str(exc) if isinstance(exc, Unreachable) else None
        else:
            attempt.config_error = exc
            attempt.failure = f"config: {exc}"
        raise _Stop from None
    if completion.truncated:
        # Cut off at the output cap: what the model wrote is kept as its answer, but the
        # attempt is a model failure, so a cut-off answer never reads as a normal completion.
        attempt.status = RunStatus.model_failure
        attempt.failure = (
            f"{TRUNCATED}: the output stopped at the cap of {max_output} tokens "
            f"(finish reason {completion.finish_reason!r}, "
            f"{done.record.usage.output_tokens} output tokens)"
        )
        attempt.steps.append(AgentStep(step=step, text=completion.text))
        attempt.answer = completion.text
        raise _Stop
    return completion


def context_failure(exc: ContextExceeded, chars: int) -> str:
    """The failure text of a request too long for the model: its reason code first, then the
    request's size (in tokens when the server counted them, always in characters) and the
    context the server declared."""
    size = f"{chars:,} characters"
    if exc.requested_tokens is not None:
        size = f"{exc.requested_tokens:,} tokens ({size})"
    context = (
        f"the model's context is {exc.context_tokens:,} tokens"
        if exc.context_tokens is not None
        else "the server gave no context size"
    )
    return f"{CONTEXT_EXCEEDED}: the request is {size}; {context} ({exc})"


async def single_shot(
    complete: Complete,
    spec: ModelSpec,
    prompt: Prompt,
    pricing: PricingTable,
    body: BodyFn | None = None,
) -> Attempt:
    request = CompletionRequest(system=prompt.system, messages=[Message("user", prompt.user)])
    attempt = Attempt(status=RunStatus.completed, request=request_body(spec, request, body))
    try:
        completion = await _call(
            complete, request, 0, pricing, spec.id, attempt, spec.max_output_tokens
        )
    except _Stop:
        return attempt
    attempt.steps.append(AgentStep(step=0, text=completion.text))
    return _finish(attempt, completion.text)


def _finish(attempt: Attempt, text: str) -> Attempt:
    if not text.strip():
        attempt.status = RunStatus.model_failure
        attempt.failure = "empty_answer"
        attempt.answer = text
        return attempt
    attempt.answer = text
    return attempt


async def run_tool(tools: dict[str, ToolSpec], call: ToolCall) -> ToolResult:
    """Run one tool call; any failure becomes an error the model reads, never a crash."""
    spec = tools.get(call.name)
    if spec is None:
        known = ", ".join(sorted(tools)) or "none"
        return ToolResult(
            call=call, ok=False, output=f"error: no tool named {call.name!r}; available: {known}"
        )
    try:
        output = await asyncio.to_thread(spec.run, dict(call.arguments))
    except ToolError as exc:
        return ToolResult(call=call, ok=False, output=f"error: {exc}")
    except Exception as exc:  # a tool bug must not end the run; the model sees it failed
        return ToolResult(
            call=call, ok=False, output=f"error: the tool failed ({type(exc).__name__}: {exc})"
        )
    return ToolResult(call=call, ok=True, output=str(output))


async def agentic(
    complete: Complete,
    spec: ModelSpec,
    prompt: Prompt,
    pricing: PricingTable,
    toolset: Toolset,
    max_steps: int = MAX_STEPS,
    body: BodyFn | None = None,
) -> Attempt:
    """The tool loop: at most `max_steps` model calls; still calling tools after that fails."""
    tools = {t.name: t for t in toolset.tools}
    messages = [Message("user", prompt.user)]
    first = CompletionRequest(system=prompt.system, messages=list(messages), tools=toolset.tools)
    attempt = Attempt(status=RunStatus.completed, request=request_body(spec, first, body))
    try:
        for step in range(max_steps):
            request = CompletionRequest(
                system=prompt.system, messages=list(messages), tools=toolset.tools
            )
            completion = await _call(
                complete, request, step, pricing, spec.id, attempt, spec.max_output_tokens
            )
            if not completion.tool_calls:
                attempt.steps.append(AgentStep(step=step, text=completion.text))
                attempt.tool_state = toolset.state()
                return _finish(attempt, completion.text)
            results = [await run_tool(tools, call) for call in completion.tool_calls]
            attempt.steps.append(AgentStep(step=step, text=completion.text, tool_results=results))
            messages.append(
                Message(
                    "assistant",
                    completion.text,
                    tool_calls=list(completion.tool_calls),
                    raw=completion.raw,
                )
            )
            messages.extend(
                Message(
                    "tool",
                    r.output,
                    tool_call_id=r.call.id,
                    tool_name=r.call.name,
                    is_error=not r.ok,
                )
                for r in results
            )
    except _Stop:
        attempt.tool_state = end_state(toolset)
        return attempt
    attempt.status = RunStatus.model_failure
    attempt.failure = "step_cap"
    attempt.tool_state = end_state(toolset)
    return attempt


async def agentic_in_sandbox(
    complete: Complete,
    spec: ModelSpec,
    prompt: Prompt,
    pricing: PricingTable,
    task: tuple[Workload, Item, Dataset],
    body: BodyFn | None = None,
) -> Attempt:
    """The tool loop inside a fresh temporary folder, removed afterwards, whatever happens."""
    workload, item, dataset = task
    with item_toolset(workload, item, dataset) as toolset:
        return await agentic(complete, spec, prompt, pricing, toolset, body=body)
