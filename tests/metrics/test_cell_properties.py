"""Properties of whole assembled cells, not just of the CPO formula.

`test_money` shows cpo(spend, k + 1) <= cpo(spend, k) for the arithmetic alone; this checks that
the property survives everything between the logs and the figure: sitting choice, counted
attempts, infra exclusions (never in spend), model failures (in spend, counted as fails) and
grade revisions.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledgerrate.metrics.cells import cell_result

# Per item: its spend, how the counted attempt ended, and whether an infra-excluded attempt
# (with its own, uncounted spend) came before it.
ITEM = st.tuples(
    st.decimals(min_value="0", max_value="5", places=6, allow_nan=False),
    st.sampled_from(["pass", "fail", "model_failure"]),
    st.booleans(),
)


def _cell(build, plan, flipped: int | None):
    """Assemble and compute a cell from the plan; `flipped` turns that item's fail into a pass."""
    runs, grades = [], []
    for index, (usd, ending, infra_first) in enumerate(plan):
        item = f"item-{index + 1:02d}"
        attempt = 1
        if infra_first:
            runs.append(build.run(item, status="infra_excluded", usd="0.75"))
            attempt = 2
        status = "model_failure" if ending == "model_failure" else "completed"
        run = build.run(item, attempt=attempt, status=status, usd=str(usd))
        runs.append(run)
        if status == "completed":
            outcome = "pass" if ending == "pass" or index == flipped else "fail"
            # Revision 1 says the opposite: only the latest revision may count.
            first = "fail" if outcome == "pass" else "pass"
            grades += [build.grade(run, first), build.grade(run, outcome, revision=2)]
    data = build.assemble(runs, grades, n=len(plan))
    return cell_result(data, is_reference=False, seed=7, reps=20)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(plan=st.lists(ITEM, min_size=1, max_size=15), pick=st.integers(min_value=0))
def test_one_more_pass_at_equal_spend_never_raises_a_cells_cpo(build, plan, pick) -> None:
    fails = [i for i, (_, ending, _) in enumerate(plan) if ending == "fail"]
    if not fails:
        plan = [(plan[0][0], "fail", plan[0][2]), *plan[1:]]
        fails = [0]
    flipped = fails[pick % len(fails)]
    before = _cell(build, plan, None)
    after = _cell(build, plan, flipped)

    assert after.spend_usd == before.spend_usd  # equal spend: the flip changed only the grade
    assert after.passes == before.passes + 1
    assert after.cpo_usd is not None
    if before.cpo_usd is not None:
        assert after.cpo_usd <= before.cpo_usd
    # Infra-excluded attempts never enter spend; model failures always do.
    assert before.spend_usd == sum((usd for usd, _, _ in plan), Decimal(0))
