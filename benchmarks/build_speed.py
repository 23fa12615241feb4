"""`ledgerrate build`: the toolchain's own work against `mkdocs build` of the same pages.

Measured side by side in this one run, each step in a fresh process, on scratch copies of the
editions (a first build records publications into the edition folders):

  cold            no build folder and an empty products cache: every dataset, PDF, gzip,
                  bundle and chart is made
  mkdocs          `mkdocs build --strict` of the pages the cold build rendered (the yardstick)
  warm cache      a fresh checkout (another copy of the editions, no build folder) on a machine
                  whose products cache the cold build filled: the everyday first build
  no change       the same build again
  one edition     a re-grade appended to one grade log of the newest edition (same outcome, so
                  no figure changes and no erratum is needed): what depends on it is redone

"work" is the build's CPU less the CPU spent inside the site generator (mkdocs), both measured
inside the child after `ledgerrate.publish.build` is imported (mkdocs' own imports count on both
sides); "whole process" also counts interpreter start-up and every import, on both sides.

    .venv/bin/python benchmarks/build_speed.py [--editions editions]

Targets (issue #11): cold work <= 0.5 x mkdocs; no-change rebuild <= 0.05 x mkdocs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

# Run as a script, this folder is on sys.path, so its sibling module imports plainly.
from measure import REPO, Measured, timed_build, timed_mkdocs


def regrade_once(edition: Path) -> str:
    """Append a new revision of the last grade of one log, same outcome: a legal change."""
    log = sorted((edition / "grades").glob("*/*/*.jsonl"))[-1]
    last = json.loads(log.read_bytes().splitlines()[-1])
    last["revision"] += 1
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(last, sort_keys=True, separators=(",", ":")) + "\n")
    return log.relative_to(edition).as_posix()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--editions", type=Path, default=REPO / "editions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        scratch = Path(tmp)
        cache = scratch / "machine-cache"  # stands in for ~/.cache/ledgerrate
        first, second = scratch / "checkout-1" / "editions", scratch / "checkout-2" / "editions"
        shutil.copytree(args.editions.resolve(), first)
        cold = timed_build(
            "cold (no build folder, no cache)", first, first.parent / "out", cache_dir=cache
        )
        # The second checkout starts from the editions as the first build left them (its first
        # publications recorded), as a clone of the published repository would.
        shutil.copytree(first, second)
        shutil.copytree(first.parent / "out" / "docs", scratch / "m" / "docs")
        mk = timed_mkdocs(
            "mkdocs build of the same pages", scratch / "m" / "docs", scratch / "m" / "site"
        )
        out = second.parent / "out"
        warm = timed_build("cold, warm machine cache", second, out, cache_dir=cache)
        same = timed_build("no-change rebuild", second, out, cache_dir=cache)
        newest = sorted(p for p in second.iterdir() if (p / "edition.yaml").is_file())[-1]
        changed = regrade_once(newest)
        one = timed_build(f"one edition changed ({newest.name})", second, out, cache_dir=cache)
        rows: list[Measured] = [cold, mk, warm, same, one]
        for row in rows:
            print(row.line())
        print(f"(changed: {newest.name}/{changed})")
        base = mk.inner["work_cpu_s"]

        def ratio(m: Measured) -> float:
            return m.inner["work_cpu_s"] / base

        def whole(m: Measured) -> float:
            # The whole child's CPU less the engine's, against the whole mkdocs child's.
            return (m.process_cpu_s - m.inner["engine_cpu_s"]) / mk.process_cpu_s

        wholes = {"cold": cold, "warm cache": warm, "no change": same, "one edition": one}
        print(
            "whole process less engine / mkdocs whole process: "
            + ", ".join(f"{name} {whole(m):.3f}" for name, m in wholes.items())
        )
        print(f"one-edition change work / mkdocs       = {ratio(one):.3f}")
        print(f"no-change rebuild work / mkdocs        = {ratio(same):.3f}  (target <= 0.05)")
        print(f"cold, warm machine cache work / mkdocs = {ratio(warm):.3f}  (target <= 0.5)")
        print(f"cold work / mkdocs                     = {ratio(cold):.3f}  (target <= 0.5)")


if __name__ == "__main__":
    main()
