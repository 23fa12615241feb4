"""The HTTP client the runner hands its adapters: httpx over aiohttp's pool, without cookies.

Inside the runner, a request's own HTTP work (adapter, httpx, transport) is a fifth to a quarter
of its CPU. What of that does nothing for an API call is left out here:

- httpcore's pool, which re-checks every pooled connection (a poll syscall each) several times
  per request; aiohttp's connector does the same job in O(1).
- Cookies. httpx offers every response to its cookie jar through urllib's compatibility
  wrappers (a urllib `Request` and an `email.message.Message` of the headers, built per
  response: 10 µs). No provider API authenticates by cookie, and a call that sent back a
  cookie an earlier reply set would depend on what came before it, so neither httpx nor
  aiohttp keeps any.
- Streaming a reply that is always read whole (`_WholeReplies`).

Measured over one connection to the fake provider, one request at a time (best of 5 × 1,000):
0.455 ms of CPU per call through plain httpx over `AiohttpTransport`, 0.368 ms through this
client (with the adapters' parsed URLs and body decoding, `providers/wire.py`). The adapters
still speak httpx, and tests still inject their own transport.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import httpx
from httpx_aiohttp import AiohttpTransport
from httpx_aiohttp.transport import map_aiohttp_exceptions


class _NoCookies(httpx.Cookies):
    """A jar that never takes a cookie from a reply (and so never sends one)."""

    def extract_cookies(self, response: httpx.Response) -> None:
        return None


class ApiClient(httpx.AsyncClient):
    """`httpx.AsyncClient` without a cookie jar; everything else as httpx does it."""

    @property
    def cookies(self) -> httpx.Cookies:
        return _NO_COOKIES

    @cookies.setter
    def cookies(self, cookies: object) -> None:
        raise TypeError("the API client keeps no cookies")


_NO_COOKIES = _NoCookies()


class _WholeReplies(AiohttpTransport):
    """aiohttp's transport, handing httpx each reply with its body already read.

    A reply to an API call is one small JSON body that is always read whole; httpx would read
    it through four nested async iterators (its decoders, its chunker, the transport's stream,
    aiohttp's chunks), each a coroutine step per chunk. Read here in one call, it is
    given to httpx as content, which httpx still decodes by the reply's Content-Encoding. The
    request is sent as `AiohttpTransport` sends it (this one is made without a proxy or a
    socket path, so those are left out).
    """

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(self.client, aiohttp.ClientSession):
            self.client = self.get_client()
        timeout = request.extensions.get("timeout", {})
        with map_aiohttp_exceptions():
            reply = await self.client.request(
                method=request.method,
                url=str(request.url),
                headers=request.headers,
                data=request.content or None,
                allow_redirects=False,
                auto_decompress=False,
                compress=False,
                timeout=aiohttp.ClientTimeout(
                    sock_connect=timeout.get("connect"),
                    sock_read=timeout.get("read"),
                    connect=timeout.get("pool"),
                ),
                server_hostname=request.extensions.get("sni_hostname"),
            ).__aenter__()
            try:
                body = await reply.read()
            finally:
                reply.release()  # the connection goes back to the pool
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if reply.reason:
            extensions["reason_phrase"] = reply.reason.encode()
        return httpx.Response(
            status_code=reply.status,
            headers=reply.raw_headers,
            content=body,
            request=request,
            extensions=extensions,
        )


def pooled_transport(pool: httpx.Limits) -> AiohttpTransport:
    """aiohttp's connector under httpx, sized by `pool`, without aiohttp's cookie jar either."""
    context = httpx.create_ssl_context()

    def session() -> aiohttp.ClientSession:
        # aiohttp's own default (100) when the pool sets no cap, as `AiohttpTransport` does.
        limit = pool.max_connections if pool.max_connections is not None else 100
        connector = aiohttp.TCPConnector(
            keepalive_timeout=pool.keepalive_expiry, ssl=context, limit=limit
        )
        return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar())

    return _WholeReplies(verify=context, limits=pool, client=session)


def api_client(transport: httpx.AsyncBaseTransport | None, pool: httpx.Limits) -> ApiClient:
    """The shared client: `transport` if given (tests), else aiohttp's pool sized by `pool`."""
    return ApiClient(transport=transport or pooled_transport(pool), limits=pool)
