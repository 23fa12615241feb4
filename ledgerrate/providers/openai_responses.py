"""OpenAI's Responses API (`POST {base_url}/responses`), for models offered only there.

`base_url` includes the API version, as OpenAI's SDKs take it (`https://api.openai.com/v1`).
Errors come in the chat completions envelope (`{"error": {"message", "type", "code"}}`) and are
read by `openai.describe_error`; only the request and the reply differ from chat completions.

Choices made where the API leaves room:
- Every request is sent with `store: false`: the provider keeps no response, and each request
  carries the whole conversation (`input`), so a call is reproduced from its record alone.
  `store`, `previous_response_id` and `conversation` may therefore not be set in `sampling`;
  neither may the output cap, `max_output_tokens`, which is the model's `max_output_tokens`
  (it includes reasoning tokens).
- The system prompt goes in `instructions`. Function tools are sent with `strict: false`, as
  chat completions treats them (strict mode would reject the workloads' schemas that leave
  properties optional), and `tool_choice: "auto"` (the default) is said explicitly, as for
  `openai`.
- An assistant turn is rebuilt from its text and tool calls (`function_call` items with their
  `call_id`, answered by `function_call_output` items). Its reply's output items are replayed
  verbatim only when every reasoning item among them carries `encrypted_content` (an edition
  asks for it with `include: ["reasoning.encrypted_content"]` in `sampling`): under
  `store: false` the API cannot look a reasoning item up by its id.
- `incomplete_details.reason` is read as other families' finish reason: `max_output_tokens`
  is a truncated answer, `content_filter` a model failure, as is a `refusal` content part.
  A reply with `status: "failed"` is the provider's failure (re-run), a rate limit when its
  `error.code` says so, except `invalid_prompt` (the prompt flagged by the provider's policy),
  a model failure as Gemini's blocked prompt is.
- `input_tokens` includes cached tokens, `output_tokens` includes reasoning; the API reports
  no cache writes, so the fake folds any into plain input.
"""

from __future__ import annotations

import json
from typing import Any

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers import openai as chat
from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    InfraError,
    Message,
    ModelError,
    ProviderError,
    RateLimited,
)
from ledgerrate.providers.family import FAKE_CREATED, FakeWire, Family, Route, WireReply
from ledgerrate.providers.wire import (
    ConfigError,
    HttpAdapter,
    MalformedToolCall,
    clip,
    completion,
    count,
    merge_sampling,
    parse_arguments,
    parsed_reply,
    post_reply,
)
from ledgerrate.schema import ToolCall, Usage

NAME = "openai-responses"
PROTECTED = frozenset(
    {
        "model",
        "input",
        "instructions",
        "tools",
        "stream",
        "store",
        "previous_response_id",
        "conversation",
        "max_output_tokens",
    }
)
# `status: "failed"` codes that are not the provider's passing fault.
_RATE_LIMITED = "rate_limit_exceeded"
_MODEL_FAILURES = frozenset({"invalid_prompt"})


class OpenAIResponses(HttpAdapter):
    """Adapter for `POST {base_url}/responses`."""

    family = NAME

    @property
    def url(self) -> str:
        return f"{(self.spec.base_url or '').rstrip('/')}/responses"

    def request_body(self, request: CompletionRequest) -> dict[str, Any]:
        """The JSON body sent (it never holds the key), for the run record."""
        body: dict[str, Any] = {
            "model": self.spec.api_model,
            "input": build_input(request.messages),
            "max_output_tokens": self.spec.max_output_tokens,
            "store": False,
        }
        if request.system:
            body["instructions"] = request.system
        if request.tools:
            body["tools"] = [tool_schema(t) for t in request.tools]
            body["tool_choice"] = "auto"
        return merge_sampling(body, self.spec.sampling, PROTECTED)

    async def complete(self, request: CompletionRequest) -> Completion:
        reply = await post_reply(
            self._client,
            family=NAME,
            url=self.url,
            # No key, no header (as for `openai`): the server then answers 401 itself.
            headers={"Authorization": f"Bearer {self._key}"} if self._key else {},
            body=self.request_body(request),
            timeout_s=self.spec.timeout_s,
            secret=self._key,
            describe_error=chat.describe_error,
            model_id=self.spec.id,
        )
        return parsed_reply(NAME, reply, parse_response)


