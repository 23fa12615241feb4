"""A server never reached is named as such, with its own remedy, never as a timeout.

Through the runner's own client (aiohttp underneath, which maps a refused connection to a
connect *timeout*) and through plain httpx, for a refused connection, a host name that does not
resolve and a TLS handshake with a server that speaks plain HTTP.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from ledgerrate.providers.base import TimedOut, Unreachable
from ledgerrate.providers.client import api_client
from ledgerrate.providers.wire import ErrorDetail, post_json
from ledgerrate.run.progress import CellSummary, RunSummary

KEY = "sk-unreachable-" + "k" * 24


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def plain_http() -> Iterator[int]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


def _post(url: str, *, runner_client: bool) -> BaseException:
    async def go() -> BaseException:
        pool = httpx.Limits(max_connections=2)
        client = api_client(None, pool) if runner_client else httpx.AsyncClient()
        async with client:
            try:
                await post_json(
                    client,
                    family="openai",
                    url=url,
                    headers={"authorization": f"Bearer {KEY}"},
                    body={"model": "m"},
                    timeout_s=600,
                    secret=KEY,
                    describe_error=lambda _: ErrorDetail("?"),
                    model_id="m1",
                )
            except Exception as exc:
                return exc
        raise AssertionError("the request to an unreachable server succeeded")

    return asyncio.run(go())


@pytest.mark.parametrize("runner_client", [True, False], ids=["runner-client", "httpx"])
def test_connection_refused_names_the_server_not_the_timeout(runner_client: bool) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1/chat/completions"
    exc = _post(url, runner_client=runner_client)
    assert isinstance(exc, Unreachable) and not isinstance(exc, TimedOut)
    line = str(exc)
    assert "\n" not in line
    assert f"nothing is listening at {url}: is the server running?" in line
    assert "timeout" not in line and KEY not in line


@pytest.mark.parametrize("runner_client", [True, False], ids=["runner-client", "httpx"])
def test_dns_failure_names_the_host(runner_client: bool) -> None:
    exc = _post("http://no-such-host.invalid/v1/chat/completions", runner_client=runner_client)
    assert isinstance(exc, Unreachable), exc
    line = str(exc)
    assert "'no-such-host.invalid'" in line and "does not resolve" in line
    assert "base_url" in line and "timeout" not in line and "\n" not in line


@pytest.mark.parametrize("runner_client", [True, False], ids=["runner-client", "httpx"])
def test_tls_to_a_plain_http_server_names_the_handshake(
    plain_http: int, runner_client: bool
) -> None:
    exc = _post(f"https://127.0.0.1:{plain_http}/v1/chat/completions", runner_client=runner_client)
    assert isinstance(exc, Unreachable), exc
    line = str(exc)
    assert "TLS handshake with 127.0.0.1 failed" in line and "http://" in line
    assert "timeout" not in line and "\n" not in line


def test_left_undone_line_gives_the_cause_not_the_timeout_advice() -> None:
    cause = "openai: nothing is listening at http://127.0.0.1:9/v1: is the server running?"
    summary = CellSummary("w", "m1", "single-shot", 1, 1, timeout_s=600)
    summary.missing = ["i1"]
    summary.unreachable = cause
    line = RunSummary("e", False, [summary]).left()
    assert cause in line and "raise" not in line and "timeout" not in line
