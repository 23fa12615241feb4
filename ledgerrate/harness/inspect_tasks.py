"""Every workload version as an Inspect AI task: `inspect eval ledgerrate/<task> -T edition=DIR`.

Registered through the package's `inspect_ai` entry point, so an installed LedgerRate makes the
tasks visible to `inspect eval` (names: the workload id with `_` for `.`, e.g.
`ledgerrate/extract_invoice_v1`). A task reads the items of a **registered** edition from its
private seeds exactly as `run` does (seed commitment and dataset hash checked against the
registration), sends each item's prompt verbatim, single-shot or with the workload's tools
(`-T mode=agentic`), with the sampling settings and output cap `edition.yaml` gives the model
(`-T model=ID`, needed when the edition lists more than one). Each sample's metadata names the
edition, workload, item, prompt hash, mode and model; `ledgerrate ingest` checks them all.

The tasks carry no scorer: LedgerRate grades, blind, after `ingest`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.solver import generate

from ledgerrate.edition import load_edition, pricing_problems, registration_mismatches
from ledgerrate.errors import UsageProblem
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.harness.inspect_solver import ledgerrate_agent
from ledgerrate.harness.metadata import METADATA_KEY, task_name
from ledgerrate.schema import Mode, ModelSpec, ProviderFamily
from ledgerrate.workloads import catalogue
from ledgerrate.workloads.base import Workload

# Sampling keys of `edition.yaml` Inspect can carry as they are; anything else is refused,
# because a setting the harness silently drops would make its runs differ from `run`'s.
SAMPLING_KEYS = (
    "temperature",
    "top_p",
    "top_k",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "stop_seqs",
    "reasoning_effort",
)


def _model(specs: list[ModelSpec], chosen: str | None, where: Path) -> ModelSpec:
    models = [s for s in specs if s.provider != ProviderFamily.baseline]
    if chosen is not None:
        for spec in models:
            if spec.id == chosen:
                return spec
        known = ", ".join(s.id for s in models) or "none"
        raise UsageProblem(f"{where}: no model {chosen!r} in edition.yaml (models: {known})")
    if len(models) != 1:
        raise UsageProblem(
            f"{where}: the edition lists {len(models)} models; say whose sampling settings to use "
            f"with -T model=ID (one of: {', '.join(s.id for s in models)})"
        )
    return models[0]


def generate_config(spec: ModelSpec, where: Path) -> GenerateConfig:
    """The model's sampling settings and output cap from `edition.yaml`, as Inspect's config."""
    unknown = sorted(set(spec.sampling) - set(SAMPLING_KEYS))
    if unknown:
        raise UsageProblem(
            f"{where}: models[{spec.id}].sampling has {', '.join(unknown)}, which the Inspect "
            f"task cannot pass on; use `ledgerrate run` for this model or drop the key"
        )
    settings: dict[str, Any] = dict(spec.sampling)
    return GenerateConfig(max_tokens=spec.max_output_tokens, **settings)


def edition_task(workload: Workload, edition: str, mode: str | None, model: str | None) -> Task:
    root = Path(edition)
    loaded = load_edition(root)
    problems = pricing_problems(loaded) + registration_mismatches(loaded, catalogue.get)
    if problems:
        raise UsageProblem(*problems)
    where = loaded.paths.manifest
    if workload.id not in {w.id for w in loaded.manifest.workloads}:
        raise UsageProblem(f"{where}: workload {workload.id} is not in this edition")
    chosen = Mode(mode) if mode else Mode(workload.modes[0])
    if chosen.value not in workload.modes:
        raise UsageProblem(
            f"{workload.id} has no {chosen.value} mode (modes: {', '.join(workload.modes)})"
        )
    spec = _model(list(loaded.manifest.models), model, where)
    dataset = dataset_for(root, workload.id)
    samples = []
    for item in dataset.items:
        prompt = workload.prompt(item)
        messages: list[ChatMessage] = []
        if prompt.system:
            messages.append(ChatMessageSystem(content=prompt.system))
        messages.append(ChatMessageUser(content=prompt.user))
        key = {
            "edition": loaded.manifest.id,
            "workload": workload.id,
            "item_id": item.id,
            "prompt_hash": prompt.hash,
            "mode": chosen.value,
            "model": spec.id,
        }
        samples.append(Sample(id=item.id, input=messages, metadata={METADATA_KEY: key}))
    solver = ledgerrate_agent(workload, dataset) if chosen == Mode.agentic else generate()
    return Task(
        dataset=MemoryDataset(samples, name=f"{loaded.manifest.id}/{workload.id}"),
        solver=solver,
        config=generate_config(spec, where),
        name=task_name(workload.id),
        metadata={METADATA_KEY: {"edition": loaded.manifest.id, "workload": workload.id}},
    )


def _define(workload: Workload) -> Any:
    def make(edition: str, mode: str | None = None, model: str | None = None) -> Task:
        return edition_task(workload, edition, mode, model)

    make.__name__ = task_name(workload.id)
    make.__doc__ = f"{workload.title} ({workload.id}): the items of a registered edition."
    return task(name=task_name(workload.id))(make)


TASKS = {workload.id: _define(workload) for workload in catalogue.WORKLOADS}
