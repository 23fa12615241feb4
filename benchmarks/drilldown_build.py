"""The build with the per-cell drill-down pages against the same build without them, side by
side in this one run, on the bundled editions or on a real-sized scale set.

Both sides are this checkout. "without" is the same build with the drill-down stage switched
off in the child process (`render_drilldowns` writes nothing, and the results tables' "N runs"
cells are plain text instead of links, so `mkdocs --strict` sees no dangling link); "with" is
the build as shipped. Each build runs in a fresh process on its own scratch copy of the same
editions (a first build seals publications into the edition folders), with its own cache
folder (`$LEDGERRATE_CACHE_DIR`), never the machine's:

  pages cold    every page made anew, the datasets, PDFs, charts and gzips from a cache that an
                untimed build filled first: the build of an edition whose records are new, and
                the ratio the issue asks for (the drill-down pages against everything else)
  cold          (--cold) an empty cache as well: datasets and PDFs regenerated, the same on
                both sides, so this ratio is diluted by them
  one log       (--one-log) a re-grade appended to one grade log of the newest edition (same
                outcome), after "pages cold": that cell's page is remade, the rest from the cache

For each build: the toolchain's CPU and wall, the share of it spent inside mkdocs, and the
drill-down stage's own CPU; then the sizes of the "with" site, on disk as `du` counts them:
the whole, without the raw logs (`data/<edition>/runs|grades|probes|bodies`), and `runs/`.
The sides run interleaved (`--rounds`: without, with, without, ...) and the least CPU of each
side is kept, so a burst of load on a shared machine falls on both.

    .venv/bin/python benchmarks/drilldown_build.py [--editions editions]
    .venv/bin/python benchmarks/drilldown_build.py --scale /work/scale/q20   # 40 models: 7,800 runs
    ... --cold        # also the builds from an empty cache
    ... --profile     # then one more "with" build, its drill-down stage under cProfile

`--scale OUT` makes (once, cached under OUT) or reuses the set of `benchmarks/scale_set.py`. The
last line is the ratio the issue asks for: "pages cold" build CPU with ÷ without the drill-down
pages.
"""

from __future__ import annotations

import argparse
import os
import pstats
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this folder is on sys.path, so its siblings import plainly.
from build_speed import regrade_once
from measure import PEAK_KB, REPO, Measured, disk_use, measure
from scale_set import ensure_scale_set

from ledgerrate.publish.cache import CACHE_ENV

# The child: one build, with the drill-down stage timed (and optionally profiled) or switched
# off. mkdocs runs in-process (build.run_engine), so its CPU is the process time around it.
CHILD = """
import cProfile, json, time
from pathlib import Path
from markupsafe import Markup
from ledgerrate.publish import build as b, drilldown as d
spent = {{"engine_cpu_s": 0.0, "engine_wall_s": 0.0, "drill_cpu_s": 0.0, "drill_wall_s": 0.0}}
real_engine, real_drill = b.run_engine, d.render_drilldowns
def engine(*args, **kwargs):
    t, w = time.process_time(), time.perf_counter()
    real_engine(*args, **kwargs)
    spent["engine_cpu_s"] += time.process_time() - t
    spent["engine_wall_s"] += time.perf_counter() - w
def drill(*args, **kwargs):
    t, w = time.process_time(), time.perf_counter()
    if {profile!r}:
        prof = cProfile.Profile()
        written = prof.runcall(real_drill, *args, **kwargs)
        prof.dump_stats({profile!r})
    else:
        written = real_drill(*args, **kwargs)
    spent["drill_cpu_s"] += time.process_time() - t
    spent["drill_wall_s"] += time.perf_counter() - w
    return written
b.run_engine = engine
if {with_drill!r}:
    d.render_drilldowns = drill
else:
    d.render_drilldowns = lambda *args, **kwargs: 0
    d.link = lambda cell, edition_id, root, text="runs": Markup(str(text))
t, w = time.process_time(), time.perf_counter()
b.build_site(Path({editions!r}), Path({out!r}), engine="mkdocs")
print(json.dumps({{"build_cpu_s": time.process_time() - t, "build_wall_s": time.perf_counter() - w,
                  **spent, "peak_rss_kb": {peak}}}))
"""


