"""The Inspect AI tasks, listed with the command that runs each (`ledgerrate inspect-tasks`).

`inspect list tasks` finds tasks in `.py` files under a folder, not those an installed package
registers through its `inspect_ai` entry point, so it shows none of LedgerRate's: this list is
where an operator finds their names. For an edition, the lines are the ones to type: its
registered workloads, each model's `--model` (`openai/<api_model>`, the OpenAI-compatible
provider every `openai`-family entry is served by) and the key variable to set.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ledgerrate.core.edition import load_edition
from ledgerrate.harness.metadata import task_name
from ledgerrate.providers import families
from ledgerrate.schema import ModelSpec
from ledgerrate.workloads import catalogue


def inspect_model(spec: ModelSpec) -> str:
    """`--model` for `spec`: Inspect's provider for the family (`Family.inspect_name`)."""
    return f"{families.get(spec.provider).inspect_name}/{spec.api_model or spec.id}"


def task_lines(edition: Path | None) -> list[str]:
    if edition is None:
        lines = ["LedgerRate's Inspect AI tasks (inspect eval ledgerrate/<task> -T edition=DIR):"]
        for workload in catalogue.WORKLOADS:
            lines.append(
                f"  ledgerrate/{task_name(workload.id)}  {workload.title} ({workload.id}; "
                f"-T mode={'|'.join(workload.modes)})"
            )
        lines.append("Pass an edition folder to see the commands that run its workloads.")
        return lines
    loaded = load_edition(edition)
    models = [s for s in loaded.manifest.models if not s.is_reference]
    where = shlex.quote(str(edition))
    many = ",".join(inspect_model(s) for s in models)
    lines = [f"Inspect AI tasks of edition {loaded.manifest.id}, one eval-set for all its models:"]
    for entry in loaded.manifest.workloads:
        workload = catalogue.get(entry.id)
        for mode in workload.modes:
            lines.append(
                f"  inspect eval-set ledgerrate/{task_name(workload.id)} -T edition={where} "
                f"-T mode={mode} --model {many} --log-dir logs/{task_name(workload.id)}-{mode}"
            )
    keys = sorted({s.api_key_env for s in models if s.api_key_env})
    if keys:
        lines.append(
            f"Each model's requests go to its base_url in edition.yaml with the key in "
            f"{', '.join(keys)}; Inspect's own provider also wants its key variable set "
            "(OPENAI_API_KEY for openai/…)."
        )
    lines.append(f"Then: ledgerrate ingest {where} logs/*/*.eval")
    return lines
