"""Anthropic Messages API.

`base_url` is the host (`https://api.anthropic.com`), as Anthropic's SDKs take it; requests go
to `{base_url}/v1/messages` (a base that already ends in `/v1` is accepted too).

Choices made where the API leaves room:
- Consecutive turns of one role are merged into one message, because the API wants user and
  assistant to alternate and every tool result of a step in the single user turn that follows.
- An assistant turn carrying `Message.raw` (the reply it came from) is replayed block for block,
  so thinking blocks and their signatures go back as the API requires during a tool loop.
- With tools, `tool_choice: {"type": "auto"}` (the API's default) is sent explicitly: a gateway
  that translates the request for an OpenAI-compatible server (LiteLLM's `/v1/messages` in front
  of llama-cpp-python) passes no tool choice on, and that server then leaves the tools out of the
  prompt. An edition may still set its own `tool_choice` in `sampling`.
- `output_tokens` already includes extended thinking, which the API does not count apart, so
  `reasoning_tokens` stays 0 for this family. Cache writes are summed across cache lifetimes.
"""

from __future__ import annotations

from typing import Any

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers.base import Completion, CompletionRequest, Message, ModelError
from ledgerrate.providers.family import FakeWire, Family, Route, WireReply
from ledgerrate.providers.wire import (
    ConfigError,
    ErrorDetail,
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

NAME = "anthropic"
API_VERSION = "2023-06-01"
PROTECTED = frozenset({"model", "messages", "tools", "system", "max_tokens", "stream"})


class AnthropicMessages(HttpAdapter):
    """Adapter for `POST {base_url}/v1/messages`."""

    family = NAME

    @property
    def url(self) -> str:
        base = (self.spec.base_url or "").rstrip("/")
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def request_body(self, request: CompletionRequest) -> dict[str, Any]:
        """The JSON body sent (it never holds the key), for the run record."""
        body: dict[str, Any] = {
            "model": self.spec.api_model,
            "max_tokens": self.spec.max_output_tokens,
            "messages": build_messages(request.messages),
        }
        if request.system:
            body["system"] = request.system
        if request.tools:
            body["tools"] = [tool_schema(t) for t in request.tools]
            body["tool_choice"] = {"type": "auto"}
        return merge_sampling(body, self.spec.sampling, PROTECTED)

    async def complete(self, request: CompletionRequest) -> Completion:
        reply = await post_reply(
            self._client,
            family=NAME,
            url=self.url,
            headers={"x-api-key": self._key, "anthropic-version": API_VERSION},
            body=self.request_body(request),
            timeout_s=self.spec.timeout_s,
            secret=self._key,
            describe_error=describe_error,
            model_id=self.spec.id,
        )
        return parsed_reply(NAME, reply, parse_response)


def tool_schema(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def _blocks(m: Message) -> tuple[str, list[dict[str, Any]]]:
    if m.role == "user":
        return "user", [{"type": "text", "text": m.content}] if m.content else []
    if m.role == "assistant":
        replay = m.raw.get("content") if isinstance(m.raw, dict) else None
        if isinstance(replay, list) and replay:
            return "assistant", list(replay)
        blocks: list[dict[str, Any]] = []
        if m.content:
            blocks.append({"type": "text", "text": m.content})
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
            for c in m.tool_calls
        ]
        return "assistant", blocks
    if not m.tool_call_id:
        raise ConfigError("anthropic: a tool result needs the id of the call it answers")
    result: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": m.tool_call_id,
        "content": m.content,
    }
    if m.is_error:
        result["is_error"] = True
    return "user", [result]


