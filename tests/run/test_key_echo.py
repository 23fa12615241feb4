"""A key sent back by the server in a *successful* reply never reaches a written byte.

Debugging proxies and misconfigured gateways echo the caller's headers in a 200 reply. The fake
provider does so here, for each wire format it serves: in the answer text, in tool call
arguments, in a body field and in a response header. Nothing under the edition (raw run logs,
the tools probe's log, grades) nor in the private folder may then hold the key; the records
that had it are marked redacted and their redacted answers are graded.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from ledgerrate.core.io import read_jsonl
from ledgerrate.core.keys import MARKER
from ledgerrate.generate.register import register_edition
from ledgerrate.grade.stage import grade_edition
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import RunRecord
from ledgerrate.testing.fake_provider import FakeProviderServer
from tests.run import toy
from tests.run.runkit import SENTINEL_KEY, model, price

FAST = RetryPolicy(base_s=0.001, cap_s=2.0)


def _files_holding(folder: Path, secret: str) -> list[str]:
    needle = secret.encode()
    return [str(p) for p in sorted(folder.rglob("*")) if p.is_file() and needle in p.read_bytes()]


@pytest.mark.parametrize("family", ["openai", "anthropic", "gemini", "openai-responses"])
def test_a_key_echoed_in_successful_replies_is_redacted_everywhere(
    edition_factory, family: str, private_dir: Path
) -> None:
    with FakeProviderServer(echoes_headers=True) as fake:
        root = edition_factory(
            models=[
                model("m1", family, api_model="fake-tool", base_url=fake.base_url(family)),
            ],
            prices={"m1": price()},
            n=2,
        )
        register_edition(root, lookup=toy.lookup)
        run_edition(
            root,
            RunOptions(),
            lookup=toy.lookup,
            retry=FAST,
            console=Console(file=io.StringIO()),
            show_progress=False,
        )
        sent = [r for r in fake.requests if r.body]
    # The server did echo it: the test would prove nothing if the key never came back.
    assert sent and all(SENTINEL_KEY in str(r.headers) for r in sent)

    assert _files_holding(root, SENTINEL_KEY) == []
    assert _files_holding(private_dir, SENTINEL_KEY) == []

    logs = sorted((root / "runs").rglob("*.jsonl"))
    records = [r for p in logs for r in read_jsonl(p, RunRecord)]
    modes = {r.mode for r in records}
    assert modes == {"single-shot", "agentic"}
    assert records and all(r.redacted for r in records)
    assert all(c.redacted for r in records for c in r.calls)
    for r in records:
        assert r.answer is not None and MARKER in r.answer
        assert MARKER in str(r.calls[-1].response["echo"])
    agentic = [r for r in records if r.mode == "agentic"]
    assert any(
        MARKER in str(t.call.arguments) for r in agentic for s in r.steps for t in s.tool_results
    )
    # The probe's log is written apart from the cells, and was echoed to as well.
    probes = sorted((root / "probes").rglob("*.jsonl"))
    assert probes and all(MARKER in p.read_text() for p in probes)
    assert all('"redacted":true' in p.read_text() for p in probes)

    # The redacted answers are what is graded, and grading writes no key either.
    summary = grade_edition(root, lookup=toy.lookup, show_progress=False)
    assert summary.failed + summary.passed == len([r for r in records if r.status == "completed"])
    assert _files_holding(root, SENTINEL_KEY) == []
