"""OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, OpenRouter, Together, Groq…).

`base_url` includes the API version, as every OpenAI-compatible SDK expects
(`https://api.openai.com/v1`); requests go to `{base_url}/chat/completions`.

Choices made where the API leaves room:
- The output cap is sent as `max_tokens`, which every compatible server accepts; a model that
  wants `max_completion_tokens` (OpenAI reasoning models) names it in its `sampling`, and then
  `max_tokens` is left out.
- Tool arguments arrive as a JSON string. Arguments that are not a JSON object are the model's
  bad output: `ModelError` (a model failure, with the call's usage), never a crash and never a
  silent `{}`. Only an empty string is read as "no arguments", as some servers send it.
- With tools, `tool_choice: "auto"` (the API's default) is sent explicitly, since some
  compatible servers drop the tools without it; an edition may override it in `sampling`.
- A tool result's `is_error` has no field in this family; the model sees the output text only,
  exactly as the runner recorded it.
"""

from __future__ import annotations

import json
from typing import Any

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers.base import Completion, CompletionRequest, Message, ModelError
from ledgerrate.providers.family import FAKE_CREATED, FakeWire, Family, Route, WireReply
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

NAME = "openai"
PROTECTED = frozenset({"model", "messages", "tools", "stream"})


class OpenAIChat(HttpAdapter):
    """Adapter for `POST {base_url}/chat/completions`."""

    family = NAME

    @property
    def url(self) -> str:
        return f"{(self.spec.base_url or '').rstrip('/')}/chat/completions"

    def request_body(self, request: CompletionRequest) -> dict[str, Any]:
        """The JSON body sent (it never holds the key), for the run record."""
        body: dict[str, Any] = {
            "model": self.spec.api_model,
            "messages": build_messages(request.system, request.messages),
        }
        if "max_completion_tokens" not in self.spec.sampling:
            body["max_tokens"] = self.spec.max_output_tokens
        if request.tools:
            body["tools"] = [tool_schema(t) for t in request.tools]
            # OpenAI's default when tools are sent, said explicitly: llama-cpp-python's
            # tool-calling template (0.3.36) leaves the tools out of the prompt unless the
            # request names a tool_choice.
            body["tool_choice"] = "auto"
        return merge_sampling(body, self.spec.sampling, PROTECTED)

    async def complete(self, request: CompletionRequest) -> Completion:
        reply = await post_reply(
            self._client,
            family=NAME,
            url=self.url,
            # A self-hosted server on loopback may run without a key: then no header at all.
            headers={"Authorization": f"Bearer {self._key}"} if self._key else {},
            body=self.request_body(request),
            timeout_s=self.spec.timeout_s,
            secret=self._key,
            describe_error=describe_error,
            model_id=self.spec.id,
        )
        return parsed_reply(NAME, reply, parse_response)


def tool_schema(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def build_messages(system: str, messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for m in messages:
        if m.role == "user":
            out.append({"role": "user", "content": m.content})
        elif m.role == "assistant":
            turn: dict[str, Any] = {"role": "assistant", "content": m.content}
            if m.tool_calls:
                # The text as it was, "" when the model said nothing: OpenAI also takes null
                # there, but llama-cpp-python's server answers HTTP 500 to a null or an absent
                # content (its schema wants a string, its template reads the field).
                turn["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            "arguments": json.dumps(c.arguments, ensure_ascii=False),
                        },
                    }
                    for c in m.tool_calls
                ]
            out.append(turn)
        else:
            if not m.tool_call_id:
                raise ConfigError("openai: a tool result needs the id of the call it answers")
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
    return out


def usage_from(block: Any) -> Usage | None:
    """`prompt_tokens` includes cache reads (and cache writes where a server reports them);
    `completion_tokens` includes reasoning."""
    if not isinstance(block, dict) or "prompt_tokens" not in block:
        return None
    if "completion_tokens" not in block:
        return None
    prompt = count(block, "prompt_tokens")
    completion = count(block, "completion_tokens")
    prompt_details = block.get("prompt_tokens_details") or {}
    completion_details = block.get("completion_tokens_details") or {}
    cached = count(prompt_details, "cached_tokens")
    written = count(block, "cache_write_tokens") or count(prompt_details, "cache_write_tokens")
    reasoning = count(completion_details, "reasoning_tokens")
    if cached + written > prompt or reasoning > completion:
        raise ValueError(f"usage parts exceed their totals: {block}")
    return Usage(
        input_tokens=prompt - cached - written,
        cached_input_tokens=cached,
        cache_write_tokens=written,
        output_tokens=completion,
        reasoning_tokens=reasoning,
    )


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # Some compatible servers answer with a list of typed parts.
    return "".join(
        p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
    )


