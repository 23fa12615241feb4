"""Test kit: a registered mini edition with the two judged workloads; run-record helpers."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ledgerrate.core.io import append_jsonl, write_yaml
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.schema import RunRecord
from ledgerrate.testing.fake_shapes import FakeReply
from ledgerrate.workloads.base import Dataset, Workload
from ledgerrate.workloads.generate_variance_commentary import v1_judged as variance_judged
from ledgerrate.workloads.generate_variance_commentary import v1_revision2 as variance
from ledgerrate.workloads.synthesize_board_brief import v1_judged as brief_judged
from ledgerrate.workloads.synthesize_board_brief import v1_revision2 as brief

VARIANCE = variance.WORKLOAD.id
BRIEF = brief.WORKLOAD.id
# The workloads as the catalogue lists them: with their judge hooks (`Workload.judge`).
WORKLOADS: dict[str, Workload] = {
    VARIANCE: variance_judged.WORKLOAD,
    BRIEF: brief_judged.WORKLOAD,
}
JUDGE_KEY_ENV = "LR_TEST_JUDGE_KEY"
NOW = dt.datetime.now(dt.UTC)

# Identities that must never reach the judge.
EVALUATED = {
    "alpha": {"provider": "openai", "family": "acmeai", "api_model": "acme-large-2"},
    "beta": {"provider": "anthropic", "family": "zenithlabs", "api_model": "zenith-pro-7"},
}


def lookup(workload_id: str) -> Workload:
    return WORKLOADS[workload_id]


def _model(mid: str, provider: str, family: str, api_model: str, base_url: str) -> dict[str, Any]:
    return {
        "id": mid,
        "name": f"{mid.title()} Model",
        "provider": provider,
        "family": family,
        "api_model": api_model,
        "base_url": base_url,
        "api_key_env": JUDGE_KEY_ENV if mid.startswith("judge") else "LR_TEST_MODEL_KEY",
        "sampling": {"temperature": 0},
    }


def _price() -> dict[str, Any]:
    return {
        "input_per_mtok": "1.00",
        "output_per_mtok": "4.00",
        "source_url": "https://example.invalid/prices",
        "retrieved_at": (NOW - dt.timedelta(days=30)).isoformat(),
    }


@dataclass
class MiniEdition:
    root: Path
    paths: EditionPaths

    def dataset(self, workload_id: str) -> Dataset:
        return dataset_for(self.root, workload_id, lookup=lookup)

    def dataset_hash(self, workload_id: str) -> str:
        """The registered dataset hash, so the metrics count these runs (not void)."""
        registration = json.loads(self.paths.registration.read_text(encoding="utf-8"))
        return registration["workloads"][workload_id]["dataset_hash"]

    def add_run(
        self,
        workload_id: str,
        model: str,
        mode: str,
        item_id: str,
        answer: str | None,
        *,
        status: str = "completed",
        failure: str | None = None,
        kind: str = "registered",
    ) -> RunRecord:
        seed = f"{workload_id}{model}{mode}{item_id}{answer}{status}{kind}"
        run = RunRecord(
            run_id="r-" + hashlib.sha256(seed.encode()).hexdigest()[:24],
            edition=self.root.name,
            sitting=1,
            kind=kind,  # type: ignore[arg-type]
            workload=workload_id,
            model=model,
            mode=mode,  # type: ignore[arg-type]
            item_id=item_id,
            attempt=1,
            started_at=NOW,
            finished_at=NOW,
            latency_s=1.0,
            status=status,  # type: ignore[arg-type]
            failure=failure,
            dataset_hash=self.dataset_hash(workload_id),
            prompt_hash="0" * 64,
            request={},
            answer=answer,
            usage_basis="provider_reported",
            cost_basis="measured",
        )
        where = self.paths.reproductions if kind == "reproduction" else self.paths.runs
        append_jsonl(where(workload_id, model, mode), run)
        return run


def make_edition(
    tmp_path: Path,
    judge_url: str = "http://127.0.0.1:9/v1",
    *,
    judge: bool = True,
    second: bool = True,
    judge_family: str = "acmeai",
    n: int = 5,
    evaluated: dict[str, dict[str, str]] | None = None,
    flagship: str | None = None,
    workloads: tuple[str, ...] = (VARIANCE, BRIEF),
) -> MiniEdition:
    root = tmp_path / "2026-07"
    root.mkdir(parents=True)
    models = [
        _model(mid, spec["provider"], spec["family"], spec["api_model"], "http://127.0.0.1:9/v1")
        for mid, spec in (evaluated or EVALUATED).items()
    ]
    for model in models:
        model["flagship"] = model["id"] == flagship
    judges = [
        _model("judge-one", "openai", judge_family, "grader-xl", judge_url),
        _model("judge-two", "openai", "otherco", "grader-alt", judge_url),
    ]
    manifest: dict[str, Any] = {
        "id": root.name,
        "date": NOW.date().isoformat(),
        "methodology_version": "1.0",
        "window": {
            "opens": (NOW - dt.timedelta(hours=1)).isoformat(),
            "closes": (NOW + dt.timedelta(hours=70)).isoformat(),
        },
        "workloads": [
            {"id": w, "n": n, **({"n_reason": "test fixture: a small n"} if n != 15 else {})}
            for w in workloads
        ],
        "models": models,
        "judges": judges,
    }
    if judge:
        manifest["judge"] = {"model": "judge-one", "sensitivity_share": 0.2}
        if second:
            manifest["judge"]["second_model"] = "judge-two"
    write_yaml(root / "edition.yaml", manifest)
    write_yaml(
        root / "pricing.yaml",
        {
            "frozen_at": (NOW - dt.timedelta(hours=1)).isoformat(),
            "models": {m["id"]: _price() for m in models + judges},
        },
    )
    register_edition(root, lookup=lookup)
    return MiniEdition(root=root, paths=EditionPaths(root))


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(
        m["content"] for m in body.get("messages", []) if isinstance(m.get("content"), str)
    )


def scoring_responder(
    clarity: int = 5, cause: int = 5, facts_present: int = 20
) -> Callable[[str, dict[str, Any]], FakeReply]:
    """A fake judge: fixed rubric scores, or the first `facts_present` checklist facts present."""

    def respond(family: str, body: dict[str, Any]) -> FakeReply:
        text = user_text(body)
        ids = re.findall(r"^(F\d\d):", text, flags=re.MULTILINE)
        if ids:
            verdict: dict[str, Any] = {
                "facts": [{"id": fid, "present": i < facts_present} for i, fid in enumerate(ids)]
            }
        else:
            verdict = {"clarity": clarity, "cause_attribution": cause, "rationale": "ok"}
        return FakeReply(text=json.dumps(verdict))

    return respond
