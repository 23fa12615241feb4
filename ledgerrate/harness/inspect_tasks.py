"""Every workload version as an Inspect AI task: `inspect eval ledgerrate/<task> -T edition=DIR`.

Registered through the package's `inspect_ai` entry point, so an installed LedgerRate makes the
tasks visible to `inspect eval` (names: the workload id with `_` for `.`, e.g.
`ledgerrate/extract_invoice_v1`). A task reads the items of a **registered** edition from its
private seeds exactly as `run` does (seed commitment and dataset hash checked against the
registration), sends each item's prompt verbatim, single-shot or with the workload's tools
(`-T mode=agentic`), with the sampling settings and output cap `edition.yaml` gives the model.

The model is the one Inspect evaluates: `--model openai/<api_model>` finds the edition's entry
by its `api_model` (and its `base_url` when two entries share one), so `inspect eval-set --model
a,b,c` runs every model of the edition; `-T model=ID` still names one outright. The request goes
as `run` sends it: to the entry's `base_url` with the key in its `api_key_env`, and for an
`openai`-family entry by plain chat completions (Inspect's OpenAI-compatible provider); a run
Inspect points at another server is refused (the prices are the edition's server's). Sampling
options given to Inspect that are not the edition's (`--temperature`, `--max-tokens`, …) are
refused before any call. A problem the operator can fix is Inspect's `PrerequisiteError`,
printed as one line.

Each sample's metadata names the edition, workload, item, prompt hash, mode and model;
`ledgerrate ingest` checks them all.

The tasks carry no scorer: LedgerRate grades, blind, after `ingest`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.model._model import active_model
from inspect_ai.solver import generate

from ledgerrate.core.edition import load_edition, pricing_problems, registration_mismatches
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import FileProblem
from ledgerrate.core.layout import EditionPaths
from ledgerrate.core.sampling import differences, edition_settings, settings
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.harness.inspect_solver import ledgerrate_agent
from ledgerrate.harness.metadata import METADATA_KEY, task_name
from ledgerrate.schema import Mode, ModelSpec, ProviderFamily
from ledgerrate.workloads import catalogue
from ledgerrate.workloads.base import Workload

COMPATIBLE = "openai-api/"
OPENAI_BASE_URL = "https://api.openai.com/v1"
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
    """The edition's model: `-T model=ID`, else the one Inspect evaluates (`--model`), else the
    edition's only model."""
    models = [s for s in specs if not s.is_reference]
    listed = ", ".join(f"{s.id} (--model openai/{s.api_model})" for s in models) or "none"
    active = active_model()
    if chosen is not None:
        for spec in models:
            if spec.id != chosen:
                continue
            if active is not None and not _names(spec) & _suffixes(str(active)):
                # Else the run would be recorded as one model while Inspect asked for another.
                raise UsageProblem(
                    f"{where}: -T model={chosen} but Inspect's --model is {active}; pass "
                    f"--model openai/{spec.api_model} (or drop -T model=: --model finds the entry)"
                )
            return spec
        raise UsageProblem(f"{where}: no model {chosen!r} in edition.yaml (models: {listed})")
    if active is not None:
        found = [s for s in models if _names(s) & _suffixes(str(active))]
        if len(found) > 1:
            # Two entries may serve one api_model from different servers: the base URL decides.
            found = [s for s in found if _same_url(s.base_url, active.api.base_url)] or found
        if len(found) == 1:
            return found[0]
        if not found:
            raise UsageProblem(
                f"{where}: Inspect's --model {active} is none of the edition's models; pass "
                f"--model <provider>/<api_model> of one of: {listed}"
            )
    if len(models) != 1:
        raise UsageProblem(
            f"{where}: the edition lists {len(models)} models; name one with --model "
            f"<provider>/<api_model> or -T model=ID ({listed})"
        )
    return models[0]


def _names(spec: ModelSpec) -> set[str]:
    return {spec.id, *([spec.api_model] if spec.api_model else [])}


