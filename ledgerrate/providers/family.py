"""What a provider family is: one registered unit (ARCHITECTURE.md §3, §10).

A family is everything the package knows about one API wire format, declared once in the
family's own module as a `Family`: its name (the `provider:` an edition spells), the adapter
factory, the usage mapping, the vendor words a model of the family uses to name itself (the
judge must not read them, `grade/anonymise.py`), and `FakeWire`, what the fake provider
(`ledgerrate.testing`) serves for it, and the name Inspect AI gives the API. `providers/families.py`
lists the modules; nothing else branches on a family's name.

The fake's wire shapes sit here beside the adapter, not under `ledgerrate/testing`, so that a
family's request and reply formats are read side by side; they are plain dict builders that
import nothing from `ledgerrate.testing`, which stays out of the production import path (the
fake server imports them, never the other way round).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ledgerrate.providers.base import ProviderFactory
from ledgerrate.schema import Usage


@dataclass(frozen=True)
class WireCall:
    """A tool call the fake puts in a reply: its id, the tool's name and the arguments."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class WireReply:
    """A successful reply the fake sends, family-neutral; `usage` None leaves usage out.
    `n` is the fake's running number, for the ids a real reply carries."""

    n: int
    model: str
    text: str
    calls: list[WireCall]
    usage: Usage | None
    finish_reason: str | None


@dataclass(frozen=True)
class Route:
    """A request path the fake answers for this family; `model` when the path carries it."""

    model: str


# The creation time the fake provider stamps on a reply (2026-01-01T00:00:00Z, in the documented
# Unix-seconds field): fixed, so one script read twice gives the same bytes whatever second the
# clock has reached (two reads straddling a second used to differ).
FAKE_CREATED = 1_767_225_600


@dataclass(frozen=True)
class FakeWire:
    """What the fake provider serves for a family, written against its documentation.

    `default_usage` is what every default reply reports, as the adapter should normalise it
    back; `usage_wire` is the inverse of the family's `usage_from`. `route(path)` answers
    whether a request path is this family's (and the model, if the path holds it);
    `base_url(root)` is the `base_url` a ModelSpec names for a server at `root`, in the
    family's SDK convention. `refuse(headers)` is any check of the family's own beyond the
    key header (Anthropic's version header), as a one-line reason. `turns_key` is the request
    field holding the conversation, where the runner's tools probe puts its token.
    `tool_choice(body)` is the tool choice a request names in the family's own field, or None
    when it names none (the fake can then drop the tools, as llama-cpp-python does behind a
    translating gateway).
    """

    key_header: str
    default_usage: Usage
    route: Callable[[str], Route | None]
    base_url: Callable[[str], str]
    usage_wire: Callable[[Usage], dict[str, Any]]
    success_body: Callable[[WireReply], dict[str, Any]]
    empty_body: Callable[[int, str, Usage], dict[str, Any]]
    error_body: Callable[[int, int, str], dict[str, Any]]
    declared_tools: Callable[[dict[str, Any]], list[str]]
    tool_results: Callable[[dict[str, Any]], list[str]]
    turns_key: str = "messages"
    refuse: Callable[[dict[str, str]], str | None] = field(default=lambda headers: None)
    tool_choice: Callable[[dict[str, Any]], Any] = field(default=lambda body: None)


@dataclass(frozen=True)
class Family:
    """One provider family: see the module docstring."""

    name: str
    make: ProviderFactory
    usage_from: Callable[[Any], Usage | None]
    vendor_words: tuple[str, ...]
    fake: FakeWire
    # Inspect AI's name for the API, where it differs from ours (`google` for `gemini`); the
    # harness passes it as `--model <provider>/<api_model>`.
    inspect_provider: str = ""

    @property
    def inspect_name(self) -> str:
        return self.inspect_provider or self.name
