"""`generate.variance-commentary.v1` as the catalogue lists it: grader revision 2
(`v1_revision2.py`) and its superseded revision 1 (`v1_revision1.py`), each with its judged part
as a field (`Workload.judge`).

Both revision modules are hashed whole into sealed registrations (ARCHITECTURE.md §3; their
folder's `FROZEN` file lists them), so the hooks cannot be named in the `Workload(...)` they
build: they are attached here. Both revisions judge with revision 1's `judge_material` and
`judge_outcome`, whose code is in both revisions' grader hash (`v1_revision1.py` is one of their
`grader_sources`).
"""

from __future__ import annotations

from ledgerrate.workloads.base import JudgeHooks, with_judge
from ledgerrate.workloads.generate_variance_commentary import v1_revision1, v1_revision2

WORKLOAD = with_judge(
    v1_revision2.WORKLOAD,
    JudgeHooks(material=v1_revision1.judge_material, outcome=v1_revision1.judge_outcome),
)
