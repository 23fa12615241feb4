"""The judged part of a grade (standard §5): one blinded judge call per run.

The judge is fixed per edition (`edition.yaml: judge`). It is called through the ordinary
provider adapters and priced with the same frozen table as the models, but its spend is
recorded in the judge block and never enters CPO. Each judged workload carries its judged part
as a field, `Workload.judge` (`workloads.base.JudgeHooks`): `material(item, answer_text)` (what
the judge reads after the rubric) and `outcome(item, verdict)` (the workload's pass rule applied
to the judge's JSON).
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ledgerrate.core.cost import call_cost, estimate_usage
from ledgerrate.core.hashing import sha256_json
from ledgerrate.core.keys import header_problem
from ledgerrate.providers.base import (
    Completion,
    CompletionRequest,
    Message,
    Provider,
    ProviderError,
)
from ledgerrate.providers.clock import CallClock
from ledgerrate.schema import JudgeBlock, ModelSpec, PricingTable
from ledgerrate.workloads.answers import AnswerFormatError, extract_json
from ledgerrate.workloads.base import Item, JudgeHooks, Workload

JUDGE_SYSTEM_PREFIX = (
    "You are an impartial grader. You will see one submission, identified only by an opaque "
    "id. Apply the rubric below exactly and answer with the JSON it asks for.\n\n"
)


class JudgeUnavailable(Exception):
    """No judge can be called (none configured, or its API key is not in the environment)."""


class JudgeFailed(Exception):
    """The judge call failed or its reply could not be read; the run stays pending_judge."""

    def __init__(self, message: str, block: JudgeBlock | None = None) -> None:
        super().__init__(message)
        self.block = block  # spend already incurred is still recorded


def hooks_for(workload: Workload) -> JudgeHooks:
    """The workload's judged part (`Workload.judge`)."""
    if workload.judge is None:
        raise JudgeUnavailable(
            f"{workload.id} (grader revision {workload.grader_revision}) is judged but has no "
            "judge hooks; set Workload.judge where the workload is assembled (for a version "
            "hashed whole, with workloads.base.with_judge outside its hashed modules)"
        )
    return workload.judge


def api_key(spec: ModelSpec, env: Mapping[str, str] | None = None) -> str:
    if spec.is_reference:
        raise JudgeUnavailable(f"judge {spec.id!r} is a reference baseline, which cannot judge")
    source = os.environ if env is None else env
    key = source.get(spec.api_key_env or "", "")
    if not key:
        raise JudgeUnavailable(
            f"judge {spec.id!r}: environment variable {spec.api_key_env} is not set"
        )
    bad = header_problem(key.strip())
    if bad:
        raise JudgeUnavailable(
            f"judge {spec.id!r}: the key in ${spec.api_key_env} holds {bad}, which an HTTP "
            f"header cannot carry; set ${spec.api_key_env} to the key alone, on one line"
        )
    return key.strip()


def sensitivity_sample(anon_ids: list[str], share: float, seed: int) -> set[str]:
    """The seeded share (rounded up) of judged runs that a second judge also grades."""
    if not anon_ids:
        return set()
    # round() first so 0.2 × 15 is 3, not 3.0000000000000004 rounded up to 4.
    k = min(len(anon_ids), max(1, math.ceil(round(share * len(anon_ids), 9))))
    return set(random.Random(seed).sample(sorted(anon_ids), k))


def build_request(rubric: str, anon: str, material: str) -> CompletionRequest:
    user = f"Submission {anon}\n\n{material}"
    return CompletionRequest(
        system=JUDGE_SYSTEM_PREFIX + rubric, messages=[Message(role="user", content=user)]
    )


def request_digest(request: CompletionRequest) -> str:
    """What a judge verdict is a verdict on: the system prompt (with the rubric) and the
    messages, the submission among them. A regrade carries a verdict forward only while the
    request it would send now has the same digest."""
    return sha256_json(
        {
            "system": request.system,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
    )


def judge_request(
    workload: Workload, hooks: JudgeHooks, item: Item, anon: str, text: str
) -> CompletionRequest:
    """The request the judge is sent for one run (and whose digest its verdict records)."""
    assert workload.rubric is not None
    return build_request(workload.rubric, anon, hooks.material(item, text))


async def judge_one(
    provider: Provider,
    pricing: PricingTable,
    *,
    workload: Workload,
    hooks: JudgeHooks,
    item: Item,
    anon: str,
    answer_text: str,
    complete: Callable[[CompletionRequest], Awaitable[Completion]] | None = None,
) -> JudgeBlock:
    """One judge call: the rubric, the task material and the anonymised answer.

    `complete` sends the request (the grade stage passes the provider's call under the
    runner's concurrency caps and retries); the provider's own call by default."""
    assert workload.rubric is not None and workload.rubric_hash is not None
    request = judge_request(workload, hooks, item, anon, answer_text)
    digest = request_digest(request)
    spec = provider.spec
    # From when the request left its queue: a retry's backoff is not the judge's server time.
    timer = CallClock()
    try:
        completion = await (complete or provider.complete)(request)
    except ProviderError as exc:
        latency = timer.elapsed()
        block = None
        if exc.usage is not None:
            block = JudgeBlock(
                judge_model=spec.id,
                rubric_hash=workload.rubric_hash,
                anon_id=anon,
                usage=exc.usage,
                latency_s=latency,
                # A self-hosted judge costs its server time, like the model's own calls.
                cost=call_cost(exc.usage, latency, pricing, spec.id),
                request_sha256=digest,
                rationale=f"judge call failed: {type(exc).__name__}",
            )
        raise JudgeFailed(f"judge call failed: {type(exc).__name__}: {exc}", block) from None
    latency = timer.elapsed()
    usage = completion.usage
    note = ""
    if usage is None:
        # Never shown as free: estimate from characters and say so in the block.
        prompt_chars = len(request.system) + sum(len(m.content) for m in request.messages)
        usage = estimate_usage(prompt_chars, len(completion.text))
        note = "[judge usage estimated from characters] "
    cost = call_cost(usage, latency, pricing, spec.id)
    base: dict[str, Any] = {
        "judge_model": spec.id,
        "rubric_hash": workload.rubric_hash,
        "anon_id": anon,
        "usage": usage,
        "latency_s": latency,
        "cost": cost,
        "request_sha256": digest,
    }
    try:
        verdict = extract_json(completion.text, dict)
        passed, scores, score = hooks.outcome(item, verdict)
    except (AnswerFormatError, ValueError) as exc:
        block = JudgeBlock(**base, rationale=f"{note}unusable judge reply: {exc}")
        raise JudgeFailed(f"unusable judge reply: {exc}", block) from None
    rationale = verdict.get("rationale")
    return JudgeBlock(
        **base,
        score=score,
        scores=scores,
        passed=passed,
        rationale=note + (rationale if isinstance(rationale, str) else ""),
    )


def agreement(blocks: list[JudgeBlock]) -> float | None:
    """Share of second opinions that agree with the first judge on pass/fail."""
    pairs = [
        (b.passed, b.second_opinion.passed)
        for b in blocks
        if b.second_opinion is not None
        and b.passed is not None
        and b.second_opinion.passed is not None
    ]
    if not pairs:
        return None
    return sum(1 for a, b in pairs if a == b) / len(pairs)