@dataclass(frozen=True)
class Build:
    label: str
    m: Measured

    @property
    def cpu(self) -> float:
        return self.m.inner["build_cpu_s"]

    @property
    def wall(self) -> float:
        return self.m.inner["build_wall_s"]

    def line(self) -> str:
        i = self.m.inner
        share = i["engine_cpu_s"] / self.cpu
        return (
            f"{self.label:<30} cpu {self.cpu:7.2f} s  wall {self.wall:7.2f} s  "
            f"mkdocs cpu {i['engine_cpu_s']:7.2f} s ({share:4.0%})  "
            f"drill-downs cpu {i['drill_cpu_s']:6.2f} s  wall {i['drill_wall_s']:6.2f} s  "
            f"peak {self.m.peak_rss_mb:5.0f} MB  load {_load()}"
        )


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


# Products the "pages cold" builds make anew (publish/cache.py names each kind's folder).
PAGE_PRODUCTS = ("drilldown", "drilldown-items")
WARM = "cache-warm"  # in the scratch folder: the cache the "pages cold" builds start from


def timed_build(
    label: str,
    editions: Path,
    out: Path,
    cache: Path,
    *,
    with_drill: bool,
    profile: Path | None,
) -> Build:
    code = CHILD.format(
        editions=str(editions),
        out=str(out),
        with_drill=with_drill,
        profile=str(profile) if profile else "",
        peak=PEAK_KB,
    )
    return Build(label, measure(label, code, {**os.environ, CACHE_ENV: str(cache)}))


def warm_cache(editions: Path, scratch: Path) -> None:
    """Fill WARM by one untimed build (with the drill-downs), for the "pages cold" builds."""
    copy = scratch / "editions-warm"
    shutil.copytree(editions, copy)
    timed_build(
        "warm-up", copy, scratch / "out-warm", scratch / WARM, with_drill=True, profile=None
    )
    shutil.rmtree(copy)
    shutil.rmtree(scratch / "out-warm")


def fresh_cache(scratch: Path, side: str, *, cold: bool) -> Path:
    cache = scratch / f"cache-{side}"
    shutil.rmtree(cache, ignore_errors=True)
    if cold:
        cache.mkdir()
        return cache
    shutil.copytree(scratch / WARM, cache)
    for kind in PAGE_PRODUCTS:
        shutil.rmtree(cache / "products" / kind, ignore_errors=True)
    return cache


def build_side(
    side: str, editions: Path, scratch: Path, *, cold: bool, one_log: bool, profile: Path | None
) -> list[Build]:
    with_drill = side == "with"
    rows = []
    for kind in ("cold", "pages cold") if cold else ("pages cold",):
        copy = scratch / f"editions-{side}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(editions, copy)
        out = scratch / f"out-{side}"
        shutil.rmtree(out, ignore_errors=True)
        cache = fresh_cache(scratch, side, cold=kind == "cold")
        label = f"{side}: {kind}"
        rows.append(timed_build(label, copy, out, cache, with_drill=with_drill, profile=profile))
    if one_log:
        newest = sorted(p for p in copy.iterdir() if (p / "edition.yaml").is_file())[-1]
        regrade_once(newest)
        rows.append(
            timed_build(
                f"{side}: one log changed", copy, out, cache, with_drill=with_drill, profile=None
            )
        )
    return rows