def parse_response(data: dict[str, Any], status: int) -> Completion:
    usage = usage_from(data.get("usage"))
    choices = data.get("choices")
    if not choices:
        raise ModelError("openai: response has no choices", status=status, raw=data, usage=usage)
    choice = choices[0]
    message = choice.get("message") or {}
    finish = choice.get("finish_reason")
    if finish == "content_filter":
        raise ModelError(
            "openai: output stopped by the content filter", status=status, raw=data, usage=usage
        )
    refusal = message.get("refusal")
    if refusal:
        raise ModelError(
            f"openai: refusal: {clip(str(refusal))}", status=status, raw=data, usage=usage
        )
    text = _text(message.get("content"))
    return completion(
        "openai",
        text,
        lambda: [
            ToolCall(
                id=str(c.get("id") or f"call_{i}"),
                name=_name(c),
                arguments=parse_arguments(_name(c), (c.get("function") or {}).get("arguments")),
            )
            for i, c in enumerate(message.get("tool_calls") or [])
        ],
        data=data,
        usage=usage,
        status=status,
        finish=finish,
        finish_field="finish_reason",
        truncated=finish == "length",
    )


def _name(call: dict[str, Any]) -> str:
    name = (call.get("function") or {}).get("name")
    if not isinstance(name, str) or not name:
        raise MalformedToolCall("tool call without a function name")
    return name


def describe_error(body: Any) -> ErrorDetail:
    """`{"error": {"message", "type", "code"}}`; compatible servers vary, so fall back gently."""
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        code = str(err.get("code") or "")
        kind = str(err.get("type") or "")
        label = " ".join(x for x in (kind, code) if x)
        message = f"{label}: {err.get('message', '')}" if label else str(err.get("message", ""))
        return ErrorDetail(
            message=message,
            quota_exhausted="insufficient_quota" in (code, kind),
        )
    if isinstance(err, str):
        return ErrorDetail(message=err)
    if isinstance(body, dict):
        return ErrorDetail(message=str(body.get("message") or body.get("detail") or body))
    return ErrorDetail(message=str(body))


# --------------------------------------------------------------------------- the fake's wire


def _usage_wire(u: Usage) -> dict[str, Any]:
    """`u` as the family reports it (the inverse of `usage_from`)."""
    prompt_details: dict[str, int] = {"cached_tokens": u.cached_input_tokens}
    if u.cache_write_tokens:
        prompt_details["cache_write_tokens"] = u.cache_write_tokens
    prompt = u.input_tokens + u.cached_input_tokens + u.cache_write_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": u.output_tokens,
        "total_tokens": prompt + u.output_tokens,
        "prompt_tokens_details": prompt_details,
        "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
    }


def _success_body(reply: WireReply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": json.dumps(c.arguments, ensure_ascii=False),
                },
            }
            for c in reply.calls
        ]
    finish = reply.finish_reason or ("tool_calls" if reply.calls else "stop")
    body: dict[str, Any] = {
        "id": f"chatcmpl-fake-{reply.n}",
        "object": "chat.completion",
        "created": FAKE_CREATED,
        "model": reply.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if reply.usage is not None:
        body["usage"] = _usage_wire(reply.usage)
    return body


def _empty_body(n: int, model: str, prompt_only: Usage) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake-{n}",
        "object": "chat.completion",
        "model": model,
        "choices": [],
        "usage": _usage_wire(prompt_only),
    }


def _error_body(n: int, status: int, message: str) -> dict[str, Any]:
    if status == 429:
        kind, code = "requests", "rate_limit_exceeded"
    elif status >= 500:
        kind, code = "server_error", None
    else:
        kind, code = "invalid_request_error", None
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _tool_results(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "tool"]


FAMILY = Family(
    name=NAME,
    make=OpenAIChat,
    usage_from=usage_from,
    vendor_words=("openai", "chatgpt", "gpt"),
    fake=FakeWire(
        key_header="authorization",
        # prompt_tokens 1200 (cached_tokens 200), completion_tokens 300 (reasoning 100)
        default_usage=Usage(
            input_tokens=1000, cached_input_tokens=200, output_tokens=300, reasoning_tokens=100
        ),
        route=lambda path: Route(model="") if path == "/v1/chat/completions" else None,
        base_url=lambda root: f"{root}/v1",
        usage_wire=_usage_wire,
        success_body=_success_body,
        empty_body=_empty_body,
        error_body=_error_body,
        declared_tools=lambda body: [t["function"]["name"] for t in body.get("tools") or []],
        tool_results=_tool_results,
        tool_choice=lambda body: body.get("tool_choice"),
    ),
)
