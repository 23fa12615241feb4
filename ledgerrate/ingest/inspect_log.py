"""Inspect AI eval logs (`.eval` or `.json`), read with Inspect's own reader, as `Incoming`.

Per sample: the prompt as the first model call received it, each model call with its own usage
(input, output, cache read/write and reasoning tokens: Inspect's input count already excludes
cached tokens, as LedgerRate's does), the agent's steps from the conversation, the final answer
and, for LedgerRate's agentic tasks, the tools' end state. Whatever the log says a call cost is
ignored: `admit` prices the usage at the edition's frozen prices.

What Inspect recorded as a sample error (a provider's 429/5xx after Inspect's own retries, a
timeout, a harness fault) becomes an infrastructure exclusion, never a model failure; a limit the
sample hit (messages, tokens, time) or LedgerRate's 25-step cap is a model failure, as in `run`.

A log of several epochs (`--epochs N`) is refused whole: the standard runs each item once per
sitting, and which epoch was meant as which sitting is nowhere in the log.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ModelUsage,
)

from ledgerrate.core.cost import estimate_usage
from ledgerrate.core.errors import UsageProblem
from ledgerrate.harness.metadata import METADATA_KEY, RUN_KEY, STEP_CAP_KEY, TOOL_STATE_KEY
from ledgerrate.ingest.incoming import Incoming, LogInfo
from ledgerrate.schema import (
    AgentStep,
    CallRecord,
    RunStatus,
    ToolCall,
    ToolResult,
    Usage,
    UsageBasis,
)
from ledgerrate.workloads.base import Prompt

# Inspect's stop reasons that mean the answer was cut at the output cap.
CUT = frozenset({"max_tokens", "model_length"})


def read_log(path: Path, sha256: str) -> list[Incoming]:
    try:
        log = read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # Inspect raises several types for a file it cannot read
        raise UsageProblem(f"{path}: {_unreadable(path, exc)}") from None
    epochs = max([log.eval.config.epochs or 1, *(s.epoch for s in log.samples or [])])
    if epochs > 1:
        raise UsageProblem(
            f"{path}: a log of {epochs} epochs (inspect eval --epochs {epochs}): the standard runs "
            "each item once per sitting and never pools attempts, so it cannot be ingested; run "
            "`inspect eval` once per sitting without --epochs and ingest each log (--new-sitting "
            "for the second and later)"
        )
    info = LogInfo(
        path_name=path.name,
        sha256=sha256,
        harness="inspect_ai",
        harness_version=log.eval.packages.get("inspect_ai"),
        eval_id=log.eval.eval_id or None,
        task=log.eval.task,
    )
    return [_incoming(log, sample, info) for sample in log.samples or []]


def _unreadable(path: Path, exc: Exception) -> str:
    """Why Inspect could not read the file, and what to do about it."""
    if path.suffix == ".jsonl":
        return "a .jsonl file is read as run records with --format jsonl, not as an Inspect log"
    if path.stat().st_size == 0:
        return "the file is empty; point ingest at the log Inspect wrote (its --log-dir)"
    return (
        f"not an Inspect eval log Inspect can read ({type(exc).__name__}: "
        f"{str(exc).splitlines()[0] if str(exc) else 'no detail'}): the file is damaged or cut "
        "short (copied before Inspect finished writing it?); copy it again from Inspect's "
        "--log-dir, or check it with `inspect log dump FILE`"
    )


def _usage(usage: ModelUsage) -> Usage:
    return Usage(
        input_tokens=usage.input_tokens,
        cached_input_tokens=usage.input_tokens_cache_read or 0,
        cache_write_tokens=usage.input_tokens_cache_write or 0,
        output_tokens=usage.output_tokens,
        reasoning_tokens=usage.reasoning_tokens or 0,
    )


def _chars(messages: list[ChatMessage]) -> int:
    return sum(len(m.text) for m in messages)


def _parse_time(value: Any) -> dt.datetime | None:
    if value is None:
        return None
    moment = value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _call(event: ModelEvent, step: int) -> CallRecord:
    started = _parse_time(event.timestamp) or dt.datetime.now(dt.UTC)
    finished = _parse_time(event.completed)
    latency = event.working_time
    if latency is None:
        latency = (finished - started).total_seconds() if finished else 0.0
    response: Any = None
    if event.call is not None and event.call.response is not None:
        response = event.call.response
    elif event.error is None:
        response = event.output.model_dump(mode="json", exclude_none=True)
    if event.error is not None:
        return CallRecord(
            step=step,
            started_at=started,
            latency_s=max(latency, 0.0),
            response=response,
            error=event.error.splitlines()[0] if event.error else "error",
            usage=Usage(),
            usage_basis=UsageBasis.none,
        )
    if event.output.usage is None:
        usage = estimate_usage(_chars(event.input), len(event.output.completion))
        basis = UsageBasis.estimated
    else:
        usage, basis = _usage(event.output.usage), UsageBasis.provider_reported
    return CallRecord(
        step=step,
        started_at=started,
        latency_s=max(latency, 0.0),
        response=response,
        usage=usage,
        usage_basis=basis,
    )


def _calls(sample: EvalSample) -> list[CallRecord]:
    events = [e for e in sample.events if isinstance(e, ModelEvent)]
    if events:
        return [_call(event, step) for step, event in enumerate(events)]
    # A log written without events still has the sample's total usage per model.
    return [
        CallRecord(
            step=0,
            started_at=_parse_time(sample.started_at) or dt.datetime.now(dt.UTC),
            latency_s=sample.total_time or 0.0,
            usage=_usage(usage),
        )
        for usage in sample.model_usage.values()
    ]


def _sent(messages: list[ChatMessage]) -> Prompt | None:
    """The prompt as sent: the system message (if any) and the first user message, in order."""
    system = ""
    rest = list(messages)
    if rest and isinstance(rest[0], ChatMessageSystem):
        system = rest.pop(0).text
    if not rest or not isinstance(rest[0], ChatMessageUser):
        return None
    return Prompt(system=system, user=rest[0].text)


def _steps(messages: list[ChatMessage]) -> list[AgentStep]:
    results: dict[str, ChatMessageTool] = {
        m.tool_call_id: m for m in messages if isinstance(m, ChatMessageTool) and m.tool_call_id
    }
    steps = []
    for number, message in enumerate(m for m in messages if isinstance(m, ChatMessageAssistant)):
        tool_results = []
        for call in message.tool_calls or []:
            reply = results.get(call.id)
            ok = reply is not None and reply.error is None
            if reply is None:
                output = "error: no tool result recorded"
            elif reply.error is not None:
                output = f"error: {reply.error.message}"
            else:
                output = reply.text
            tool_results.append(
                ToolResult(
                    call=ToolCall(id=call.id, name=call.function, arguments=dict(call.arguments)),
                    ok=ok,
                    output=output,
                )
            )
        steps.append(AgentStep(step=number, text=message.text, tool_results=tool_results))
    return steps


def _request(log: EvalLog, sample: EvalSample, first: ModelEvent | None) -> dict[str, Any]:
    """The first request: the provider's own body when Inspect kept it, else its messages."""
    if first is not None and first.call is not None:
        return dict(first.call.request)
    messages = first.input if first is not None else sample.messages
    return {
        "model": log.eval.model,
        "provider": "inspect_ai",
        "messages": [m.model_dump(mode="json", exclude_none=True) for m in messages],
        "tools": [
            t.model_dump(mode="json", exclude_none=True) for t in (first.tools if first else [])
        ],
        "config": log.eval.model_generate_config.model_dump(mode="json", exclude_none=True),
    }


