from __future__ import annotations

from decimal import Decimal

from ledgerrate.metrics import indices
from ledgerrate.metrics.cells import cell_result


def cell(build, model, passes, usd, *, mode="single-shot", reference=False, void=()):
    runs, grades = build.graded_cell(passes, model=model, mode=mode, usd=usd)
    return cell_result(
        build.assemble(runs, grades), is_reference=reference, seed=1, reps=200, void_reasons=void
    )


def test_a_reference_baseline_is_never_cheapest_qualifying(build) -> None:
    ref = cell(build, "ref", 15, "0.0000001", reference=True)
    cheap = cell(build, "cheap", 13, "0.001")
    assert indices.cheapest_qualifying([ref, cheap]) is cheap
    assert indices.cheapest_qualifying([ref]) is None
    assert indices.reference_cell([ref, cheap]) is ref


def test_void_and_unqualified_cells_are_never_cheapest(build) -> None:
    void = cell(build, "a", 15, "0.0001", void=["simulated"])
    weak = cell(build, "b", 11, "0.0001")
    good = cell(build, "c", 12, "0.01")
    assert indices.cheapest_qualifying([void, weak, good]) is good


def test_ties_on_cpo_go_to_the_higher_pass_rate_then_the_model_id(build) -> None:
    # 15 × 0.012 / 15 = 0.012 and 15 × 0.0096 / 12 = 0.012: equal CPO.
    a = cell(build, "zeta", 15, "0.012")
    b = cell(build, "alpha", 12, "0.0096")
    assert a.cpo_usd == b.cpo_usd
    assert indices.cheapest_qualifying([b, a]) is a
    c = cell(build, "beta", 15, "0.012")
    assert indices.cheapest_qualifying([a, c]) is c


def test_flagship_line_premium_and_note(build) -> None:
    cheap = cell(build, "cheap", 13, "0.001")
    big_single = cell(build, "big", 10, "0.02")
    big_agentic = cell(build, "big", 15, "0.05", mode="agentic")
    flagship = indices.flagship_cell([cheap, big_single, big_agentic], {"big"})
    assert flagship is big_single  # lowest CPO, qualifying or not
    note = indices.flagship_note(flagship, {"big"})
    assert note and "does not qualify" in note
    premium = indices.frontier_premium(flagship, cheap)
    assert premium == float(big_single.cpo_usd / cheap.cpo_usd)
    assert indices.flagship_note(None, set()) == "no model in this edition is marked flagship"
    line = indices.rate_line(flagship, lambda m: m.upper(), 1000)
    assert line is not None and line.model_name == "BIG"
    assert line.rate_usd == (big_single.cpo_usd * 1000).quantize(Decimal("0.01"))


def test_agentic_multiplier(build) -> None:
    single = cell(build, "m", 15, "0.01")
    agentic = cell(build, "m", 15, "0.03", mode="agentic")
    nothing = cell(build, "n", 0, "0.01")
    n_agentic = cell(build, "n", 15, "0.03", mode="agentic")
    found = indices.agentic_multipliers(
        [single, agentic, nothing, n_agentic], ("single-shot", "agentic")
    )
    assert found["m"] == 3.0
    assert found["n"] is None
    assert indices.agentic_multipliers([agentic], ("agentic",)) == {}
    void_agentic = cell(build, "m", 15, "0.03", mode="agentic", void=["x"])
    assert indices.agentic_multipliers([single, void_agentic], ("single-shot", "agentic")) == {
        "m": None
    }
