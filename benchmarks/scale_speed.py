"""`build`, `results` and `verify` on a real-sized scale set, side by side in one run.

The set is made by `scale_set.py` (register, run one model against the fake provider, grade,
replicate to every model id) and reused between runs. Each step runs in a fresh process on a
scratch copy (a first build records publications into the edition folders).

    .venv/bin/python benchmarks/scale_speed.py --sets /tmp/scale [--editions 1] [--models 40]

Targets (issue #11): 420k records (10 editions x ~215 models) build < 120 s wall and peak RSS
< 1.5 GB; `results` < 20 s; `verify` of one 7,800-record edition faster than building it.
Issue #50: `verify` of one 215-model edition <= 500 MB peak (with `--baseline`, verify runs on
the other checkout too and the ratio of the two peaks is printed); the site of every edition,
raw logs aside, <= 600 MB (target 6, printed for each side); `results` <= 2x DuckDB over the
same logs of the first edition (target 5, when `make bench` has installed DuckDB; the two are
compared cell by cell as `results_vs_duckdb.py` does). Target 7 is on the bundled editions:
`build_speed.py`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from measure import (
    DEFAULT_GC_ENV,
    PEAK_KB,
    REPO,
    Measured,
    measure,
    site_size_line,
    timed_build,
)
from results_vs_duckdb import DUCKDB, disagreements
from scale_set import ensure_scale_set

RESULTS = """
import json, time
from pathlib import Path
from ledgerrate.metrics.report import edition_results
t = time.process_time()
for i, edition in enumerate({editions!r}):
    text = edition_results(edition).model_dump_json(indent=2)
    if {out!r} and i == 0:  # the first edition's figures, to compare with DuckDB's counts
        Path({out!r}).write_text(text)
print(json.dumps({{"work_cpu_s": time.process_time() - t, "peak_rss_kb": {peak}}}))
"""
# `remember=False`: every run re-graded on its own. The scale set's models are copies of one
# model, so their answers agree and verify grades each distinct answer once; this row shows
# the cost of an edition in which no two answers agree (an upper bound for a real one).
# The whole command, as a user runs it: its imports are most of a build with nothing to do.
COMMAND = """
import json, sys
sys.argv = ["ledgerrate", *{args!r}]
from ledgerrate.cli import app
try:
    app()
except SystemExit as done:
    if done.code not in (0, None):
        raise
print(json.dumps({{"peak_rss_kb": {peak}}}))
"""
WARM = """
import ledgerrate.cli, ledgerrate.publish.build, ledgerrate.publish.render, ledgerrate.publish.pdf
import ledgerrate.verify.run, ledgerrate.metrics.report, ledgerrate.publish.engine.run
from ledgerrate.workloads import registry
registry()
"""
# Issue #50 target 5: verify of one 215-model edition holds at most this much at its peak.
VERIFY_PEAK_TARGET_MB = 500
# A page template an upgrade might reword; no cached product is rendered from it.
PAGE_TEMPLATE = Path("ledgerrate/site/templates/workload.md.j2")

VERIFY = """
import json, time
from functools import partial
from pathlib import Path
from ledgerrate.verify import run
if not {remember!r}:
    run.check_grades = partial(run.check_grades, remember=False)
