"""What every adapter does the same way on the wire: one POST, error classification, secrets.

The three families differ in shapes, not in how a failure is judged, so the judgement lives here
once: 429 → `RateLimited` (a gateway's "all deployments in cooldown" too, waited out for the
seconds it names, `gateway.py`); 5xx, 529, timeouts, connection errors and unparseable bodies →
`InfraError`; a request too long for the model's context → `ContextExceeded` (the model's
failure, see `context.py`, a gateway's `ContextWindowExceededError` included); any other non-2xx
→ `ConfigError` (a wrong key, model name or request is ours to fix, so the run stops instead of
counting it against the model). Every string in an error that leaves an adapter (its text, the
error body, a transport message quoting a URL) passes through `keys.redact`, and httpx
exceptions are never chained (their `request` holds the key in a header), so a key cannot leak
through a message, `raw`, or a traceback. A successful reply is the model's output and leaves
the adapter byte for byte; if a proxy echoed the key into it, `run/rawlog.seal` removes it
before anything is written. A request that never reached a server (refused, DNS, TLS) is
`Unreachable`, with its own remedy.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import functools
import json
import math
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx

from ledgerrate.core.keys import redact
from ledgerrate.providers.base import (
    Completion,
    ContextExceeded,
    InfraError,
    ModelError,
    ProviderError,
    RateLimited,
    TimedOut,
    Unreachable,
)
from ledgerrate.providers.billed import reported_cost
from ledgerrate.providers.context import overflow
from ledgerrate.providers.gateway import cooldown_wait
from ledgerrate.schema import ModelSpec, ToolCall, Usage

# Raw bodies that are not JSON (an HTML error page, a torn body) are kept for the log, but a
# proxy's 2 MB error page is not worth storing whole.
MAX_RAW_TEXT = 20_000

T = TypeVar("T")


class ConfigError(ProviderError):
    """Our fault, not the model's or the provider's: bad key, model, URL or request (4xx).

    The run must stop and a person fix the edition; retrying or scoring it would be wrong.
    """


@dataclass(frozen=True)
class ErrorDetail:
    """What a family's error body says, in family-neutral terms."""

    message: str
    retry_after: float | None = None
    # A 429 that no amount of waiting fixes (billing quota or spend cap reached).
    quota_exhausted: bool = False


def parse_retry_after(headers: Mapping[str, str], now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from `Retry-After` (seconds or HTTP date) or `retry-after-ms`."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        seconds = _non_negative_float(millis)
        if seconds is not None:
            return seconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative_float(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    now = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - now).total_seconds())


def parse_duration(text: Any) -> float | None:
    """A protobuf Duration as JSON (`"1.5s"`), as Gemini's RetryInfo.retryDelay sends it."""
    if not isinstance(text, str) or not text.endswith("s"):
        return None
    return _non_negative_float(text[:-1])