def build_messages(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        role, blocks = _blocks(m)
        if not blocks:
            continue  # the API rejects empty text blocks and empty turns
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def usage_from(block: Any) -> Usage | None:
    """`input_tokens` excludes both cache reads and cache writes; `output_tokens` is billed
    output, thinking included."""
    if not isinstance(block, dict) or "input_tokens" not in block or "output_tokens" not in block:
        return None
    return Usage(
        input_tokens=count(block, "input_tokens"),
        cached_input_tokens=count(block, "cache_read_input_tokens"),
        cache_write_tokens=count(block, "cache_creation_input_tokens"),
        output_tokens=count(block, "output_tokens"),
    )


def parse_response(data: dict[str, Any], status: int) -> Completion:
    usage = usage_from(data.get("usage"))
    stop = data.get("stop_reason")
    if stop == "refusal":
        raise ModelError("anthropic: refusal", status=status, raw=data, usage=usage)
    blocks = data.get("content") or []
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    return completion(
        "anthropic",
        text,
        lambda: [_tool_call(b) for b in blocks if b.get("type") == "tool_use"],
        data=data,
        usage=usage,
        status=status,
        finish=stop,
        finish_field="stop_reason",
        truncated=stop == "max_tokens",
    )


def _tool_call(block: dict[str, Any]) -> ToolCall:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedToolCall("tool_use block without a name")
    return ToolCall(
        id=str(block.get("id") or name),
        name=name,
        arguments=parse_arguments(name, block.get("input")),
    )


def describe_error(body: Any) -> ErrorDetail:
    """`{"type": "error", "error": {"type": "rate_limit_error", "message": ...}}`."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ErrorDetail(message=clip(str(body)))
    kind = str(err.get("type") or "")
    found = err.get("details")
    details = found if isinstance(found, dict) else {}
    return ErrorDetail(
        message=f"{kind}: {err.get('message', '')}" if kind else str(err.get("message", "")),
        # A spend cap answers 429 too, but no wait short of next month lifts it.
        quota_exhausted=details.get("error_code") == "enforced_spend_limit_reached",
    )


# --------------------------------------------------------------------------- the fake's wire


def _usage_wire(u: Usage) -> dict[str, Any]:
    """`u` as the family reports it (the inverse of `usage_from`)."""
    return {
        "input_tokens": u.input_tokens,
        "cache_creation_input_tokens": u.cache_write_tokens,
        "cache_read_input_tokens": u.cached_input_tokens,
        "output_tokens": u.output_tokens,
    }


def _success_body(reply: WireReply) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    content += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls
    ]
    body: dict[str, Any] = {
        "id": f"msg_fake_{reply.n}",
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": content,
        "stop_reason": reply.finish_reason or ("tool_use" if reply.calls else "end_turn"),
        "stop_sequence": None,
    }
    if reply.usage is not None:
        body["usage"] = _usage_wire(reply.usage)
    return body


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _error_body(n: int, status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "api_error")
    return {
        "type": "error",
        "error": {"type": kind, "message": message},
        "request_id": f"req_fake_{n}",
    }


def _tool_results(body: dict[str, Any]) -> list[str]:
    return [
        str(b.get("content"))
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


FAMILY = Family(
    name=NAME,
    make=AnthropicMessages,
    usage_from=usage_from,
    vendor_words=("anthropic", "claude"),
    fake=FakeWire(
        key_header="x-api-key",
        # input_tokens 1000, cache_read_input_tokens 200, output_tokens 300 (the API does not
        # count thinking apart, so reasoning stays 0)
        default_usage=Usage(input_tokens=1000, cached_input_tokens=200, output_tokens=300),
        route=lambda path: Route(model="") if path == "/v1/messages" else None,
        base_url=lambda root: root,
        usage_wire=_usage_wire,
        success_body=_success_body,
        empty_body=lambda n, model, prompt_only: _success_body(
            WireReply(n, model, "", [], prompt_only, None)
        ),
        error_body=_error_body,
        declared_tools=lambda body: [t["name"] for t in body.get("tools") or []],
        tool_results=_tool_results,
        tool_choice=lambda body: body.get("tool_choice"),
        refuse=lambda headers: (
            None if "anthropic-version" in headers else "anthropic-version header is required"
        ),
    ),
)
