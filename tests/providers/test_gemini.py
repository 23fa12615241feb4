"""Gemini generateContent adapter against recorded bodies (no sockets: httpx.MockTransport)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers.base import Completion, InfraError, Message, ModelError, RateLimited
from ledgerrate.providers.gemini import LOCAL_ID_PREFIX
from ledgerrate.providers.wire import ConfigError
from ledgerrate.schema import ToolCall, Usage

F = "gemini"


def _ok(kit: SimpleNamespace, name: str) -> Completion:
    return kit.completed(F, f"gemini/{name}.json")


def test_success(kit: SimpleNamespace) -> None:
    c = _ok(kit, "success")
    assert c.text == '{"total": "1250.00", "currency": "EUR"}'
    assert c.usage == Usage(input_tokens=1054, output_tokens=27)
    assert c.finish_reason == "STOP"
    assert c.raw == kit.fixture_json("gemini/success.json")


def test_function_calls_get_stable_local_ids(kit: SimpleNamespace) -> None:
    c = _ok(kit, "function_call")
    assert [(t.name, t.arguments) for t in c.tool_calls] == [
        ("run_sql", {"query": "SELECT SUM(amount) FROM invoices WHERE vendor_id = 7"}),
        ("list_files", {}),
    ]
    assert all(t.id.startswith(LOCAL_ID_PREFIX) for t in c.tool_calls)
    assert len({t.id for t in c.tool_calls}) == 2
    assert [t.id for t in _ok(kit, "function_call").tool_calls] == [t.id for t in c.tool_calls]


@pytest.mark.parametrize(
    ("name", "usage"),
    [
        ("cached_usage", Usage(input_tokens=4, cached_input_tokens=4096, output_tokens=3)),
        # input = prompt - cached + tool-use prompt; output = candidates + thoughts.
        (
            "thinking_usage",
            Usage(
                input_tokens=840,
                cached_input_tokens=100,
                output_tokens=750,
                reasoning_tokens=700,
            ),
        ),
        ("no_usage", None),
    ],
)
def test_usage_normalisation(kit: SimpleNamespace, name: str, usage: Usage | None) -> None:
    assert _ok(kit, name).usage == usage


def test_thought_parts_are_not_answer_text(kit: SimpleNamespace) -> None:
    assert _ok(kit, "thinking_usage").text == "Freight drove the overspend."


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("blocked_prompt", "prompt blocked (SAFETY)"),
        ("safety_finish", "finishReason SAFETY"),
        ("malformed_function_call", "finishReason MALFORMED_FUNCTION_CALL"),
    ],
)
def test_blocked_or_malformed_output_is_a_model_failure(
    kit: SimpleNamespace, name: str, words: str
) -> None:
    err, _ = kit.call_with(F, kit.reply(200, f"gemini/{name}.json"))
    assert type(err) is ModelError
    assert words in str(err)
    assert err.usage is not None and err.usage.input_tokens > 0
    assert err.raw == kit.fixture_json(f"gemini/{name}.json")


@pytest.mark.parametrize(
    ("status", "fixture", "headers", "cls", "retry_after"),
    [
        (429, "error_429.json", {}, RateLimited, 46.0),  # from RetryInfo in the body
        (429, "error_429.json", {"retry-after": "3"}, RateLimited, 3.0),  # header wins
        (500, "error_500.json", {}, InfraError, None),
        (503, "error_503.json", {}, InfraError, None),
        (400, "error_400.json", {}, ConfigError, None),
        (403, "error_403.json", {}, ConfigError, None),
        (404, "error_404.json", {}, ConfigError, None),
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
    kit.check_error(F, status, f"gemini/{fixture}", headers, cls, retry_after)


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
    calls = [
        ToolCall(id=f"{LOCAL_ID_PREFIX}0-abc", name="run_sql", arguments={"query": "SELECT 1"}),
        ToolCall(id="provider-id-7", name="run_sql", arguments={"query": "SELECT 2"}),
    ]
    request = kit.simple_request(
        messages=[
            Message(role="user", content="Totals?"),
            Message(role="assistant", tool_calls=calls),
            Message(role="tool", content="1", tool_call_id=f"{LOCAL_ID_PREFIX}0-abc"),
            Message(
                role="tool", content="syntax error", tool_call_id="provider-id-7", is_error=True
            ),
        ],
        tools=[_tool()],
    )
    _, seen = kit.call_with(
        F,
        kit.reply(200, "gemini/success.json"),
        request=request,
        api_model="models/gemini-2.5-flash",
        sampling={"temperature": 0, "topP": 1, "safetySettings": [{"category": "X"}]},
    )
    sent = seen[0]
    assert str(sent.url) == (
        "https://api.example.test/v1beta/models/gemini-2.5-flash:generateContent"
    )
    assert "key" not in sent.url.query.decode()
    assert sent.headers["x-goog-api-key"] == "test-key-123"
    body = json.loads(sent.content)
    assert body["systemInstruction"] == {"parts": [{"text": "You are an accounts-payable clerk."}]}
    assert body["generationConfig"] == {"maxOutputTokens": 512, "temperature": 0, "topP": 1}
    assert body["safetySettings"] == [{"category": "X"}]
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "run_sql",
                    "description": "Run one read-only SQL query.",
                    "parametersJsonSchema": _tool().parameters,
                }
            ]
        }
    ]
    # The documented default, said explicitly (a translating gateway drops tools without it).
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Totals?"}]},
        {
            "role": "model",
            "parts": [
                # Our own ids never go back; the provider's do.
                {"functionCall": {"name": "run_sql", "args": {"query": "SELECT 1"}}},
                {
                    "functionCall": {
                        "name": "run_sql",
                        "args": {"query": "SELECT 2"},
                        "id": "provider-id-7",
                    }
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "run_sql", "response": {"output": "1"}}},
                {
                    "functionResponse": {
                        "name": "run_sql",
                        "response": {"error": "syntax error"},
                        "id": "provider-id-7",
                    }
                },
            ],
        },
    ]


def test_assistant_raw_replays_thought_signatures(kit: SimpleNamespace) -> None:
    raw = kit.fixture_json("gemini/function_call.json")
    first = _ok(kit, "function_call")
    request = kit.simple_request(
        messages=[
            Message(role="user", content="Totals?"),
            Message(role="assistant", tool_calls=first.tool_calls, raw=raw),
            Message(role="tool", content="1", tool_call_id=first.tool_calls[0].id),
            Message(role="tool", content="a.txt", tool_call_id=first.tool_calls[1].id),
        ]
    )
    _, seen = kit.call_with(F, kit.reply(200, "gemini/success.json"), request=request)
    contents = json.loads(seen[0].content)["contents"]
    assert contents[1] == {"role": "model", "parts": raw["candidates"][0]["content"]["parts"]}
    assert "thoughtSignature" in contents[1]["parts"][0]
    names = [p["functionResponse"]["name"] for p in contents[2]["parts"]]
    assert names == ["run_sql", "list_files"]  # looked up from the call ids


def test_sampling_may_not_set_the_output_cap(kit: SimpleNamespace) -> None:
    err, seen = kit.call_with(
        F, kit.reply(200, "gemini/success.json"), sampling={"maxOutputTokens": 9}
    )
    assert isinstance(err, ConfigError)
    assert seen == []


def test_tool_config_only_with_tools_and_an_edition_may_set_its_own(kit: SimpleNamespace) -> None:
    _, seen = kit.call_with(F, kit.reply(200, "gemini/success.json"))
    assert "toolConfig" not in json.loads(seen[0].content)
    own = {"functionCallingConfig": {"mode": "ANY"}}
    _, seen = kit.call_with(
        F,
        kit.reply(200, "gemini/success.json"),
        request=kit.simple_request(tools=[_tool()]),
        sampling={"toolConfig": own},
    )
    assert json.loads(seen[0].content)["toolConfig"] == own
