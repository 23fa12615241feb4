"""A real HTTP server on 127.0.0.1 that speaks every registered provider family, for tests and
benchmarks that must exercise the adapters, the scheduler and the network path without a
real provider (and without spending anything).

    with FakeProviderServer() as fake:
        spec = ModelSpec(..., provider="openai", base_url=fake.base_url("openai"),
                         api_model="fake-tool", ...)

Paths are the documented ones, each family's `fake.route` (`/v1/chat/completions`,
`/v1/messages`, `/v1beta/models/{model}:generateContent`, `/v1/responses`, and a registered
family's own). The
fake checks what a real provider would reject: a missing key header (the family's
`fake.key_header`, 401), what the family's `fake.refuse` names (a missing `anthropic-version`,
400), and, stricter than any provider, a key in the query string (400), so a leaking adapter
fails its tests.

Who decides a reply, in order: the rate limiter (`rate_limit_per_s`, `burst`: a token bucket
answering 429 with `Retry-After` and a precise `retry-after-ms`); then `responder(family, body)`
if given and it returns a `FakeReply`; then the script named by the model (`api_model`, or
`api_model` + `.anything` so several fake models can share a script):

    fake-429-once   429 + Retry-After: 1, then OK     fake-500-once / fake-503-once /
    fake-529-once   (each distinct request body fails once; its identical retry succeeds)
    fake-slow       waits `slow_s` (default 5 s) before answering, to trip a client timeout
    fake-malformed  200 with a torn, non-JSON body
    fake-empty      no output: empty choices / content / candidates / output items
    fake-no-usage   a normal reply without usage
    fake-tool       a call of the first declared tool with `{}` until the request carries a
                    tool result, then a final answer quoting the last result

and otherwise a default reply, `"fake reply"` with `DEFAULT_USAGE[family]`.

The runner's tools probe (`ledgerrate.run.probe`) is answered like a tool-capable server would
(a call of the offered tool), or with `drops_tools=True` like a server that ignores `tools`
(plain text, the same usage with and without them), or with `needs_tool_choice=True` like
llama-cpp-python behind a gateway that translates the request: the tools reach the model only
when the request names a tool choice (each family's `fake.tool_choice`). With
`echoes_headers=True` every successful reply quotes the caller's key header back (in the text,
in tool call arguments, in an `echo` field of the body and in a response header), as a
debugging proxy or a misconfigured gateway does. With `bills=Bill(...)` every successful reply
reports what it cost, as LiteLLM's proxy (`x-litellm-response-cost` header) or OpenRouter
(`usage.cost`) does. Probe requests are kept apart from the items' requests, in
`probe_requests`, so tests count what the items sent.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx

from ledgerrate.providers import families
from ledgerrate.run.probe import TOKEN as PROBE_TOKEN
from ledgerrate.schema import Usage
from ledgerrate.testing.fake_shapes import (
    DEFAULT_USAGE,
    Bill,
    FakeReply,
    FakeToolCall,
    empty_body,
    error_body,
    offered_tools,
    resolved_usage,
    success_body,
    tool_results,
)

Responder = Callable[[str, dict[str, Any]], FakeReply | None]
ONCE_FAULTS = {
    "fake-429-once": 429,
    "fake-500-once": 500,
    "fake-503-once": 503,
    "fake-529-once": 529,
}
SCRIPTS = (*ONCE_FAULTS, "fake-slow", "fake-malformed", "fake-empty", "fake-no-usage", "fake-tool")
TORN_BODY = b'{"id": "torn-reply", "choices": [{"index": 0, "mess'


@dataclass(frozen=True)
class FakeRequest:
    """One request as received. `headers` has lower-case names (the key included: tests only)."""

    family: str
    path: str
    model: str
    headers: dict[str, str]
    body: dict[str, Any]


def script_for(model: str) -> str | None:
    for name in SCRIPTS:
        if model == name or model.startswith(name + "."):
            return name
    return None


class TokenBucket:
    """`rate` requests a second on average, up to `burst` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.capacity = burst
        self.tokens = burst
        self.stamp = time.monotonic()
        self.lock = threading.Lock()

    def take(self) -> float | None:
        """None when a request may pass, else the seconds until one may."""
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens >= 1:
                self.tokens -= 1
                return None
            return (1 - self.tokens) / self.rate


