"""When a call started: the moment its request left the queue for a concurrency slot.

A call's latency is the provider's time, not the wait for a slot or a retry's backoff: a
self-hosted model (or judge) is costed as call time × the instance price, so queueing would be
billed as compute, and published latencies would include other items' requests. Whoever holds the
slot (`run.limits.call_limited`) marks the request as leaving; the caller's `CallClock`, made
before it awaits, reads that mark. A context variable carries it: the call is awaited in the
same task, so the caller sees what the slot holder set.
"""

from __future__ import annotations

import datetime as dt
import time
from contextvars import ContextVar

_LEFT_AT: ContextVar[tuple[float, dt.datetime] | None] = ContextVar("left_at", default=None)


def request_leaves() -> None:
    """Mark the request now being sent as leaving (the caller holds its slot)."""
    _LEFT_AT.set((time.perf_counter(), dt.datetime.now(dt.UTC)))


class CallClock:
    """Times one call from when its request left (else from when the clock was made, for a
    provider called directly, outside any slot)."""

    def __init__(self) -> None:
        _LEFT_AT.set(None)
        self._own = (time.perf_counter(), dt.datetime.now(dt.UTC))

    def left(self) -> tuple[float, dt.datetime]:
        """(perf counter, wall clock) when the request left."""
        return _LEFT_AT.get() or self._own

    def elapsed(self) -> float:
        return time.perf_counter() - self.left()[0]
