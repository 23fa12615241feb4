"""Cost = provider-reported usage × the edition's frozen price table, in Decimal.

Shared by the runner (recording), the judge (grading cost) and `verify` (recomputing), so the
three can never disagree about a cent.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from ledgerrate.core.errors import UsageProblem
from ledgerrate.schema import Cost, ModelPrice, PricingTable, Usage

MILLION = Decimal(1_000_000)
COMPUTE_QUANTUM = Decimal("0.000000000001")  # 1e-12 USD: CPU-seconds ÷ 3600 never terminates


def price_for(pricing: PricingTable, model_id: str) -> ModelPrice:
    try:
        return pricing.models[model_id]
    except KeyError:
        raise UsageProblem(
            f"pricing.yaml has no price for model {model_id!r}; add it under `models:` "
            "(a model without a price is never costed as zero)"
        ) from None


def token_cost(usage: Usage, price: ModelPrice) -> Decimal:
    cached = price.cached_input_per_mtok
    cache_write = price.cache_write_per_mtok
    reasoning = price.reasoning_per_mtok
    visible_output = usage.output_tokens - (usage.reasoning_tokens if reasoning is not None else 0)
    input_price, output_price = price.input_usd, price.output_usd
    total = (
        usage.input_tokens * input_price
        + usage.cached_input_tokens * (cached if cached is not None else input_price)
        + usage.cache_write_tokens * (cache_write if cache_write is not None else input_price)
        + visible_output * output_price
        + (usage.reasoning_tokens * reasoning if reasoning is not None else 0)
    )
    return Decimal(total) / MILLION


def usage_cost(usage: Usage, pricing: PricingTable, model_id: str) -> Cost:
    return Cost(model_usd=token_cost(usage, price_for(pricing, model_id)))


def compute_cost(cpu_seconds: float, pricing: PricingTable) -> Cost:
    if pricing.compute is None:
        raise UsageProblem(
            "pricing.yaml has no `compute:` price; reference baselines are costed by CPU time "
            "× $/vCPU-hour, so add compute.vcpu_hour_usd with its source"
        )
    seconds = Decimal(str(round(cpu_seconds, 6)))
    usd = (seconds * pricing.compute.vcpu_hour_usd / Decimal(3600)).quantize(
        COMPUTE_QUANTUM, rounding=ROUND_HALF_EVEN
    )
    return Cost(compute_usd=usd)


def self_hosted_cost(server_seconds: float, pricing: PricingTable, model_id: str) -> Cost:
    """A self-hosted model's call: its measured server time × the declared instance price.

    Compute, like the reference baselines, never a token price: nobody sells these tokens.
    """
    instance = pricing.self_hosted.get(model_id)
    if instance is None:
        raise UsageProblem(
            f"pricing.yaml has no `self_hosted:` price for model {model_id!r}; a locally served "
            "model is costed by server time × the instance's hourly price"
        )
    seconds = Decimal(str(round(server_seconds, 6)))
    usd = (seconds * instance.hour_usd / Decimal(3600)).quantize(
        COMPUTE_QUANTUM, rounding=ROUND_HALF_EVEN
    )
    return Cost(compute_usd=usd)


def call_cost(usage: Usage, server_seconds: float, pricing: PricingTable, model_id: str) -> Cost:
    """One call's cost: compute for a self-hosted model, tokens at list price otherwise."""
    if model_id in pricing.self_hosted:
        return self_hosted_cost(server_seconds, pricing, model_id)
    return usage_cost(usage, pricing, model_id)


def estimate_usage(prompt_chars: int, output_chars: int) -> Usage:
    """Used only when a provider reports nothing; the record's basis is then `estimated`."""
    return Usage(input_tokens=-(-prompt_chars // 4), output_tokens=-(-output_chars // 4))
