"""The standalone verifier's figures half: its numpy port, its rules against the package's, the
bundled site recomputed with no mismatch, and a mismatch for each kind of tampering."""

from __future__ import annotations

import ast
import gzip
import json
import random
import shutil
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.verify import standalone_kit

REPO = Path(__file__).resolve().parents[2]
SOURCE = standalone_kit.VERIFIER / "standalone_figures.py"
BUNDLED = ("2026-11", "2026-11-b", "2026-12")


sf = standalone_kit.load("standalone_figures.py", "standalone_figures")


class Recorded:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str, str]] = []

    def __call__(self, status: str, check: str, detail: str, until: str | None = None) -> None:
        assert status in ("matched", "mismatched", "withheld")
        self.lines.append((status, check, detail))

    def of(self, status: str, check: str | None = None) -> list[str]:
        return [d for s, c, d in self.lines if s == status and check in (None, c)]


def check(folder: Path) -> Recorded:
    found = Recorded()
    sf.check_figures(folder, found)
    return found


# --- the port of numpy's random stream -------------------------------------------------------


def test_imports_nothing_from_the_package() -> None:
    tree = ast.parse(SOURCE.read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert names and not [n for n in names if n.split(".")[0] in ("ledgerrate", "numpy")]


def _entropies() -> list[list[int]]:
    rnd = random.Random(44)
    found = [[0], [1], [2**32 - 1, 0], [4013451157, 12345], [2**64 + 5], [7, 0, 0, 0, 0, 9]]
    for _ in range(150):
        found.append(
            [rnd.getrandbits(rnd.choice([1, 16, 32, 33, 64, 96])) for _ in range(rnd.randint(1, 5))]
        )
    return found


@pytest.mark.parametrize("entropy", _entropies())
def test_seed_sequence_matches_numpy(entropy: list[int]) -> None:
    expected = np.random.SeedSequence(entropy).generate_state(8).tolist()
    assert sf.seed_sequence_state(entropy, 8) == expected


@pytest.mark.parametrize("high", [1, 2, 3, 5, 14, 15, 16, 17, 100, 2**31 + 11, 2**32 - 1, 2**32])
def test_integers_match_numpy(high: int) -> None:
    for entropy in _entropies()[::5]:
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        port = sf.Pcg64(entropy)
        for size in ((301,), (40, high if high < 40 else 3)):
            expected = rng.integers(0, high, size=size).ravel().tolist()
            # A second call continues the stream where the first left it (half a draw kept).
            assert port.integers(high, len(expected)) == expected, (entropy, high, size)


def test_rejection_path_matches_numpy() -> None:
    # A range just over 2**31 rejects about half of its draws: every rejection is exercised.
    high = 2**31 + 1
    for entropy in _entropies()[:20]:
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        assert sf.Pcg64(entropy).integers(high, 500) == rng.integers(0, high, 500).tolist()


@pytest.mark.parametrize("n", [1, 2, 5, 7, 8, 9, 15, 16, 17, 64, 127, 128, 129, 300, 1000])
def test_pairwise_sum_and_percentile_match_numpy(n: int) -> None:
    rnd = random.Random(n)
    for _ in range(20):
        values = [rnd.random() * 10 ** rnd.randint(-9, 2) for _ in range(n)]
        rows = np.array([values, values])
        assert sf.pairwise_sum(values) == rows.sum(axis=1)[0]
        ordered = sorted(values)
        for q in (2.5, 97.5, 50, 90, 0, 100):
            assert sf.percentile_linear(ordered, q) == np.percentile(np.array(values), q)


# --- the stated rules against the package's own code -------------------------------------------


def test_bootstrap_matches_the_package() -> None:
    from ledgerrate.metrics.intervals import bootstrap_cpo, edition_seed, keyed_rng

    rnd = random.Random(7)
    for edition in ("2026-11", "2026-12", "e-x"):
        seed = edition_seed(edition)
        assert sf.edition_seed(edition) == seed
        for n in (3, 5, 15, 16, 40):
            costs = [float(Decimal(rnd.randint(1, 10**9)) / 10**12) for _ in range(n)]
            passed = [rnd.random() < 0.3 for _ in range(n)]
            passed[0] = True
            key = ("cpo", "w.v1", f"m{n}", "single-shot")
            want = bootstrap_cpo(np.array(costs), np.array(passed), keyed_rng(seed, *key), 2000)
            assert want is not None
            got = sf.bootstrap_cpo(seed, key, costs, passed, 2000)
            assert got == (want.interval.lo, want.interval.hi, want.dropped_share)


def test_wilson_matches_the_package() -> None:
    from ledgerrate.metrics.intervals import wilson

    for n in range(1, 41):
        for k in range(n + 1):
            assert sf.wilson(k, n) == wilson(k, n)


def test_money_rules_match_the_package() -> None:
    from ledgerrate.core.cost import compute_cost, self_hosted_cost, token_cost
    from ledgerrate.schema import ModelPrice, PricingTable, Usage

    rnd = random.Random(3)
    table = PricingTable.model_validate(
        {
            "frozen_at": "2026-01-01T00:00:00Z",
            "models": {},
            "compute": {"vcpu_hour_usd": "0.05", "source_url": "x", "retrieved_at": "2026-01-01"},
            "self_hosted": {
                "m": {
                    "instance": "x",
                    "hour_usd": "0.10",
                    "assumption": "x",
                    "source_url": "x",
                    "retrieved_at": "2026-01-01",
                },
            },
        }
    )
    for _ in range(2000):
        seconds = rnd.random() * 10 ** rnd.randint(-4, 3)
        assert (
            sf.per_hour(seconds, Decimal("0.10"))
            == self_hosted_cost(seconds, table, "m").compute_usd
        )
        assert sf.per_hour(seconds, Decimal("0.05")) == compute_cost(seconds, table).compute_usd
    price = {
        "input_per_mtok": "2.5",
        "output_per_mtok": "10",
        "cached_input_per_mtok": "1.25",
        "reasoning_per_mtok": "12",
    }
    usage = {
        "input_tokens": 1234,
        "cached_input_tokens": 50,
        "cache_write_tokens": 7,
        "output_tokens": 900,
        "reasoning_tokens": 300,
    }
    model_price = ModelPrice(**price, source_url="x", retrieved_at="2026-01-01T00:00:00Z")
    assert sf.token_cost(usage, price) == token_cost(Usage(**usage), model_price)


# --- the bundled site ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled editions built into a site, once per session (a copy: a build may record)."""
    from ledgerrate.publish.build import build_site

    base = tmp_path_factory.mktemp("standalone-figures")
    shutil.copytree(REPO / "editions", base / "editions")
    return build_site(base / "editions", base / "out")


@pytest.fixture(scope="session")
def bundled_checks(bundled_site: Path) -> dict[str, Recorded]:
    return {edition: check(bundled_site / "data" / edition) for edition in BUNDLED}


def test_bundled_site_current_figures_recompute_with_no_mismatch(
    bundled_site: Path, bundled_checks: dict[str, Recorded]
) -> None:
    for edition, found in bundled_checks.items():
        wrong = [d for d in found.of("mismatched") if not d.startswith("results.json ")]
        assert wrong == [], edition
        folder = bundled_site / "data" / edition
        shown = json.loads((folder / "results-corrected.json").read_text())["results"]
        intervals = [c for w in shown["workloads"] for c in w["cells"] if c["cpo_ci"]]
        assert intervals, edition
        # Every CPO interval shown is recomputed bit for bit.
        matched = [
            d
            for d in found.of("matched", "cell CPO interval")
            if d.startswith("results-corrected.json ") and "'lo'" in d
        ]
        assert len(matched) == len(intervals)
        assert found.of("matched", "call costs")
        assert found.of("matched", "workload reference")
        assert found.of("matched", "workload routing verdict")


def test_bundled_site_sealed_figures_recompute_with_no_mismatch(
    bundled_checks: dict[str, Recorded],
) -> None:
    for edition, found in bundled_checks.items():
        assert [d for d in found.of("mismatched") if d.startswith("results.json ")] == [], edition
        assert found.of("matched", "cell CPO interval")


def test_bundled_site_takes_well_under_thirty_seconds(bundled_site: Path) -> None:
    import time

    start = time.process_time()
    for edition in BUNDLED:
        check(bundled_site / "data" / edition)
    assert time.process_time() - start < 15


# --- tampering is found --------------------------------------------------------------------------


@pytest.fixture
def edition_copy(bundled_site: Path, tmp_path: Path) -> Callable[[str], Path]:
    def copy(edition: str) -> Path:
        target = tmp_path / "site"
        shutil.copytree(bundled_site / "data" / edition, target / "data" / edition)
        shutil.copyfile(bundled_site / "publications.jsonl", target / "publications.jsonl")
        return target / "data" / edition

    return copy


def _edit_log(path: Path, edit: Callable[[list[dict[str, Any]]], None]) -> None:
    records = [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines()]
    edit(records)
    text = "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in records)
    path.write_bytes(gzip.compress(text.encode()))


def test_a_changed_figure_is_a_mismatch(edition_copy: Callable[[str], Path]) -> None:
    folder = edition_copy("2026-11")
    path = folder / "results-corrected.json"
    doc = json.loads(path.read_text())
    cell = next(c for w in doc["results"]["workloads"] for c in w["cells"] if c["cpo_usd"])
    cell["cpo_usd"] = str(Decimal(cell["cpo_usd"]) + Decimal("1E-12"))
    path.write_text(json.dumps(doc))
    found = check(folder)
    wrong = [d for d in found.of("mismatched") if d.startswith("results-corrected.json ")]
    assert len(wrong) == 1 and found.of("mismatched", "cell CPO") == wrong


@pytest.mark.parametrize("rounding", ["one_more_picodollar", "to_1e-8"])
def test_a_re_rounded_cost_is_a_mismatch(
    edition_copy: Callable[[str], Path], rounding: str
) -> None:
    folder = edition_copy("2026-12")

    def edit(records: list[dict[str, Any]]) -> None:
        run = records[0]
        old = Decimal(run["calls"][0]["cost"]["compute_usd"])
        new = (
            old + Decimal("1E-12")
            if rounding == "one_more_picodollar"
            else old.quantize(Decimal("1E-8"))
        )
        assert new != old
        # The run's total follows its call, so only the call's price betrays the change.
        run["calls"][0]["cost"]["compute_usd"] = str(new)
        run["cost"]["compute_usd"] = str(Decimal(run["cost"]["compute_usd"]) - old + new)

    _edit_log(folder / "runs/query.nl2sql.v1/smollm2/single-shot.jsonl.gz", edit)
    found = check(folder)
    assert [d for d in found.of("mismatched", "call costs") if "query.nl2sql.v1/smollm2" in d]
    assert [d for d in found.of("mismatched", "cell spend") if "query.nl2sql.v1/smollm2" in d]


def test_an_edited_grade_outcome_is_a_mismatch(edition_copy: Callable[[str], Path]) -> None:
    folder = edition_copy("2026-11")
    log = folder / "grades/extract.invoice.v1/reference/single-shot.jsonl.gz"

    def edit(records: list[dict[str, Any]]) -> None:
        top = max(r["revision"] for r in records)
        grade = next(r for r in records if r["outcome"] == "pass" and r["revision"] == top)
        grade["outcome"] = "fail"

    _edit_log(log, edit)
    found = check(folder)
    wrong = found.of("mismatched", "cell pass rate")
    assert [d for d in wrong if "extract.invoice.v1/reference" in d and "results.json" in d]
    assert [d for d in wrong if "results-corrected.json" in d]


def test_a_withdrawn_cell_shown_as_qualifying_is_a_mismatch(
    edition_copy: Callable[[str], Path],
) -> None:
    folder = edition_copy("2026-11")
    path = folder / "results-corrected.json"
    doc = json.loads(path.read_text())
    cell = next(
        c
        for w in doc["results"]["workloads"]
        for c in w["cells"]
        if any(f.startswith("withdrawn: ") for f in c["flags"])
    )
    cell["qualifying"] = True
    path.write_text(json.dumps(doc))
    found = check(folder)
    assert found.of("mismatched", "withdrawn cell qualifying")
    assert found.of("mismatched", "cell qualifying")


def test_routing_bootstrap_matches_the_package() -> None:
    import pandas as pd

    from ledgerrate.metrics.intervals import edition_seed, keyed_rng
    from ledgerrate.metrics.routing import paired_bootstrap

    rnd = random.Random(11)
    seed = edition_seed("2026-12")
    for m in (1, 4, 15, 23):
        pairs = [
            (float(rnd.random() < 0.8), float(rnd.random() < 0.9), rnd.random() / 1e3, rnd.random())
            for _ in range(m)
        ]
        frame = pd.DataFrame(pairs, columns=["passed_c", "passed_i", "cost_c", "cost_i"])
        quality, saving = paired_bootstrap(frame, keyed_rng(seed, "routing", "w.v1"), 3000)
        assert saving is not None
        got = sf.paired_bootstrap(seed, "w.v1", pairs, 3000)
        assert got == ((quality.lo, quality.hi), (saving.lo, saving.hi))


def test_an_edited_superseded_grade_the_sealed_figures_rest_on_is_a_mismatch(
    edition_copy: Callable[[str], Path],
) -> None:
    # 2026-11 was first published on revision 1 of these grades; revision 2 came later, so the
    # sealed results.json rests on revision 1 and today's figures on revision 2.
    folder = edition_copy("2026-11")
    log = folder / "grades/triage.ap-inbox.v1/reference/single-shot.jsonl.gz"

    def edit(records: list[dict[str, Any]]) -> None:
        grade = next(r for r in records if r["revision"] == 1 and r["outcome"] == "fail")
        grade["outcome"] = "pass"

    _edit_log(log, edit)
    found = check(folder)
    wrong = found.of("mismatched", "cell pass rate")
    assert [d for d in wrong if d.startswith("results.json triage.ap-inbox.v1/reference")]
    assert not [d for d in wrong if not d.startswith("results.json ")]


def test_grading_cost_counts_a_carried_judge_block_once() -> None:
    def grade(run: str, revision: int, cost: str, second: str | None = None) -> dict[str, Any]:
        judge: dict[str, Any] = {"judge_model": "j", "cost": {"model_usd": cost}, "passed": True}
        if second is not None:
            judge["second_opinion"] = {"judge_model": "k", "cost": {"model_usd": second}}
        return {"run_id": run, "revision": revision, "graded_at": f"t{revision}", "judge": judge}

    grades = [
        grade("a", 1, "0.5"),
        grade("b", 1, "0.25", second="0.125"),
        grade("a", 2, "0.5"),  # carried forward from revision 1: not paid again
        grade("b", 2, "0.75", second="0.125"),  # a new first opinion; the second carried
        {"run_id": "c", "revision": 2, "graded_at": "t2", "judge": None},
    ]
    assert sf.grading_cost_by_revision(grades) == [
        {"revision": 1, "judge_calls": 3, "usd": Decimal("0.875")},
        {"revision": 2, "judge_calls": 1, "usd": Decimal("0.75")},
    ]


def test_an_unreadable_log_is_one_mismatch_naming_it(edition_copy: Callable[[str], Path]) -> None:
    folder = edition_copy("2026-12")
    log = folder / "runs/query.nl2sql.v1/reference/single-shot.jsonl.gz"
    log.write_bytes(log.read_bytes()[:40])
    found = check(folder)
    assert found.lines == [("mismatched", "figures inputs", found.lines[0][2])]
    assert str(log) in found.lines[0][2] and "not a gzip" in found.lines[0][2]


def test_protocol_conditions_follow_from_the_grades() -> None:
    def run(i: int) -> dict[str, Any]:
        return {"run_id": f"r{i}"}

    def grade(judge: bool, human: bool | None = None, outcome: str = "pass") -> dict[str, Any]:
        found: dict[str, Any] = {"outcome": outcome, "judge": {"passed": judge}}
        if human is not None:
            found["spotcheck"] = {"passed": human, "scope": "sample"}
        return found

    items = [run(i) for i in range(15)]
    # 15 judged runs, 2 spot-checked (3 required), one of them disagreeing (50% > 10%).
    live = {f"r{i}": grade(True) for i in range(15)}
    live["r0"] = grade(True, human=True)
    live["r1"] = grade(True, human=False)
    found = sf.protocol_figures(items, ["pass"] * 15, live, same_family=True)
    assert (found["judged_runs"], found["spotchecked"], found["spotcheck_required"]) == (15, 2, 3)
    assert found["disagreements"] == 1 and found["manual_regrade"] == "required"
    assert found["_conditions"] == [
        "too few human spot-checks",
        "manual regrade required",
        "second-judge check not run",
    ]
    # Every judged run graded by a person, outcomes the people's: the regrade is done.
    live = {
        f"r{i}": grade(True, human=i != 1, outcome="fail" if i == 1 else "pass") for i in range(15)
    }
    found = sf.protocol_figures(items, ["pass"] * 15, live)
    assert found["manual_regrade"] == "not_required"  # 1 of 15 disagreeing is under 10%
    assert found["_conditions"] == []
    assert found["agreement_ci"] == {
        "lo": sf.wilson(14, 15)[0],
        "hi": sf.wilson(14, 15)[1],
        "method": "wilson-95",
    }


def test_an_emptied_protocol_missing_list_is_a_mismatch() -> None:
    block = {"judged_runs": 0, "missing": []}
    cell = {"model": "m", "mode": "single-shot", "judge_protocol": block}
    published = {"workloads": [{"workload": "w.v1", "cells": [cell]}]}
    figures = {
        "_protocol": {"judged_runs": 0, "_conditions": ["not every run graded"]},
    }
    found = Recorded()
    sf.compare_cells(
        "results-corrected.json", published, {"w.v1": {("m", "single-shot"): figures}}, found
    )
    assert found.of("mismatched", "cell judge protocol")


# --- the tools probe spend -----------------------------------------------------------------------


def test_bundled_probe_spend_is_recomputed(bundled_checks: dict[str, Recorded]) -> None:
    spent = "expected $0.005121712834 (6 probes, 12 calls), found $0.005121712834"
    assert bundled_checks["2026-12"].of("matched", "tools probe spend") == [
        f"results-corrected.json: probe_spend of smollm2: {spent} (6 probes, 12 calls)",
        f"results-current.json: probe_spend of smollm2: {spent} (6 probes, 12 calls)",
    ]
    assert bundled_checks["2026-11"].of("matched", "tools probe spend") == []


def test_a_changed_probe_spend_is_a_mismatch(edition_copy: Callable[[str], Path]) -> None:
    folder = edition_copy("2026-12")
    path = folder / "results-current.json"
    doc = json.loads(path.read_text())
    doc["probe_spend"][0]["usd"] = "0.005121712835"
    path.write_text(json.dumps(doc))
    found = check(folder)
    assert found.of("mismatched") == [
        "results-current.json: probe_spend of smollm2: expected $0.005121712834 (6 probes, "
        "12 calls), found $0.005121712835 (6 probes, 12 calls)"
    ]


def test_a_dropped_probe_spend_is_a_mismatch(edition_copy: Callable[[str], Path]) -> None:
    folder = edition_copy("2026-12")
    path = folder / "results-corrected.json"
    doc = json.loads(path.read_text())
    del doc["results"]["probe_spend"]
    path.write_text(json.dumps(doc))
    assert check(folder).of("mismatched", "tools probe spend") == [
        "results-corrected.json: probe_spend of smollm2: expected $0.005121712834 (6 probes, "
        "12 calls), found none"
    ]


def test_an_edited_probe_call_is_a_mismatch(edition_copy: Callable[[str], Path]) -> None:
    folder = edition_copy("2026-12")

    def edit(records: list[dict[str, Any]]) -> None:
        records[0]["calls"][0]["latency_s"] += 36.0  # $0.001 more at $0.10 an hour

    _edit_log(folder / "probes/smollm2.jsonl.gz", edit)
    wrong = check(folder).of("mismatched", "tools probe spend")
    assert wrong == [
        f"{name}: probe_spend of smollm2: expected $0.006121712834 (6 probes, 12 calls), found "
        "$0.005121712834 (6 probes, 12 calls)"
        for name in ("results-corrected.json", "results-current.json")
    ]


def test_a_changed_rate_card_row_is_a_mismatch(
    bundled_site: Path, edition_copy: Callable[[str], Path]
) -> None:
    """The card's CSV at the site root: a reference row's CPO moved by a picodollar, and its
    JSON rows no longer the CSV's."""
    folder = edition_copy("2026-12")
    site = folder.parent.parent
    for suffix in (".json", ".csv"):
        shutil.copyfile(
            bundled_site / f"ratecard-2026-12{suffix}", site / f"ratecard-2026-12{suffix}"
        )
    assert check(folder).of("mismatched") == []
    path = site / "ratecard-2026-12.csv"
    rows = path.read_text().splitlines()
    at = next(i for i, row in enumerate(rows) if ",reference," in row and ",0.0000" in row)
    cells = rows[at].split(",")
    cpo = next(i for i, c in enumerate(cells) if c.startswith("0.0000"))
    cells[cpo] = str(Decimal(cells[cpo]) + Decimal("1E-12"))
    rows[at] = ",".join(cells)
    path.write_text("\n".join(rows) + "\n")
    found = check(folder)
    assert len(found.of("mismatched", "rate card csv line")) == 1
    assert len(found.of("mismatched", "rate card json lines")) == 1


def test_the_reference_solver_is_read_in_either_spelling() -> None:
    """An edition names its reference solver `solver: reference`; one sealed before 2026-12-06
    spells it `provider: baseline`. Both are left out of the ranking; a model is not."""
    models = [
        {"id": "new", "solver": "reference"},
        {"id": "old", "provider": "baseline"},
        {"id": "m", "provider": "openai"},
    ]
    edition = sf.Edition(
        folder=Path("."),
        manifest={"id": "x", "models": models},
        pricing={},
        errata=None,
        runs={},
        grades={},
    )
    assert edition.references() == {"new", "old"}