def _status(sample: EvalSample) -> tuple[RunStatus, str | None]:
    if sample.error is not None:
        first_line = (sample.error.message or "error").strip().splitlines()[0]
        return RunStatus.infra_excluded, f"infra: Inspect recorded an error: {first_line}"
    if sample.store.get(STEP_CAP_KEY):
        return RunStatus.model_failure, "step_cap"
    if sample.limit is not None:
        return (
            RunStatus.model_failure,
            f"limit: the sample hit Inspect's {sample.limit.type} limit ({sample.limit.limit})",
        )
    stop = sample.output.stop_reason if sample.output.choices else None
    if stop in CUT:
        tokens = sample.output.usage.output_tokens if sample.output.usage else "?"
        return (
            RunStatus.model_failure,
            f"truncated: the output stopped at the cap (stop reason {stop!r}, {tokens} output "
            "tokens)",
        )
    if not sample.output.completion.strip():
        return RunStatus.model_failure, "empty_answer"
    return RunStatus.completed, None


def _incoming(log: EvalLog, sample: EvalSample, info: LogInfo) -> Incoming:
    key = sample.metadata.get(METADATA_KEY)
    claims: dict[str, Any] = key if isinstance(key, dict) else {}
    events = [e for e in sample.events if isinstance(e, ModelEvent)]
    first = events[0] if events else None
    started = _parse_time(sample.started_at) or (_parse_time(first.timestamp) if first else None)
    finished = _parse_time(sample.completed_at)
    if finished is None and started is not None and sample.total_time is not None:
        finished = started + dt.timedelta(seconds=sample.total_time)
    status, failure = _status(sample)
    failure = _own_failure(sample, status, failure)
    tool_state = sample.store.get(TOOL_STATE_KEY)
    latency = sample.total_time
    if latency is None:
        latency = (finished - started).total_seconds() if started and finished else 0.0
    return Incoming(
        log=info,
        sample=f"{sample.id}#{sample.epoch}",
        edition=_text(claims.get("edition")),
        workload=_text(claims.get("workload")),
        item_id=_text(claims.get("item_id")),
        mode=_text(claims.get("mode")),
        model_name=log.eval.model,
        model_id=_text(claims.get("model")),
        sent=[
            p
            for p in (_sent(first.input) if first else None, _sent(sample.messages))
            if p is not None
        ],
        prompt_hash=_text(claims.get("prompt_hash")),
        started_at=started,
        finished_at=finished,
        latency_s=max(latency, 0.0),
        status=status,
        failure=failure,
        request=_request(log, sample, first),
        calls=_calls(sample),
        steps=_steps(sample.messages),
        answer=sample.output.completion if sample.output.choices else None,
        tool_state=tool_state if isinstance(tool_state, dict) else None,
        uuid=sample.uuid,
        settings=_settings(events),
    )


def _own_failure(sample: EvalSample, status: RunStatus, failure: str | None) -> str | None:
    """A log `ledgerrate export` wrote names the run's own failure (`truncated: … the cap of
    1,024 tokens`, `model_error: …`), which Inspect's fields can only paraphrase: that text is
    kept, but only for the status the log itself shows; the status is never taken from it."""
    own = sample.metadata.get(RUN_KEY)
    if not isinstance(own, dict) or failure is None:
        return failure
    text = own.get("failure")
    if own.get("status") == status.value and isinstance(text, str) and text.strip():
        return text
    return failure


def _settings(events: list[ModelEvent]) -> list[tuple[str, dict[str, Any]]]:
    """Each call's settings as Inspect's config states them and as the provider body sent them."""
    found: list[tuple[str, dict[str, Any]]] = []
    for number, event in enumerate(events):
        config = event.config.model_dump(exclude_none=True)
        found.append((f"call {number}'s generate config", config))
        if event.call is not None:
            found.append((f"call {number}'s request body", dict(event.call.request)))
    return found


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
