"""`build`, `results` and `verify` on a real-sized scale set, side by side in one run.

The set is made by `scale_set.py` (register, run one model against the fake provider, grade,
replicate to every model id) and reused between runs. Each step runs in a fresh process on a
scratch copy (a first build records publications into the edition folders).

    .venv/bin/python benchmarks/scale_speed.py --sets /tmp/scale [--editions 1] [--models 40]

Targets (issue #11): 420k records (10 editions x ~215 models) build < 120 s wall and peak RSS
< 1.5 GB; `results` < 20 s; `verify` of one 7,800-record edition faster than building it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from measure import DEFAULT_GC_ENV, PEAK_KB, measure, timed_build
from scale_set import ensure_scale_set

RESULTS = """
import json, time
from ledgerrate.metrics.report import edition_results
t = time.process_time()
for edition in {editions!r}:
    text = edition_results(edition).model_dump_json(indent=2)
print(json.dumps({{"work_cpu_s": time.process_time() - t, "peak_rss_kb": {peak}}}))
"""
# `remember=False`: every run re-graded on its own. The scale set's models are copies of one
# model, so their answers agree and verify grades each distinct answer once; this row shows
# the cost of an edition in which no two answers agree (an upper bound for a real one).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", type=Path, required=True, help="where scale sets are kept")
    parser.add_argument("--editions", type=int, default=1)
    parser.add_argument("--models", type=int, default=40)
    parser.add_argument(
        "--no-rebuild", action="store_true", help="skip the no-change rebuild (build_speed.py's)"
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
        editions = Path(tmp) / "editions"
        shutil.copytree(source, editions)
        first = sorted(editions.iterdir())[0]
        every = [str(e) for e in sorted(editions.iterdir())]
        rows = [
            measure(
                f"results ({first.name})", RESULTS.format(editions=[str(first)], peak=PEAK_KB), env
            ),
            measure(
                f"verify ({first.name})",
                VERIFY.format(edition=str(first), remember=True, peak=PEAK_KB),
                env,
            ),
            measure(
                f"verify ({first.name}), no answer shared",
                VERIFY.format(edition=str(first), remember=False, peak=PEAK_KB),
                env,
            ),
            timed_build("build, cold", editions, Path(tmp) / "out", env=env),
        ]
        if not args.no_rebuild:
            rows.append(timed_build("build, no change", editions, Path(tmp) / "out", env=env))
        if len(every) > 1:
            rows.append(
                measure(
                    f"results (all {len(every)} editions)",
                    RESULTS.format(editions=every, peak=PEAK_KB),
                    env,
                )
            )
    print(f"scale set: {args.editions} edition(s) x {args.models} models, {records}")
    for row in rows:
        print(row.line())
    results, verify, unshared, cold = rows[:4]
    per_edition = cold.process_cpu_s / args.editions
    print(f"results wall = {results.wall_s:.1f} s, cpu {results.process_cpu_s:.1f} s (< 20 s)")
    print(f"build wall = {cold.wall_s:.1f} s, peak {cold.peak_rss_mb:.0f} MB")
    wall_per_edition = cold.wall_s / args.editions
    print(
        f"verify wall / build wall per edition: no answer shared "
        f"{unshared.wall_s / wall_per_edition:.3f}; as run "
        f"{verify.wall_s / wall_per_edition:.3f}  (< 1)"
    )
    # CPU last: both commands use every CPU (ledgerrate/forked.py), so the CPU ratio is the
    # work each does, whatever the machine's cores.
    print(
        f"verify CPU / build CPU per edition: no answer shared "
        f"{unshared.process_cpu_s / per_edition:.3f}; as run "
        f"{verify.process_cpu_s / per_edition:.3f}  (< 1)"
    )


if __name__ == "__main__":
    main()
