"""Keys in a run: a dummy key corrupts nothing; loopback needs none, a remote server a real one."""

from __future__ import annotations

import io
from typing import Any

import httpx
import pytest
from rich.console import Console

from ledgerrate.core.errors import UsageProblem
from ledgerrate.providers.base import Completion, CompletionRequest, InfraError
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import ModelSpec, RunStatus, Usage
from tests.run import stub
from tests.run.runkit import model
from tests.run.test_runner import FAST, records, registered

ANSWER = "exact: x = 3"  # the letter x, also the key: it must survive


def _factory(seen_keys: list[str]) -> Any:
    calls: list[tuple[str, int]] = []

    def script(spec: ModelSpec, request: CompletionRequest, index: int) -> Completion:
        if index == 0:
            raise InfraError("upstream said context_length_exceeded; try again", raw="text x")
        return Completion(
            text=ANSWER,
            tool_calls=[],
            raw={"text": ANSWER, "index": index},
            usage=Usage(input_tokens=5, output_tokens=5),
            http_status=200,
        )

    def make(spec: ModelSpec, client: httpx.AsyncClient, api_key: str) -> stub.StubProvider:
        seen_keys.append(api_key)
        return stub.StubProvider(spec, script, calls)

    return make


def _run(root: Any, lookup: Any, factory: Any) -> None:
    run_edition(
        root,
        RunOptions(modes=["single-shot"]),
        lookup=lookup,
        provider_factory=factory,
        retry=FAST,
        console=Console(file=io.StringIO()),
        show_progress=False,
    )


def test_dummy_key_x_on_loopback_keeps_answers_and_field_names(
    edition_factory, lookup, monkeypatch
) -> None:
    monkeypatch.setenv("TOY_API_KEY", "x")
    root = registered(edition_factory, lookup, models=[model("m1")])
    keys: list[str] = []
    _run(root, lookup, _factory(keys))
    assert keys == ["x"]
    recs = records(root, "toy.add.v1", "m1", "single-shot")
    done = [r for r in recs if r.status == "completed"]
    assert len(done) == 4
    assert {r.answer for r in done} == {ANSWER}
    assert all(r.calls[0].response["text"] == ANSWER for r in done)
    (failed,) = [r for r in recs if r.status == RunStatus.infra_excluded]
    assert "context_length_exceeded" in (failed.failure or "")
    assert failed.calls[0].response == "text [redacted]"  # an error body: a lone `x` is the key


def test_loopback_openai_model_runs_without_any_key(edition_factory, lookup, monkeypatch) -> None:
    monkeypatch.delenv("TOY_API_KEY")
    spec = model("m1")
    del spec["api_key_env"]
    root = registered(edition_factory, lookup, models=[spec])
    keys: list[str] = []
    _run(root, lookup, _factory(keys))
    assert keys == [""]
    assert len(records(root, "toy.add.v1", "m1", "single-shot")) == 5


def test_short_key_for_a_remote_endpoint_is_refused_in_one_line(
    edition_factory, lookup, monkeypatch
) -> None:
    monkeypatch.setenv("TOY_API_KEY", "x")
    root = registered(
        edition_factory, lookup, models=[model("m1", base_url="https://api.example.test/v1")]
    )
    with pytest.raises(UsageProblem) as caught:
        _run(root, lookup, _factory([]))
    (line,) = caught.value.args
    assert "TOY_API_KEY" in line and "shorter than any real API key" in line
    assert not (root / "runs").exists()


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("sk-" + "a" * 30 + "\nsk-" + "b" * 30, "a line break"),
        ("sk-" + "a" * 30 + "\x07", "the character U+0007"),
        ("sk-" + "é" * 30, "the character U+00E9"),
    ],
)
@pytest.mark.parametrize("base_url", [None, "https://api.example.test/v1"])
def test_key_a_header_cannot_carry_is_refused_before_any_request(
    edition_factory, lookup, monkeypatch, value: str, what: str, base_url: str | None
) -> None:
    # An export of a file with two lines: httpx would die on the header with a long traceback
    # quoting the key; the run must refuse in one line, name the variable, never the value.
    monkeypatch.setenv("TOY_API_KEY", value)
    extra = {"base_url": base_url} if base_url else {}
    root = registered(edition_factory, lookup, models=[model("m1", **extra)])
    keys: list[str] = []
    with pytest.raises(UsageProblem) as caught:
        _run(root, lookup, _factory(keys))
    (line,) = caught.value.args
    assert "\n" not in line
    assert "$TOY_API_KEY" in line and what in line and "header" in line
    assert "a" * 30 not in line and "é" not in line
    assert keys == []
    assert not (root / "runs").exists()


def test_judge_key_with_a_line_break_is_refused_in_one_line() -> None:
    from ledgerrate.grade.judge import JudgeUnavailable, api_key

    spec = ModelSpec.model_validate(
        {**model("j1"), "api_key_env": "JUDGE_KEY", "base_url": "https://api.example.test/v1"}
    )
    with pytest.raises(JudgeUnavailable) as caught:
        api_key(spec, {"JUDGE_KEY": "sk-" + "a" * 30 + "\r\nX-Evil: 1"})
    assert "$JUDGE_KEY" in str(caught.value) and "line break" in str(caught.value)
    assert "X-Evil" not in str(caught.value)
