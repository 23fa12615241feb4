"""Shared helpers for the provider tests: recorded fixtures, model specs, one-call runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import httpx
import pytest

from ledgerrate.providers import make_provider
from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    InfraError,
    Message,
    Provider,
    ProviderError,
)
from ledgerrate.schema import ModelSpec
from ledgerrate.testing import scripted_client
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "http"
T = TypeVar("T")
BASES = {
    "openai": "https://api.example.test/v1",
    "anthropic": "https://api.example.test",
    "gemini": "https://api.example.test",
    "openai-responses": "https://api.example.test/v1",
}


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def fixture_json(name: str) -> Any:
    return json.loads(fixture_text(name))


def spec(family: str, **overrides: Any) -> ModelSpec:
    fields: dict[str, Any] = {
        "id": f"test-{family}",
        "name": f"Test {family}",
        "provider": family,
        "family": family,
        "api_model": f"{family}-test-model",
        "base_url": BASES[family],
        "api_key_env": "TEST_KEY",
        "sampling": {"temperature": 0},
        "max_output_tokens": 512,
        "timeout_s": 5.0,
    }
    fields.update(overrides)
    return ModelSpec(**fields)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def simple_request(**kw: Any) -> CompletionRequest:
    return CompletionRequest(
        system=kw.pop("system", "You are an accounts-payable clerk."),
        messages=kw.pop("messages", [Message(role="user", content="Extract the total.")]),
        **kw,
    )


def call_with(
    family: str,
    *responses: httpx.Response | Callable[[httpx.Request], httpx.Response],
    request: CompletionRequest | None = None,
    key: str = "test-key-123",
    **spec_overrides: Any,
) -> tuple[Completion | BaseException, list[httpx.Request]]:
    """One `complete` over a mock transport: the completion (or the error raised) and the
    requests sent."""
    client, seen = scripted_client(*responses)

    async def go() -> Completion | BaseException:
        async with client:
            provider: Provider = make_provider(spec(family, **spec_overrides), client, key)
            try:
                return await provider.complete(request or simple_request())
            except Exception as exc:
                return exc

    return run(go()), seen


def reply(status: int, fixture: str, headers: dict[str, str] | None = None) -> httpx.Response:
    content = fixture_text(fixture).encode()
    return httpx.Response(
        status, content=content, headers={"content-type": "application/json", **(headers or {})}
    )


def completed(family: str, fixture: str) -> Completion:
    """The completion an adapter makes of one documented 200 reply (`fixture` relative to
    tests/fixtures/http); anything else fails the test."""
    result, _ = call_with(family, reply(200, fixture))
    assert isinstance(result, Completion), result
    return result


def check_error(
    family: str,
    status: int,
    fixture: str,
    headers: dict[str, str],
    cls: type[Exception],
    retry_after: float | None,
) -> None:
    """One documented error body (`fixture` relative to tests/fixtures/http): the adapter
    raises `cls` with the status and the body kept (non-JSON bodies as text) and, for infra
    errors, the wait it should honour. An HTTP date in the past means "now": wait 0."""
    err, _ = call_with(family, reply(status, fixture, headers))
    assert type(err) is cls
    assert err.status == status
    if fixture.endswith(".json"):
        assert err.raw == fixture_json(fixture)
    else:
        assert err.raw == fixture_text(fixture)
    if isinstance(err, InfraError):
        assert err.retry_after == retry_after


def served(family: str, reply: FakeReply) -> Completion | ProviderError:
    """One call of the real adapter to the fake server on 127.0.0.1 answering `reply`: the
    completion, or the provider error it raised."""
    with FakeProviderServer(responder=lambda _family, _body: reply) as fake:
        model = spec(family, base_url=fake.base_url(family))

        async def go() -> Completion | ProviderError:
            async with httpx.AsyncClient() as client:
                try:
                    return await make_provider(model, client, "k" * 24).complete(simple_request())
                except ProviderError as exc:
                    return exc

        return run(go())


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, as a fixture: test modules cannot import each other under
    `--import-mode=importlib`."""
    return SimpleNamespace(
        fixture_text=fixture_text,
        fixture_json=fixture_json,
        spec=spec,
        run=run,
        simple_request=simple_request,
        call_with=call_with,
        reply=reply,
        completed=completed,
        check_error=check_error,
        served=served,
    )
