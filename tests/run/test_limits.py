from __future__ import annotations

import asyncio
import random
import time

from ledgerrate.run.limits import AdaptiveLimit, RetryPolicy


def test_one_decrease_per_episode_then_gradual_recovery() -> None:
    async def scenario() -> list[int]:
        limit = AdaptiveLimit("p", 16)
        seen = [limit.limit]
        async with limit.slot() as epoch_a, limit.slot() as epoch_b:
            assert epoch_a == epoch_b == 0
            await limit.throttled(None, epoch_a)
            await limit.throttled(None, epoch_b)  # same episode: no second cut
        seen.append(limit.limit)
        async with limit.slot() as epoch_c:
            await limit.throttled(None, epoch_c)  # a new episode cuts again
        seen.append(limit.limit)
        for _ in range(limit.limit):  # about one round trip of successes gives one slot back
            await limit.succeeded()
        seen.append(limit.limit)
        return seen

    assert asyncio.run(scenario()) == [16, 12, 9, 10]


def test_retry_after_pauses_new_requests() -> None:
    async def scenario() -> float:
        limit = AdaptiveLimit("p", 4)
        await limit.throttled(0.2)
        start = time.monotonic()
        async with limit.slot():
            return time.monotonic() - start

    assert asyncio.run(scenario()) >= 0.19


def test_backoff_grows_is_capped_and_honours_retry_after() -> None:
    policy = RetryPolicy(base_s=1.0, cap_s=8.0)
    rng = random.Random(1)
    ceilings = [max(policy.delay(k, None, rng) for _ in range(200)) for k in (1, 2, 3, 6)]
    assert ceilings[0] <= 1.0 < ceilings[1] <= 2.0 < ceilings[2] <= 4.0 < ceilings[3] <= 8.0
    assert 3.0 <= policy.delay(1, 3.0, rng) <= 3.25