def site_sizes(site: Path) -> str:
    mb = 1024 * 1024
    runs, runs_bytes = disk_use(site / "runs")
    whole, _ = disk_use(site)
    no_logs, _ = disk_use(site, skip_logs=True)
    cells = sum(1 for _ in (site / "runs").glob("*/*/*/*/index.html"))
    return (
        f"site {whole / mb:.0f} MB on disk, {no_logs / mb:.0f} MB without the raw logs; "
        f"runs/ {runs / mb:.0f} MB on disk ({runs_bytes / mb:.0f} MB of files), "
        f"{cells} cell pages"
    )


def count_runs(editions: Path) -> int:
    """Registered run records over every edition (what the drill-down pages show)."""
    total = 0
    for log in editions.glob("*/runs/*/*/*.jsonl"):
        with log.open("rb") as handle:
            total += sum(1 for line in handle if line.strip())
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--editions", type=Path, default=None)
    parser.add_argument("--scale", type=Path, default=None, help="scale set folder (made once)")
    parser.add_argument("--models", type=int, default=40, help="models of the scale set")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cold", action="store_true", help="also time builds from no cache")
    parser.add_argument("--one-log", action="store_true", help="also time a one-log rebuild")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.scale is not None:
        editions = ensure_scale_set(args.scale.resolve(), 1, args.models)
    else:
        editions = (args.editions or Path(__file__).resolve().parents[1] / "editions").resolve()
    with tempfile.TemporaryDirectory(prefix="bench-drilldown-") as tmp:
        scratch = Path(tmp)
        sides: dict[str, list[list[Build]]] = {"without": [], "with": []}
        warm_cache(editions, scratch)
        for _ in range(args.rounds):
            for side in sides:  # interleaved, so the machine's load falls on both alike
                rows = build_side(
                    side, editions, scratch, cold=args.cold, one_log=args.one_log, profile=None
                )
                sides[side].append(rows)
                for row in rows:
                    print(row.line(), flush=True)
        # Cell pages are the folders' index.html (outside mkdocs); items pages are markdown.
        docs_runs = scratch / "out-with" / "docs" / "runs"
        pages = sum(1 for _ in docs_runs.glob("*/*/*/*/index.html"))
        pages += sum(1 for _ in docs_runs.glob("*/*/index.md"))
        sizes = site_sizes(scratch / "out-with" / "site")
        if args.profile:
            # An extra build, not counted above: the profiler slows what it watches.
            prof = scratch / "drill.prof"
            profiled = build_side(
                "with", editions, scratch, cold=False, one_log=False, profile=prof
            )
            print(f"\n{profiled[0].line()}  (profiled, not in the ratios)")
            print("profile of the drill-down stage, by own time, then cumulative:")
            stats = pstats.Stats(str(prof))
            stats.sort_stats("tottime").print_stats(18)
            stats.sort_stats("cumulative").print_stats(18)
    best = {
        side: [min(rs, key=lambda b: b.cpu) for rs in zip(*runs, strict=True)]
        for side, runs in sides.items()
    }
    # The children import the package of this benchmark's own tree (their working folder).
    print(f"(code: {REPO / 'ledgerrate'}; load now {_load()})")
    print(f"({count_runs(editions)} run records in {editions}; {pages} drill-down pages)")
    print(f"with: {sizes}")
    for without, with_ in zip(best["without"], best["with"], strict=True):
        name = without.label.split(": ", 1)[1]
        print(
            f"{name:<16} with / without: cpu {with_.cpu / without.cpu:.3f}  "
            f"wall {with_.wall / without.wall:.3f}  "
            f"(mkdocs cpu {with_.m.inner['engine_cpu_s'] / without.m.inner['engine_cpu_s']:.3f}; "
            f"best of {args.rounds})"
        )
    pages = next(i for i, b in enumerate(best["with"]) if b.label.endswith(": pages cold"))
    ratio = best["with"][pages].cpu / best["without"][pages].cpu
    print(f"pages-cold build cpu, with / without drill-down pages = {ratio:.3f}")


if __name__ == "__main__":
    main()
