"""A workload's tools as Inspect tools: the same names, descriptions, JSON Schemas and code.

A tool's refusal or failure reaches the model as an error it reads, exactly as in `run`
(`ledgerrate.run.agent.run_tool`), never as a crash of the sample.
"""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.tool import Tool, ToolDef, ToolParams
from inspect_ai.tool import ToolError as InspectToolError

from ledgerrate.core.tools import ToolError, ToolSpec


def inspect_tool(spec: ToolSpec) -> Tool:
    async def execute(**arguments: Any) -> str:
        try:
            output = await asyncio.to_thread(spec.run, dict(arguments))
        except ToolError as exc:
            raise InspectToolError(str(exc)) from None
        except Exception as exc:  # a tool bug must not end the sample; the model sees it failed
            raise InspectToolError(f"the tool failed ({type(exc).__name__}: {exc})") from None
        return str(output)

    return ToolDef(
        execute,
        name=spec.name,
        description=spec.description,
        parameters=ToolParams.model_validate(spec.parameters),
        # `run` shows a tool's whole output; Inspect would cut it at 16 KB by default.
        max_output=0,
    ).as_tool()
