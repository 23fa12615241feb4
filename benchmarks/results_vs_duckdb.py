"""`ledgerrate results` of one edition against DuckDB reading the same JSONL, side by side.

DuckDB (pinned in `requirements-bench.lock`, installed by `make bench`) counts, per cell, the
registered run records, the passes of their latest grades and their summed cost (exact
decimals); `results` computes the edition's figures as the command does. Each runs in a fresh
process, one after the other; then the two are compared cell by cell (records = `n`, passes,
spend to the last digit), so the ratio is between two computations that agree. On a scale set
every run is counted (one sitting, no infrastructure failure), which is what makes a count of
records comparable with `n`; on another edition the comparison says where they differ.

    .venv/bin/python benchmarks/results_vs_duckdb.py --sets /tmp/scale [--editions 1] \\
        [--models 215] [--baseline DIR]

With `--baseline DIR` (the package at another commit, e.g. `git archive <commit> | tar -x -C
DIR`), `results` runs on that code too, in the same run, and its `results.json` is compared
byte for byte with this checkout's: a change made for speed must not move a figure.

Target (issue #50): `results` <= 2x DuckDB over the same logs for one 215-model edition.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from decimal import Decimal
from pathlib import Path

from measure import PEAK_KB, measure
from scale_set import ensure_scale_set

RESULTS = """
import json
from pathlib import Path
from ledgerrate.metrics.report import edition_results
text = edition_results(Path({edition!r})).model_dump_json(indent=2)
Path({out!r}).write_text(text)
print(json.dumps({{"peak_rss_kb": {peak}}}))
"""

DUCKDB = """
import json
from pathlib import Path
import duckdb
root = {edition!r}
rows = duckdb.sql(f'''
WITH runs AS (
  SELECT workload, model, mode, run_id,
         CAST(cost.model_usd AS DECIMAL(38, 12)) + CAST(cost.compute_usd AS DECIMAL(38, 12))
           AS usd
  FROM read_ndjson('{{root}}/runs/*/*/*.jsonl', columns = {{{{
    workload: 'VARCHAR', model: 'VARCHAR', mode: 'VARCHAR', run_id: 'VARCHAR',
    kind: 'VARCHAR', cost: 'STRUCT(model_usd VARCHAR, compute_usd VARCHAR)'}}}})
  WHERE kind = 'registered'
), grades AS (
  SELECT run_id, arg_max(outcome, revision) AS outcome
  FROM read_ndjson('{{root}}/grades/*/*/*.jsonl', columns = {{{{
    run_id: 'VARCHAR', outcome: 'VARCHAR', revision: 'INTEGER'}}}})
  GROUP BY run_id
)
SELECT workload, model, mode, count(*) AS records,
       count(*) FILTER (WHERE outcome = 'pass') AS passes, sum(usd) AS spend
FROM runs LEFT JOIN grades USING (run_id)
GROUP BY ALL
''').fetchall()
cells = [[w, m, mode, n, p, str(s)] for w, m, mode, n, p, s in rows]
Path({out!r}).write_text(json.dumps(cells))
print(json.dumps({{"peak_rss_kb": {peak}}}))
"""


def disagreements(results: dict, cells: list[list]) -> list[str]:
    """Where the two computations differ, one line per cell (none when they agree)."""
    theirs = {(w, m, mode): (n, p, Decimal(s)) for w, m, mode, n, p, s in cells}
    ours = {
        (c["workload"], c["model"], c["mode"]): (c["n"], c["passes"], Decimal(c["spend_usd"]))
        for w in results["workloads"]
        for c in w["cells"]
    }
    lines = [f"{key}: results {ours.get(key)}, duckdb {theirs.get(key)}" for key in
             sorted(set(ours) | set(theirs)) if ours.get(key) != theirs.get(key)]  # fmt: skip
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", type=Path, required=True, help="where scale sets are kept")
    parser.add_argument("--editions", type=int, default=1)
    parser.add_argument("--models", type=int, default=215)
    parser.add_argument("--baseline", type=Path, help="another checkout, measured side by side")
    args = parser.parse_args()
    source = ensure_scale_set(args.sets.resolve(), args.editions, args.models)
    edition = sorted(source.iterdir())[0]
    env = {**os.environ, "LEDGERRATE_PRIVATE_DIR": str(source.parent / "private")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="bench-duckdb-") as tmp:
        ours, theirs = Path(tmp) / "results.json", Path(tmp) / "duckdb.json"
        args_ = {"edition": str(edition), "peak": PEAK_KB}
        # Each once before timing: the bytecode cache and the page cache warm for both.
        measure("(warm)", RESULTS.format(out=str(ours), **args_), env)
        measure("(warm)", DUCKDB.format(out=str(theirs), **args_), env)
        mine = measure(f"results ({edition.name})", RESULTS.format(out=str(ours), **args_), env)
        duck = measure(f"duckdb ({edition.name})", DUCKDB.format(out=str(theirs), **args_), env)
        differ = disagreements(json.loads(ours.read_text()), json.loads(theirs.read_text()))
        cells = len(json.loads(theirs.read_text()))
        before = None
        if args.baseline is not None:
            base_out = Path(tmp) / "baseline.json"
            code = RESULTS.format(out=str(base_out), **args_)
            cwd = args.baseline.resolve()
            measure("(warm)", code, env, cwd=cwd)
            before = measure(f"baseline results ({edition.name})", code, env, cwd=cwd)
            same = base_out.read_bytes() == ours.read_bytes()
    print(f"edition {edition.name} of {source.parent.name}; bytecode cache allowed")
    for row in (mine, duck) if before is None else (mine, duck, before):
        print(row.line())
    print(f"cells compared: {cells}; disagreeing: {len(differ)}")
    for line in differ[:10]:
        print(f"  {line}")
    print(
        f"results / duckdb: wall {mine.wall_s / duck.wall_s:.2f}, "
        f"cpu {mine.process_cpu_s / duck.process_cpu_s:.2f}  (<= 2)"
    )
    if before is not None:
        print(
            f"baseline results / duckdb: wall {before.wall_s / duck.wall_s:.2f}, "
            f"cpu {before.process_cpu_s / duck.process_cpu_s:.2f}"
        )
        print(
            f"results / baseline: wall {mine.wall_s / before.wall_s:.2f}, "
            f"cpu {mine.process_cpu_s / before.process_cpu_s:.2f}; results.json byte-identical: "
            f"{'yes' if same else 'NO'}"
        )


if __name__ == "__main__":
    main()
