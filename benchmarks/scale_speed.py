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

from measure import PEAK_KB, measure, timed_build
from scale_set import ensure_scale_set

RESULTS = """
import json, time
from ledgerrate.metrics.report import edition_results
t = time.process_time()
text = edition_results({edition!r}).model_dump_json(indent=2)
print(json.dumps({{"work_cpu_s": time.process_time() - t, "peak_rss_kb": {peak}}}))
"""
VERIFY = """
import json, time
from pathlib import Path
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
    args = parser.parse_args()
    source = ensure_scale_set(args.sets.resolve(), args.editions, args.models)
    private = source.parent / "private"
    env = {**os.environ, "LEDGERRATE_PRIVATE_DIR": str(private)}
    records = (source.parent / "DONE").read_text().strip()
    with tempfile.TemporaryDirectory(prefix="bench-scale-", dir=args.sets) as tmp:
        editions = Path(tmp) / "editions"
        shutil.copytree(source, editions)
        first = sorted(editions.iterdir())[0]
        rows = [
            measure(
                f"results ({first.name})", RESULTS.format(edition=str(first), peak=PEAK_KB), env
            ),
            measure(f"verify ({first.name})", VERIFY.format(edition=str(first), peak=PEAK_KB), env),
            timed_build("build, cold", editions, Path(tmp) / "out", env=env),
            timed_build("build, no change", editions, Path(tmp) / "out", env=env),
        ]
    print(f"scale set: {args.editions} edition(s) x {args.models} models, {records}")
    for row in rows:
        print(row.line())
    results, verify, cold, _ = rows
    per_edition = cold.process_cpu_s / args.editions
    print(f"results wall = {results.wall_s:.1f} s (target < 20 s)")
    print(f"build wall = {cold.wall_s:.1f} s, peak {cold.peak_rss_mb:.0f} MB")
    print(f"verify CPU / build CPU per edition = {verify.process_cpu_s / per_edition:.3f}  (< 1)")


if __name__ == "__main__":
    main()
