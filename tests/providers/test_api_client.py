"""The runner's API client (aiohttp's pool, replies read whole, no cookies) against plain httpx.

Over real sockets, every family and the fake's scripted faults: each call must come back the
same through both clients (text, usage, raw body, status, error class, message, Retry-After),
so swapping the client changes no record. Only cookies differ, on purpose.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from ledgerrate.providers import make_provider
from ledgerrate.providers.base import Completion, InfraError, ProviderError
from ledgerrate.providers.client import api_client
from ledgerrate.testing import FakeProviderServer, FakeReply
from ledgerrate.testing.fake_provider import Responder

FAMILIES = ("openai", "anthropic", "gemini", "openai-responses")
KEY = "fake-key-0123456789"
POOL = httpx.Limits(max_connections=4, max_keepalive_connections=2)
# Each twice in a row: a once-fault fails first and then succeeds.
MODELS = (
    "plain",
    "fake-429-once",
    "fake-500-once",
    "fake-529-once",
    "fake-malformed",
    "fake-empty",
    "fake-no-usage",
)
Client = Callable[[], httpx.AsyncClient]
CLIENTS: dict[str, Client] = {
    "httpx": httpx.AsyncClient,
    "api": lambda: api_client(None, POOL),
}


# What the fake numbers per reply (a counter): not the client's doing. Its creation time is
# fixed (`family.FAKE_CREATED`), so it is compared like any other field.
STAMPS = frozenset({"id", "responseId", "request_id"})


def _unstamped(raw: Any) -> Any:
    if isinstance(raw, dict):
        return {k: _unstamped(v) for k, v in raw.items() if k not in STAMPS}
    if isinstance(raw, list):
        return [_unstamped(v) for v in raw]
    return raw


def _outcome(result: Completion | ProviderError) -> tuple[Any, ...]:
    if isinstance(result, Completion):
        raw, usage = _unstamped(result.raw), result.usage
        return ("ok", result.text, len(result.tool_calls), raw, usage, result.http_status)
    retry_after = result.retry_after if isinstance(result, InfraError) else None
    raw = _unstamped(result.raw)
    return (type(result).__name__, str(result), result.status, raw, retry_after)


def _calls(
    kit: SimpleNamespace,
    client: Client,
    family: str,
    models: tuple[str, ...],
    responder: Responder | None = None,
    **spec_kw: Any,
) -> tuple[list[tuple[Any, ...]], FakeProviderServer]:
    """Each model called twice over one client, against a fresh fake (once-faults reset)."""
    with FakeProviderServer(responder, slow_s=2.0) as fake:

        async def go() -> list[tuple[Any, ...]]:
            out = []
            async with client() as http:
                for model in models:
                    spec = kit.spec(
                        family, api_model=model, base_url=fake.base_url(family), **spec_kw
                    )
                    provider = make_provider(spec, http, KEY)
                    for _ in range(2):
                        try:
                            out.append(_outcome(await provider.complete(kit.simple_request())))
                        except ProviderError as exc:
                            out.append(_outcome(exc))
            return out

        return kit.run(go()), fake


@pytest.mark.parametrize("family", FAMILIES)
def test_every_reply_reads_the_same_through_both_clients(kit: SimpleNamespace, family: str) -> None:
    plain, _ = _calls(kit, CLIENTS["httpx"], family, MODELS)
    ours, _ = _calls(kit, CLIENTS["api"], family, MODELS)
    assert ours == plain
    kinds = {o[0] for o in ours}
    assert {"ok", "RateLimited", "InfraError", "ModelError"} <= kinds  # the faults happened


@pytest.mark.parametrize("family", ["openai", "openai-responses"])
def test_a_timeout_is_the_same_timeout(kit: SimpleNamespace, family: str) -> None:
    plain, _ = _calls(kit, CLIENTS["httpx"], family, ("fake-slow",), timeout_s=0.3)
    ours, _ = _calls(kit, CLIENTS["api"], family, ("fake-slow",), timeout_s=0.3)
    assert ours == plain
    assert ours[0][0] == "TimedOut"


def _gzipped(family: str, body: dict[str, Any]) -> FakeReply:
    payload = {"choices": [{"message": {"content": "zipped é"}, "finish_reason": "stop"}]}
    return FakeReply(
        raw=gzip.compress(json.dumps(payload, ensure_ascii=False).encode("utf-8")),
        headers={"Content-Encoding": "gzip"},
    )


def _latin1(family: str, body: dict[str, Any]) -> FakeReply:
    payload = '{"choices": [{"message": {"content": "caf\xe9"}, "finish_reason": "stop"}]}'
    return FakeReply(
        raw=payload.encode("iso-8859-1"),
        headers={"Content-Type": "application/json; charset=iso-8859-1"},
    )


@pytest.mark.parametrize("responder", [_gzipped, _latin1])
def test_compressed_and_declared_charset_bodies_decode_the_same(
    kit: SimpleNamespace, responder: Responder
) -> None:
    plain, _ = _calls(kit, CLIENTS["httpx"], "openai", ("plain",), responder)
    ours, _ = _calls(kit, CLIENTS["api"], "openai", ("plain",), responder)
    assert ours == plain
    assert ours[0][0] == "ok" and ours[0][1] in ("zipped é", "café")


def _sets_cookie(family: str, body: dict[str, Any]) -> FakeReply:
    return FakeReply(headers={"Set-Cookie": "session=abc123; Path=/"})


def test_a_cookie_a_reply_sets_is_never_sent_back(kit: SimpleNamespace) -> None:
    _, plain = _calls(kit, CLIENTS["httpx"], "openai", ("plain",), _sets_cookie)
    _, ours = _calls(kit, CLIENTS["api"], "openai", ("plain",), _sets_cookie)
    # httpx alone would send it with the next call, making that call depend on the last one.
    assert plain.requests[1].headers.get("cookie") == "session=abc123"
    assert all("cookie" not in r.headers for r in ours.requests)


def test_the_api_client_refuses_cookies_set_on_it() -> None:
    client = api_client(httpx.MockTransport(lambda r: httpx.Response(200)), POOL)
    with pytest.raises(TypeError):
        client.cookies = {"a": "b"}
    assert not client.cookies
