"""OpenAI-compatible adapter against recorded bodies (no sockets: httpx.MockTransport)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx
import pytest

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers.base import (
    Completion,
    InfraError,
    Message,
    ModelError,
    RateLimited,
)
from ledgerrate.providers.wire import ConfigError
from ledgerrate.schema import ToolCall, Usage

F = "openai"


def _ok(kit: SimpleNamespace, name: str) -> Completion:
    return kit.completed(F, f"openai/{name}.json")


def test_success_text_usage_and_raw(kit: SimpleNamespace) -> None:
    c = _ok(kit, "success")
    assert c.text == '{"total": "1250.00", "currency": "EUR"}'
    assert c.tool_calls == []
    assert c.usage == Usage(input_tokens=1117, output_tokens=46)
    assert c.http_status == 200
    assert c.finish_reason == "stop"
    assert c.raw == kit.fixture_json("openai/success.json")


def test_tool_calls_parse_json_string_arguments(kit: SimpleNamespace) -> None:
    c = _ok(kit, "tool_call")
    assert c.text == ""
    assert c.tool_calls == [
        ToolCall(
            id="call_abc123",
            name="run_sql",
            arguments={"query": "SELECT SUM(amount) FROM invoices WHERE vendor_id = 7"},
        ),
        # An empty arguments string means "no arguments", as some servers send it.
        ToolCall(id="call_def456", name="list_files", arguments={}),
    ]
    assert c.finish_reason == "tool_calls"


@pytest.mark.parametrize(
    ("name", "usage"),
    [
        ("cached_usage", Usage(input_tokens=86, cached_input_tokens=1920, output_tokens=300)),
        (
            "cache_write_usage",
            Usage(
                input_tokens=1000,
                cached_input_tokens=1000,
                cache_write_tokens=3000,
                output_tokens=40,
            ),
        ),
        (
            "reasoning_usage",
            Usage(
                input_tokens=722,
                cached_input_tokens=128,
                output_tokens=1536,
                reasoning_tokens=1408,
            ),
        ),
        ("no_usage", None),
    ],
)
def test_usage_normalisation(kit: SimpleNamespace, name: str, usage: Usage | None) -> None:
    assert _ok(kit, name).usage == usage


@pytest.mark.parametrize(
    ("name", "words", "usage"),
    [
        ("refusal", "refusal", Usage(input_tokens=400, output_tokens=12)),
        ("empty_choices", "no choices", Usage(input_tokens=300)),
        ("content_filter", "content filter", Usage(input_tokens=300, output_tokens=3)),
        ("malformed_arguments", "not JSON", Usage(input_tokens=90, output_tokens=9)),
    ],
)
def test_model_failures_keep_usage_and_raw(
    kit: SimpleNamespace, name: str, words: str, usage: Usage
) -> None:
    err, _ = kit.call_with(F, kit.reply(200, f"openai/{name}.json"))
    assert type(err) is ModelError
    assert words in str(err)
    assert err.usage == usage
    assert err.raw == kit.fixture_json(f"openai/{name}.json")
    assert err.status == 200


@pytest.mark.parametrize(
    ("status", "fixture", "headers", "cls", "retry_after"),
    [
        (429, "openai/error_429.json", {"retry-after": "2"}, RateLimited, 2.0),
        (429, "openai/error_429.json", {"retry-after-ms": "120"}, RateLimited, 0.12),
        (429, "openai/error_429.json", {}, RateLimited, None),
        (429, "openai/error_insufficient_quota.json", {}, ConfigError, None),
        (401, "openai/error_401.json", {}, ConfigError, None),
        (400, "openai/error_400.json", {}, ConfigError, None),
        (404, "openai/error_404.json", {}, ConfigError, None),
        (500, "openai/error_500.json", {}, InfraError, None),
        (503, "openai/error_503.json", {"retry-after": "7"}, InfraError, 7.0),
        (502, "html_502.txt", {}, InfraError, None),
        (200, "malformed.txt", {}, InfraError, None),
    ],
)
def test_error_classification(
    kit: SimpleNamespace,
    status: int,
    fixture: str,
    headers: dict[str, str],
    cls: type[Exception],
    retry_after: float | None,
) -> None:
    kit.check_error(F, status, fixture, headers, cls, retry_after)


def test_error_message_quotes_provider_text(kit: SimpleNamespace) -> None:
    err, _ = kit.call_with(F, kit.reply(404, "openai/error_404.json"))
    assert "HTTP 404" in str(err)
    assert "model_not_found" in str(err)


def _tool() -> ToolSpec:
    return ToolSpec(
        name="run_sql",
        description="Run one read-only SQL query.",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
            "additionalProperties": False,
        },
        run=lambda args: "",
    )


def test_request_shape(kit: SimpleNamespace) -> None:
    call = ToolCall(id="call_1", name="run_sql", arguments={"query": "SELECT 1"})
    request = kit.simple_request(
        messages=[
            Message(role="user", content="Total?"),
            Message(role="assistant", content="", tool_calls=[call]),
            Message(role="tool", content="1", tool_call_id="call_1", tool_name="run_sql"),
        ],
        tools=[_tool()],
    )
    _, seen = kit.call_with(
        F,
        kit.reply(200, "openai/success.json"),
        request=request,
        sampling={"temperature": 0, "seed": 7},
    )
    sent = seen[0]
    assert sent.method == "POST"
    assert str(sent.url) == "https://api.example.test/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer test-key-123"
    body = json.loads(sent.content)
    assert body["model"] == "openai-test-model"
    assert body["temperature"] == 0
    assert body["seed"] == 7
    assert body["max_tokens"] == 512
    assert body["messages"] == [
        {"role": "system", "content": "You are an accounts-payable clerk."},
        {"role": "user", "content": "Total?"},
        {
            # "" beside the tool call: llama-cpp-python refuses a null or absent content
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "run_sql", "arguments": '{"query": "SELECT 1"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "1"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "run_sql",
                "description": "Run one read-only SQL query.",
                "parameters": _tool().parameters,
            },
        }
    ]
    # said explicitly: llama-cpp-python's tool template drops the tools without it
    assert body["tool_choice"] == "auto"


def test_max_completion_tokens_in_sampling_replaces_max_tokens(kit: SimpleNamespace) -> None:
    _, seen = kit.call_with(
        F,
        kit.reply(200, "openai/success.json"),
        sampling={"max_completion_tokens": 2048, "reasoning_effort": "low"},
    )
    body = json.loads(seen[0].content)
    assert "max_tokens" not in body
    assert body["max_completion_tokens"] == 2048
    assert body["reasoning_effort"] == "low"


def test_sampling_may_not_replace_the_request(kit: SimpleNamespace) -> None:
    err, seen = kit.call_with(F, kit.reply(200, "openai/success.json"), sampling={"messages": []})
    assert isinstance(err, ConfigError)
    assert seen == []  # refused before any call


@pytest.mark.parametrize(
    "exc",
    [
        httpx.ReadTimeout("read timed out"),
        httpx.ConnectError("connection refused"),
        httpx.RemoteProtocolError("server disconnected"),
    ],
)
def test_transport_failures_are_infra(kit: SimpleNamespace, exc: Exception) -> None:
    def boom(request: httpx.Request) -> httpx.Response:
        raise exc

    err, _ = kit.call_with(F, boom)
    assert isinstance(err, InfraError)
    assert err.status is None
    # Never chained: the httpx exception's request carries the key in a header.
    assert err.__cause__ is None and err.__context__ is None
