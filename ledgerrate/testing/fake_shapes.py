"""What the fake provider serves, family-neutral: replies, usage and error bodies.

Each family's wire shapes live beside its adapter, in its `Family.fake`
(`ledgerrate/providers/family.py`), so they are read against the family's documentation in one
place and a new family brings its own. This module turns a `FakeReply` into the family's body
through the registry (`ledgerrate.providers.families`). Usage is given family-neutral
(`schema.Usage`) and written out in each family's own accounting, so a test states the figures
once and checks that the adapter normalises them back.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ledgerrate.providers import families
from ledgerrate.providers.family import WireCall, WireReply
from ledgerrate.schema import Usage

# The built-in families the fake speaks; a family registered later is served all the same.
FAMILIES: tuple[str, ...] = tuple(f.name for f in families.FAMILIES)
DEFAULT_TEXT = "fake reply"


class _DefaultUsage(Mapping[str, Usage]):
    """The usage every default reply reports, per family, as its adapter should normalise it
    (each family's `fake.default_usage`). For the built-in families, at $1/M input, $0.10/M
    cached and $4/M output, that is 0.001 + 0.00002 + 0.0012 = $0.00222 a call."""

    def __getitem__(self, family: str) -> Usage:
        return families.get(family).fake.default_usage

    def __iter__(self) -> Any:
        return iter(f.name for f in families.registered())

    def __len__(self) -> int:
        return len(families.registered())


DEFAULT_USAGE: Mapping[str, Usage] = _DefaultUsage()

_ids = itertools.count(1)


@dataclass
class FakeToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass
class FakeReply:
    """One reply of the fake. `raw` (dict/list → JSON, str/bytes → verbatim) replaces the body.

    `usage="default"` means the family's `DEFAULT_USAGE`; `None` leaves usage out. A `status`
    of 400 or more sends the family's documented error body unless `raw` is given.
    """

    text: str = DEFAULT_TEXT
    tool_calls: list[FakeToolCall] = field(default_factory=list)
    usage: Usage | Literal["default"] | None = "default"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw: Any = None
    delay_s: float = 0.0
    finish_reason: str | None = None
    error_message: str = "fake error"


@dataclass(frozen=True)
class Bill:
    """A gateway's per-reply price, as the fake reports it: per-token prices (dollars per
    million; cache writes at the input price, as LiteLLM bills a model without cache prices)
    and where the figure goes, LiteLLM's `x-litellm-response-cost` header or OpenRouter's
    `usage.cost`. The figure is a double's shortest text, as both send it."""

    input_per_mtok: str
    output_per_mtok: str
    cached_per_mtok: str = "0"
    where: Literal["header", "usage"] = "header"

    def amount(self, u: Usage) -> float:
        billed = (
            (u.input_tokens + u.cache_write_tokens) * float(self.input_per_mtok)
            + u.cached_input_tokens * float(self.cached_per_mtok)
            + u.output_tokens * float(self.output_per_mtok)
        )
        return billed / 1_000_000


def resolved_usage(family: str, reply: FakeReply) -> Usage | None:
    """The usage a reply reports (`"default"` is the family's)."""
    return DEFAULT_USAGE[family] if isinstance(reply.usage, str) else reply.usage


def usage_wire(family: str, u: Usage) -> dict[str, Any]:
    """`u` as the family reports it (the inverse of its `usage_from`)."""
    return families.get(family).fake.usage_wire(u)


def success_body(family: str, model: str, reply: FakeReply) -> dict[str, Any]:
    n = next(_ids)
    usage = DEFAULT_USAGE[family] if isinstance(reply.usage, str) else reply.usage
    calls = [
        WireCall(c.id or f"call_fake_{n}_{i}", c.name, c.arguments)
        for i, c in enumerate(reply.tool_calls)
    ]
    wire = WireReply(n, model, reply.text, calls, usage, reply.finish_reason)
    return families.get(family).fake.success_body(wire)


def empty_body(family: str, model: str) -> dict[str, Any]:
    """A reply with no output at all, still reporting the prompt's usage."""
    prompt_only = Usage(input_tokens=DEFAULT_USAGE[family].input_tokens)
    return families.get(family).fake.empty_body(next(_ids), model, prompt_only)


def error_body(family: str, status: int, message: str) -> dict[str, Any]:
    return families.get(family).fake.error_body(next(_ids), status, message)


def declared_tools(family: str, body: dict[str, Any]) -> list[str]:
    return families.get(family).fake.declared_tools(body)


def tool_results(family: str, body: dict[str, Any]) -> list[str]:
    """The text of every tool result the request carries back, in order."""
    return families.get(family).fake.tool_results(body)


def offered_tools(family: str, body: dict[str, Any], *, needs_choice: bool) -> list[str]:
    """The tools a server shows the model: all declared ones, or with `needs_choice` (a server
    like llama-cpp-python behind a translating gateway) none unless the request names a tool
    choice, and never any under a choice of none."""
    choice = families.get(family).fake.tool_choice(body)
    if (needs_choice and choice is None) or _none_chosen(choice):
        return []
    return declared_tools(family, body)


def _none_chosen(choice: Any) -> bool:
    """`"none"` (OpenAI), `{"type": "none"}` (Anthropic), `{"mode": "NONE"}` (Gemini)."""
    if isinstance(choice, dict):
        choice = choice.get("type", choice.get("mode"))
    return isinstance(choice, str) and choice.lower() == "none"
