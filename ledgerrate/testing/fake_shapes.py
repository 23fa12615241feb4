"""Wire shapes the fake provider speaks: replies, usage and error bodies per API family.

Kept apart from the server so the shapes can be read against each provider's documentation
without the threading around them. Usage is given family-neutral (`schema.Usage`) and written
out in each family's own accounting, so a test states the figures once and checks that the
adapter normalises them back.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from ledgerrate.schema import Usage

Family = Literal["openai", "anthropic", "gemini"]
FAMILIES: tuple[Family, ...] = ("openai", "anthropic", "gemini")
DEFAULT_TEXT = "fake reply"

# The usage every default reply reports, as each adapter should normalise it. On the wire:
#   openai    prompt_tokens 1200 (cached_tokens 200), completion_tokens 300 (reasoning 100)
#   anthropic input_tokens 1000, cache_read_input_tokens 200, output_tokens 300
#             (the API does not count thinking apart, so reasoning stays 0)
#   gemini    promptTokenCount 1200 (cachedContentTokenCount 200), candidatesTokenCount 200,
#             thoughtsTokenCount 100
# e.g. at $1/M input, $0.10/M cached, $4/M output: 0.001 + 0.00002 + 0.0012 = $0.00222 a call.
DEFAULT_USAGE: dict[str, Usage] = {
    "openai": Usage(
        input_tokens=1000, cached_input_tokens=200, output_tokens=300, reasoning_tokens=100
    ),
    "anthropic": Usage(input_tokens=1000, cached_input_tokens=200, output_tokens=300),
    "gemini": Usage(
        input_tokens=1000, cached_input_tokens=200, output_tokens=300, reasoning_tokens=100
    ),
}

_ids = itertools.count(1)


@dataclass
class FakeToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass
class FakeReply:
    """One reply of the fake. `raw` (dict/list → JSON, str/bytes → verbatim) replaces the body.

    `usage="default"` means the family's `DEFAULT_USAGE`; `None` leaves usage out. A `status`
    of 400 or more sends the family's documented error body unless `raw` is given.
    """

    text: str = DEFAULT_TEXT
    tool_calls: list[FakeToolCall] = field(default_factory=list)
    usage: Usage | Literal["default"] | None = "default"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw: Any = None
    delay_s: float = 0.0
    finish_reason: str | None = None
    error_message: str = "fake error"


def _usage(reply_usage: Usage | Literal["default"] | None, family: str) -> Usage | None:
    return DEFAULT_USAGE[family] if isinstance(reply_usage, str) else reply_usage


def usage_wire(family: str, u: Usage) -> dict[str, Any]:
    """`u` as the family reports it (the inverse of each adapter's `usage_from`)."""
    if family == "openai":
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
    if family == "anthropic":
        return {
            "input_tokens": u.input_tokens,
            "cache_creation_input_tokens": u.cache_write_tokens,
            "cache_read_input_tokens": u.cached_input_tokens,
            "output_tokens": u.output_tokens,
        }
    # Gemini has no per-call cache write; such tokens are plain prompt tokens there.
    prompt = u.input_tokens + u.cached_input_tokens + u.cache_write_tokens
    wire = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": u.output_tokens - u.reasoning_tokens,
        "totalTokenCount": prompt + u.output_tokens,
    }
    if u.cached_input_tokens:
        wire["cachedContentTokenCount"] = u.cached_input_tokens
    if u.reasoning_tokens:
        wire["thoughtsTokenCount"] = u.reasoning_tokens
    return wire


def success_body(family: str, model: str, reply: FakeReply) -> dict[str, Any]:
    n = next(_ids)
    usage = _usage(reply.usage, family)
    calls = [(c.id or f"call_fake_{n}_{i}", c) for i, c in enumerate(reply.tool_calls)]
    body: dict[str, Any]
    if family == "openai":
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text or None,
            "refusal": None,
        }
        if calls:
            message["tool_calls"] = [
                {
                    "id": cid,
                    "type": "function",
                    "function": {"name": c.name, "arguments": _json(c.arguments)},
                }
                for cid, c in calls
            ]
        finish = reply.finish_reason or ("tool_calls" if calls else "stop")
        body = {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }
        if usage is not None:
            body["usage"] = usage_wire(family, usage)
        return body
    if family == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        content += [
            {"type": "tool_use", "id": cid, "name": c.name, "input": c.arguments}
            for cid, c in calls
        ]
        body = {
            "id": f"msg_fake_{n}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": reply.finish_reason or ("tool_use" if calls else "end_turn"),
            "stop_sequence": None,
        }
        if usage is not None:
            body["usage"] = usage_wire(family, usage)
        return body
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for _, c in calls]
    body = {
        "candidates": [
            {
                "content": {"parts": parts, "role": "model"},
                "finishReason": reply.finish_reason or "STOP",
                "index": 0,
            }
        ],
        "modelVersion": model,
        "responseId": f"fake-{n}",
    }
    if usage is not None:
        body["usageMetadata"] = usage_wire(family, usage)
    return body


def empty_body(family: str, model: str) -> dict[str, Any]:
    """A reply with no output at all, still reporting the prompt's usage."""
    prompt_only = Usage(input_tokens=DEFAULT_USAGE[family].input_tokens)
    if family == "openai":
        return {
            "id": f"chatcmpl-fake-{next(_ids)}",
            "object": "chat.completion",
            "model": model,
            "choices": [],
            "usage": usage_wire(family, prompt_only),
        }
    if family == "anthropic":
        return success_body(family, model, FakeReply(text="", usage=prompt_only))
    return {"usageMetadata": usage_wire(family, prompt_only), "modelVersion": model}


_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def error_body(family: str, status: int, message: str) -> dict[str, Any]:
    if family == "anthropic":
        kind = _ANTHROPIC_TYPES.get(status, "api_error")
        return {
            "type": "error",
            "error": {"type": kind, "message": message},
            "request_id": f"req_fake_{next(_ids)}",
        }
    if family == "gemini":
        return {
            "error": {
                "code": status,
                "message": message,
                "status": _GOOGLE_STATUS.get(status, "UNKNOWN"),
            }
        }
    if status == 429:
        kind, code = "requests", "rate_limit_exceeded"
    elif status >= 500:
        kind, code = "server_error", None
    else:
        kind, code = "invalid_request_error", None
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def declared_tools(family: str, body: dict[str, Any]) -> list[str]:
    tools = body.get("tools") or []
    if family == "openai":
        return [t["function"]["name"] for t in tools]
    if family == "anthropic":
        return [t["name"] for t in tools]
    return [d["name"] for t in tools for d in t.get("functionDeclarations") or []]


def tool_results(family: str, body: dict[str, Any]) -> list[str]:
    """The text of every tool result the request carries back, in order."""
    if family == "openai":
        return [str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "tool"]
    if family == "anthropic":
        return [
            str(b.get("content"))
            for m in body.get("messages", [])
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
    return [
        str(next(iter(p["functionResponse"].get("response", {}).values()), ""))
        for c in body.get("contents", [])
        for p in c.get("parts", [])
        if "functionResponse" in p
    ]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
