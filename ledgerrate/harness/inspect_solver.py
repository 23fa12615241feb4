"""The agentic tool loop as an Inspect solver: the workload's sandbox per sample, 25 steps.

The same loop as `ledgerrate.run.agent.agentic`: at most `max_steps` model calls, each one's
tool calls run before the next; a model still calling tools after the last step fails
(`step_cap`, recorded in the sample store for `ingest`). Each sample gets a fresh temporary
folder, removed afterwards whatever happens, and the tools' end state (e.g. the journal a
month-end close posted) is kept in the store so LedgerRate grades it as it grades `run`'s.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ledgerrate.harness.inspect_tools import inspect_tool
from ledgerrate.harness.metadata import METADATA_KEY, STEP_CAP_KEY, TOOL_STATE_KEY
from ledgerrate.sandbox.files import FileToolset
from ledgerrate.tools import Toolset
from ledgerrate.workloads.base import Dataset, Workload

MAX_STEPS = 25  # standard §3, as in `run`


def _state(toolset: Toolset) -> dict[str, Any] | None:
    try:
        return toolset.state()
    except Exception:  # the state of a failed attempt is informational only, as in `run`
        return None


@solver
def ledgerrate_agent(workload: Workload, dataset: Dataset, max_steps: int = MAX_STEPS) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = dataset.item(state.metadata[METADATA_KEY]["item_id"])
        workdir = Path(tempfile.mkdtemp(prefix="ledgerrate-sandbox-"))
        try:
            toolset: Toolset
            if workload.tools is not None:
                toolset = workload.tools(item, dataset, workdir)
            else:
                toolset = FileToolset(workdir, dict(item.files))
            try:
                state.tools = [inspect_tool(spec) for spec in toolset.tools]
                capped = True
                for _ in range(max_steps):
                    state = await generate(state, tool_calls="single")
                    if state.completed or not state.output.message.tool_calls:
                        capped = False
                        break
                state.store.set(STEP_CAP_KEY, capped)
                state.store.set(TOOL_STATE_KEY, _state(toolset))
            finally:
                toolset.close()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return state

    return solve