def tool_schema(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": False,
    }


def _replayable(raw: Any) -> list[dict[str, Any]] | None:
    """A reply's output items, when they can go back as they are (see the module docstring)."""
    output = raw.get("output") if isinstance(raw, dict) else None
    if not isinstance(output, list) or not output:
        return None
    reasoning = [i for i in output if isinstance(i, dict) and i.get("type") == "reasoning"]
    if not reasoning or not all(i.get("encrypted_content") for i in reasoning):
        return None
    return [i for i in output if isinstance(i, dict)]


def _items(m: Message) -> list[dict[str, Any]]:
    if m.role == "user":
        return [{"role": "user", "content": m.content}]
    if m.role == "assistant":
        replay = _replayable(m.raw)
        if replay is not None:
            return replay
        items: list[dict[str, Any]] = []
        if m.content:
            items.append({"role": "assistant", "content": m.content})
        items += [
            {
                "type": "function_call",
                "call_id": c.id,
                "name": c.name,
                "arguments": json.dumps(c.arguments, ensure_ascii=False),
            }
            for c in m.tool_calls
        ]
        return items
    if not m.tool_call_id:
        raise ConfigError(f"{NAME}: a tool result needs the id of the call it answers")
    return [{"type": "function_call_output", "call_id": m.tool_call_id, "output": m.content}]


def build_input(messages: list[Message]) -> list[dict[str, Any]]:
    return [item for m in messages for item in _items(m)]


def usage_from(block: Any) -> Usage | None:
    """`input_tokens` includes cache reads (`input_tokens_details.cached_tokens`);
    `output_tokens` includes reasoning (`output_tokens_details.reasoning_tokens`)."""
    if not isinstance(block, dict) or "input_tokens" not in block or "output_tokens" not in block:
        return None
    given = count(block, "input_tokens")
    output = count(block, "output_tokens")
    cached = count(block.get("input_tokens_details") or {}, "cached_tokens")
    reasoning = count(block.get("output_tokens_details") or {}, "reasoning_tokens")
    if cached > given or reasoning > output:
        raise ValueError(f"usage parts exceed their totals: {block}")
    return Usage(
        input_tokens=given - cached,
        cached_input_tokens=cached,
        output_tokens=output,
        reasoning_tokens=reasoning,
    )


def _failed(data: dict[str, Any], status: int, usage: Usage | None) -> ProviderError:
    """The error a `status: "failed"` reply stands for."""
    error = data.get("error") or {}
    code = str(error.get("code") or "")
    message = f"{NAME}: response failed ({code or 'no code'}): {clip(str(error.get('message')))}"
    if code in _MODEL_FAILURES:
        return ModelError(message, status=status, raw=data, usage=usage)
    if code == _RATE_LIMITED:
        return RateLimited(message, status=status, raw=data)
    return InfraError(message, status=status, raw=data)


def parse_response(data: dict[str, Any], status: int) -> Completion:
    usage = usage_from(data.get("usage"))
    state = data.get("status")
    if state == "failed":
        raise _failed(data, status, usage)
    if state not in (None, "completed", "incomplete"):
        # queued / in_progress / cancelled: no finished reply came back to a blocking call.
        raise InfraError(f"{NAME}: response is {state!r}, not finished", status=status, raw=data)
    reason = (data.get("incomplete_details") or {}).get("reason") if state == "incomplete" else None
    if reason == "content_filter":
        raise ModelError(
            f"{NAME}: output stopped by the content filter", status=status, raw=data, usage=usage
        )
    output = [i for i in data["output"] if isinstance(i, dict)]
    parts = [
        p
        for i in output
        if i.get("type") == "message"
        for p in i.get("content") or []
        if isinstance(p, dict)
    ]
    refusal = next((p.get("refusal") for p in parts if p.get("type") == "refusal"), None)
    if refusal is not None:
        raise ModelError(
            f"{NAME}: refusal: {clip(str(refusal))}", status=status, raw=data, usage=usage
        )
    text = "".join(str(p.get("text") or "") for p in parts if p.get("type") == "output_text")
    finish = reason or state
    return completion(
        NAME,
        text,
        lambda: [_tool_call(i) for i in output if i.get("type") == "function_call"],
        data=data,
        usage=usage,
        status=status,
        finish=finish,
        finish_field="incomplete_details.reason" if reason else "status",
        truncated=reason == "max_output_tokens",
    )


