"""The build with the explore pages (per-cell run drill-downs, compare pages, table downloads,
gap chart, frontier) against the build without them, side by side in this one run.

"before" is the toolchain at the commit before the explore pages were added (exported with
`git archive` and imported ahead of the checkout through PYTHONPATH); "after" is this checkout.
Each build runs in a fresh process on its own scratch copy of the same editions:

  cold          empty build folder and cache
  one log       a re-grade appended to one grade log of the newest edition (same outcome):
                the pages of that cell are remade, every other drill-down comes from the cache

    .venv/bin/python benchmarks/drilldown_build.py [--editions editions] [--base REV]

`--editions` may name a scale set made by `benchmarks/scale_set.py` (10^3–10^4 runs). The last
line is the ratio the issue asks for: cold build CPU after ÷ before.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

# Run as a script, this folder is on sys.path, so its siblings import plainly.
from build_speed import regrade_once
from measure import PEAK_KB, REPO, TIMED_BUILD, Measured, measure


def timed_build(label: str, editions: Path, out: Path, env: dict[str, str]) -> Measured:
    code = TIMED_BUILD.format(editions=str(editions), out=str(out), engine="mkdocs", peak=PEAK_KB)
    return measure(label, code, env)


ADDED = "ledgerrate/publish/drilldown.py"


def base_commit() -> str:
    """The parent of the commit that added the drill-down module."""
    added = subprocess.run(
        ["git", "-C", str(REPO), "log", "--diff-filter=A", "--format=%H", "--", ADDED],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if not added:
        raise SystemExit(f"{ADDED} is not in this checkout's history; pass --base REV")
    return f"{added[-1]}^"


def export(rev: str, dest: Path) -> Path:
    """The package at `rev`, unpacked into `dest` (what PYTHONPATH puts first)."""
    data = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", rev, "ledgerrate"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(dest, filter="data")
    return dest


def build_pair(label: str, editions: Path, scratch: Path, env: dict[str, str]) -> list[Measured]:
    copy = scratch / f"editions-{label}"
    shutil.copytree(editions, copy)
    out = scratch / f"out-{label}"
    cold = timed_build(f"{label}: cold build", copy, out, env=env)
    newest = sorted(p for p in copy.iterdir() if (p / "edition.yaml").is_file())[-1]
    regrade_once(newest)
    one = timed_build(f"{label}: one grade log changed", copy, out, env=env)
    return [cold, one]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--editions", type=Path, default=REPO / "editions")
    parser.add_argument("--base", default=None, help="the 'before' revision")
    args = parser.parse_args()
    rev = args.base or base_commit()
    with tempfile.TemporaryDirectory(prefix="bench-drilldown-") as tmp:
        scratch = Path(tmp)
        old = export(rev, scratch / "before")
        before_env = {**os.environ, "PYTHONPATH": str(old)}
        after_env = {**os.environ, "PYTHONPATH": ""}
        editions = args.editions.resolve()
        # Interleaved so a change in the machine's load falls on both sides alike.
        before = build_pair("before", editions, scratch, before_env)
        after = build_pair("after", editions, scratch, after_env)
        runs = sum(1 for _ in editions.glob("*/runs/*/*/*.jsonl"))
        pages = sum(1 for _ in (scratch / "out-after" / "docs" / "runs").rglob("index.md"))
        for row in [*before, *after]:
            print(row.line())
        print(f"(before = {rev}; {runs} run logs; {pages} drill-down pages after)")
        for b, a in zip(before, after, strict=True):
            name = b.label.split(": ", 1)[1]
            print(
                f"{name:<22} after / before: cpu {a.process_cpu_s / b.process_cpu_s:.3f}  "
                f"wall {a.wall_s / b.wall_s:.3f}"
            )
        ratio = after[0].process_cpu_s / before[0].process_cpu_s
        print(f"cold build cpu, after / before = {ratio:.3f}")


if __name__ == "__main__":
    main()
