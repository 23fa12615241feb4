"""A scripted in-process provider for runner tests (no network)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from ledgerrate.providers.base import Completion, CompletionRequest
from ledgerrate.run import probe
from ledgerrate.schema import ModelSpec, ToolCall, Usage

Script = Callable[[ModelSpec, CompletionRequest, int], Completion]


def answer(text: str, usage: Usage | None = None) -> Completion:
    return Completion(
        text=text,
        tool_calls=[],
        raw={"text": text},
        usage=usage if usage is not None else Usage(input_tokens=100, output_tokens=10),
        http_status=200,
    )


def tool_call(name: str, args: dict[str, Any], call_id: str = "c1") -> Completion:
    return Completion(
        text="",
        tool_calls=[ToolCall(id=call_id, name=name, arguments=args)],
        raw={"tool": name},
        usage=Usage(input_tokens=50, output_tokens=5),
        http_status=200,
    )


class StubProvider:
    family = "stub"

    def __init__(self, spec: ModelSpec, script: Script, log: list[tuple[str, int]]) -> None:
        self.spec = spec
        self.script = script
        self.log = log
        self.calls = 0

    async def complete(self, request: CompletionRequest) -> Completion:
        if request.messages and probe.TOKEN in request.messages[0].content:
            # The runner's tools probe: answered as a tool-capable endpoint, outside the log.
            if request.tools:
                return tool_call(request.tools[0].name, {"token": probe.TOKEN})
            return answer("ok")
        index = self.calls
        self.calls += 1
        self.log.append((self.spec.id, index))
        return self.script(self.spec, request, index)


def factory(script: Script, log: list[tuple[str, int]] | None = None) -> Any:
    calls = log if log is not None else []

    def make(spec: ModelSpec, client: httpx.AsyncClient, api_key: str) -> StubProvider:
        assert api_key  # the runner hands over the key from the env var
        return StubProvider(spec, script, calls)

    make.log = calls  # type: ignore[attr-defined]
    return make


def sum_script(spec: ModelSpec, request: CompletionRequest, index: int) -> Completion:
    """Answers the toy prompt correctly; in agentic mode calls `add` once first."""
    import re

    a, b = (int(x) for x in re.findall(r"\d+", request.messages[0].content)[:2])
    if request.tools and len(request.messages) == 1:
        return tool_call("add", {"a": a, "b": b})
    return answer(str(a + b))
