"""OpenAI Responses adapter against bodies in the API reference's documented shapes (no sockets:
httpx.MockTransport): the same matrix as the other families, plus what only this API has."""

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

F = "openai-responses"
D = "openai_responses"


def _ok(kit: SimpleNamespace, name: str) -> Completion:
    return kit.completed(F, f"{D}/{name}.json")


def test_success_text_usage_and_raw(kit: SimpleNamespace) -> None:
    c = _ok(kit, "success")
    assert c.text == '{"total": "1250.00", "currency": "EUR"}'
    assert c.tool_calls == []
    assert c.usage == Usage(input_tokens=1117, output_tokens=46)
    assert c.http_status == 200
    assert c.finish_reason == "completed"
    assert not c.truncated
    assert c.raw == kit.fixture_json(f"{D}/success.json")


def test_function_call_items_carry_their_call_ids(kit: SimpleNamespace) -> None:
    c = _ok(kit, "function_call")
    # The reasoning item before the calls is neither text nor a call.
    assert c.text == ""
    assert c.tool_calls == [
        ToolCall(
            id="call_abc123",
            name="run_sql",
            arguments={"query": "SELECT SUM(amount) FROM invoices WHERE vendor_id = 7"},
        ),
        ToolCall(id="call_def456", name="list_files", arguments={}),
    ]
    assert c.usage == Usage(input_tokens=512, output_tokens=210, reasoning_tokens=128)


