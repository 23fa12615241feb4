"""The agentic sandbox of one item: its workload's toolset (or the file toolset) in a fresh folder.

One set-up for both ways an agentic attempt runs, `ledgerrate run` (`run.agent`) and the Inspect
solver (`harness.inspect_solver`), which are sibling layers; it lives here, below both, beside
the workload interface it reads. A workload that names no tools gets the item's files behind the
read-only file tools.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ledgerrate.core.tools import Toolset
from ledgerrate.sandbox.files import FileToolset
from ledgerrate.workloads.base import Dataset, Item, Workload


@contextmanager
def item_toolset(workload: Workload, item: Item, dataset: Dataset) -> Iterator[Toolset]:
    """The item's toolset in a fresh temporary folder; closed, and the folder removed, on exit
    whatever happens (a fresh folder per attempt: nothing an earlier attempt wrote can leak into
    this one)."""
    workdir = Path(tempfile.mkdtemp(prefix="ledgerrate-sandbox-"))
    try:
        toolset: Toolset
        if workload.tools is not None:
            toolset = workload.tools(item, dataset, workdir)
        else:
            toolset = FileToolset(workdir, dict(item.files))
        try:
            yield toolset
        finally:
            toolset.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def end_state(toolset: Toolset) -> dict[str, Any] | None:
    """The tools' end state of an attempt that may have failed: informational only, so a
    toolset that cannot say gives None rather than ending the run."""
    try:
        return toolset.state()
    except Exception:  # the state of a failed attempt is informational only
        return None
