from __future__ import annotations

import re

from ledgerrate.run.rawlog import plan_sitting, run_id


def test_run_ids_are_deterministic_and_distinct() -> None:
    base = ("2026-07", 1, "toy.add.v1", "m1", "single-shot", "item-00", 1)
    assert run_id(*base) == run_id(*base)
    assert re.fullmatch(r"r-[0-9a-f]{24}", run_id(*base))
    variants = {run_id(*base[:i], "x" if isinstance(v, str) else v + 1, *base[i + 1 :])
                for i, v in enumerate(base)}  # fmt: skip
    assert len(variants) == len(base) and run_id(*base) not in variants


def test_plan_for_an_empty_log_is_sitting_one() -> None:
    plan = plan_sitting([], ["a", "b"], new_sitting=True)
    assert plan.sitting == 1 and plan.todo == {"a": 1, "b": 1}
