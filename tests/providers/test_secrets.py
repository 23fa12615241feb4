"""A sentinel API key must not appear in anything an adapter returns or raises.

The mock server here is hostile: it echoes the key back in bodies, error messages and
transport errors, as a misbehaving proxy might.
"""

from __future__ import annotations

import json
import traceback
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from ledgerrate.providers import make_provider
from ledgerrate.providers.base import Completion, ProviderError

SENTINEL = "sk-SENTINEL-7f3a9c1e5b2d4680"
FAMILIES = ("openai", "anthropic", "gemini", "openai-responses")


def _echo_body(family: str, key: str) -> dict[str, Any]:
    text = f"your key is {key}"
    if family == "openai":
        return {
            "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": key}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
            key: key,
        }
    if family == "anthropic":
        return {
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "id": key,
        }
    if family == "openai-responses":
        return {
            "status": "completed",
            "output": [
                {"type": "message", "content": [{"type": "output_text", "text": text}], "id": key}
            ],
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "id": key,
        }
    return {
        "candidates": [{"content": {"parts": [{"text": text}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
        "modelVersion": key,
    }


def _strings(obj: Any) -> list[str]:
    """Every string representation a log writer or a page might produce from `obj`."""
    out = [str(obj), repr(obj)]
    if isinstance(obj, Completion):
        out += [obj.text, repr(obj.tool_calls), json.dumps(obj.raw), repr(obj.usage)]
    if isinstance(obj, BaseException):
        out += ["".join(traceback.format_exception(obj)), repr(obj.args)]
        if isinstance(obj, ProviderError):
            out += [json.dumps(obj.raw) if not isinstance(obj.raw, str) else obj.raw]
    return out


def _assert_clean(obj: Any) -> None:
    for text in _strings(obj):
        assert SENTINEL not in text


def _handler(family: str, status: int) -> Any:
    def handle(request: httpx.Request) -> httpx.Response:
        # The adapter must have sent the key only in a header, never in the URL or body.
        assert SENTINEL not in str(request.url)
        assert SENTINEL not in request.content.decode()
        if status == 200:
            return httpx.Response(200, json=_echo_body(family, SENTINEL))
        return httpx.Response(
            status,
            json={"error": {"message": f"bad key {SENTINEL}", "type": SENTINEL}},
            headers={"x-echo": SENTINEL},
        )

    return handle


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("status", [200, 401, 429, 500])
def test_key_never_leaks_from_replies(kit: SimpleNamespace, family: str, status: int) -> None:
    result, seen = kit.call_with(family, _handler(family, status), key=SENTINEL)
    assert len(seen) == 1
    assert SENTINEL in "".join(seen[0].headers.values())  # it was sent, in a header
    if status == 200:
        # A successful reply is the model's output, kept byte for byte: the key was sent only
        # in a header, so only an echoing server puts it there, and rewriting answers to remove
        # a substring corrupts them (issue 18: a short key ate every "x" of every answer).
        assert isinstance(result, Completion)
        assert result.text == f"your key is {SENTINEL}"
    else:
        assert isinstance(result, ProviderError)
        _assert_clean(result)


@pytest.mark.parametrize("family", FAMILIES)
def test_key_never_leaks_from_transport_errors(kit: SimpleNamespace, family: str) -> None:
    def boom(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"could not connect with key {SENTINEL}", request=request)

    result, _ = kit.call_with(family, boom, key=SENTINEL)
    assert isinstance(result, ProviderError)
    _assert_clean(result)
    assert result.__context__ is None and result.__cause__ is None


@pytest.mark.parametrize("family", FAMILIES)
def test_key_not_in_adapter_repr_or_request_body(kit: SimpleNamespace, family: str) -> None:
    client = httpx.AsyncClient()
    provider = make_provider(kit.spec(family), client, SENTINEL)
    assert SENTINEL not in repr(provider)
    assert SENTINEL not in json.dumps(provider.request_body(kit.simple_request()))  # type: ignore[attr-defined]


def test_dummy_key_x_leaves_answers_field_names_and_error_text_alone(kit: SimpleNamespace) -> None:
    """Issue 18: with the key `x`, the reply's "text" and "exceeded" must come back unchanged."""
    body = {
        "choices": [{"message": {"role": "assistant", "content": "exact tax: 2 x 3"}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        "x_extra": {"text": "x"},
    }
    result, _ = kit.call_with("openai", httpx.Response(200, json=body), key="x")
    assert isinstance(result, Completion)
    assert result.text == "exact tax: 2 x 3"
    assert result.raw == body
    error = {"error": {"message": "context_length_exceeded", "code": "context_length_exceeded"}}
    result, _ = kit.call_with("openai", httpx.Response(400, json=error), key="x")
    assert isinstance(result, ProviderError)
    assert "context_length_exceeded" in str(result)
    assert result.raw == error


def test_openai_without_a_key_sends_no_authorization_header(kit: SimpleNamespace) -> None:
    body = {"choices": [{"message": {"content": "ok"}}]}
    result, seen = kit.call_with(
        "openai", httpx.Response(200, json=body), key="", base_url="http://127.0.0.1:8000/v1"
    )
    assert isinstance(result, Completion) and result.text == "ok"
    assert "authorization" not in {k.lower() for k in seen[0].headers}
