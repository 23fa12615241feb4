"""Subprocess body for the kill -9 test: a slow run that the test kills mid-way."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

from rich.console import Console

sys.path.insert(0, str(Path(__file__).parent))

import stub
import toy

from ledgerrate.providers.base import Completion, CompletionRequest
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import ModelSpec


class Slow(stub.StubProvider):
    async def complete(self, request: CompletionRequest) -> Completion:
        await asyncio.sleep(0.03)
        return await super().complete(request)


def factory(spec: ModelSpec, client: object, api_key: str) -> Slow:
    return Slow(spec, stub.sum_script, [])


if __name__ == "__main__":
    run_edition(
        Path(sys.argv[1]),
        RunOptions(concurrency=2),
        lookup=toy.lookup,
        provider_factory=factory,
        retry=RetryPolicy(base_s=0.001),
        console=Console(file=io.StringIO()),
        show_progress=False,
    )
