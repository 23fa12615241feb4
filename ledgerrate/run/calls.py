"""One model call, timed, priced and kept as a `CallRecord`, whether it answered or failed.

The one way `run` records a call: an item's attempt (`agent`) and the tools probe (`probe`) both
go through `recorded_call`, and each decides for itself what a failure means (an attempt maps
it to a status and stops; the probe judges with what it got). The clock starts when the request
left its concurrency slot (`providers.clock`), so queueing is never billed as the model's time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

from ledgerrate.core.cost import call_cost, estimate_usage
from ledgerrate.core.hashing import canonical_json
from ledgerrate.providers.base import Completion, CompletionRequest, ProviderError
from ledgerrate.providers.clock import CallClock
from ledgerrate.schema import CallRecord, PricingTable, Usage, UsageBasis

Complete = Callable[[CompletionRequest], Awaitable[Completion]]
# What a call can fail with and still be recorded: the provider said no, or the wire gave out.
CallFailure = ProviderError | httpx.TimeoutException | httpx.TransportError


@dataclass(frozen=True)
class Recorded:
    """A call's record and what it returned: a completion, or the failure that ended it."""

    record: CallRecord
    completion: Completion | None = None
    failure: CallFailure | None = None


def prompt_chars(request: CompletionRequest) -> int:
    chars = len(request.system)
    for message in request.messages:
        chars += len(message.content)
        chars += sum(len(canonical_json(c.arguments)) + len(c.name) for c in message.tool_calls)
    return chars


def output_chars(completion: Completion) -> int:
    return len(completion.text) + sum(
        len(canonical_json(c.arguments)) + len(c.name) for c in completion.tool_calls
    )


async def recorded_call(
    complete: Complete,
    request: CompletionRequest,
    step: int,
    pricing: PricingTable,
    model_id: str,
    *,
    estimate_unreported: bool = True,
) -> Recorded:
    """Send `request` and record the call. A reply without usage is estimated from its
    characters when `estimate_unreported` (an attempt's spend is never lost), else recorded as
    unknown (`none`, the probe's infrastructure spend)."""
    timer = CallClock()
    try:
        completion = await complete(request)
    except (ProviderError, httpx.TimeoutException, httpx.TransportError) as exc:
        started, latency = timer.left()[1], timer.elapsed()
        reported = exc.usage if isinstance(exc, ProviderError) else None
        usage = reported or Usage()
        record = CallRecord(
            step=step,
            started_at=started,
            latency_s=latency,
            http_status=exc.status if isinstance(exc, ProviderError) else None,
            response=exc.raw if isinstance(exc, ProviderError) else None,
            error=f"{type(exc).__name__}: {exc}",
            usage=usage,
            # A failed call that reported nothing: its usage is unknown, not zero-measured.
            usage_basis=UsageBasis.provider_reported if reported else UsageBasis.none,
            cost=call_cost(usage, latency, pricing, model_id),
            billed_usd=exc.billed_usd if isinstance(exc, ProviderError) else None,
        )
        return Recorded(record, failure=exc)
    started, latency = timer.left()[1], timer.elapsed()
    if completion.usage is not None:
        usage, basis = completion.usage, UsageBasis.provider_reported
    elif estimate_unreported:
        usage = estimate_usage(prompt_chars(request), output_chars(completion))
        basis = UsageBasis.estimated
    else:
        usage, basis = Usage(), UsageBasis.none
    record = CallRecord(
        step=step,
        started_at=started,
        latency_s=latency,
        http_status=completion.http_status,
        response=completion.raw,
        usage=usage,
        usage_basis=basis,
        cost=call_cost(usage, latency, pricing, model_id),
        # Beside the computed cost, never instead of it (`providers/billed.py`).
        billed_usd=completion.billed_usd,
    )
    return Recorded(record, completion=completion)
