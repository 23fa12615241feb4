"""A call's recorded latency is the time from sending the request to its answer, never the time
it waited in the runner's queue for a slot.

The runner keeps two items of a cell in flight for each request slot, so with a model capped at
one request at a time every other request waits for the one before it. That wait was inside the
recorded latency: a self-hosted model's cost (its server time × the instance price) and every
published latency overstated by up to the length of the other request."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from ledgerrate.core.io import read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import RunRecord
from ledgerrate.testing.fake_provider import FakeProviderServer
from tests.run.runkit import model

SERVER_S = 1.0  # the fake answers each request after this long


def test_a_queued_request_records_only_its_own_time(edition_factory, lookup) -> None:
    with FakeProviderServer(latency_s=SERVER_S) as fake:
        root = edition_factory(
            models=[model("solo", "openai", concurrency=1, base_url=fake.base_url("openai"))],
            n=4,
        )
        register_edition(root, lookup=lookup)
        run_edition(
            root,
            RunOptions(concurrency=1, modes=["single-shot"]),
            lookup=lookup,
            retry=RetryPolicy(base_s=0.001),
            console=Console(file=io.StringIO()),
            show_progress=False,
        )
    (log,) = sorted((Path(root) / "runs").rglob("*.jsonl"))
    calls = [c for r in read_jsonl(log, RunRecord) for c in r.calls]
    assert len(calls) == 4
    # Requests queued behind another waited about SERVER_S before leaving; none of that wait is
    # in the latency (a generous margin for a loaded machine, well under a second request).
    assert all(SERVER_S <= c.latency_s < 1.8 * SERVER_S for c in calls), [
        c.latency_s for c in calls
    ]
