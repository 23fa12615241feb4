"""Concurrency limits and backoff: a global cap, per-provider adaptive caps, jittered retries.

A provider that answers 429 is asking us to slow down: its cap shrinks to three quarters (the
`decrease` factor), every request to it waits out Retry-After, and the cap climbs back one slot
per run of successes (additive increase, multiplicative decrease), so a busy provider settles
near the rate it can take.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TypeVar

from ledgerrate.providers.base import InfraError, RateLimited, TimedOut
from ledgerrate.providers.clock import request_leaves

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Re-runs of infra failures: bounded attempts, exponential backoff with full jitter."""

    max_attempts: int = 6
    base_s: float = 0.5
    cap_s: float = 60.0
    # Successes at a lowered cap before one slot is given back; None = the cap itself.
    recover_after: int | None = None
    # Timeouts of one item before it is left for a later run: a call that was too slow twice
    # is slow, not unlucky, and each try holds the server for the whole timeout.
    max_timeouts: int = 2

    def delay(self, failures: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before the next attempt, after `failures` infra failures in a row."""
        ceiling = min(self.cap_s, self.base_s * (2 ** max(failures - 1, 0)))
        jittered = rng.uniform(0, ceiling)
        if retry_after is not None:
            # The server said when; add a little jitter so waiting requests do not stampede.
            return min(self.cap_s, retry_after) + rng.uniform(0, self.base_s / 4)
        return jittered


class AdaptiveLimit:
    """A concurrency cap that a 429 lowers and successes raise back, with a shared pause.

    One decrease per episode: the requests already in flight when a 429 arrives were sent at
    the old cap and will often be refused too; counting each of them would collapse the cap to
    one. So a 429 lowers the cap only if its request started after the last decrease (the
    `epoch` it was given), as TCP lowers its window once per round trip.
    """

    def __init__(
        self, name: str, maximum: int, decrease: float = 0.75, recover_after: int | None = None
    ) -> None:
        self.name = name
        self.maximum = max(1, maximum)
        self.limit = self.maximum
        self.decrease = decrease
        # Successes per extra slot; None = the current cap (about one slot per round trip).
        self.recover_after = recover_after
        self.in_flight = 0
        self.rate_limited = 0
        self.epoch = 0
        self._streak = 0
        self._paused_until = 0.0
        self._cond = asyncio.Condition()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
        """Hold one of the cap's slots; yields the epoch the request starts in."""
        async with self._cond:
            while True:
                wait = self._paused_until - time.monotonic()
                if wait <= 0 and self.in_flight < self.limit:
                    break
                if wait > 0:
                    with suppress(TimeoutError):
                        await asyncio.wait_for(self._cond.wait(), timeout=wait)
                else:
                    await self._cond.wait()
            self.in_flight += 1
            epoch = self.epoch
        try:
            yield epoch
        finally:
            async with self._cond:
                self.in_flight -= 1
                # One slot freed wakes one waiter: waking all of them costs CPU per request.
                self._cond.notify(1)

    async def succeeded(self) -> None:
        if self.limit >= self.maximum:
            return
        async with self._cond:
            self._streak += 1
            if self._streak >= (self.recover_after or self.limit):
                self._streak = 0
                self.limit = min(self.maximum, self.limit + 1)
                self._cond.notify(1)

    async def throttled(self, retry_after: float | None, epoch: int | None = None) -> None:
        async with self._cond:
            self.rate_limited += 1
            if retry_after:
                self._paused_until = max(self._paused_until, time.monotonic() + retry_after)
            if epoch is not None and epoch != self.epoch:
                return  # already lowered for this episode
            self.epoch += 1
            self._streak = 0
            self.limit = max(1, int(self.limit * self.decrease))


class Limits:
    """The global cap plus one adaptive cap per provider endpoint (family + base URL)."""

    def __init__(self, global_concurrency: int, recover_after: int | None = None) -> None:
        self.global_sem = asyncio.Semaphore(max(1, global_concurrency))
        self.recover_after = recover_after
        self.providers: dict[str, AdaptiveLimit] = {}

    def provider(self, key: str, maximum: int) -> AdaptiveLimit:
        limit = self.providers.get(key)
        if limit is None:
            limit = self.providers[key] = AdaptiveLimit(
                key, maximum, recover_after=self.recover_after
            )
        elif maximum > limit.maximum:
            # Several models behind one endpoint: the endpoint may take the largest of their caps.
            limit.maximum = limit.limit = maximum
        return limit

    @asynccontextmanager
    async def request(self, provider: AdaptiveLimit) -> AsyncIterator[int]:
        # Provider slot first: a request waiting out a provider's pause must not hold a global
        # slot that requests to other providers could use.
        async with provider.slot() as epoch, self.global_sem:
            yield epoch


async def call_limited(
    limits: Limits,
    limit: AdaptiveLimit,
    send: Callable[[], Awaitable[T]],
    before: Callable[[], Awaitable[None]] | None = None,
) -> T:
    """One request under the global and the endpoint's cap: a 429 lowers the endpoint's cap
    (once per episode) and pauses it for Retry-After; a success helps it climb back.

    `before` runs once a slot is held, just before the request leaves (the runner journals
    the start there). The one implementation behind both the runner's and the judge's calls.
    """
    async with limits.request(limit) as epoch:
        if before is not None:
            await before()
        request_leaves()
        try:
            result = await send()
        except InfraError as exc:
            if isinstance(exc, RateLimited) or exc.status == 429:
                await limit.throttled(exc.retry_after, epoch)
            raise
    await limit.succeeded()
    return result


async def with_retries(
    policy: RetryPolicy,
    rng: random.Random,
    call: Callable[[], Awaitable[T]],
    on_retry: Callable[[InfraError], None] | None = None,
) -> T:
    """`call` until it returns, re-run after infra failures (429, 5xx, timeouts, connection
    errors) with the policy's jittered backoff, at most `max_attempts` times and at most
    `max_timeouts` timeouts; the last failure is raised. Model errors are never retried.

    The runner's item loop keeps the same policy by hand, because it writes a record between
    attempts; calls that record nothing per attempt (the judge's) use this."""
    timeouts = 0
    for k in range(policy.max_attempts):
        try:
            return await call()
        except InfraError as exc:
            if isinstance(exc, TimedOut):
                timeouts += 1
            if k + 1 >= policy.max_attempts or timeouts >= policy.max_timeouts:
                raise
            if on_retry is not None:
                on_retry(exc)
            await asyncio.sleep(policy.delay(k + 1, exc.retry_after, rng))
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover
