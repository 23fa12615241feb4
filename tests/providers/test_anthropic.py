"""Anthropic Messages adapter against recorded bodies (no sockets: httpx.MockTransport)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from ledgerrate.core.tools import ToolSpec
from ledgerrate.providers.base import Completion, InfraError, Message, ModelError, RateLimited
from ledgerrate.providers.wire import ConfigError
from ledgerrate.schema import ToolCall, Usage

F = "anthropic"


def _ok(kit: SimpleNamespace, name: str) -> Completion:
    return kit.completed(F, f"anthropic/{name}.json")


def test_success_joins_text_blocks(kit: SimpleNamespace) -> None:
    c = _ok(kit, "success")
    assert c.text == '{"total": "1250.00", "currency": "EUR"}'
    assert c.usage == Usage(input_tokens=2095, output_tokens=503)
    assert c.finish_reason == "end_turn"
    assert c.raw == kit.fixture_json("anthropic/success.json")


def test_tool_use_block(kit: SimpleNamespace) -> None:
    c = _ok(kit, "tool_use")
    assert c.text == "I'll look up the vendor's open invoices."
    assert c.tool_calls == [
        ToolCall(
            id="toolu_01A09q90qw90lq917835lq9",
            name="run_sql",
            arguments={"query": "SELECT * FROM invoices WHERE vendor_id = 7"},
        )
    ]
    assert c.finish_reason == "tool_use"


@pytest.mark.parametrize(
    ("name", "usage"),
    [
        (
            "cached_usage",
            Usage(
                input_tokens=21,
                cached_input_tokens=2048,
                cache_write_tokens=188086,
                output_tokens=393,
            ),
        ),
        # Thinking is inside output_tokens and not reported apart: reasoning stays 0.
        ("thinking", Usage(input_tokens=1200, output_tokens=2210)),
        ("no_usage", None),
    ],
)
def test_usage_normalisation(kit: SimpleNamespace, name: str, usage: Usage | None) -> None:
    assert _ok(kit, name).usage == usage


def test_thinking_is_not_answer_text(kit: SimpleNamespace) -> None:
    assert _ok(kit, "thinking").text == "Freight drove the overspend."


@pytest.mark.parametrize(
    ("name", "words", "usage"),
    [
        ("refusal", "refusal", Usage(input_tokens=640, output_tokens=4)),
        ("empty_content", "empty output", Usage(input_tokens=640)),
    ],
)
def test_model_failures(kit: SimpleNamespace, name: str, words: str, usage: Usage) -> None:
    err, _ = kit.call_with(F, kit.reply(200, f"anthropic/{name}.json"))
    assert type(err) is ModelError
    assert words in str(err)
    assert err.usage == usage
    assert err.raw == kit.fixture_json(f"anthropic/{name}.json")


@pytest.mark.parametrize(
    ("status", "fixture", "headers", "cls", "retry_after"),
    [
        (429, "error_429.json", {"retry-after": "30"}, RateLimited, 30.0),
        (429, "error_429.json", {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, RateLimited, 0),
        (429, "error_429_spend_limit.json", {}, ConfigError, None),
        (529, "error_529.json", {}, InfraError, None),
        (500, "error_500.json", {}, InfraError, None),
        (401, "error_401.json", {}, ConfigError, None),
        (400, "error_400.json", {}, ConfigError, None),
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
    kit.check_error(F, status, f"anthropic/{fixture}", headers, cls, retry_after)


def test_overloaded_message_names_the_error_type(kit: SimpleNamespace) -> None:
    err, _ = kit.call_with(F, kit.reply(529, "anthropic/error_529.json"))
    assert "overloaded_error" in str(err)
    assert not isinstance(err, RateLimited)


def _tool() -> ToolSpec:
    return ToolSpec(
        name="read_file",
        description="Read a file from the sandbox.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
        run=lambda args: "",
    )


def test_request_shape_merges_tool_results_into_one_user_turn(kit: SimpleNamespace) -> None:
    calls = [
        ToolCall(id="toolu_a", name="read_file", arguments={"path": "a.txt"}),
        ToolCall(id="toolu_b", name="read_file", arguments={"path": "b.txt"}),
    ]
    request = kit.simple_request(
        messages=[
            Message(role="user", content="Read both."),
            Message(role="assistant", content="Reading.", tool_calls=calls),
            Message(role="tool", content="A", tool_call_id="toolu_a"),
            Message(role="tool", content="no such file", tool_call_id="toolu_b", is_error=True),
        ],
        tools=[_tool()],
    )
    _, seen = kit.call_with(
        F,
        kit.reply(200, "anthropic/success.json"),
        request=request,
        sampling={"temperature": 0, "top_k": 1},
    )
    sent = seen[0]
    assert str(sent.url) == "https://api.example.test/v1/messages"
    assert sent.headers["x-api-key"] == "test-key-123"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    body = json.loads(sent.content)
    assert body["system"] == "You are an accounts-payable clerk."
    assert body["max_tokens"] == 512
    assert body["temperature"] == 0 and body["top_k"] == 1
    assert body["tools"] == [
        {
            "name": "read_file",
            "description": "Read a file from the sandbox.",
            "input_schema": _tool().parameters,
        }
    ]
    # The documented default, said explicitly (a translating gateway drops tools without it).
    assert body["tool_choice"] == {"type": "auto"}
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Read both."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading."},
                {
                    "type": "tool_use",
                    "id": "toolu_a",
                    "name": "read_file",
                    "input": {"path": "a.txt"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_b",
                    "name": "read_file",
                    "input": {"path": "b.txt"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a", "content": "A"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": "no such file",
                    "is_error": True,
                },
            ],
        },
    ]


def test_assistant_raw_is_replayed_with_thinking_blocks(kit: SimpleNamespace) -> None:
    raw = kit.fixture_json("anthropic/thinking.json")
    request = kit.simple_request(
        messages=[
            Message(role="user", content="Why?"),
            Message(role="assistant", content="Freight drove the overspend.", raw=raw),
            Message(role="user", content="Say more."),
        ]
    )
    _, seen = kit.call_with(F, kit.reply(200, "anthropic/success.json"), request=request)
    assistant = json.loads(seen[0].content)["messages"][1]
    assert assistant == {"role": "assistant", "content": raw["content"]}
    assert assistant["content"][0]["signature"].startswith("WaUjzkyp")


def test_base_url_with_v1_is_not_doubled(kit: SimpleNamespace) -> None:
    _, seen = kit.call_with(
        F, kit.reply(200, "anthropic/success.json"), base_url="https://proxy.test/v1/"
    )
    assert str(seen[0].url) == "https://proxy.test/v1/messages"


def test_tool_choice_only_with_tools_and_an_edition_may_set_its_own(kit: SimpleNamespace) -> None:
    _, seen = kit.call_with(F, kit.reply(200, "anthropic/success.json"))
    assert "tool_choice" not in json.loads(seen[0].content)
    _, seen = kit.call_with(
        F,
        kit.reply(200, "anthropic/success.json"),
        request=kit.simple_request(tools=[_tool()]),
        sampling={"tool_choice": {"type": "any"}},
    )
    assert json.loads(seen[0].content)["tool_choice"] == {"type": "any"}
