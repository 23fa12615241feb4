"""The provider interface: one async `complete` per API family (ARCHITECTURE.md §3).

Adapters translate a family-neutral request into the family's wire format and the response
back into text, tool calls, the raw JSON and provider-reported usage. They never retry and
never price: retries and backoff live in `ledgerrate.run`, pricing in `ledgerrate.core.cost`.
Errors are split by whose fault they are, because the standard treats them differently:
`InfraError` (429, 5xx, timeouts, connection errors, unparseable bodies) is excluded and re-run;
`ModelError` (a refusal, no output) is a model failure and is never retried.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Protocol

import httpx

from ledgerrate.core.tools import ToolSpec
from ledgerrate.schema import ModelSpec, ToolCall, Usage

Role = Literal["user", "assistant", "tool"]


@dataclass
class Message:
    """A family-neutral chat turn. Tool results carry the id of the call they answer."""

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    # Assistant turns only: `Completion.raw` of the reply this turn came from. Adapters of the
    # same family replay parts the API requires back verbatim (Anthropic thinking blocks,
    # Gemini thought signatures); without it they rebuild the turn from text and tool calls.
    raw: Any = None


@dataclass
class CompletionRequest:
    system: str
    messages: list[Message]
    tools: list[ToolSpec] | None = None


@dataclass
class Completion:
    text: str
    tool_calls: list[ToolCall]
    raw: Any
    # None when the provider reported no usage: the runner then estimates (chars ÷ 4).
    usage: Usage | None
    http_status: int
    finish_reason: str | None = None
    # The output stopped at the output cap (`length`, `max_tokens`, `MAX_TOKENS`): the answer
    # is cut off, which the runner records as a truncated model failure, never a completion.
    truncated: bool = False
    # What the provider or gateway said the call cost, as reported (`providers/billed.py`);
    # None when it said nothing. Never the call's cost, which is computed from usage.
    billed_usd: Decimal | None = None


class ProviderError(Exception):
    """Base: `raw` is whatever body came back, `usage` any usage it still reported."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        raw: Any = None,
        usage: Usage | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.raw = raw
        self.usage = usage
        # What a 2xx reply the model failed in said it cost (`Completion.billed_usd`).
        self.billed_usd: Decimal | None = None


class InfraError(ProviderError):
    """Not the model's fault: excluded from the cell and re-run with backoff."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class TimedOut(InfraError):
    """No complete reply within the model's `timeout_s`: re-run, but only a bounded number of
    times per item, since a call that is slow once is usually slow again."""


class Unreachable(InfraError):
    """The request never reached a server: nothing listening, a name that does not resolve, a
    TLS handshake that failed. Infrastructure (re-run), but reported with its own cause and
    remedy, since raising a timeout or waiting longer fixes none of these."""


class RateLimited(InfraError):
    """429: the scheduler lowers the provider's concurrency and honours Retry-After."""


class ModelError(ProviderError):
    """The model's fault (refusal, empty output, content filter): a model failure, no retry."""


class ContextExceeded(ModelError):
    """The request does not fit the model's context: the model cannot take the job, which the
    standard counts as its failure (never retried, never a stopped run)."""

    def __init__(
        self,
        message: str,
        *,
        requested_tokens: int | None = None,
        context_tokens: int | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(message, **kw)
        self.requested_tokens = requested_tokens
        self.context_tokens = context_tokens


class Provider(Protocol):
    family: str
    spec: ModelSpec

    async def complete(self, request: CompletionRequest) -> Completion: ...


class ProviderFactory(Protocol):
    def __call__(self, spec: ModelSpec, client: httpx.AsyncClient, api_key: str) -> Provider: ...
