"""Ingest's rules for Inspect samples, in process on a registered edition: a sample sent with
settings that are not the edition's is refused in one line naming the setting and both values;
a retry log's repeat of an attempt already ingested is skipped, and its re-run of an excluded
attempt becomes the item's next attempt."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core.edition import load_edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.ingest.admit import Admission
from ledgerrate.ingest.incoming import Incoming, LogInfo
from ledgerrate.run import rawlog
from ledgerrate.schema import RunStatus
from ledgerrate.workloads import catalogue
from tests.harness.roundtrip import MODEL, WORKLOAD, write_edition

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
EDITION_SETTINGS = {"max_tokens": 4096, "temperature": 0}


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("ingest-rules")
    root = work / "rules-1"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEDGERRATE_PRIVATE_DIR", str(work / "private"))
        write_edition(
            root, "http://127.0.0.1:9/v1", NOW - dt.timedelta(hours=1), NOW + dt.timedelta(hours=2)
        )
        register_edition(root)
        # Built while the seeds are at hand; each test's admission reads it from here.
        dataset = dataset_for(root, WORKLOAD)
    _DATASETS[root] = dataset
    return root


_DATASETS: dict[Path, Any] = {}


def _admission(root: Path) -> Admission:
    return Admission(
        load_edition(root),
        catalogue.get,
        lambda _workload: _DATASETS[root],
        new_sitting=False,
        now=lambda: NOW,
    )


def _sample(
    root: Path,
    index: int,
    *,
    log: str = "a.eval",
    uuid: str | None = None,
    started: dt.datetime = NOW,
    status: RunStatus = RunStatus.completed,
    config: dict[str, Any] | None = None,
    body: dict[str, Any] | None = None,
) -> Incoming:
    workload = catalogue.get(WORKLOAD)
    item = _DATASETS[root].items[index]
    prompt = workload.prompt(item)
    sent_body = {"model": "scripted", "messages": [], **(body or EDITION_SETTINGS)}
    return Incoming(
        log=LogInfo(path_name=log, sha256=log[0] * 64, harness="inspect_ai"),
        sample=f"{item.id}#1",
        edition=root.name,
        workload=WORKLOAD,
        item_id=item.id,
        mode="single-shot",
        model_name="openai/scripted",
        model_id=MODEL,
        sent=[prompt],
        prompt_hash=prompt.hash,
        started_at=started,
        finished_at=started + dt.timedelta(seconds=1),
        latency_s=1.0,
        status=status,
        failure="infra: Inspect recorded an error: 500" if status != RunStatus.completed else None,
        request=sent_body,
        answer="SELECT 1",
        uuid=uuid,
        settings=[
            ("call 0's generate config", config or EDITION_SETTINGS),
            ("call 0's request body", sent_body),
        ],
    )


def test_the_editions_settings_are_admitted(edition: Path) -> None:
    verdicts = _admission(edition).admit([_sample(edition, 0)])
    assert not verdicts.refused and len(verdicts.admitted) == 1


@pytest.mark.parametrize(
    ("changed", "line"),
    [
        (
            {"max_tokens": 4096, "temperature": 0.9},
            "sampling differs from the edition's: temperature is 0.9 in the log (call 0's "
            "generate config) and edition.yaml gives 0 for model m1",
        ),
        (
            {"max_tokens": 50, "temperature": 0},
            "sampling differs from the edition's: max_tokens is 50 in the log (call 0's "
            "generate config) and edition.yaml gives 4096 for model m1",
        ),
    ],
    ids=["temperature", "max_tokens"],
)
def test_a_changed_setting_is_refused_naming_it(edition: Path, changed, line) -> None:
    verdicts = _admission(edition).admit([_sample(edition, 0, config=changed, body=changed)])
    assert not verdicts.admitted
    assert len(verdicts.refused) == 1 and "\n" not in verdicts.refused[0]
    assert line in verdicts.refused[0]
    # A log whose every sample differs alike is refused in one line.
    samples = [_sample(edition, i, config=changed, body=changed) for i in range(3)]
    [line_for_all] = _admission(edition).admit(samples).refused
    assert "samples item-01#1, item-02#1, item-03#1: refused: " + line in line_for_all
    # A provider body that says otherwise than Inspect's config is caught too.
    verdicts = _admission(edition).admit([_sample(edition, 0, body=changed)])
    assert "(call 0's request body)" in verdicts.refused[0]


def _original_and_retry(root: Path) -> tuple[list[Incoming], list[Incoming]]:
    """An eval whose second item hit a 500 on every retry, and its `inspect eval-retry`: the
    first item repeated as it was (same uuid and start), the second run again, later."""
    later = NOW + dt.timedelta(minutes=5)
    original = [
        _sample(root, 0, uuid="u0"),
        _sample(root, 1, uuid="u1", status=RunStatus.infra_excluded),
    ]
    retry = [
        _sample(root, 0, log="b.eval", uuid="u0"),
        _sample(root, 1, log="b.eval", uuid="u1", started=later),
    ]
    return original, retry


def _copy(edition: Path, target: Path) -> Path:
    root = target / edition.name
    shutil.copytree(edition, root)
    _DATASETS[root] = _DATASETS[edition]
    return root


def test_a_retry_logs_repeats_are_skipped_and_its_reruns_are_next_attempts(
    edition: Path, tmp_path: Path
) -> None:
    root = _copy(edition, tmp_path / "apart")
    original, retry = _original_and_retry(root)
    for admitted in _admission(root).admit(original).admitted:
        rawlog.append_record(admitted.path, admitted.record)
    verdicts = _admission(root).admit(retry)
    assert not verdicts.refused and verdicts.same_attempt == 1 and verdicts.already == 0
    [rerun] = [v.record for v in verdicts.admitted]
    item0, item1 = (i.id for i in _DATASETS[root].items[:2])
    assert (rerun.item_id, rerun.attempt, rerun.status) == (item1, 2, RunStatus.completed)
    assert rerun.source is not None and rerun.source.sample_uuid == "u1"
    # Both logs in one ingest: the same records.
    together = _copy(edition, tmp_path / "together")
    original, retry = _original_and_retry(together)
    both = _admission(together).admit(original + retry)
    assert both.same_attempt == 1
    assert [(v.record.item_id, v.record.attempt) for v in both.admitted] == [
        (item0, 1),
        (item1, 1),
        (item1, 2),
    ]


def test_a_model_mismatch_names_what_to_change(edition: Path) -> None:
    """The refusal the issue quotes ("model 'openai/fake-gpt-2' (the sample says edition model
    …) is not a model of the edition") said nothing of what to run instead."""
    sample = _sample(edition, 0)
    sample.model_name = "openai/fake-gpt-2"
    [line] = _admission(edition).admit([sample]).refused
    assert (
        "the log ran Inspect model 'openai/fake-gpt-2' for edition model 'm1', whose api_model "
        "is 'scripted': run it again with --model openai/scripted"
    ) in line
    sample.model_id = None
    [line] = _admission(edition).admit([sample]).refused
    assert "run it again with --model <provider>/<api_model> of one of its models: m1" in line


@pytest.mark.parametrize(
    ("name", "data", "hint"),
    [
        ("cut.eval", b"PK\x03\x04 not a whole zip", "copy it again from Inspect's --log-dir"),
        ("empty.eval", b"", "the file is empty; point ingest at the log Inspect wrote"),
        ("records.jsonl", b"{}\n", "read as run records with --format jsonl"),
    ],
)
def test_an_unreadable_log_says_what_to_do(tmp_path: Path, name: str, data: bytes, hint) -> None:
    from ledgerrate.ingest.inspect_log import read_log

    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(UsageProblem) as excinfo:
        read_log(path, "0" * 64)
    [line] = excinfo.value.lines
    assert line.startswith(f"{path}: ") and hint in line
    if name.endswith(".eval"):
        assert "--format jsonl" not in line
