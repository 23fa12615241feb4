"""Gemini `generateContent` (Google AI Gemini API).

`base_url` is the host (`https://generativelanguage.googleapis.com`); requests go to
`{base_url}/v1beta/models/{api_model}:generateContent` (a base ending in `/v1beta` or `/v1` is
used as is). The key travels in the `x-goog-api-key` header, never in the URL, so it cannot
reach an access log or an error message that quotes the URL.

Choices made where the API leaves room:
- Tool schemas go out as `parametersJsonSchema`, which takes JSON Schema as is, rather than the
  OpenAPI-subset `parameters`: no lossy translation, so every family sees the same schema.
- Sampling keys go into `generationConfig` (where Gemini keeps temperature and friends), except
  the request-level `safetySettings`, `toolConfig`, `cachedContent` and `labels`.
- With tools, `toolConfig.functionCallingConfig.mode: "AUTO"` (the API's default) is sent
  explicitly, for the reason the Anthropic adapter sends its `tool_choice`: a gateway translating
  the request (LiteLLM's `generateContent` route) otherwise passes no tool choice on, and
  llama-cpp-python behind it drops the tools. A `toolConfig` in `sampling` replaces it whole.
- Gemini may omit function-call ids; we then make our own (`local-call-…`) and never send them
  back, matching a tool result to its call by function name as the API does.
- Tool results go back as `functionResponse.response = {"output": text}` (or `{"error": text}`).
- Thought parts (`"thought": true`) are not answer text. Replaying `Message.raw` keeps their
  thought signatures, which the API requires back during function calling.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import quote, unquote

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers.base import Completion, CompletionRequest, Message, ModelError
from ledgerrate.providers.family import FakeWire, Family, Route, WireReply
from ledgerrate.providers.wire import (
    ConfigError,
    ErrorDetail,
    HttpAdapter,
    MalformedToolCall,
    completion,
    count,
    merge_sampling,
    parse_arguments,
    parse_duration,
    parsed_reply,
    post_reply,
)
from ledgerrate.schema import ToolCall, Usage

NAME = "gemini"
LOCAL_ID_PREFIX = "local-call-"
REQUEST_LEVEL = frozenset({"safetySettings", "toolConfig", "cachedContent", "labels"})
PROTECTED = frozenset({"contents", "tools", "systemInstruction", "maxOutputTokens"})
# Finish reasons that mean the output was withheld or cut by a filter: the model's failure.
BLOCKED = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "LANGUAGE",
        "MALFORMED_FUNCTION_CALL",
        "UNEXPECTED_TOOL_CALL",
    }
)


class GeminiGenerate(HttpAdapter):
    """Adapter for `POST {base_url}/v1beta/models/{model}:generateContent`."""

    family = NAME

    @property
    def url(self) -> str:
        base = (self.spec.base_url or "").rstrip("/")
        if not base.endswith(("/v1beta", "/v1")):
            base += "/v1beta"
        model = (self.spec.api_model or "").removeprefix("models/")
        return f"{base}/models/{quote(model, safe='-._~')}:generateContent"

    def request_body(self, request: CompletionRequest) -> dict[str, Any]:
        """The JSON body sent (it never holds the key), for the run record."""
        sampling = dict(self.spec.sampling)
        request_level = {k: sampling.pop(k) for k in list(sampling) if k in REQUEST_LEVEL}
        nested = sampling.pop("generationConfig", {})
        config = merge_sampling(
            {"maxOutputTokens": self.spec.max_output_tokens}, {**nested, **sampling}, PROTECTED
        )
        body: dict[str, Any] = {"contents": build_contents(request.messages)}
        if request.system:
            body["systemInstruction"] = {"parts": [{"text": request.system}]}
        if request.tools:
            body["tools"] = [{"functionDeclarations": [tool_schema(t) for t in request.tools]}]
            body["toolConfig"] = {"functionCallingConfig": {"mode": "AUTO"}}
        body["generationConfig"] = config
        return {**body, **request_level}

    async def complete(self, request: CompletionRequest) -> Completion:
        reply = await post_reply(
            self._client,
            family=NAME,
            url=self.url,
            headers={"x-goog-api-key": self._key},
            body=self.request_body(request),
            timeout_s=self.spec.timeout_s,
            secret=self._key,
            describe_error=describe_error,
            model_id=self.spec.id,
        )
        return parsed_reply(NAME, reply, parse_response)


def tool_schema(tool: ToolSpec) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "parametersJsonSchema": tool.parameters,
    }


def _replayed_parts(raw: Any) -> list[dict[str, Any]] | None:
    try:
        parts = raw["candidates"][0]["content"]["parts"]
    except (KeyError, IndexError, TypeError):
        return None
    return list(parts) if isinstance(parts, list) and parts else None


def _parts(m: Message, names: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
    if m.role == "user":
        return "user", [{"text": m.content}] if m.content else []
    if m.role == "assistant":
        replay = _replayed_parts(m.raw)
        if replay is not None:
            return "model", replay
        parts: list[dict[str, Any]] = [{"text": m.content}] if m.content else []
        for c in m.tool_calls:
            call: dict[str, Any] = {"name": c.name, "args": c.arguments}
            if not c.id.startswith(LOCAL_ID_PREFIX):
                call["id"] = c.id
            parts.append({"functionCall": call})
        return "model", parts
    name = m.tool_name or names.get(m.tool_call_id or "")
    if not name:
        raise ConfigError("gemini: a tool result needs the name of the function it answers")
    response: dict[str, Any] = {
        "name": name,
        "response": {"error" if m.is_error else "output": m.content},
    }
    if m.tool_call_id and not m.tool_call_id.startswith(LOCAL_ID_PREFIX):
        response["id"] = m.tool_call_id
    return "user", [{"functionResponse": response}]


def build_contents(messages: list[Message]) -> list[dict[str, Any]]:
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    out: list[dict[str, Any]] = []
    for m in messages:
        role, parts = _parts(m, names)
        if not parts:
            continue
        # Every function response of a step belongs in the one user turn after the call.
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})
    return out


def usage_from(block: Any) -> Usage | None:
    """`promptTokenCount` includes cached content; tool-use prompt tokens are input too;
    thoughts are counted apart from candidates, and both are billed as output."""
    if not isinstance(block, dict) or "promptTokenCount" not in block:
        return None
    prompt = count(block, "promptTokenCount")
    cached = count(block, "cachedContentTokenCount")
    if cached > prompt:
        raise ValueError(f"usage parts exceed their totals: {block}")
    thoughts = count(block, "thoughtsTokenCount")
    return Usage(
        input_tokens=prompt - cached + count(block, "toolUsePromptTokenCount"),
        cached_input_tokens=cached,
        output_tokens=count(block, "candidatesTokenCount") + thoughts,
        reasoning_tokens=thoughts,
    )


def parse_response(data: dict[str, Any], status: int) -> Completion:
    usage = usage_from(data.get("usageMetadata"))
    candidates = data.get("candidates") or []
    if not candidates:
        reason = (data.get("promptFeedback") or {}).get("blockReason")
        why = f"prompt blocked ({reason})" if reason else "no candidates"
        raise ModelError(f"gemini: {why}", status=status, raw=data, usage=usage)
    candidate = candidates[0]
    finish = candidate.get("finishReason")
    if finish in BLOCKED:
        raise ModelError(
            f"gemini: output withheld (finishReason {finish})", status=status, raw=data, usage=usage
        )
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    return completion(
        "gemini",
        text,
        lambda: [
            _tool_call(p["functionCall"], i)
            for i, p in enumerate(parts)
            if isinstance(p.get("functionCall"), dict)
        ],
        data=data,
        usage=usage,
        status=status,
        finish=finish,
        finish_field="finishReason",
        truncated=finish == "MAX_TOKENS",
    )


def _tool_call(call: dict[str, Any], index: int) -> ToolCall:
    name = call.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedToolCall("functionCall without a name")
    args = parse_arguments(name, call.get("args"))
    call_id = call.get("id")
    if not call_id:
        # Deterministic, so a re-parsed raw log yields the same ids.
        digest = hashlib.sha256(
            json.dumps([index, name, args], sort_keys=True).encode()
        ).hexdigest()
        call_id = f"{LOCAL_ID_PREFIX}{index}-{digest[:8]}"
    return ToolCall(id=str(call_id), name=name, arguments=args)


def describe_error(body: Any) -> ErrorDetail:
    """`{"error": {"code", "message", "status", "details": [... RetryInfo ...]}}`."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ErrorDetail(message=str(body))
    retry = None
    for detail in err.get("details") or []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            retry = parse_duration(detail.get("retryDelay"))
    kind = str(err.get("status") or "")
    return ErrorDetail(
        message=f"{kind}: {err.get('message', '')}" if kind else str(err.get("message", "")),
        retry_after=retry,
    )


