"""What an agentic tool is, for every layer that offers, describes or runs one.

The sandboxes implement tools, workloads choose them per item and the provider adapters translate
their schemas into each API family's format; the types live here, below all three, so that none
of them has to import another to name a tool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


class ToolError(Exception):
    """A refusal or failure the model is shown as the tool's output (never a crash)."""


@dataclass
class ToolSpec:
    """A tool offered in agentic mode; adapters translate `parameters` into each family's format."""

    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments object
    run: Callable[[dict[str, Any]], str]


class Toolset(Protocol):
    """The agentic sandbox of one item: its tools and, at the end, their state."""

    tools: list[ToolSpec]

    def state(self) -> dict[str, Any] | None: ...

    def close(self) -> None: ...
