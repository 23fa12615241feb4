"""The Inspect tasks' set-up, in process: which model a task picks, where its requests go, and
each problem an operator can fix as Inspect's `PrerequisiteError`, one line naming the fix (the
command line's output is checked by the Inspect workflows test)."""

from __future__ import annotations

import contextvars
import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core.io import read_yaml, write_yaml
from ledgerrate.generate.register import register_edition
from tests.harness.roundtrip import WORKLOAD, write_edition

pytest.importorskip("inspect_ai")

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.model._model import init_active_model

from ledgerrate.harness.inspect_tasks import TASKS

BASE = "http://127.0.0.1:9/v1"


def _two_models(root: Path, opens: Any) -> None:
    """The round trip's edition with a second model on another server, sharing no api_model."""
    write_edition(root, BASE, opens, opens + dt.timedelta(hours=3))
    manifest = read_yaml(root / "edition.yaml")
    second = {**manifest["models"][0], "id": "m2", "api_model": "other", "api_key_env": "M2_KEY"}
    second["base_url"] = "http://127.0.0.1:8/v1"
    manifest["models"].append(second)
    write_yaml(root / "edition.yaml", manifest)
    pricing = read_yaml(root / "pricing.yaml")
    pricing["models"]["m2"] = pricing["models"]["m1"]
    write_yaml(root / "pricing.yaml", pricing)


@pytest.fixture(scope="module")
def editions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("task-setup")
    opens = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(hours=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEDGERRATE_PRIVATE_DIR", str(work / "private"))
        registered = work / "registered" / "ts-1"
        _two_models(registered, opens)
        register_edition(registered)
    unregistered = work / "unregistered" / "ts-2"
    _two_models(unregistered, opens)
    return {"registered": registered, "unregistered": unregistered, "private": work / "private"}


def _task(edition: Path, *, model: str | None = None, active: Any = None, config=None, **args):
    """The task as Inspect builds it for `--model active` (none: built outside an eval)."""

    def build():
        if active is not None:
            init_active_model(active, config or GenerateConfig())
        return TASKS[WORKLOAD](edition=str(edition), model=model, **args)

    return contextvars.copy_context().run(build)


def _one_line(excinfo: pytest.ExceptionInfo[PrerequisiteError]) -> str:
    message = str(excinfo.value.message)
    assert "\n" not in message and "Traceback" not in message, message
    return message


@pytest.fixture
def seeds(editions, monkeypatch) -> None:
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(editions["private"]))


def test_no_edition_folder(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(tmp_path / "nowhere")
    assert "pass -T edition=<edition folder>" in _one_line(excinfo)


def test_an_unregistered_edition(editions, seeds) -> None:
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(editions["unregistered"], model="m1")
    assert "is not registered; run `ledgerrate register" in _one_line(excinfo)


def test_missing_seeds(editions, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "empty"))
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(editions["registered"], model="m1")
    line = _one_line(excinfo)
    assert (
        line.lower().startswith("no seeds for edition 'ts-1'")
        and "set LEDGERRATE_PRIVATE_DIR" in line
    )


def test_no_model_named(editions, seeds) -> None:
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(editions["registered"])
    line = _one_line(excinfo)
    assert "name one with --model <provider>/<api_model> or -T model=ID" in line
    assert "m1 (--model openai/scripted)" in line and "m2 (--model openai/other)" in line


def test_a_model_the_edition_does_not_list(editions, seeds, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(editions["registered"], active=get_model("openai/fake-gpt-2"))
    line = _one_line(excinfo)
    assert "--model openai/fake-gpt-2 is none of the edition's models" in line
    assert "m2 (--model openai/other)" in line


def test_a_model_named_twice_must_be_the_same(editions, seeds, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(editions["registered"], model="m1", active=get_model("openai/other"))
    assert "-T model=m1 but Inspect's --model is openai/other; pass --model openai/scripted" in (
        _one_line(excinfo)
    )


def test_inspects_model_picks_the_edition_model_and_its_server(editions, seeds, monkeypatch):
    """`eval-set --model openai/scripted,openai/other`: each model finds its own entry, and
    its requests go to that entry's base_url with the key its api_key_env names."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-shell")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("M2_KEY", "sk-m2")
    task = _task(editions["registered"], active=get_model("openai/other"))
    assert {s.metadata["ledgerrate"]["model"] for s in task.dataset} == {"m2"}
    assert task.model is not None and task.model.api.base_url == "http://127.0.0.1:8/v1"
    assert task.model.api.api_key == "sk-m2"
    # Plain chat completions with the settings as given, as `run` sends: Inspect's `openai/`
    # provider would pick its Responses API for this name (and drop the temperature).
    assert get_model("openai/other", base_url=BASE).api.responses_api is True
    assert str(task.model) == "openai-api/ledgerrate/other"
    monkeypatch.delenv("M2_KEY")
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(editions["registered"], active=get_model("openai/other"))
    assert "set M2_KEY (edition.yaml's api_key_env)" in _one_line(excinfo)
    # Pointed at another server: refused, the prices are the edition's server's.
    elsewhere = get_model("openai/scripted", base_url="http://127.0.0.1:7/v1")
    with pytest.raises(PrerequisiteError) as excinfo:
        _task(editions["registered"], active=elsewhere)
    assert f"pass --model-base-url {BASE}" in _one_line(excinfo)


def test_sampling_options_that_are_not_the_editions_are_refused(editions, seeds, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "sk-fake")
    model = get_model("openai/scripted", base_url=BASE, api_key="sk-fake")
    for config, named in (
        (GenerateConfig(temperature=0.9), "temperature 0.9 (edition.yaml gives 0 for model m1)"),
        (GenerateConfig(max_tokens=50), "max_tokens 50 (edition.yaml gives 4096 for model m1)"),
    ):
        with pytest.raises(PrerequisiteError) as excinfo:
            _task(editions["registered"], active=model, config=config)
        assert named in _one_line(excinfo)
    # The edition's own settings given again are no override.
    same = GenerateConfig(temperature=0, max_tokens=4096, max_connections=3)
    assert len(_task(editions["registered"], active=model, config=same).dataset) == 4