# --------------------------------------------------------------------------- the fake's wire


def _usage_wire(u: Usage) -> dict[str, Any]:
    """`u` as the family reports it (the inverse of `usage_from`). Gemini has no per-call cache
    write; such tokens are plain prompt tokens there."""
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


def _success_body(reply: WireReply) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for c in reply.calls]
    body: dict[str, Any] = {
        "candidates": [
            {
                "content": {"parts": parts, "role": "model"},
                "finishReason": reply.finish_reason or "STOP",
                "index": 0,
            }
        ],
        "modelVersion": reply.model,
        "responseId": f"fake-{reply.n}",
    }
    if reply.usage is not None:
        body["usageMetadata"] = _usage_wire(reply.usage)
    return body


_ERROR_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _error_body(n: int, status: int, message: str) -> dict[str, Any]:
    return {
        "error": {
            "code": status,
            "message": message,
            "status": _ERROR_STATUS.get(status, "UNKNOWN"),
        }
    }


def _route(path: str) -> Route | None:
    for prefix in ("/v1beta/models/", "/v1/models/"):
        if path.startswith(prefix) and path.endswith(":generateContent"):
            return Route(model=unquote(path[len(prefix) : -len(":generateContent")]))
    return None


def _tool_results(body: dict[str, Any]) -> list[str]:
    return [
        str(next(iter(p["functionResponse"].get("response", {}).values()), ""))
        for c in body.get("contents", [])
        for p in c.get("parts", [])
        if "functionResponse" in p
    ]


FAMILY = Family(
    name=NAME,
    make=GeminiGenerate,
    usage_from=usage_from,
    vendor_words=("gemini", "google", "deepmind"),
    fake=FakeWire(
        key_header="x-goog-api-key",
        # promptTokenCount 1200 (cachedContentTokenCount 200), candidatesTokenCount 200,
        # thoughtsTokenCount 100
        default_usage=Usage(
            input_tokens=1000, cached_input_tokens=200, output_tokens=300, reasoning_tokens=100
        ),
        route=_route,
        base_url=lambda root: root,
        usage_wire=_usage_wire,
        success_body=_success_body,
        empty_body=lambda n, model, prompt_only: {
            "usageMetadata": _usage_wire(prompt_only),
            "modelVersion": model,
        },
        error_body=_error_body,
        declared_tools=lambda body: [
            d["name"] for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []
        ],
        tool_results=_tool_results,
        tool_choice=lambda body: (body.get("toolConfig") or {}).get("functionCallingConfig"),
        turns_key="contents",
    ),
    inspect_provider="google",
)
