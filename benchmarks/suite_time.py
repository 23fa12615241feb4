"""`make test` in a fresh clone: this commit against a baseline commit, side by side.

Each side is what CI runs: `git clone` of this repository into a new temporary folder, the
commit checked out, then `CI=true bash .ci/run` (install, lint, the whole suite). The sides
alternate, round after round (baseline, commit, commit, baseline, ...), because a machine's
speed drifts by tens of percent within an hour; each round gives its own ratio and the median
is reported. Machine-wide caches (pip's and uv's wheels, the llama.cpp wheel) are warm on both
sides, as on a CI machine that has run before.

    .venv/bin/python benchmarks/suite_time.py [--baseline 513b609] [--commit HEAD] [--rounds 1]
        [--pytest-args '-m "not slow"']

`--pytest-args` is added to this commit's pytest command (the Makefile's PYTEST_ARGS), e.g. to
measure how much of the suite's time the slow end-to-end tests take; the baseline always runs
its whole suite.

Target (issue #12): this commit's wall time <= 0.6 x the baseline's. The baseline is 513b609,
the last commit before that issue was filed.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this folder is on sys.path, so its sibling module imports plainly.
from measure import REPO

BASELINE = "513b609"
# pytest's summary line, e.g. "1109 passed, 6 xfailed in 263.68s (0:04:23)".
_SUMMARY = re.compile(r"^=*\s*(\d+ passed.* in [\d.]+s).*$", re.MULTILINE)


@dataclass(frozen=True)
class Side:
    label: str
    commit: str
    wall_s: float
    summary: str

    def line(self) -> str:
        return f"{self.label:<28} {self.commit[:10]}  wall {self.wall_s:7.1f} s  {self.summary}"


def _resolve(commit: str) -> str:
    return subprocess.run(
        ["git", "rev-parse", "--verify", f"{commit}^{{commit}}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def fresh_clone_test(label: str, commit: str, scratch: Path, pytest_args: str = "") -> Side:
    """Clone, check out `commit`, run CI's command; the clock covers CI's command only."""
    clone = scratch / f"{label}-{time.monotonic_ns()}"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", commit], cwd=clone, check=True)
    # As on a fresh machine: no bytecode prefix of this checkout's venv leaks into the clone.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    env["CI"] = "true"
    command = ["bash", ".ci/run"]
    if pytest_args:
        if "PYTEST_ARGS" not in (clone / "Makefile").read_text():
            raise SystemExit(f"{commit[:10]}'s Makefile takes no PYTEST_ARGS: it would run all")
        command = ["make", "test", f"PYTEST_ARGS={pytest_args}"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise SystemExit(f"{label} ({commit[:10]}) failed:\n{output[-4000:]}")
    found = _SUMMARY.findall(output)
    return Side(label, commit, wall, found[-1] if found else "(no pytest summary)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pytest-args", default="", help="added to this commit's pytest")
    args = parser.parse_args()
    baseline, commit = _resolve(args.baseline), _resolve(args.commit)
    name = f"commit {args.pytest_args}".strip()
    ratios: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        for n in range(args.rounds):
            # Alternate which side goes first, so neither always runs on the cooler machine.
            order = [("baseline", baseline, ""), (name, commit, args.pytest_args)]
            if n % 2:
                order.reverse()
            sides = {
                label: fresh_clone_test(label, sha, Path(tmp), extra) for label, sha, extra in order
            }
            for side in sides.values():
                print(side.line(), flush=True)
            ratios.append(sides[name].wall_s / sides["baseline"].wall_s)
    each = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"rounds: {each}")
    print(f"make test wall, commit / baseline = {statistics.median(ratios):.2f}  (target <= 0.6)")


if __name__ == "__main__":
    main()
