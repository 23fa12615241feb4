"""Stage progress: shown on a terminal, silent in pipes and CI logs."""

from __future__ import annotations

import io

from rich.console import Console

from ledgerrate.core.steps import Steps


def test_steps_count_on_a_terminal_and_stay_silent_in_a_pipe() -> None:
    shown = io.StringIO()
    with Steps("grade", 3, console=Console(file=shown, force_terminal=True, width=80)) as steps:
        steps.step("extract.invoice.v1 · m1 · single-shot")
        steps.step("extract.invoice.v1 · m1 · agentic")
        assert steps.done == 1  # the step under way is not yet done
    assert "grade:" in shown.getvalue()

    piped = io.StringIO()
    with Steps("grade", 3, console=Console(file=piped, force_terminal=False)) as steps:
        steps.step("a")
        steps.step("b")
    assert piped.getvalue() == ""
