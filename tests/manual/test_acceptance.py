"""The manual arm end to end: packet → import → grade → results → build → verify.

An edition with two models on the fake provider (`cheap`, and the flagship `big`, both reading
the item's ground truth for extraction; neither closes the month), a fake judge, and a manual
arm on three workloads: extraction (deterministic), variance commentary (judged) and month-end,
each a TEST FIXTURE return (tests/manual/kit.py). A fourth return, for reconciliation, has no
timing statement: it must be void on every page and in results.json. The fixture's hourly rate
on extraction is set so low that the manual arm is cheaper than every model: it must still not
be the cheapest qualifying model. Nothing here is shown as a measurement outside the test.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ledgerrate.generate.escrow import RECIPIENTS_ENV
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for, release_seeds
from ledgerrate.grade.spotcheck import sample_edition
from ledgerrate.grade.stage import grade_edition
from ledgerrate.manual.importer import import_manual
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.published import record_publication
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import EditionResults
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.testing.fake_shapes import FakeReply
from ledgerrate.workloads import get
from tests.manual import kit

pytestmark = pytest.mark.slow

RECONCILE = "reconcile.ledger.v1"
KEY_ENV = "LR_MANUAL_FAKE_KEY"
CLI = str(Path(sys.executable).with_name("ledgerrate"))
VERIFIER = Path(__file__).resolve().parents[2] / "ledgerrate" / "site" / "verifier"


def _z(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _price(at: str, inp: str = "0.10", out: str = "0.40") -> dict[str, Any]:
    return {
        "input_per_mtok": inp,
        "output_per_mtok": out,
        "source_url": "https://example.invalid/prices",
        "retrieved_at": at,
    }


def _write(folder: Path, url: str) -> None:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    opens, closes = now - dt.timedelta(hours=1), now + dt.timedelta(hours=2)
    common = {"api_key_env": KEY_ENV, "sampling": {"temperature": 0}, "base_url": url}
    small = {"n": 3, "n_reason": "test fixture: a small n"}
    manifest = {
        "id": folder.name,
        "date": "2026-10-20",
        "methodology_version": "1.0",
        "window": {"opens": _z(opens), "closes": _z(closes)},
        "workloads": [
            {"id": kit.EXTRACT, "n": 15},
            {"id": kit.VARIANCE, **small},
            {"id": kit.MONTH_END, **small},
            {"id": RECONCILE, **small},
        ],
        "models": [
            {
                "id": "cheap",
                "name": "Cheap model",
                "provider": "openai",
                "family": "acme",
                "api_model": "fake-tool.cheap",
                **common,
            },
            {
                "id": "big",
                "name": "Big model",
                "provider": "openai",
                "family": "zenith",
                "api_model": "fake-tool.big",
                "flagship": True,
                **common,
            },
        ],
        "judges": [
            {
                "id": "judge-one",
                "name": "Judge",
                "provider": "openai",
                "family": "otherco",
                "api_model": "grader-xl",
                **common,
            },
        ],
        "judge": {"model": "judge-one", "sensitivity_share": 0.2},
    }
    at = _z(opens)
    pricing = {
        "frozen_at": at,
        "models": {
            "cheap": _price(at),
            "big": _price(at, "10", "40"),
            "judge-one": _price(at, "1", "4"),
        },
    }
    folder.mkdir(parents=True)
    (folder / "edition.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    (folder / "pricing.yaml").write_text(yaml.safe_dump(pricing, sort_keys=False))


def _user_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if isinstance(p, dict))
    return "\n".join(parts)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return build_manual_edition(tmp_path_factory.mktemp("manual-e2e"))


def build_manual_edition(root: Path, *, site: bool = True) -> dict[str, Any]:
    """The test edition `2026-10-m` under `root/editions`, run, graded and published, and its
    site built (`site=False`: not built). Also used by the browser's re-pricing test."""
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(root / "private"))
    os.environ[KEY_ENV] = "fake-key-for-the-manual-arm-test"
    editions = root / "editions"
    edition = editions / "2026-10-m"
    answers: dict[str, str] = {}
    judge_inputs: list[dict[str, Any]] = []

    def responder(family: str, body: dict[str, Any]) -> FakeReply | None:
        text = _user_text(body)
        if body.get("model") == "grader-xl":
            judge_inputs.append(body)
            verdict = {"clarity": 5, "cause_attribution": 5, "rationale": "clear"}
            return FakeReply(text=json.dumps(verdict))
        for user, answer in answers.items():
            if user in text:
                return FakeReply(text=answer)
        return None  # month-end: the fake's tool script, a fail

    with FakeProviderServer(responder=responder) as fake:
        _write(edition, fake.base_url("openai"))
        kept = None if os.environ.get(RECIPIENTS_ENV) else "test fixture: tmp"
        register_edition(edition, seeds_kept_elsewhere=kept)
        for workload_id in (kit.EXTRACT, kit.VARIANCE, RECONCILE):
            workload, dataset = get(workload_id), dataset_for(edition, workload_id)
            for item in dataset.items:
                user = workload.prompt(item).user
                if workload_id == kit.EXTRACT:
                    answers[user] = json.dumps(item.truth)
                else:
                    assert workload.baseline is not None
                    answers[user] = workload.baseline(item, dataset).text
        run_edition(edition, RunOptions(concurrency=2), show_progress=False)

        later = kit.window_close(edition)
        packets = root / "packets"
        rates = {kit.EXTRACT: "0.001", kit.VARIANCE: "42.50", kit.MONTH_END: "55"}
        for workload_id, rate in rates.items():
            packet = kit.packet(edition, workload_id, packets / workload_id)
            minutes = 6.0 if workload_id == kit.EXTRACT else 20.0
            # The judged arm's style checker cost nobody knows: its cost stays unknown.
            tools = {"spreadsheet": "0", "style checker": "unknown"}
            kit.fill(
                edition,
                packet,
                rate=rate,
                minutes=minutes,
                tools=tools if workload_id == kit.VARIANCE else None,
            )
            import_manual(edition, packet, now=lambda: later)
        void = kit.fill(
            edition, kit.packet(edition, RECONCILE, packets / RECONCILE), statement=None
        )
        import_manual(edition, void, now=lambda: later)
        grade_edition(edition)
        assert fake.errors == [], fake.errors
    sample_edition(edition)
    release_seeds(edition, now=later + dt.timedelta(seconds=1))
    results = edition_results(edition)
    record_publication(edition, results, dt.datetime.now(dt.UTC))
    out = root / "build"
    if not site:
        return {"edition": edition, "results": results, "judge_inputs": judge_inputs}
    build = subprocess.run(
        [CLI, "build", "--editions", str(editions),
         "--out", str(out)],
        capture_output=True, text=True, env={**os.environ, "LEDGERRATE_WORKERS": "1"},
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    return {
        "edition": edition,
        "results": EditionResults.model_validate_json(
            (edition / "results.json").read_text(encoding="utf-8")
        ),
        "site": out / "site",
        "judge_inputs": judge_inputs,
    }


def _cell(results: EditionResults, workload: str, model: str) -> Any:
    w = next(w for w in results.workloads if w.workload == workload)
    return next(c for c in w.cells if c.model == model)


def _text(path: Path) -> str:
    raw = re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", html.unescape(raw))


def test_the_manual_arm_is_a_cell_graded_blind_and_never_ranked(built: dict[str, Any]) -> None:
    results: EditionResults = built["results"]
    extract = next(w for w in results.workloads if w.workload == kit.EXTRACT)
    manual = _cell(results, kit.EXTRACT, "manual")
    cheap = _cell(results, kit.EXTRACT, "cheap")
    assert manual.qualifying and cheap.qualifying and manual.pass_rate == 1.0
    assert manual.cpo_usd < cheap.cpo_usd  # cheaper than any model here …
    assert extract.cheapest_qualifying is not None
    assert extract.cheapest_qualifying.model == "cheap"  # … and still never ranked
    assert "manual" not in extract.agentic_multiplier
    assert all(p.model != "manual" for p in extract.flagship_premiums)
    # Itemised: 15 items × 6 minutes = 1.5 h at the recorded rate, plus a zero tool line.
    arm = manual.manual
    assert arm is not None and arm.hours == 1.5 and str(arm.hourly_rate_usd) == "0.001"
    assert [(line.line, line.usd) for line in arm.cost_lines] == [
        ("human time", manual.spend_usd),
        ("tool: spreadsheet", 0),
    ]
    assert arm.total_usd == manual.spend_usd == manual.cpo_usd * 15
    assert str(manual.cost_basis) == "manual" and arm.test_fixture == kit.FIXTURE
    # Month-end graded on the journal state, like the agents'; the models fail it.
    close = _cell(results, kit.MONTH_END, "manual")
    assert close.passes == 3 and close.manual is not None and close.manual.hours == 1
    # The judged arm went to the same judge; its spot-check sample includes it.
    judged = _cell(results, kit.VARIANCE, "manual")
    assert judged.judge_protocol is not None and judged.judge_protocol.judged_runs == 3
    sample = json.loads(
        (built["edition"] / "spotchecks" / f"{kit.VARIANCE}.sample.json").read_text()
    )
    assert "manual/by-hand" in sample["cells"]
    sent = built["judge_inputs"]
    assert len(sent) == 5 * 3  # two models' two modes and the analyst's, three items each
    shapes = {json.dumps([m["role"] for m in b["messages"]]) for b in sent}
    assert len(shapes) == 1  # every judge request has the same form, whoever wrote it


def test_a_manual_arm_without_a_timing_statement_is_void_everywhere(
    built: dict[str, Any],
) -> None:
    results: EditionResults = built["results"]
    cell = _cell(results, RECONCILE, "manual")
    assert cell.void and cell.pass_rate is None and cell.cpo_usd is None
    assert "no timing statement" in cell.void_reasons[0]
    raw = json.loads((built["edition"] / "results.json").read_text())
    cells = next(w for w in raw["workloads"] if w["workload"] == RECONCILE)["cells"]
    sealed = next(c for c in cells if c["model"] == "manual")
    assert sealed["void"] is True and "no timing statement" in sealed["void_reasons"][0]
    site: Path = built["site"]
    card = _text(site / "editions" / "2026-10-m" / "index.html")
    row = card[card.index("Reconcile a month") :][:1500]
    assert re.search(r"void ?: no timing statement", row)
    page = _text(site / "workloads" / RECONCILE / "index.html")
    assert re.search(r"void ?: no timing statement", page)
    csv = (site / "editions" / "2026-10-m" / "ratecard.csv").read_text()
    assert f",{RECONCILE}," in csv
    line = next(r for r in csv.splitlines() if RECONCILE in r and ",by_hand," in r)
    assert ",void," in line and ",manual,by-hand,,," in line


def test_the_card_shows_the_by_hand_lines_and_ratios(built: dict[str, Any]) -> None:
    site: Path = built["site"]
    card = _text(site / "editions" / "2026-10-m" / "index.html")
    assert "By hand" in card
    extract = card[card.index("Process 1,000 invoices") :][:900]
    assert "by hand costs ×" in extract and "the cheapest model" in extract
    assert "timing statement" in extract and "Phone stopwatch" in extract
    assert "test fixture" in extract
    judged = _cell(built["results"], kit.VARIANCE, "manual")
    assert judged.cpo_usd is None and judged.manual is not None
    assert judged.manual.total_usd is None  # an unknown tool line, never filled in
    close = card[card.index("Run a mini month-end close") :][:700]
    assert "per job" in close and "$55/h" in close
    rows = json.loads((site / "editions" / "2026-10-m" / "ratecard.json").read_text())["lines"]
    hand = next(r for r in rows if r["workload"] == kit.EXTRACT and r["line"] == "by_hand")
    manual = _cell(built["results"], kit.EXTRACT, "manual")
    cheap = _cell(built["results"], kit.EXTRACT, "cheap")
    assert hand["manual_ratio"] == float(manual.cpo_usd / cheap.cpo_usd)
    import pdfplumber

    with pdfplumber.open(site / "data" / "2026-10-m" / "ratecard.pdf") as pdf:
        assert len(pdf.pages) == 1
        text = " ".join((pdf.pages[0].extract_text() or "").split())
    assert "By hand" in text and "TEST FIXTURE" in text and "void" in text


def test_verify_and_the_standalone_verifier_rederive_the_manual_cells(
    built: dict[str, Any],
) -> None:
    verify = subprocess.run(
        [CLI, "verify", str(built["edition"])],
        capture_output=True, text=True,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stdout[-3000:] + verify.stderr[-2000:]
    assert "VERIFIED" in verify.stdout
    alone = subprocess.run(
        [sys.executable, str(VERIFIER / "verify_standalone.py"), str(built["site"])],
        capture_output=True, text=True,
    )  # fmt: skip
    lines = alone.stdout.splitlines()
    assert not [x for x in lines if x.startswith("MISMATCHED")], alone.stdout[-3000:]
    manual = [x for x in lines if "manual/by-hand" in x and x.startswith("MATCHED")]
    assert any("cell manual arm" in x and kit.EXTRACT in x for x in manual)
    assert any("cell CPO interval" in x and kit.MONTH_END in x for x in manual)
    assert any("cell void" in x and RECONCILE in x for x in manual)
    assert any("rate card csv line" in x and "by_hand" in x for x in lines)
    # The seconds and rate behind the cost, re-derived from the sitting, give back its spend.
    assert any("cell re-pricing totals" in x and kit.EXTRACT in x for x in manual)
    assert any("cell re-priced at frozen prices" in x and kit.MONTH_END in x for x in manual)


def test_both_verifiers_catch_an_edited_hourly_rate(built: dict[str, Any], tmp_path: Path) -> None:
    """A sitting whose rate was changed after publication no longer gives the published cost."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(built["site"], site)
    sitting = site / "data" / "2026-10-m" / "manual" / kit.EXTRACT / "sitting-1.json"
    doc = json.loads(sitting.read_text())
    doc["hourly_rate_usd"] = "0.002"
    sitting.write_text(json.dumps(doc, indent=2))
    alone = subprocess.run(
        [sys.executable, str(VERIFIER / "verify_standalone.py"), str(site), "--quiet"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert alone.returncode == 1
    wrong = [x for x in alone.stdout.splitlines() if x.startswith("MISMATCHED")]
    assert any("cell manual arm" in x and kit.EXTRACT in x for x in wrong), wrong
    assert any("cell CPO" in x and "manual/by-hand" in x for x in wrong), wrong
    # The re-pricing block no longer matches the sitting's rate either.
    assert any("cell re-pricing totals" in x and kit.EXTRACT in x for x in wrong), wrong

    edition = tmp_path / "editions" / "2026-10-m"
    shutil.copytree(built["edition"], edition)
    shutil.copy(built["edition"].parent / "publications.jsonl", edition.parent)
    own = edition / "manual" / kit.EXTRACT / "sitting-1.json"
    doc = json.loads(own.read_text())
    doc["hourly_rate_usd"] = "0.002"
    own.write_text(json.dumps(doc, indent=2))
    verify = subprocess.run([CLI, "verify", str(edition)], capture_output=True, text=True)
    assert verify.returncode == 1
    assert "manual" in verify.stdout


def test_repriced_the_manual_arm_is_still_never_ranked(
    built: dict[str, Any], tmp_path: Path
) -> None:
    """At prices that make the analyst far cheaper and the cheap model dearer than the
    flagship, the cheapest qualifying model is still a model, and no premium names the arm."""
    from ledgerrate.core.io import write_yaml
    from ledgerrate.publish.repriced import repriced
    from ledgerrate.schema import ReaderPrices

    reader = ReaderPrices(
        models={"cheap": {"input_per_mtok": "50", "output_per_mtok": "200"}},
        hourly={"manual": "0.000001"},
    )
    path = tmp_path / "my-prices.yaml"
    write_yaml(path, reader)
    view = repriced(built["edition"], path)
    for workload in view.results.workloads:
        manual = _cell(view.results, workload.workload, "manual")
        line = workload.cheapest_qualifying
        assert line is None or line.model != "manual"
        assert all(p.model != "manual" for p in workload.flagship_premiums)
        assert "manual" not in workload.agentic_multiplier
        published = _cell(built["results"], workload.workload, "manual")
        assert manual.qualifying == published.qualifying  # quality does not depend on price
    extract = next(w for w in view.results.workloads if w.workload == kit.EXTRACT)
    manual = _cell(view.results, kit.EXTRACT, "manual")
    assert manual.qualifying and manual.cpo_usd is not None
    assert extract.cheapest_qualifying is not None
    assert manual.cpo_usd < extract.cheapest_qualifying.cpo_usd
    assert extract.cheapest_qualifying.model == "big"  # the inverted order, among models only