def _suffixes(name: str) -> set[str]:
    """`openai-api/fake/m` → {`openai-api/fake/m`, `fake/m`, `m`}: the api_model may itself hold
    a slash (`meta/llama-3`), the provider prefix never matters."""
    parts = name.split("/")
    return {"/".join(parts[i:]) for i in range(len(parts))}


def _same_url(a: str | None, b: str | None) -> bool:
    return (a or "").rstrip("/") == (b or "").rstrip("/")


def _bound_model(spec: ModelSpec) -> Model | None:
    """The model Inspect should call for `spec`, when not the one it was given (None: Inspect's
    own is right, or no model is given yet because the task is built outside an eval).

    An `openai`-family entry is called as `run` calls it: plain chat completions with the
    settings as given, at the entry's `base_url`, with the key in its `api_key_env`. That is
    Inspect's OpenAI-compatible provider (`openai-api/…`); its `openai/…` provider instead
    picks the Responses API and drops `temperature` for model names it does not know (every
    self-hosted one). Another family's entry keeps Inspect's provider, sent to its `base_url`."""
    active = active_model()
    if active is None:
        return None
    sends_to = active.api.base_url
    if spec.base_url and sends_to and not _same_url(sends_to, spec.base_url):
        raise UsageProblem(
            f"Inspect sends {active} to {sends_to}, but edition.yaml gives model {spec.id} "
            f"base_url {spec.base_url}: pass --model-base-url {spec.base_url} (or unset the "
            "base URL variable Inspect reads)"
        )
    if spec.provider == ProviderFamily.openai:
        if str(active).startswith(COMPATIBLE) and sends_to:
            return None
        name = f"{COMPATIBLE}ledgerrate/{spec.api_model or spec.id}"
        base_url = spec.base_url or sends_to or OPENAI_BASE_URL
    elif spec.base_url and not sends_to:
        name, base_url = str(active), spec.base_url
    else:
        return None
    if spec.api_key_env is None:  # a keyless server on loopback: Inspect wants some key
        return get_model(name, base_url=base_url, api_key=active.api.api_key or "none")
    if not os.environ.get(spec.api_key_env):
        raise UsageProblem(
            f"model {spec.id} needs its API key: set {spec.api_key_env} (edition.yaml's "
            "api_key_env)"
        )
    if name.startswith(COMPATIBLE):
        # Named, not passed: an eval-retry rebuilds the model from its log, which keeps the
        # variable's name (never the key).
        return get_model(name, base_url=base_url, api_key_var=spec.api_key_env)
    return get_model(name, base_url=base_url, api_key=os.environ[spec.api_key_env])


def _overrides(spec: ModelSpec) -> list[str]:
    """Sampling settings given to Inspect (`--temperature`, `--max-tokens`, …) that are not the
    edition's: a run with them would be refused at ingest, so it is refused before it spends."""
    given = active_generate_config().model_dump(exclude_none=True)
    asked = {**edition_settings(spec), **settings(given)}
    return [
        f"{d.setting} {d.sent!r} (edition.yaml gives {d.edition!r} for model {spec.id})"
        for d in differences(spec, asked)
    ]


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
    """The task, or Inspect's `PrerequisiteError`: Inspect prints its message alone, so a
    problem the operator can fix reads as the one line `ledgerrate` would print, not a traceback.
    """
    try:
        return _edition_task(workload, edition, mode, model)
    except (UsageProblem, FileProblem) as problem:
        raise PrerequisiteError("\n".join(problem.lines)) from None


def _edition_task(workload: Workload, edition: str, mode: str | None, model: str | None) -> Task:
    root = Path(edition)
    if not EditionPaths(root).manifest.is_file():
        raise UsageProblem(
            f"{root}: not an edition folder (no edition.yaml); pass -T edition=<edition folder>"
        )
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
    overrides = _overrides(spec)
    if overrides:
        raise UsageProblem(
            f"the run would not use the edition's sampling: {'; '.join(overrides)}; drop the "
            "option that sets it (--temperature, --max-tokens, --seed, …)"
        )
    bound = _bound_model(spec)
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
        model=bound,
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
