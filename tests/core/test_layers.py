"""The layer contract (`.importlinter`): stages flow one way and the runner cannot grade."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT), "--config", str(REPO / ".importlinter"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_package_keeps_its_layers() -> None:
    result = _lint(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout or "broken" not in result.stdout.split("Contracts:")[-1]


def _lint_with_imports(tmp_path: Path, added: dict[str, str]) -> str:
    """Lint a copy of the package in which each module (a path under ledgerrate/) gains one
    import line; the contract must break. Returns lint-imports' report."""
    shutil.copytree(
        REPO / "ledgerrate", tmp_path / "ledgerrate", ignore=shutil.ignore_patterns("__pycache__")
    )
    for module, line in added.items():
        path = tmp_path / "ledgerrate" / module
        path.write_text(path.read_text() + f"\n{line}  # noqa\n")
    result = _lint(tmp_path)
    assert result.returncode != 0
    return result.stdout


def test_a_runner_that_imports_the_grader_breaks_the_contract(tmp_path: Path) -> None:
    """Blind grading: a relative import from run/ into grade/ (which a text search misses) and
    an adapter reaching up into the runner both break the build."""
    report = _lint_with_imports(
        tmp_path,
        {
            "run/agent.py": "from ..grade import stage as _peek",
            "providers/openai.py": "from ledgerrate.run import limits as _up",
        },
    )
    assert "ledgerrate.run.agent -> ledgerrate.grade.stage" in report
    assert "ledgerrate.providers.openai -> ledgerrate.run.limits" in report


def test_a_reader_that_imports_a_writer_for_a_path_breaks_the_contract(tmp_path: Path) -> None:
    """metrics and publish read reproduction grades and spot-check flags through layout; going
    back to the grading stage for them breaks the build."""
    report = _lint_with_imports(
        tmp_path,
        {
            "metrics/load.py": "from ledgerrate.grade import spotcheck",
            "publish/load.py": "from ledgerrate.grade import stage",
        },
    )
    assert "ledgerrate.metrics.load -> ledgerrate.grade.spotcheck" in report
    assert "ledgerrate.publish.load -> ledgerrate.grade.stage" in report


def test_a_family_that_imports_the_fake_server_breaks_the_contract(tmp_path: Path) -> None:
    """A family's fake wire shapes sit beside its adapter; reaching from there into the fake
    server (the test doubles) would load it in every real run, and breaks the build."""
    report = _lint_with_imports(
        tmp_path, {"providers/gemini.py": "from ledgerrate.testing import fake_shapes as _up"}
    )
    assert "ledgerrate.providers.gemini -> ledgerrate.testing.fake_shapes" in report


def test_an_engine_plugin_that_imports_the_build_breaks_the_contract(tmp_path: Path) -> None:
    """The build drives the site engine (publish/engine/run.py); a plug-in reaching back into
    publish/build.py, as parallel_pages.py once did for its warning collector, is a cycle."""
    report = _lint_with_imports(
        tmp_path,
        {"publish/engine/parallel_pages.py": "from ledgerrate.publish.build import build_site"},
    )
    assert "ledgerrate.publish.engine.parallel_pages -> ledgerrate.publish.build" in report


def test_the_root_modules_and_the_test_doubles_are_placed(tmp_path: Path) -> None:
    """The loose modules at the root are core: one reaching into a stage breaks the build, as do
    the command line importing the test doubles and a workload importing an adapter (providers
    and workloads share a layer and are independent)."""
    report = _lint_with_imports(
        tmp_path,
        {
            "core/steps.py": "from ledgerrate.publish import fmt as _up",
            "core/server_time.py": "from ledgerrate.run import limits as _up",
            "core/bundle_format.py": "from ledgerrate.verify import bundle as _up",
            "core/gc_policy.py": "from ledgerrate.metrics import cells as _up",
            "cli.py": "from ledgerrate.testing import fake_provider as _up",
            "workloads/answers.py": "from ledgerrate.providers import base as _up",
        },
    )
    for line in (
        "ledgerrate.core.steps -> ledgerrate.publish.fmt",
        "ledgerrate.core.server_time -> ledgerrate.run.limits",
        "ledgerrate.core.bundle_format -> ledgerrate.verify.bundle",
        "ledgerrate.core.gc_policy -> ledgerrate.metrics.cells",
        "ledgerrate.cli -> ledgerrate.testing.fake_provider",
        "ledgerrate.workloads.answers -> ledgerrate.providers.base",
    ):
        assert line in report, line
