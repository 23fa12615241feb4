"""The round trip's pieces: a registered edition served by the scripted fake, and the commands.

Every stage of the round trip runs as the command a user types (`ledgerrate …`, `inspect eval
…`) in a subprocess, so the entry point, the CLI and the files on disk are what is tested; checks
whose subprocess path the round trip already takes may run the same CLI app in process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.core.io import write_yaml
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.grade.stage import grade_edition
from ledgerrate.metrics.report import edition_results
from ledgerrate.testing.fake_provider import FakeProviderServer
from ledgerrate.verify.run import verify_path
from ledgerrate.workloads import catalogue
from tests.harness.scripted import Script

BIN = Path(sys.executable).parent
WORKLOAD = "query.nl2sql.v2"
TASK = "ledgerrate/query_nl2sql_v2"
MODEL = "m1"
API_MODEL = "scripted"
# Inspect's OpenAI-compatible provider, pointed at the fake by FAKE_BASE_URL / FAKE_API_KEY.
INSPECT_MODEL = f"openai-api/fake/{API_MODEL}"
N = 4


def write_edition(root: Path, base_url: str, opens: Any, closes: Any) -> None:
    write_yaml(
        root / "edition.yaml",
        {
            "id": root.name,
            "date": opens.date().isoformat(),
            "methodology_version": "1.0",
            "window": {"opens": opens.isoformat(), "closes": closes.isoformat()},
            "workloads": [{"id": WORKLOAD, "n": N, "n_reason": "test fixture: a small n"}],
            "models": [
                {
                    "id": MODEL,
                    "name": "Scripted model",
                    "provider": "openai",
                    "family": "openai",
                    "api_model": API_MODEL,
                    "base_url": base_url,
                    "api_key_env": "FAKE_KEY",
                    "sampling": {"temperature": 0},
                }
            ],
        },
    )
    write_yaml(
        root / "pricing.yaml",
        {
            "frozen_at": opens.isoformat(),
            "models": {
                MODEL: {
                    "input_per_mtok": "2.50",
                    "output_per_mtok": "10.00",
                    "cached_input_per_mtok": "1.25",
                    "source_url": "https://example.invalid/prices",
                    "retrieved_at": opens.isoformat(),
                }
            },
        },
    )


@dataclass
class Bench:
    """A registered edition (kept pristine in `registered`), its private seeds and the fake."""

    registered: Path
    private: Path
    fake: FakeProviderServer
    work: Path

    def copy(self, name: str) -> Path:
        """A copy of the registered edition under `work/name/` (same edition id, same seeds)."""
        target = self.work / name / self.registered.name
        shutil.copytree(self.registered, target)
        return target

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "LEDGERRATE_PRIVATE_DIR": str(self.private),
            "FAKE_KEY": "sk-fake-roundtrip",
            "FAKE_BASE_URL": self.fake.base_url("openai"),
            "FAKE_API_KEY": "sk-fake-roundtrip",
            "NO_COLOR": "1",
        }

    def grade(self, edition: Path) -> None:
        grade_edition(edition)

    def verified(self, edition: Path) -> bool:
        report = verify_path(edition)
        assert report.ok, "\n".join(report.lines())
        return report.ok

    def cli(
        self, *args: str | Path, check: bool = True, in_process: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """`ledgerrate <args>` as a user types it, in a subprocess; `in_process`: the same CLI
        app in this process, for checks whose subprocess path another test already takes (a
        `ledgerrate` process spends seconds on imports alone, ten and more on a loaded machine);
        its datasets then come from this process's cache (tests/conftest.py)."""
        if in_process:
            outcome = CliRunner().invoke(app, list(map(str, args)), env=self.env())
            if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
                raise outcome.exception
            result = subprocess.CompletedProcess(
                list(map(str, args)), outcome.exit_code, outcome.stdout, outcome.stderr
            )
        else:
            result = subprocess.run(
                [str(BIN / "ledgerrate"), *map(str, args)],
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=600,
            )
        if check:
            assert result.returncode == 0, result.stdout + result.stderr
        return result

    def inspect_eval(self, edition: Path, mode: str, log_dir: Path) -> Path:
        result = subprocess.run(
            [
                str(BIN / "inspect"),
                "eval",
                TASK,
                "-T",
                f"edition={edition}",
                "-T",
                f"mode={mode}",
                "--model",
                INSPECT_MODEL,
                "--log-dir",
                str(log_dir),
                "--display",
                "none",
            ],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        logs = sorted(log_dir.glob("*.eval"))
        assert len(logs) == 1, logs
        return logs[0]

    def results(self, edition: Path) -> dict[tuple[str, str], dict[str, Any]]:
        """The cells of `ledgerrate results --json`, computed in this process (a subprocess per
        call costs minutes on a loaded test machine; `results` prints this same model)."""
        data = edition_results(edition).model_dump(mode="json")
        return {
            (cell["model"], cell["mode"]): cell
            for workload in data["workloads"]
            for cell in workload["cells"]
        }


def make_bench(work: Path, now: Any, hours: int = 3) -> Bench:
    import datetime as dt

    private = work / "private"
    os.environ["LEDGERRATE_PRIVATE_DIR"] = str(private)
    script = Script([])
    fake = FakeProviderServer(responder=script.responder)
    fake.start()
    root = work / "registered" / "rt-1"
    opens = now - dt.timedelta(hours=1)
    write_edition(root, fake.base_url("openai"), opens, opens + dt.timedelta(hours=hours))
    # The test session escrows seeds to its own throwaway key (tests/conftest.py).
    register_edition(root)
    workload = catalogue.get(WORKLOAD)
    fresh = Script([(workload, dataset_for(root, WORKLOAD))])
    script.answers.update(fresh.answers)
    return Bench(root, private, fake, work)
