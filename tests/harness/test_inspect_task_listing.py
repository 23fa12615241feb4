"""The Inspect tasks are discoverable from the command line: `inspect list tasks` lists tasks in
`.py` files only, so `ledgerrate inspect-tasks` prints each task's name and how to run it."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.workloads import catalogue

REPO = Path(__file__).resolve().parents[2]


def test_every_task_is_listed_under_the_name_inspect_runs_it_by() -> None:
    result = CliRunner().invoke(app, ["inspect-tasks"])
    assert result.exit_code == 0, result.output
    listed = re.findall(r"^  ledgerrate/(\S+)  ", result.output, re.M)
    from ledgerrate.harness.inspect_tasks import TASKS

    # The names Inspect registered through the package's entry point.
    registered = {task.__name__ for task in TASKS.values()}
    assert sorted(listed) == sorted(registered) and len(listed) == len(catalogue.WORKLOADS)
    assert "ledgerrate/execute_month_end_v1  Mini month-end close" in result.output
    assert "-T mode=agentic)" in result.output


def test_an_editions_commands_use_its_models_and_key() -> None:
    edition = REPO / "editions" / "2026-12"
    result = CliRunner().invoke(app, ["inspect-tasks", str(edition)])
    assert result.exit_code == 0, result.output
    assert (
        f"inspect eval-set ledgerrate/query_nl2sql_v1 -T edition={edition} -T mode=agentic "
        "--model openai/smollm2-135m --log-dir logs/query_nl2sql_v1-agentic"
    ) in result.output
    assert "with the key in LOCAL_LLM_KEY" in result.output
    assert f"ledgerrate ingest {edition} logs/*/*.eval" in result.output