def _non_negative_float(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def clip(text: str, limit: int = 300) -> str:
    """Error messages quote provider text; keep them one readable line."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def count(block: Mapping[str, Any], key: str) -> int:
    """A token count from a usage block: absent or null is 0; anything else must be a count."""
    value = block.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"usage field {key!r} is not a token count: {value!r}")
    return value


class MalformedToolCall(ValueError):
    """The model emitted a tool call whose arguments are not a JSON object."""


def parse_arguments(name: str, arguments: Any) -> dict[str, Any]:
    """Tool arguments as an object; `MalformedToolCall` when they are not one.

    OpenAI-compatible servers send a JSON string; some send `""` for a tool without arguments.
    """
    if isinstance(arguments, dict):
        return arguments
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return {}
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise MalformedToolCall(
                f"tool call {name!r} has arguments that are not JSON ({exc.msg})"
            ) from None
        if isinstance(parsed, dict):
            return parsed
    raise MalformedToolCall(f"tool call {name!r} has arguments that are not a JSON object")


def merge_sampling(
    body: dict[str, Any], sampling: Mapping[str, Any], protected: frozenset[str]
) -> dict[str, Any]:
    """`body` with the model's sampling settings on top; they may not replace the request.

    Sampling is edition configuration, so a key that would overwrite the model, messages or
    tools is a configuration error caught before any call is made.
    """
    clash = sorted(set(sampling) & protected)
    if clash:
        raise ConfigError(f"sampling may not set {', '.join(clash)}: they are built per request")
    return {**body, **sampling}


@dataclass(frozen=True)
class Reply:
    """A 2xx reply: its status, its JSON object, and the cost it reported for itself."""

    status: int
    data: dict[str, Any]
    billed_usd: Decimal | None = None


def parsed_reply(
    family: str, reply: Reply, parse: Callable[[dict[str, Any], int], Completion]
) -> Completion:
    """`parse_or_infra` on a reply, with the cost it reported carried onto the completion, or
    onto the model failure a reply the model failed in raises (that call was billed too)."""
    try:
        done = parse_or_infra(family, reply.status, reply.data, parse)
    except ModelError as exc:
        exc.billed_usd = reply.billed_usd
        raise
    if reply.billed_usd is None:
        return done
    return dataclasses.replace(done, billed_usd=reply.billed_usd)


def parse_or_infra(
    family: str, status: int, data: dict[str, Any], parse: Callable[[dict[str, Any], int], T]
) -> T:
    """Run a family parser; a body of unexpected shape is the provider's fault, not the model's."""
    try:
        return parse(data, status)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        failure = InfraError(
            f"{family}: HTTP {status} body has an unexpected shape "
            f"({type(exc).__name__}: {clip(str(exc), 200)})",
            status=status,
            raw=data,
        )
    raise failure


def classify(
    family: str,
    status: int,
    detail: ErrorDetail,
    headers: Mapping[str, str],
    raw: Any,
) -> ProviderError:
    """The error class for a non-2xx reply."""
    message = f"{family} HTTP {status}: {clip(detail.message) or 'no message'}"
    over = overflow(status, raw, raw if isinstance(raw, str) else "")
    if over is not None:
        return ContextExceeded(
            message,
            requested_tokens=over.requested_tokens,
            context_tokens=over.context_tokens,
            status=status,
            raw=raw,
        )
    if status == 429 and not detail.quota_exhausted:
        wait = parse_retry_after(headers)
        if wait is None:
            wait = detail.retry_after
        if wait is None:
            wait = cooldown_wait(status, detail.message)
        return RateLimited(
            message,
            retry_after=wait,
            status=status,
            raw=raw,
        )
    if status >= 500 or status in (408, 409, 425):
        wait = parse_retry_after(headers)
        return InfraError(
            message,
            retry_after=wait if wait is not None else detail.retry_after,
            status=status,
            raw=raw,
        )
    return ConfigError(message, status=status, raw=raw)


def _describe(describe_error: Callable[[Any], ErrorDetail], parsed: Any, text: str) -> ErrorDetail:
    if parsed is None:
        return ErrorDetail(clip(text, 120))
    try:
        return describe_error(parsed)
    except (KeyError, TypeError, ValueError, AttributeError):
        # An error body in a shape the family does not document: quote it rather than fail.
        return ErrorDetail(clip(text, 200))


async def post_json(
    client: httpx.AsyncClient,
    **kw: Any,
) -> tuple[int, dict[str, Any]]:
    """`post_reply` as (status, JSON object), for an adapter that reads no reported cost."""
    reply = await post_reply(client, **kw)
    return reply.status, reply.data


async def post_reply(
    client: httpx.AsyncClient,
    *,
    family: str,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    timeout_s: float,
    secret: str,
    describe_error: Callable[[Any], ErrorDetail],
    model_id: str = "",
) -> Reply:
    """POST `body`; return the reply on 2xx (with the cost it reported, `billed.py`), else
    raise a classified error.

    Errors are raised outside the `except` blocks on purpose, so no httpx exception (whose
    request carries the key) is attached as `__context__`.
    """
    failure: ProviderError | None = None
    response: httpx.Response | None = None
    try:
        async with asyncio.timeout(timeout_s):
            response = await client.post(
                _parsed(url), json=body, headers=headers, timeout=timeout_s
            )
    except (TimeoutError, httpx.TimeoutException) as exc:
        # aiohttp's transport reports a refused connection as a connect *timeout*: told to raise
        # timeout_s, the operator of a server that is not running would look the wrong way.
        unreachable = not_reached(family, url, exc)
        # Name the setting: a slow self-hosted model needs a larger one, not a retry loop.
        whose = f"models[{model_id}].timeout_s" if model_id else "the model's timeout_s"
        failure = unreachable or TimedOut(
            f"{family}: no complete response within {timeout_s:g} s; raise {whose} in "
            "edition.yaml if the model is just slow"
        )
    except httpx.LocalProtocolError:
        # The request could not even be written (e.g. an empty or multi-line key in a header).
        # Its message quotes the offending header, so it is left out entirely.
        failure = ConfigError(f"{family}: request rejected by the HTTP client (check the API key)")
    except httpx.UnsupportedProtocol as exc:
        failure = ConfigError(f"{family}: base_url is not http(s): {redact(str(exc), [secret])}")
    except httpx.TransportError as exc:
        failure = not_reached(family, url, exc) or InfraError(
            f"{family}: connection failed "
            f"({type(exc).__name__}: {clip(redact(str(exc), [secret]))})"
        )
    if failure is not None:
        raise failure
    assert response is not None

    status = response.status_code
    ok = 200 <= status < 300
    # Only an error reply can quote the key back (a refused key, an echoing proxy).
    text = _text(response) if ok else redact(_text(response), [secret])
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
        raw: Any = text if len(text) <= MAX_RAW_TEXT else text[:MAX_RAW_TEXT] + "…[truncated]"
    else:
        raw = parsed

    if not ok:
        detail = _describe(describe_error, parsed, text)
        raise classify(family, status, detail, response.headers, raw)
    if not isinstance(parsed, dict):
        raise InfraError(
            f"{family}: HTTP {status} body is not a JSON object", status=status, raw=raw
        )
    return Reply(status, parsed, reported_cost(response.headers, parsed))


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc` and what it was raised from, outermost first (transports wrap the OS's error)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def not_reached(family: str, url: str, exc: BaseException) -> Unreachable | None:
    """The one-line cause and remedy when the request never reached a server, else None.

    Told apart by the OS or TLS error at the bottom of the transport's exception, since the
    transports disagree on the outer type (aiohttp's maps a refused connection to a connect
    timeout). Only the endpoint's scheme, host and path are quoted: no query, no header.
    """
    parts = urlsplit(url)
    host = parts.hostname or "?"
    where = f"{parts.scheme}://{parts.netloc}{parts.path}"
    chain = _causes(exc)
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return Unreachable(
            f"{family}: nothing is listening at {where}: is the server running? (connection "
            "refused; start it, or correct the host and port in base_url)"
        )
    if any(isinstance(e, socket.gaierror) for e in chain):
        return Unreachable(
            f"{family}: the host name {host!r} of {where} does not resolve (DNS lookup "
            "failed): correct the host in base_url, or check this machine's network and DNS"
        )
    tls = next((e for e in chain if isinstance(e, ssl.SSLError | ssl.CertificateError)), None)
    if tls is not None:
        reason = getattr(tls, "reason", None) or type(tls).__name__
        return Unreachable(
            f"{family}: the TLS handshake with {host} failed ({reason}) at {where}: use "
            "http:// in base_url for a server without TLS, or fix the server's certificate"
        )
    return None


@functools.lru_cache(maxsize=256)
def _parsed(url: str) -> httpx.URL:
    """An endpoint's URL parsed once: httpx parses a string URL again on every request (14 µs
    of the 37 µs it takes to build one), and an adapter sends to the same few URLs all run."""
    return httpx.URL(url)


def _text(response: httpx.Response) -> str:
    """The body as text, exactly as `response.text` decodes it. Without a charset in its
    Content-Type (what JSON APIs send) that is UTF-8 with replacement; httpx works it out by
    parsing the header through `email.message` on every response, so that case is done here."""
    if (
        response.default_encoding != "utf-8"
        or "charset" in response.headers.get("content-type", "").lower()
    ):
        return response.text
    return response.content.decode("utf-8", errors="replace")


class HttpAdapter:
    """What every HTTP adapter holds: its model, the shared client and the key. The key stays
    private: it is never part of the adapter's repr, a record or an error."""

    family: str

    def __init__(self, spec: ModelSpec, client: httpx.AsyncClient, api_key: str) -> None:
        self.spec = spec
        self._client = client
        self._key = api_key

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.spec.id!r})"


def completion(
    family: str,
    text: str,
    parse_calls: Callable[[], list[ToolCall]],
    *,
    data: Any,
    usage: Usage | None,
    status: int,
    finish: str | None,
    finish_field: str,
    truncated: bool = False,
) -> Completion:
    """The parsed reply, or `ModelError` for the model's own bad output: tool calls that cannot
    be read, or no text and no call at all. Both are model failures (never retried), whatever
    the finish reason, and keep the usage the reply reported.

    A reply cut off at the output cap (`truncated`) is returned as it stands, even empty or with
    a half-written tool call (dropped: its arguments end mid-JSON), so the runner can record it
    as truncated rather than as bad output."""
    try:
        calls = parse_calls()
    except MalformedToolCall as exc:
        if not truncated:
            raise ModelError(f"{family}: {exc}", status=status, raw=data, usage=usage) from None
        calls = []
    if not text and not calls and not truncated:
        raise ModelError(
            f"{family}: empty output ({finish_field} {finish!r})",
            status=status,
            raw=data,
            usage=usage,
        )
    return Completion(
        text=text,
        tool_calls=calls,
        raw=data,
        usage=usage,
        http_status=status,
        finish_reason=finish,
        truncated=truncated,
    )
