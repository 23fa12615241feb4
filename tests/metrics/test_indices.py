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
    # The flagship's rate is its cheapest cell that does the job to the standard, not a cheaper
    # mode that fails the bar.
    flagship = indices.flagship_cell([cheap, big_single, big_agentic], {"big"})
    assert flagship is big_agentic
    assert indices.flagship_note(flagship, {"big"}) is None
    assert indices.frontier_premium(flagship, cheap) == float(big_agentic.cpo_usd / cheap.cpo_usd)
    # Only when no mode qualifies is the lowest-CPO cell the flagship's, labelled.
    alone = indices.flagship_cell([cheap, big_single], {"big"})
    assert alone is big_single
    note = indices.flagship_note(alone, {"big"})
    assert note and "does not qualify" in note
    assert indices.flagship_note(None, set()) == "no model in this edition is marked flagship"
    line = indices.rate_line(alone, lambda m: m.upper(), 1000)
    assert line is not None and line.model_name == "BIG"
    assert line.rate_usd == (big_single.cpo_usd * 1000).quantize(Decimal("0.01"))


def _premiums(cells, flagships, cheapest):
    found = indices.flagship_premiums(cells, flagships, cheapest, str.upper, 1000)
    return {p.model: p for p in found}, [p.model for p in found]


def test_one_premium_per_vendor_flagship(build) -> None:
    cheap = cell(build, "cheap", 13, "0.001")
    gpt = cell(build, "gpt-big", 15, "0.03")
    claude = cell(build, "claude-big", 14, "0.02")
    weak = cell(build, "gemini-big", 9, "0.01")  # cheapest flagship cell, but fails the bar
    cells = [cheap, gpt, claude, weak]
    vendors = {"gpt-big": "openai", "claude-big": "anthropic", "gemini-big": "google"}
    cheapest = indices.cheapest_qualifying(cells)
    assert cheapest is cheap
    by_model, order = _premiums(cells, vendors, cheapest)
    assert order == ["claude-big", "gpt-big", "gemini-big"]  # qualifying first, then by CPO
    for model, c in (("gpt-big", gpt), ("claude-big", claude), ("gemini-big", weak)):
        assert by_model[model].premium == float(c.cpo_usd / cheap.cpo_usd)
        assert by_model[model].vendor == vendors[model]
        assert by_model[model].line.cpo_usd == c.cpo_usd
    assert by_model["gpt-big"].qualifying and by_model["gpt-big"].note is None
    assert not by_model["gemini-big"].qualifying
    assert "does not qualify" in by_model["gemini-big"].note
    # The headline (methodology, figures): the lowest-CPO qualifying flagship, never the
    # cheaper flagship that fails the bar (the old rule took the cheapest over all of them).
    assert indices.flagship_cell(cells, set(vendors)) is claude


def test_a_flagship_that_is_itself_the_cheapest_has_premium_one(build) -> None:
    big = cell(build, "big", 15, "0.001")
    other = cell(build, "other-big", 15, "0.004")
    small = cell(build, "small", 12, "0.002")
    cheapest = indices.cheapest_qualifying([big, other, small])
    assert cheapest is big
    by_model, _ = _premiums([big, other, small], {"big": "a", "other-big": "b"}, cheapest)
    assert by_model["big"].premium == 1.0
    assert by_model["big"].note == "the flagship is itself the cheapest qualifying model"
    assert by_model["other-big"].premium == 4.0


def test_flagships_without_a_usable_cell_or_a_qualifier_have_no_premium(build) -> None:
    never = cell(build, "never", 0, "0.01")  # no successful outcome: no CPO
    void = cell(build, "void-big", 15, "0.01", void=["simulated"])
    weak = cell(build, "weak", 5, "0.001")
    by_model, order = _premiums(
        [never, void, weak], {"never": "a", "void-big": "b", "missing": "c"}, None
    )
    assert order == ["never", "missing", "void-big"]
    assert by_model["never"].line is None and by_model["never"].premium is None
    assert "no successful outcome" in by_model["never"].note
    assert by_model["void-big"].line is None and "no usable cell" in by_model["void-big"].note
    assert by_model["missing"].premium is None
    good = cell(build, "good-big", 15, "0.01")
    by_model, _ = _premiums([good, weak], {"good-big": "a"}, None)
    assert by_model["good-big"].premium is None
    assert by_model["good-big"].note == "no model qualifies: no premium"


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
