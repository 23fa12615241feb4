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

    .venv/bin/python benchmarks/build_speed.py [--editions editions] [--rounds 3]

The everyday steps (mkdocs, warm cache, no change) run in rounds, each round side by side on a
new checkout; each ratio is the median of the rounds' own ratios (work / that round's mkdocs).

Targets (issue #11): cold work <= 0.5 x mkdocs; no-change rebuild <= 0.05 x mkdocs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path

# Run as a script, this folder is on sys.path, so its sibling module imports plainly.
from measure import REPO, Measured, timed_build, timed_mkdocs

from ledgerrate.publish.carried import STATE


def regrade_once(edition: Path) -> str:
    """Append a new revision of the last grade of one log, same outcome: a legal change."""
    log = sorted((edition / "grades").glob("*/*/*.jsonl"))[-1]
    last = json.loads(log.read_bytes().splitlines()[-1])
    last["revision"] += 1
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(last, sort_keys=True, separators=(",", ":")) + "\n")
    return log.relative_to(edition).as_posix()


def yardstick_docs(out: Path, docs: Path) -> None:
    """The pages the build rendered, as mkdocs alone would be given the whole site: the docs
    folder, plus the folders the build carries past the engine (the drill-down's cell pages,
    the run and grade logs: `publish/carried.py`), copied from the built site at the paths the
    state file records. Without them the yardstick's links to those pages land on no file and
    `mkdocs build --strict` fails."""
    shutil.copytree(out / "docs", docs)
    record = json.loads((out / "state" / STATE).read_text(encoding="utf-8"))
    for rel in sorted(record["folders"]):
        top = out / "site" / rel

        def engines(folder: str, names: list[str], top: Path = top, rel: str = rel) -> list[str]:
            # A workload's items page is the engine's own (index.md in the docs).
            own = Path(folder) == top and (docs / rel / "index.md").is_file()
            return ["index.html"] if own else []

        shutil.copytree(top, docs / rel, dirs_exist_ok=True, ignore=engines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--editions", type=Path, default=REPO / "editions")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of the everyday steps (mkdocs, warm cache, no change); medians are reported",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        scratch = Path(tmp)
        cache = scratch / "machine-cache"  # stands in for ~/.cache/ledgerrate
        first = scratch / "checkout-1" / "editions"
        shutil.copytree(args.editions.resolve(), first)
        cold = timed_build(
            "cold (no build folder, no cache)", first, first.parent / "out", cache_dir=cache
        )
        yardstick_docs(first.parent / "out", scratch / "m" / "docs")
        # The machine's speed drifts by tens of percent within minutes, so the yardstick and
        # the steps it measures run in rounds, side by side, and each round gives its own ratio.
        rounds: list[tuple[Measured, Measured, Measured]] = []
        for n in range(args.rounds):
            mk = timed_mkdocs(
                "mkdocs build of the same pages", scratch / "m" / "docs", scratch / "m" / f"site{n}"
            )
            # A new checkout starts from the editions as the first build left them (their first
            # publications recorded), as a clone of the published repository would.
            checkout = scratch / f"checkout-{n + 2}" / "editions"
            shutil.copytree(first, checkout)
            out = checkout.parent / "out"
            warm = timed_build("cold, warm machine cache", checkout, out, cache_dir=cache)
            same = timed_build("no-change rebuild", checkout, out, cache_dir=cache)
            rounds.append((mk, warm, same))
        newest = sorted(p for p in checkout.iterdir() if (p / "edition.yaml").is_file())[-1]
        changed = regrade_once(newest)
        one = timed_build(f"one edition changed ({newest.name})", checkout, out, cache_dir=cache)
        for row in [cold, *(m for r in rounds for m in r), one]:
            print(row.line())
        print(f"(changed: {newest.name}/{changed})")
        base = statistics.median(mk.inner["work_cpu_s"] for mk, _, _ in rounds)

        def work(m: Measured) -> float:
            return m.inner["work_cpu_s"]

        def paired(step: int) -> tuple[float, list[float]]:
            each = [work(r[step]) / work(r[0]) for r in rounds]
            return statistics.median(each), each

        def whole(m: Measured, mk: Measured) -> float:
            # The whole child's CPU less the engine's, against the whole mkdocs child's.
            return (m.process_cpu_s - m.inner["engine_cpu_s"]) / mk.process_cpu_s

        last_mk = rounds[-1][0]
        wholes = {"cold": cold, "warm cache": rounds[-1][1], "no change": rounds[-1][2]}
        print(
            "whole process less engine / mkdocs whole process (last round): "
            + ", ".join(f"{name} {whole(m, last_mk):.3f}" for name, m in wholes.items())
        )
        warm_ratio, warm_each = paired(1)
        same_ratio, same_each = paired(2)
        shown = ", ".join
        print(
            f"rounds: warm {shown(f'{r:.3f}' for r in warm_each)}; "
            f"no change {shown(f'{r:.3f}' for r in same_each)}"
        )
        print(f"one-edition change work / mkdocs       = {work(one) / base:.3f}")
        print(
            f"no-change rebuild work / mkdocs        = {same_ratio:.3f}  (median; target <= 0.05)"
        )
        print(f"cold, warm machine cache work / mkdocs = {warm_ratio:.3f}  (median; target <= 0.5)")
        print(f"cold work / mkdocs                     = {work(cold) / base:.3f}  (target <= 0.5)")


if __name__ == "__main__":
    main()
