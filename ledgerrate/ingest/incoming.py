"""A run read from another harness's log, before it is checked and becomes a RunRecord."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from ledgerrate.schema import AgentStep, CallRecord, RunStatus
from ledgerrate.workloads.base import Prompt

Harness = Literal["inspect_ai", "jsonl"]


@dataclass(frozen=True)
class LogInfo:
    """The log a sample came from: what `RunSource` records as provenance."""

    path_name: str
    sha256: str
    harness: Harness
    harness_version: str | None = None
    eval_id: str | None = None
    task: str | None = None


@dataclass
class Incoming:
    """One sample of a log, as the harness recorded it. Nothing here is trusted yet: `admit`
    checks every claim (edition, workload, item, prompt, model, window) before it is written."""

    log: LogInfo
    sample: str  # the sample's key within the log, e.g. `item-03#1` or `line 4`
    edition: str | None
    workload: str | None
    item_id: str | None
    mode: str | None
    # The model as the harness names it (Inspect: `provider/model`); `model_id` is the edition's
    # model id when the log states one (LedgerRate's tasks do), and must then agree.
    model_name: str
    model_id: str | None
    # The prompt as the log shows it sent (system, first user message), from each place the log
    # keeps the conversation (Inspect: the first model call's input and the sample's messages);
    # every one must be the registered prompt. Empty: `request` must hold its texts verbatim.
    sent: list[Prompt]
    prompt_hash: str | None
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    latency_s: float
    status: RunStatus
    failure: str | None
    request: dict[str, Any]
    calls: list[CallRecord] = field(default_factory=list)
    steps: list[AgentStep] = field(default_factory=list)
    answer: str | None = None
    tool_state: dict[str, Any] | None = None
    # The dataset hash the harness claims (the interchange format carries it).
    dataset_hash: str | None = None
    # The harness's unique id of this attempt (Inspect's sample uuid), kept across eval-retry.
    uuid: str | None = None
    # Every place the log states the settings a call was sent with, as (where, body or config):
    # each must carry the edition's (`ledgerrate.core.sampling`). Empty: `request` is checked.
    settings: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
