"""What the site prints about a workload version: its primitive, summary, prompt template,
rubric, answer schema, pass rule and changelog.

These come from the workload's module, and importing the catalogue of workloads imports every
generator and the PDF stack they render with (weasyprint, pdfplumber): about 0.4 CPU-seconds,
more than all the rest of a build's own work when its products come from the cache. So the
facts are a cached product too, keyed by the code that makes them (which covers every
workload's source) and the workload id: a build on a machine that has them never imports a
workload.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from ledgerrate.publish.cache import BuildCache, key_of


class WorkloadFacts(BaseModel):
    """The published part of a `workloads.base.Workload`, by the same field names."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    primitive: str
    summary: str
    modes: tuple[str, ...]
    judged: bool
    pass_rule: str
    prompt_template: str
    rubric: str | None
    output_schema: dict[str, Any]
    changelog: str


def _facts_json(workload_id: str) -> bytes:
    """The facts as JSON, or `null` for a workload this toolchain does not have."""
    try:
        from ledgerrate.workloads import get

        workload = get(workload_id)
    except (KeyError, ImportError):
        return b"null"
    facts = WorkloadFacts(
        primitive=workload.primitive,
        summary=workload.summary,
        modes=tuple(workload.modes),
        judged=workload.judged,
        pass_rule=workload.pass_rule,
        prompt_template=workload.prompt_template,
        rubric=workload.rubric,
        output_schema=dict(workload.output_schema),
        changelog=workload.changelog,
    )
    return facts.model_dump_json().encode("utf-8")


def workload_facts(workload_id: str, cache: BuildCache | None = None) -> WorkloadFacts | None:
    """The facts of `workload_id` (None when this toolchain has no such workload), from the
    cache when it holds them."""
    if cache is None:
        raw = _facts_json(workload_id)
    else:
        key = key_of("workload-facts", cache.code("workload-facts"), workload_id)
        raw = cache.product("workload-facts", key, lambda: _facts_json(workload_id))
    found = json.loads(raw)
    return None if found is None else WorkloadFacts.model_validate(found)