def _tool_call(item: dict[str, Any]) -> ToolCall:
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedToolCall("function_call item without a name")
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        # The output item's answer must name this id; without it the loop cannot go on.
        raise MalformedToolCall(f"function_call item {name!r} without a call_id")
    return ToolCall(id=call_id, name=name, arguments=parse_arguments(name, item.get("arguments")))


# --------------------------------------------------------------------------- the fake's wire


def _usage_wire(u: Usage) -> dict[str, Any]:
    """`u` as the family reports it (the inverse of `usage_from`); cache writes, which the API
    does not report, are plain input here."""
    given = u.input_tokens + u.cached_input_tokens + u.cache_write_tokens
    return {
        "input_tokens": given,
        "input_tokens_details": {"cached_tokens": u.cached_input_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": given + u.output_tokens,
    }


_INCOMPLETE = frozenset({"max_output_tokens", "content_filter"})


def _response(
    n: int, model: str, output: list[dict[str, Any]], usage: Usage | None, reason: str | None
) -> dict[str, Any]:
    """A response object as `POST /v1/responses` returns it, `status` from `reason`."""
    return {
        "id": f"resp_fake_{n}",
        "object": "response",
        "created_at": FAKE_CREATED,
        "status": "incomplete" if reason in _INCOMPLETE else "completed",
        "error": None,
        "incomplete_details": {"reason": reason} if reason in _INCOMPLETE else None,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "store": False,
        "tool_choice": "auto",
        "usage": _usage_wire(usage) if usage is not None else None,
    }


def _success_body(reply: WireReply) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if reply.text:
        output.append(
            {
                "type": "message",
                "id": f"msg_fake_{reply.n}",
                "status": "incomplete" if reply.finish_reason in _INCOMPLETE else "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    output += [
        {
            "type": "function_call",
            "id": f"fc_fake_{reply.n}_{i}",
            "call_id": c.id,
            "name": c.name,
            "arguments": json.dumps(c.arguments, ensure_ascii=False),
            "status": "completed",
        }
        for i, c in enumerate(reply.calls)
    ]
    return _response(reply.n, reply.model, output, reply.usage, reply.finish_reason)


def _tool_results(body: dict[str, Any]) -> list[str]:
    return [
        str(i.get("output"))
        for i in body.get("input") or []
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]


FAMILY = Family(
    name=NAME,
    make=OpenAIResponses,
    usage_from=usage_from,
    # The same vendor as `openai`: its models name themselves the same way.
    vendor_words=chat.FAMILY.vendor_words,
    inspect_provider="openai",
    fake=FakeWire(
        key_header="authorization",
        # input_tokens 1200 (cached_tokens 200), output_tokens 300 (reasoning_tokens 100)
        default_usage=Usage(
            input_tokens=1000, cached_input_tokens=200, output_tokens=300, reasoning_tokens=100
        ),
        route=lambda path: Route(model="") if path == "/v1/responses" else None,
        base_url=lambda root: f"{root}/v1",
        usage_wire=_usage_wire,
        success_body=_success_body,
        empty_body=lambda n, model, prompt_only: _response(n, model, [], prompt_only, None),
        # The same error envelope as chat completions.
        error_body=chat.FAMILY.fake.error_body,
        declared_tools=lambda body: [
            t["name"] for t in body.get("tools") or [] if t.get("type") == "function"
        ],
        tool_results=_tool_results,
        tool_choice=lambda body: body.get("tool_choice"),
        turns_key="input",
    ),
)