class FakeProviderServer:
    """Context manager running the fake in a background thread; see the module docstring."""

    def __init__(
        self,
        responder: Responder | None = None,
        latency_s: float = 0.0,
        rate_limit_per_s: float | None = None,
        burst: float | None = None,
        *,
        slow_s: float = 5.0,
        drops_tools: bool = False,
        needs_tool_choice: bool = False,
        echoes_headers: bool = False,
        bills: Bill | None = None,
    ) -> None:
        self.responder = responder
        self.bills = bills
        self.drops_tools = drops_tools
        self.needs_tool_choice = needs_tool_choice
        self.echoes_headers = echoes_headers
        self.probe_requests: list[FakeRequest] = []
        self.latency_s = latency_s
        self.slow_s = slow_s
        self.bucket = (
            TokenBucket(
                rate_limit_per_s, burst if burst is not None else max(1.0, rate_limit_per_s)
            )
            if rate_limit_per_s
            else None
        )
        self.errors: list[str] = []  # responder exceptions, answered as HTTP 500
        self._requests: list[FakeRequest] = []
        self._seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def __enter__(self) -> FakeProviderServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(
            # A short poll keeps `close()` quick: tests open and close many servers.
            target=httpd.serve_forever,
            args=(0.05,),
            name="fake-provider",
            daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        self._closing.set()  # wakes sleeping `fake-slow` handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- what tests read
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    def base_url(self, family: str) -> str:
        """The `base_url` for a ModelSpec of `family`, in that family's SDK convention."""
        return families.get(family).fake.base_url(f"http://127.0.0.1:{self.port}")

    @property
    def requests(self) -> list[FakeRequest]:
        with self._lock:
            return list(self._requests)

    # -- deciding a reply
    def record(self, request: FakeRequest) -> None:
        with self._lock:
            if is_probe(request.body):
                self.probe_requests.append(request)
            else:
                self._requests.append(request)

    def first_time(self, model: str, body: dict[str, Any]) -> bool:
        # Gemini carries the model in the path, so the body alone would not tell models apart.
        key = (model, hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest())
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
            return True

    def decide(self, family: str, model: str, body: dict[str, Any]) -> FakeReply:
        if is_probe(body):
            tools = offered_tools(family, body, needs_choice=self.needs_tool_choice)
            if tools and not self.drops_tools:
                return FakeReply(
                    text="", tool_calls=[FakeToolCall(tools[0], {"token": PROBE_TOKEN})]
                )
            return FakeReply(text="ok")
        if self.bucket is not None:
            wait = self.bucket.take()
            if wait is not None:
                return FakeReply(
                    status=429,
                    error_message="fake rate limit exceeded",
                    headers={
                        "Retry-After": str(max(1, math.ceil(wait))),
                        "retry-after-ms": str(max(1, math.ceil(wait * 1000))),
                    },
                )
        if self.responder is not None:
            try:
                reply = self.responder(family, body)
            except Exception as exc:  # a broken test responder must not kill the server
                with self._lock:
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                return FakeReply(status=500, error_message="responder raised")
            if reply is not None:
                return reply
        return self.scripted(family, model, body)

    def scripted(self, family: str, model: str, body: dict[str, Any]) -> FakeReply:
        script = script_for(model)
        if script in ONCE_FAULTS and self.first_time(model, body):
            status = ONCE_FAULTS[script]
            headers = {"Retry-After": "1"} if status == 429 else {}
            return FakeReply(status=status, headers=headers, error_message=f"{script}: scripted")
        if script == "fake-slow":
            return FakeReply(delay_s=self.slow_s)
        if script == "fake-malformed":
            return FakeReply(raw=TORN_BODY)
        if script == "fake-empty":
            # The usage the empty body reports, for a bill (`bills`) to price.
            prompt_only = Usage(input_tokens=DEFAULT_USAGE[family].input_tokens)
            return FakeReply(raw=empty_body(family, model), usage=prompt_only)
        if script == "fake-no-usage":
            return FakeReply(usage=None)
        if script == "fake-tool":
            results = tool_results(family, body)
            tools = offered_tools(family, body, needs_choice=self.needs_tool_choice)
            if not results and tools:
                return FakeReply(text="", tool_calls=[FakeToolCall(name=tools[0])])
            if results:
                return FakeReply(text=f"fake final answer; last tool result: {results[-1]}")
        return FakeReply()

    def pause(self, seconds: float) -> None:
        if seconds > 0:
            self._closing.wait(seconds)


def echoed(family: str, reply: FakeReply, headers: dict[str, str]) -> FakeReply:
    """`reply` as a debugging proxy or a misconfigured gateway sends it: the caller's key header
    quoted in the answer text, in a tool call's arguments and in the reply's header fields."""
    key_header = families.get(family).fake.key_header
    sent = f"{key_header}: {headers.get(key_header, '')}"
    calls = [FakeToolCall(c.name, {**c.arguments, "echo": sent}, c.id) for c in reply.tool_calls]
    text = f"{reply.text} (you sent {sent})" if reply.text or not calls else ""
    return dataclasses.replace(
        reply, text=text, tool_calls=calls, headers={**reply.headers, "x-echo-auth": sent}
    )


def billed(bill: Bill, family: str, reply: FakeReply, payload: dict[str, Any]) -> FakeReply:
    """`reply` with its price reported where `bill` says (the payload is changed in place)."""
    usage = resolved_usage(family, reply)
    if usage is None:
        return reply
    amount = bill.amount(usage)
    if bill.where == "usage":
        if isinstance(payload.get("usage"), dict):
            payload["usage"]["cost"] = amount
        return reply
    return dataclasses.replace(
        reply, headers={**reply.headers, "x-litellm-response-cost": repr(amount)}
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a benchmark opens many connections at once
    fake: FakeProviderServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so clients can pool connections
    # Headers and body leave in one buffered write, flushed per request by the base class;
    # unbuffered writes plus Nagle's algorithm would stall keep-alive clients on delayed ACKs.
    wbufsize = -1
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # silence: the benchmark would otherwise print 2,000 lines

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        family, model = _route(url.path)
        if family is None:
            self._send(404, {"error": {"message": f"no such path {url.path}"}})
            return
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            self._reply(family, FakeReply(status=400, error_message="request body is not JSON"))
            return
        model = model or str(body.get("model", ""))
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake.record(FakeRequest(family, url.path, model, headers, body))
        problem = _refuse(family, url.query, headers)
        reply = FakeReply(status=problem[0], error_message=problem[1]) if problem else None
        reply = reply or fake.decide(family, model, body)
        if fake.echoes_headers and reply.status < 400 and reply.raw is None:
            reply = echoed(family, reply, headers)
        fake.pause(fake.latency_s + reply.delay_s)
        if reply.raw is None:
            payload: Any = (
                error_body(family, reply.status, reply.error_message)
                if reply.status >= 400
                else success_body(family, model, reply)
            )
            if fake.echoes_headers and reply.status < 400:
                payload["echo"] = {"headers": headers}
        else:
            payload = reply.raw
        if fake.bills is not None and reply.status < 400 and isinstance(payload, dict):
            reply = billed(fake.bills, family, reply, payload)
        self._send(reply.status, payload, reply.headers)

    def _reply(self, family: str, reply: FakeReply) -> None:
        self._send(reply.status, error_body(family, reply.status, reply.error_message))

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        if isinstance(payload, bytes):
            data = payload
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to tell it


def is_probe(body: dict[str, Any]) -> bool:
    """Whether a request is the runner's tools probe (its token is in the user turn)."""
    keys = dict.fromkeys(f.fake.turns_key for f in families.registered())
    return PROBE_TOKEN in json.dumps([body.get(k) for k in keys])


def _route(path: str) -> tuple[str | None, str]:
    for family in families.registered():
        route = family.fake.route(path)
        if route is not None:
            return family.name, route.model
    return None, ""


def _refuse(family: str, query: str, headers: dict[str, str]) -> tuple[int, str] | None:
    if "key=" in query:
        return 400, "API keys do not belong in the URL"
    fake = families.get(family).fake
    if not headers.get(fake.key_header, "").strip():
        return 401, f"missing {fake.key_header} header"
    reason = fake.refuse(headers)
    return None if reason is None else (400, reason)


# --------------------------------------------------------------------------- in-process mock


def scripted_client(
    *responses: httpx.Response | Callable[[httpx.Request], httpx.Response],
) -> tuple[httpx.AsyncClient, list[httpx.Request]]:
    """An `httpx.AsyncClient` over `httpx.MockTransport` answering with `responses` in turn
    (the last repeats), and the list of requests it saw. No socket, so fixture tests are fast.
    """
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = responses[min(len(seen), len(responses)) - 1]
        if callable(answer):
            return answer(request)
        # A fresh copy each time: a response's stream can be read only once.
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler)), seen