from ledgerrate.verify.run import verify_path
t = time.process_time()
report = verify_path(Path({edition!r}))
assert report.ok, report.lines()[:5]
print(json.dumps({{"work_cpu_s": time.process_time() - t, "peak_rss_kb": {peak}}}))
"""


@dataclass
class Side:
    name: str
    code: Path  # a scratch copy of the checkout's code
    env: dict[str, str]


def _side(name: str, checkout: Path, scratch: Path, env: dict[str, str]) -> Side:
    code = scratch / f"code-{name}"
    shutil.copytree(
        checkout / "ledgerrate", code / "ledgerrate", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy2(checkout / "mkdocs.yml", code / "mkdocs.yml")
    # One bytecode cache for both sides (their sources have different paths), the caller's if
    # it has one, so the libraries' bytecode is warm; each side's own code is compiled here.
    prefix = env.get("PYTHONPYCACHEPREFIX") or str(scratch / "pycache")
    env = {**env, "PYTHONPYCACHEPREFIX": prefix}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    measure(f"(compile {name})", WARM, env, cwd=code)
    return Side(name, code, env)


def _builds(side: Side, source: Path, scratch: Path, rebuild: bool) -> list[Measured]:
    """Cold, nothing changed (the command), one page template changed (the command), and,
    with more than one edition in the set, the last edition added (the cold build is then of
    the others: the added edition's products must not be in the cache yet)."""
    editions = scratch / f"editions-{side.name}"
    shutil.copytree(source, editions)
    found = sorted(editions.iterdir())
    later = found[-1] if rebuild and len(found) > 1 else None
    if later is not None:
        (scratch / f"held-back-{side.name}").mkdir()
        later = later.rename(scratch / f"held-back-{side.name}" / later.name)
    out = scratch / f"out-{side.name}"
    command = ["build", "--editions", str(editions), "--out", str(out)]
    env = {**side.env, "LEDGERRATE_CACHE_DIR": f"{out}.cache"}
    rows = [timed_build(f"[{side.name}] build, cold", editions, out, env=side.env, cwd=side.code)]
    if not rebuild:
        return rows
    code = COMMAND.format(args=command, peak=PEAK_KB)
    rows.append(measure(f"[{side.name}] build, no change (command)", code, env, cwd=side.code))
    template = side.code / PAGE_TEMPLATE
    template.write_text(template.read_text(encoding="utf-8") + "{# reworded #}\n")
    rows.append(
        measure(f"[{side.name}] build, one page template changed", code, env, cwd=side.code)
    )
    if later is not None:
        later.rename(editions / later.name)
        rows.append(measure(f"[{side.name}] build, one edition added", code, env, cwd=side.code))
    return rows


def _duckdb(edition: Path, figures: Path, side: Side) -> tuple[Measured, Measured, int] | None:
    """Target 5's speed half: `results` of `edition` and DuckDB's per-cell counts over the same
    JSONL, one after the other (each once before, to warm both), and how many cells disagree.
    None when DuckDB is not installed (`make bench` installs it)."""
    if importlib.util.find_spec("duckdb") is None:
        return None
    counts = figures.with_name("duckdb.json")
    ours = RESULTS.format(editions=[str(edition)], out=str(figures), peak=PEAK_KB)
    theirs = DUCKDB.format(edition=str(edition), out=str(counts), peak=PEAK_KB)
    measure("(warm)", ours, side.env, cwd=side.code)
    measure("(warm)", theirs, side.env, cwd=side.code)
    mine = measure(f"results ({edition.name}), to compare", ours, side.env, cwd=side.code)
    duck = measure(f"duckdb ({edition.name})", theirs, side.env, cwd=side.code)
    differ = disagreements(json.loads(figures.read_text()), json.loads(counts.read_text()))
    return mine, duck, len(differ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", type=Path, required=True, help="where scale sets are kept")
    parser.add_argument("--editions", type=int, default=1)
    parser.add_argument("--models", type=int, default=40)
    parser.add_argument("--baseline", type=Path, help="another checkout, measured side by side")
    parser.add_argument(
        "--no-rebuild", action="store_true", help="only the cold build, no rebuilds"
    )
    parser.add_argument(
        "--skip-unshared", action="store_true", help="skip verify with no answer shared"
    )
    parser.add_argument(
        "--default-gc",
        action="store_true",
        help="children at Python's default collector pace, not the commands' batch pace",
    )
    args = parser.parse_args()
    source = ensure_scale_set(args.sets.resolve(), args.editions, args.models)
    private = source.parent / "private"
    env = {**os.environ, "LEDGERRATE_PRIVATE_DIR": str(private)}
    if args.default_gc:
        env[DEFAULT_GC_ENV] = "1"
    records = (source.parent / "DONE").read_text().strip()
    with tempfile.TemporaryDirectory(prefix="bench-scale-", dir=args.sets) as tmp:
        scratch = Path(tmp)
        sides = [_side("this", REPO, scratch, env)]
        if args.baseline is not None:
            sides.append(_side("baseline", args.baseline.resolve(), scratch, env))
        this = sides[0]
        editions = scratch / "editions"
        shutil.copytree(source, editions)
        first = sorted(editions.iterdir())[0]
        every = [str(e) for e in sorted(editions.iterdir())]
        figures = scratch / "results.json"
        rows = [
            measure(
                f"results ({first.name})",
                RESULTS.format(editions=[str(first)], out="", peak=PEAK_KB),
                this.env,
                cwd=this.code,
            ),
            measure(
                f"verify ({first.name})",
                VERIFY.format(edition=str(first), remember=True, peak=PEAK_KB),
                this.env,
                cwd=this.code,
            ),
        ]
        duck = _duckdb(first, figures, this)
        baseline_verify = None
        if args.baseline is not None:
            other = sides[1]
            baseline_verify = measure(
                f"[baseline] verify ({first.name})",
                VERIFY.format(edition=str(first), remember=True, peak=PEAK_KB),
                other.env,
                cwd=other.code,
            )
            rows.append(baseline_verify)
        unshared = None
        if not args.skip_unshared:
            unshared = measure(
                f"verify ({first.name}), no answer shared",
                VERIFY.format(edition=str(first), remember=False, peak=PEAK_KB),
                this.env,
                cwd=this.code,
            )
            rows.append(unshared)
        builds = {side.name: _builds(side, source, scratch, not args.no_rebuild) for side in sides}
        # Target 6, on the site as the last build left it (every edition, once one was added).
        sizes = {
            side.name: site_size_line(
                scratch / f"out-{side.name}" / "site", f"[{side.name}] site ({len(every)} editions)"
            )
            for side in sides
        }
        if len(every) > 1:
            rows.append(
                measure(
                    f"results (all {len(every)} editions)",
                    RESULTS.format(editions=every, out="", peak=PEAK_KB),
                    this.env,
                    cwd=this.code,
                )
            )
    print(f"scale set: {args.editions} edition(s) x {args.models} models, {records}")
    print("children: bytecode cache allowed (PYTHONDONTWRITEBYTECODE unset)")
    for row in rows + [r for side in builds.values() for r in side]:
        print(row.line())
    results, verify = rows[:2]
    cold = builds["this"][0]
    built = args.editions - 1 if len(builds["this"]) > 3 else args.editions
    per_edition = cold.process_cpu_s / built
    print(f"results wall = {results.wall_s:.1f} s, cpu {results.process_cpu_s:.1f} s")
    if duck is None:
        print("results / duckdb: not measured (DuckDB is not installed: make bench)")
    else:
        mine, theirs, differ = duck
        print(mine.line())
        print(theirs.line())
        print(
            f"results / duckdb ({first.name}): wall {mine.wall_s / theirs.wall_s:.2f}, cpu "
            f"{mine.process_cpu_s / theirs.process_cpu_s:.2f} (<= 2); cells disagreeing: {differ}"
        )
    print(
        f"build, cold ({built} edition(s)): wall {cold.wall_s:.1f} s (<= 120 s at 10 x 215), cpu "
        f"{cold.process_cpu_s:.1f} s, peak {cold.peak_rss_mb:.0f} MB (<= 1.5 GB)"
    )
    if not args.no_rebuild:
        nothing, template = builds["this"][1:3]
        print(
            f"build, no change (command): wall {nothing.wall_s:.2f} s, cpu "
            f"{nothing.process_cpu_s:.2f} s (<= 1 s)"
        )
        print(
            f"build, one page template changed: wall {template.wall_s:.1f} s, cpu "
            f"{template.process_cpu_s:.1f} s (<= 30 s)"
        )
    if len(builds["this"]) > 3:
        added = builds["this"][3]
        print(
            f"build, one edition added: cpu {added.process_cpu_s:.1f} s = "
            f"{added.process_cpu_s / per_edition:.2f} x one edition's cold cpu (<= 1 + a constant)"
        )
    if "baseline" in builds:
        for mine, theirs in zip(builds["this"], builds["baseline"], strict=True):
            label = mine.label.removeprefix("[this] ")
            print(
                f"{label}: this / baseline  cpu "
                f"{mine.process_cpu_s / theirs.process_cpu_s:.3f}  wall "
                f"{mine.wall_s / theirs.wall_s:.3f}"
            )
    for line, _ in sizes.values():
        print(line)
    if "baseline" in sizes:
        ratio = sizes["this"][1] / sizes["baseline"][1]
        print(f"site, raw logs aside: this / baseline {ratio:.3f}")
    wall_per_edition = cold.wall_s / built
    print(
        f"verify wall / build wall per edition: as run {verify.wall_s / wall_per_edition:.3f}"
        "  (< 1)"
    )
    # CPU last: both commands use every CPU (ledgerrate/core/forked.py), so the CPU ratio is the
    # work each does, whatever the machine's cores.
    print(
        f"verify CPU / build CPU per edition: as run "
        f"{verify.process_cpu_s / per_edition:.3f}  (< 1)"
    )
    print(
        f"verify peak ({first.name}): {verify.peak_rss_mb:.0f} MB "
        f"(<= {VERIFY_PEAK_TARGET_MB} MB, so {verify.peak_rss_mb / VERIFY_PEAK_TARGET_MB:.2f} x "
        "the target)"
    )
    if baseline_verify is not None:
        print(
            f"verify: this / baseline  peak {verify.peak_rss_mb / baseline_verify.peak_rss_mb:.3f}"
            f"  cpu {verify.process_cpu_s / baseline_verify.process_cpu_s:.3f}  wall "
            f"{verify.wall_s / baseline_verify.wall_s:.3f}"
        )
    if unshared is not None:
        print(
            f"verify CPU / build CPU per edition, no answer shared: "
            f"{unshared.process_cpu_s / per_edition:.3f}  (< 1)"
        )


if __name__ == "__main__":
    main()
