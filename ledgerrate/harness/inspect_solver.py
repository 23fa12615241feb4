"""The agentic tool loop as an Inspect solver: the workload's sandbox per sample, 25 steps.

The same loop as `ledgerrate.run.agent.agentic`: at most `max_steps` model calls, each one's
tool calls run before the next; a model still calling tools after the last step fails
(`step_cap`, recorded in the sample store for `ingest`). Each sample gets a fresh temporary
folder, removed afterwards whatever happens, and the tools' end state (e.g. the journal a
month-end close posted) is kept in the store so LedgerRate grades it as it grades `run`'s.
"""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ledgerrate.harness.inspect_tools import inspect_tool
from ledgerrate.harness.metadata import METADATA_KEY, STEP_CAP_KEY, TOOL_STATE_KEY
from ledgerrate.workloads.base import Dataset, Workload
from ledgerrate.workloads.toolsets import end_state, item_toolset

MAX_STEPS = 25  # standard §3, as in `run`


@solver
def ledgerrate_agent(workload: Workload, dataset: Dataset, max_steps: int = MAX_STEPS) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = dataset.item(state.metadata[METADATA_KEY]["item_id"])
        with item_toolset(workload, item, dataset) as toolset:
            state.tools = [inspect_tool(spec) for spec in toolset.tools]
            capped = True
            for _ in range(max_steps):
                state = await generate(state, tool_calls="single")
                if state.completed or not state.output.message.tool_calls:
                    capped = False
                    break
            state.store.set(STEP_CAP_KEY, capped)
            state.store.set(TOOL_STATE_KEY, end_state(toolset))
        return state

    return solve