@pytest.mark.parametrize(
    ("name", "usage"),
    [
        ("cached_usage", Usage(input_tokens=86, cached_input_tokens=1920, output_tokens=300)),
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


def test_usage_parts_larger_than_their_totals_are_the_providers_fault(
    kit: SimpleNamespace,
) -> None:
    body = kit.fixture_json(f"{D}/cached_usage.json")
    body["usage"]["input_tokens_details"]["cached_tokens"] = 5000
    err, _ = kit.call_with(F, httpx.Response(200, json=body))
    assert type(err) is InfraError
    assert "unexpected shape" in str(err)


def test_output_cut_at_max_output_tokens_is_truncated(kit: SimpleNamespace) -> None:
    c = _ok(kit, "max_output_tokens")
    assert c.truncated and c.text == "The total is 12"
    assert c.finish_reason == "max_output_tokens"
    # A reasoning model that spent the whole cap thinking: truncated with no text, not empty.
    spent = _ok(kit, "max_output_tokens_reasoning")
    assert spent.truncated and spent.text == "" and spent.tool_calls == []
    assert spent.usage == Usage(input_tokens=300, output_tokens=512, reasoning_tokens=512)


@pytest.mark.parametrize(
    ("name", "words", "usage"),
    [
        ("refusal", "refusal: I'm sorry", Usage(input_tokens=400, output_tokens=12)),
        ("empty_output", "empty output", Usage(input_tokens=300)),
        ("content_filter", "content filter", Usage(input_tokens=300, output_tokens=3)),
        ("malformed_arguments", "not JSON", Usage(input_tokens=90, output_tokens=9)),
        ("failed_invalid_prompt", "invalid_prompt", Usage(input_tokens=250)),
    ],
)
def test_model_failures_keep_usage_and_raw(
    kit: SimpleNamespace, name: str, words: str, usage: Usage
) -> None:
    err, _ = kit.call_with(F, kit.reply(200, f"{D}/{name}.json"))
    assert type(err) is ModelError
    assert words in str(err)
    assert err.usage == usage
    assert err.raw == kit.fixture_json(f"{D}/{name}.json")
    assert err.status == 200


@pytest.mark.parametrize(
    ("name", "cls"),
    [("failed_server_error", InfraError), ("failed_rate_limit", RateLimited)],
)
def test_a_failed_response_is_the_providers_failure(
    kit: SimpleNamespace, name: str, cls: type[Exception]
) -> None:
    err, _ = kit.call_with(F, kit.reply(200, f"{D}/{name}.json"))
    assert type(err) is cls
    assert err.raw == kit.fixture_json(f"{D}/{name}.json")


def test_an_unfinished_response_is_the_providers_failure(kit: SimpleNamespace) -> None:
    body = {**kit.fixture_json(f"{D}/success.json"), "status": "in_progress"}
    err, _ = kit.call_with(F, httpx.Response(200, json=body))
    assert type(err) is InfraError
    assert "in_progress" in str(err)


@pytest.mark.parametrize(
    ("status", "fixture", "headers", "cls", "retry_after"),
    [
        (429, f"{D}/error_429.json", {"retry-after": "2"}, RateLimited, 2.0),
        (429, f"{D}/error_429.json", {"retry-after-ms": "120"}, RateLimited, 0.12),
        (429, f"{D}/error_429.json", {}, RateLimited, None),
        (429, f"{D}/error_insufficient_quota.json", {}, ConfigError, None),
        (401, f"{D}/error_401.json", {}, ConfigError, None),
        (400, f"{D}/error_400.json", {}, ConfigError, None),
        (404, f"{D}/error_404.json", {}, ConfigError, None),
        (500, f"{D}/error_500.json", {}, InfraError, None),
        (503, f"{D}/error_503.json", {"retry-after": "7"}, InfraError, 7.0),
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
    err, _ = kit.call_with(F, kit.reply(404, f"{D}/error_404.json"))
    assert "openai-responses HTTP 404" in str(err)
    assert "model_not_found" in str(err)


def _tool() -> ToolSpec:
    return ToolSpec(
        name="run_sql",
        description="Run one read-only SQL query.",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
        run=lambda args: "",
    )


def test_request_shape(kit: SimpleNamespace) -> None:
    call = ToolCall(id="call_1", name="run_sql", arguments={"query": "SELECT 1"})
    request = kit.simple_request(
        messages=[
            Message(role="user", content="Total?"),
            Message(role="assistant", content="Let me look.", tool_calls=[call]),
            Message(role="tool", content="1", tool_call_id="call_1", tool_name="run_sql"),
        ],
        tools=[_tool()],
    )
    _, seen = kit.call_with(
        F,
        kit.reply(200, f"{D}/success.json"),
        request=request,
        sampling={"temperature": 0, "top_p": 1},
    )
    sent = seen[0]
    assert sent.method == "POST"
    assert str(sent.url) == "https://api.example.test/v1/responses"
    assert sent.headers["authorization"] == "Bearer test-key-123"
    body = json.loads(sent.content)
    assert body["model"] == "openai-responses-test-model"
    assert body["store"] is False
    assert body["instructions"] == "You are an accounts-payable clerk."
    assert body["max_output_tokens"] == 512
    assert body["temperature"] == 0 and body["top_p"] == 1
    assert body["input"] == [
        {"role": "user", "content": "Total?"},
        {"role": "assistant", "content": "Let me look."},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "run_sql",
            "arguments": '{"query": "SELECT 1"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "1"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "run_sql",
            "description": "Run one read-only SQL query.",
            "parameters": _tool().parameters,
            "strict": False,
        }
    ]
    assert body["tool_choice"] == "auto"
    assert "previous_response_id" not in body


def test_reasoning_goes_back_verbatim_only_with_its_encrypted_content(
    kit: SimpleNamespace,
) -> None:
    """Under `store: false` a reasoning item is found by its content, never its id: a reply
    whose reasoning carries `encrypted_content` is replayed item for item; one whose reasoning
    does not is rebuilt from its calls, without the item ids the API could not resolve."""
    with_state = kit.fixture_json(f"{D}/reasoning_usage.json")
    without = kit.fixture_json(f"{D}/function_call.json")
    call = ToolCall(id="call_abc123", name="run_sql", arguments={"query": "SELECT 1"})
    request = kit.simple_request(
        messages=[
            Message(role="user", content="Why?"),
            Message(role="assistant", content="The variance is driven by freight.", raw=with_state),
            Message(role="user", content="Total?"),
            Message(role="assistant", content="", tool_calls=[call], raw=without),
            Message(role="tool", content="1", tool_call_id="call_abc123"),
        ],
    )
    _, seen = kit.call_with(
        F,
        kit.reply(200, f"{D}/success.json"),
        request=request,
        sampling={"include": ["reasoning.encrypted_content"]},
    )
    body = json.loads(seen[0].content)
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["input"] == [
        {"role": "user", "content": "Why?"},
        *with_state["output"],
        {"role": "user", "content": "Total?"},
        {
            "type": "function_call",
            "call_id": "call_abc123",
            "name": "run_sql",
            "arguments": '{"query": "SELECT 1"}',
        },
        {"type": "function_call_output", "call_id": "call_abc123", "output": "1"},
    ]
    assert "rs_" not in json.dumps(body["input"][4:])


@pytest.mark.parametrize(
    "key", ["store", "previous_response_id", "conversation", "input", "max_output_tokens"]
)
def test_sampling_may_not_replace_the_request_or_keep_state(kit: SimpleNamespace, key: str) -> None:
    err, seen = kit.call_with(F, kit.reply(200, f"{D}/success.json"), sampling={key: True})
    assert isinstance(err, ConfigError)
    assert key in str(err)
    assert seen == []  # refused before any call


def test_a_tool_result_without_its_call_id_is_refused(kit: SimpleNamespace) -> None:
    request = kit.simple_request(messages=[Message(role="tool", content="1")])
    err, seen = kit.call_with(F, kit.reply(200, f"{D}/success.json"), request=request)
    assert isinstance(err, ConfigError) and seen == []


def test_a_call_without_its_call_id_is_bad_output(kit: SimpleNamespace) -> None:
    body = kit.fixture_json(f"{D}/function_call.json")
    del body["output"][1]["call_id"]
    err, _ = kit.call_with(F, httpx.Response(200, json=body))
    assert type(err) is ModelError
    assert "call_id" in str(err)


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
    assert err.__cause__ is None and err.__context__ is None


def test_the_family_is_registered_as_openai_for_inspect_and_the_blinding(
    kit: SimpleNamespace,
) -> None:
    from ledgerrate.harness.listing import inspect_model
    from ledgerrate.providers import families

    responses, chat = families.get(F), families.get("openai")
    # The same vendor's models name themselves the same way, whichever API serves them.
    assert responses.vendor_words == chat.vendor_words
    # Inspect's `openai` provider speaks the Responses API to OpenAI's own models.
    assert inspect_model(kit.spec(F, api_model="gpt-x")) == "openai/gpt-x"
