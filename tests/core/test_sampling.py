"""A request's sampling settings against the edition's, in every form a body is stored in."""

from __future__ import annotations

from typing import Any

from ledgerrate.core.sampling import differences
from ledgerrate.schema import ModelSpec


def _spec(**changes: Any) -> ModelSpec:
    fields: dict[str, Any] = {
        "id": "m1",
        "name": "M1",
        "provider": "openai",
        "family": "openai",
        "api_model": "m-1",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "M1_KEY",
        "sampling": {"temperature": 0.2},
        "max_output_tokens": 512,
    }
    return ModelSpec.model_validate({**fields, **changes})


def _found(spec: ModelSpec, body: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    return [(d.setting, d.sent, d.edition) for d in differences(spec, body)]


def test_the_body_run_sends_matches() -> None:
    body = {"model": "m-1", "messages": [], "max_tokens": 512, "temperature": 0.2}
    assert _found(_spec(), body) == []
    # Inspect's body: an explicit null tool choice, `auto` with tools, its own headers.
    inspect_body = {**body, "tool_choice": None, "extra_headers": {"x-irid": "a"}}
    assert _found(_spec(), inspect_body) == []
    assert _found(_spec(), {**body, "tool_choice": "auto", "tools": [{}]}) == []


def test_each_familys_default_tool_choice_is_no_setting() -> None:
    """The Anthropic and Gemini adapters name their documented default whenever they send tools
    (a translating gateway drops the tools otherwise): a stored body saying so matches."""
    body = {"max_tokens": 512, "temperature": 0.2, "tools": [{}]}
    assert _found(_spec(), {**body, "tool_choice": {"type": "auto"}}) == []
    gemini = {"generationConfig": {"maxOutputTokens": 512, "temperature": 0.2}, "tools": [{}]}
    auto = {"functionCallingConfig": {"mode": "AUTO"}}
    assert _found(_spec(), {**gemini, "toolConfig": auto}) == []
    forced = {"functionCallingConfig": {"mode": "ANY"}}
    assert _found(_spec(), {**gemini, "toolConfig": forced}) == [("tool_choice", forced, None)]


def test_a_changed_temperature_and_cap_are_named_with_both_values() -> None:
    body = {"max_tokens": 50, "temperature": 0.9}
    assert _found(_spec(), body) == [("temperature", 0.9, 0.2), ("max_tokens", 50, 512)]


def test_a_setting_the_edition_leaves_unset_may_not_be_sent() -> None:
    body = {"max_tokens": 512, "temperature": 0.2, "seed": 7, "top_p": 0.5}
    assert _found(_spec(), body) == [("top_p", 0.5, None), ("seed", 7, None)]
    assert _found(_spec(), {"max_tokens": 512}) == [("temperature", None, 0.2)]
    forced = {"max_tokens": 512, "temperature": 0.2, "tool_choice": "required"}
    assert _found(_spec(), forced) == [("tool_choice", "required", None)]


def test_reasoning_and_other_spellings_of_the_cap() -> None:
    spec = _spec(sampling={"max_completion_tokens": 2000, "reasoning_effort": "low"})
    assert _found(spec, {"max_completion_tokens": 2000, "reasoning_effort": "low"}) == []
    assert _found(spec, {"max_completion_tokens": 2000, "reasoning_effort": "high"}) == [
        ("reasoning_effort", "high", "low")
    ]
    # Inspect's generate config names the cap max_tokens and the stop sequences stop_seqs.
    assert _found(spec, {"max_tokens": 2000, "reasoning_effort": "low"}) == []
    gemini = _spec(provider="gemini", family="google", sampling={"temperature": 0})
    body = {"contents": [], "generationConfig": {"maxOutputTokens": 512, "temperature": 0}}
    assert _found(gemini, body) == []
    body["generationConfig"]["topK"] = 3
    assert _found(gemini, body) == [("top_k", 3, None)]


def test_runs_family_neutral_form_and_inspects_config_form() -> None:
    neutral = {"provider": "openai", "sampling": {"temperature": 0.2}, "max_output_tokens": 512}
    assert _found(_spec(), neutral) == []
    assert _found(_spec(), {**neutral, "max_output_tokens": 4096}) == [("max_tokens", 4096, 512)]
    config = {"provider": "inspect_ai", "config": {"max_tokens": 512, "temperature": 0.9}}
    assert _found(_spec(), config) == [("temperature", 0.9, 0.2)]


def test_zero_and_zero_point_zero_are_one_temperature_but_true_is_not_one() -> None:
    spec = _spec(sampling={"temperature": 0, "logprobs": True})
    assert _found(spec, {"max_tokens": 512, "temperature": 0.0, "logprobs": True}) == []
    assert _found(spec, {"max_tokens": 512, "temperature": 0, "logprobs": 1}) == [
        ("logprobs", 1, True)
    ]
