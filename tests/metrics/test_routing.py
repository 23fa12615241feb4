from __future__ import annotations

import numpy as np

from ledgerrate.metrics.cells import cell_result
from ledgerrate.metrics.routing import Arm, routing_verdict
from ledgerrate.schema import Verdict


def arm(build, model: str, passes: int, usd: str) -> Arm:
    runs, grades = build.graded_cell(passes, model=model, usd=usd)
    data = build.assemble(runs, grades)
    return Arm(cell_result(data, is_reference=False, seed=1, reps=200), data)


def verdict(challenger, incumbent, **kw):
    return routing_verdict(challenger, incumbent, rng=np.random.default_rng(3), reps=4000, **kw)


def test_pass_when_non_inferior_and_cheaper(build) -> None:
    v = verdict(arm(build, "cheap", 15, "0.001"), arm(build, "big", 15, "0.01"))
    assert v.verdict == "pass" and v.remedy is None
    assert v.quality_diff_ci.lo == 0.0 and v.saving_ci.lo > 0.8
    assert (v.challenger, v.incumbent) == ("cheap", "big")


def test_fail_when_a_regression_is_established(build) -> None:
    v = verdict(arm(build, "cheap", 2, "0.001"), arm(build, "big", 15, "0.01"))
    assert v.verdict == "fail" and "regression" in v.reason
    assert v.quality_diff_ci.hi < -0.10


def test_fail_when_the_challenger_is_established_dearer(build) -> None:
    v = verdict(arm(build, "cheap", 15, "0.02"), arm(build, "big", 15, "0.01"))
    assert v.verdict == "fail" and "costs more" in v.reason
    assert v.saving_ci.hi < 0


def test_inconclusive_at_n_15_names_its_remedy(build) -> None:
    # 12/15 vs 15/15: the difference interval reaches below −0.10 but not wholly.
    v = verdict(arm(build, "cheap", 12, "0.001"), arm(build, "big", 15, "0.01"))
    assert v.verdict == "inconclusive"
    assert v.quality_diff_ci.lo < -0.10 < v.quality_diff_ci.hi
    assert v.remedy is not None
    assert "n = 15 cannot establish a 10-point" in v.remedy
    assert "larger-n workload version or a repeat edition" in v.remedy


def test_not_applicable_cases(build) -> None:
    cheap, big = arm(build, "cheap", 15, "0.001"), arm(build, "big", 15, "0.01")
    assert verdict(cheap, big, has_flagship=False).verdict == Verdict.not_applicable
    assert verdict(None, big).verdict == Verdict.not_applicable
    assert verdict(cheap, None).verdict == Verdict.not_applicable
    same = verdict(big, big)
    assert same.verdict == Verdict.not_applicable and "itself" in same.reason
    for v in (verdict(None, big), same):
        assert v.reason


def test_the_verdict_is_reproducible_from_the_seed(build) -> None:
    cheap, big = arm(build, "cheap", 12, "0.001"), arm(build, "big", 14, "0.01")
    assert verdict(cheap, big) == verdict(cheap, big)
