"""Subprocess body for the crash tests: a slow run that is killed (or interrupted) mid-way.

Each answered request is first appended (fsynced) to `answered.log` beside the edition, as a
provider's bill would list it. With `CRASH_AFTER=N` the N-th answer kills the process right
after it is answered and before the runner sees it (`CRASH_SIGNAL`: KILL or INT), the worst
moment for a record: paid, answered, not yet written.
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
import sys
from pathlib import Path

from rich.console import Console

from ledgerrate.core.errors import UsageProblem
from ledgerrate.providers.base import Completion, CompletionRequest
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import ModelSpec
from tests.run import stub, toy

ANSWERED = 0


class Slow(stub.StubProvider):
    async def complete(self, request: CompletionRequest) -> Completion:
        global ANSWERED
        await asyncio.sleep(0.03)
        result = await super().complete(request)
        mode = "agentic" if request.tools else "single-shot"
        line = f"{self.spec.id}\t{mode}\t{request.messages[0].content}\n".encode()
        fd = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, line)
        os.fsync(fd)
        os.close(fd)
        ANSWERED += 1
        if ANSWERED == CRASH_AFTER:
            os.kill(os.getpid(), getattr(signal, f"SIG{os.environ.get('CRASH_SIGNAL', 'KILL')}"))
            await asyncio.sleep(5)  # SIGINT is delivered to the loop, not raised right here
        return result


def factory(spec: ModelSpec, client: object, api_key: str) -> Slow:
    return Slow(spec, stub.sum_script, [])


if __name__ == "__main__":
    # Ctrl-C in a terminal reaches a process whose SIGINT is Python's default. A suite started
    # in the background (`make test &`) hands its children SIGINT ignored, which Python keeps,
    # and the interrupt test would then see the run finish instead.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    root = Path(sys.argv[1])
    LOG = root.parent / "answered.log"
    CRASH_AFTER = int(os.environ.get("CRASH_AFTER", "0"))
    try:
        run_edition(
            root,
            RunOptions(concurrency=2),
            lookup=toy.lookup,
            provider_factory=factory,
            retry=RetryPolicy(base_s=0.001),
            console=Console(file=io.StringIO()),
            show_progress=False,
        )
    except UsageProblem as problem:
        for line in problem.lines:
            print(f"error: {line}", file=sys.stderr)
        sys.exit(2)
