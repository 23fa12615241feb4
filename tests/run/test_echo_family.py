"""A provider family is added in one move (ARCHITECTURE.md §10): this module is the whole family.

"echo" is a made-up API with a wire format of its own (`POST {base_url}/echo/say`, the key in
`x-echo-key`, the turns under `say`, usage under `spent`). Its adapter, usage mapping, vendor
words and the fake provider's wire shapes are declared here as one `Family` and registered;
no module of the package is edited. The edition then names `provider: echo` and goes through
`register`, `run` (both modes, tools probe included) and `grade` against the fake provider.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import ValidationError
from rich.console import Console

from ledgerrate.core.io import read_jsonl
from ledgerrate.generate.register import register_edition
from ledgerrate.grade import anonymise
from ledgerrate.grade.stage import grade_edition
from ledgerrate.providers import families, make_provider
from ledgerrate.providers.base import Completion, CompletionRequest, Message
from ledgerrate.providers.family import FakeWire, Family, Route, WireReply
from ledgerrate.providers.wire import (
    ErrorDetail,
    HttpAdapter,
    completion,
    count,
    parse_arguments,
    parse_or_infra,
    post_json,
)
from ledgerrate.run.limits import RetryPolicy
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import ModelSpec, RunRecord, ToolCall, Usage, provider_families
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply, FakeToolCall
from tests.run import toy
from tests.run.runkit import SENTINEL_KEY, model, price

NAME = "echo"
PATH = "/echo/say"

# ------------------------------------------------------------------------------ the adapter


def _turn(m: Message) -> dict[str, Any]:
    turn: dict[str, Any] = {"who": {"assistant": "bot"}.get(m.role, m.role), "text": m.content}
    if m.tool_calls:
        turn["calls"] = [{"ref": c.id, "tool": c.name, "with": c.arguments} for c in m.tool_calls]
    if m.tool_call_id:
        turn["answers"] = m.tool_call_id
    return turn


def usage_from(block: Any) -> Usage | None:
    """`fresh` excludes the cached prompt tokens; `out` includes any thinking."""
    if not isinstance(block, dict) or "out" not in block:
        return None
    return Usage(
        input_tokens=count(block, "fresh"),
        cached_input_tokens=count(block, "cached"),
        output_tokens=count(block, "out"),
    )


def _parse(data: dict[str, Any], status: int) -> Completion:
    usage = usage_from(data.get("spent"))
    return completion(
        NAME,
        str(data.get("said") or ""),
        lambda: [
            ToolCall(id=c["ref"], name=c["tool"], arguments=parse_arguments(c["tool"], c["with"]))
            for c in data.get("calls") or []
        ],
        data=data,
        usage=usage,
        status=status,
        finish=data.get("done"),
        finish_field="done",
        truncated=data.get("done") == "cap",
    )


def _describe(body: Any) -> ErrorDetail:
    return ErrorDetail(message=str(body.get("oops") if isinstance(body, dict) else body))


class EchoSay(HttpAdapter):
    family = NAME

    def request_body(self, request: CompletionRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.spec.api_model,
            "cap": self.spec.max_output_tokens,
            "say": [{"who": "system", "text": request.system}, *map(_turn, request.messages)],
        }
        if request.tools:
            body["tools"] = [{"tool": t.name, "about": t.description} for t in request.tools]
        return body

    async def complete(self, request: CompletionRequest) -> Completion:
        status, data = await post_json(
            self._client,
            family=NAME,
            url=f"{(self.spec.base_url or '').rstrip('/')}{PATH}",
            headers={"x-echo-key": self._key},
            body=self.request_body(request),
            timeout_s=self.spec.timeout_s,
            secret=self._key,
            describe_error=_describe,
            model_id=self.spec.id,
        )
        return parse_or_infra(NAME, status, data, _parse)


# ------------------------------------------------------------------------ the fake's wire


def _usage_wire(u: Usage) -> dict[str, Any]:
    return {"fresh": u.input_tokens, "cached": u.cached_input_tokens, "out": u.output_tokens}


def _success_body(reply: WireReply) -> dict[str, Any]:
    body: dict[str, Any] = {
        "said": reply.text,
        "calls": [{"ref": c.id, "tool": c.name, "with": c.arguments} for c in reply.calls],
        "done": reply.finish_reason or ("tool" if reply.calls else "end"),
    }
    if reply.usage is not None:
        body["spent"] = _usage_wire(reply.usage)
    return body


ECHO = Family(
    name=NAME,
    make=EchoSay,
    usage_from=usage_from,
    vendor_words=("echolabs",),
    fake=FakeWire(
        key_header="x-echo-key",
        default_usage=Usage(input_tokens=700, cached_input_tokens=100, output_tokens=50),
        route=lambda path: Route(model="") if path == PATH else None,
        base_url=lambda root: root,
        usage_wire=_usage_wire,
        success_body=_success_body,
        empty_body=lambda n, model, u: {"said": "", "done": "end", "spent": _usage_wire(u)},
        error_body=lambda n, status, message: {"oops": message, "code": status},
        declared_tools=lambda body: [t["tool"] for t in body.get("tools") or []],
        tool_results=lambda body: [t["text"] for t in body.get("say", []) if t["who"] == "tool"],
        turns_key="say",
    ),
)

# ------------------------------------------------------------------------------- the test

FAST = RetryPolicy(base_s=0.001, cap_s=2.0)
ADD = re.compile(r"Add (\d+) and (\d+)")


@pytest.fixture
def echo() -> Iterator[Family]:
    # Registered for the test only: other tests (the exported JSON Schemas) see the built-ins.
    yield families.register(ECHO)
    families.unregister(NAME)


def _answers(family: str, body: dict[str, Any]) -> FakeReply | None:
    """A model that adds correctly: with tools, it calls `add` once and then reports its result."""
    assert family == NAME
    a, b = map(int, ADD.findall(str(body["say"]))[0])
    results = ECHO.fake.tool_results(body)
    if results:
        return FakeReply(text=results[-1])
    if "add" in ECHO.fake.declared_tools(body):
        return FakeReply(text="", tool_calls=[FakeToolCall("add", {"a": a, "b": b})])
    return FakeReply(text=str(a + b))


def test_a_family_registered_from_one_module_runs_end_to_end(
    echo: Family, edition_factory: Any, private_dir: Path
) -> None:
    with FakeProviderServer(responder=_answers) as fake:
        root = edition_factory(
            models=[model("e1", NAME, api_model="echo-small", base_url=fake.base_url(NAME))],
            prices={"e1": price("1.00", "4.00")},
            n=2,
        )
        register_edition(root, lookup=toy.lookup)
        summary = run_edition(
            root,
            RunOptions(),
            lookup=toy.lookup,
            retry=FAST,
            console=Console(file=io.StringIO()),
            show_progress=False,
        )
        sent = fake.requests
        probes = fake.probe_requests
    assert summary.missing == 0
    # Every request went to the echo route with the echo key header, none elsewhere.
    assert sent and all(r.family == NAME and r.path == PATH for r in sent)
    assert all(r.headers["x-echo-key"] == SENTINEL_KEY for r in sent)
    # The tools probe was answered in the echo format too, and saw the tool called.
    assert probes and all(r.family == NAME for r in probes)

    records = [
        r for p in sorted((root / "runs").rglob("*.jsonl")) for r in read_jsonl(p, RunRecord)
    ]
    assert {r.mode for r in records} == {"single-shot", "agentic"}
    assert len(records) == 4 and all(r.status == "completed" for r in records)
    per_call = Usage(input_tokens=700, cached_input_tokens=100, output_tokens=50)
    for r in records:
        # The usage went out in echo's accounting and came back through its usage mapping.
        assert r.usage == sum([per_call] * len(r.calls), Usage())
        assert r.cost.model_usd > 0
    agentic = [r for r in records if r.mode == "agentic"]
    assert all(len(r.calls) == 2 for r in agentic)
    assert all(t.call.name == "add" for r in agentic for s in r.steps for t in s.tool_results)

    graded = grade_edition(root, lookup=toy.lookup, show_progress=False)
    assert (graded.passed, graded.failed) == (4, 0)


def test_a_registered_family_is_known_to_the_schema_the_blinding_and_make_provider(
    echo: Family,
) -> None:
    assert NAME in provider_families()
    assert families.get(NAME) is ECHO
    assert "echolabs" in anonymise.vendor_words()
    spec = ModelSpec.model_validate(model("e1", NAME))
    assert isinstance(make_provider(spec, httpx.AsyncClient(), "k"), EchoSay)
    # Registering the same unit again changes nothing; another unit of the name is refused.
    assert families.register(ECHO) is ECHO
    with pytest.raises(ValueError, match="already registered"):
        families.register(Family(NAME, EchoSay, usage_from, (), ECHO.fake))


def test_a_family_unregistered_is_unknown_again() -> None:
    families.register(ECHO)
    families.unregister(NAME)
    assert NAME not in provider_families()
    assert "echolabs" not in anonymise.vendor_words()
    with pytest.raises(ValidationError, match="unknown provider family 'echo'"):
        ModelSpec.model_validate(model("e1", NAME))
    with pytest.raises(ValueError, match="built in"):
        families.unregister("openai")


def test_an_unknown_family_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(ValidationError) as raised:
        ModelSpec.model_validate(model("x1", "mistral-nope"))
    message = str(raised.value)
    assert "unknown provider family 'mistral-nope'; known families: openai, anthropic" in message
    with pytest.raises(ValueError, match="no API adapter for provider family 'baseline'"):
        families.get("baseline")


def test_inspect_is_given_each_familys_own_provider_name(echo: Family) -> None:
    from ledgerrate.harness.listing import inspect_model

    gemini = ModelSpec.model_validate(model("g1", "gemini", api_model="gemini-x"))
    assert inspect_model(gemini) == "google/gemini-x"
    assert inspect_model(ModelSpec.model_validate(model("e1", NAME))) == "echo/e1"
