"""Run a piece of work in a fresh child process and measure it: CPU, wall, peak RSS.

Each measurement gets its own interpreter so one run's caches and memory never flatter the
next. The child reports its in-process figures as JSON; peak RSS and whole-process CPU come
from `resource.getrusage(RUSAGE_CHILDREN)` around it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Measured:
    label: str
    process_cpu_s: float  # user + system of the child (and its own children)
    wall_s: float
    peak_rss_mb: float
    inner: dict  # what the child measured itself (e.g. CPU of the work alone)

    def line(self) -> str:
        extra = "  ".join(f"{k} {v:.3f}" for k, v in self.inner.items() if isinstance(v, float))
        return (
            f"{self.label:<38} cpu {self.process_cpu_s:8.2f} s  wall {self.wall_s:8.2f} s  "
            f"peak {self.peak_rss_mb:7.0f} MB  {extra}"
        )


# Every child runs the way a `ledgerrate` command runs: at the collector's batch pace
# (ledgerrate/core/gc_policy.py), unless the environment asks for Python's default pace (to
# measure the difference).
DEFAULT_GC_ENV = "BENCH_DEFAULT_GC"
AS_A_COMMAND = "from ledgerrate.core.gc_policy import for_batch_work; for_batch_work()\n"


def measure(label: str, code: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> Measured:
    """Run `code` (Python) in a child; the child may print one JSON object as its last line
    (the templates below add `peak_rss_kb`, the child's own peak with its children). `cwd`:
    the checkout whose `ledgerrate` the child imports (it comes first on the child's path)."""
    if (env or os.environ).get(DEFAULT_GC_ENV) != "1":
        code = AS_A_COMMAND + code
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{label} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    lines = done.stdout.strip().splitlines()
    inner = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # RUSAGE_CHILDREN's peak is the largest child so far, so each child reports its own
    # (itself and anything it ran, e.g. Zensical); that is the figure shown.
    peak = inner.pop("peak_rss_kb", after.ru_maxrss) / 1024
    return Measured(label, cpu, wall, peak, inner)


# Appended to a child's code: its peak RSS (itself, and any process it ran) in kB.
PEAK_KB = (
    "max(__import__('resource').getrusage(__import__('resource').RUSAGE_SELF).ru_maxrss, "
    "__import__('resource').getrusage(__import__('resource').RUSAGE_CHILDREN).ru_maxrss)"
)

# The products cache is the one named in the child's environment, else one beside `out`: a
# benchmark never reads or fills the machine's own cache (~/.cache/ledgerrate).
TIMED_BUILD = """
import json, os, resource, time
from pathlib import Path
def cpu():  # this process and the build's workers (publish/forked.py), once they have ended
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime
os.environ.setdefault("LEDGERRATE_CACHE_DIR", {out!r} + ".cache")
from ledgerrate.publish import build as b
engine_cpu = [0.0]
real = b.run_engine
def timed(*args, **kwargs):
    t = time.process_time(); real(*args, **kwargs)
    engine_cpu[0] += time.process_time() - t
b.run_engine = timed
t = cpu()
b.build_site(Path({editions!r}), Path({out!r}), engine={engine!r})
total = cpu() - t
print(json.dumps({{"work_cpu_s": total - engine_cpu[0], "engine_cpu_s": engine_cpu[0],
                  "peak_rss_kb": {peak}}}))
"""

TIMED_MKDOCS = """
import json, time
from pathlib import Path
from ledgerrate.publish.engine.run import run_mkdocs
t = time.process_time()
run_mkdocs(Path({docs!r}), Path({site!r}))
print(json.dumps({{"work_cpu_s": time.process_time() - t, "peak_rss_kb": {peak}}}))
"""


def timed_build(
    label: str,
    editions: Path,
    out: Path,
    engine: str = "mkdocs",
    env: dict[str, str] | None = None,
    cache_dir: Path | None = None,
    cwd: Path = REPO,
) -> Measured:
    """A build in a child process; its products cache is `cache_dir`, else `<out>.cache`."""
    code = TIMED_BUILD.format(editions=str(editions), out=str(out), engine=engine, peak=PEAK_KB)
    cache = cache_dir if cache_dir is not None else Path(f"{out}.cache")
    env = {**(env or os.environ), "LEDGERRATE_CACHE_DIR": str(cache)}
    return measure(label, code, env, cwd=cwd)


def timed_mkdocs(label: str, docs: Path, site: Path, env=None) -> Measured:
    code = TIMED_MKDOCS.format(docs=str(docs), site=str(site), peak=PEAK_KB)
    return measure(label, code, env)


RAW_LOGS = ("runs", "grades", "probes", "bodies")  # under data/<edition>/: the published logs


def disk_use(root: Path, *, skip_logs: bool = False) -> tuple[int, int]:
    """(bytes on disk as `du` counts them, bytes of the files) under `root`, each inode once
    (the site's downloads are hard links to the products cache), folders included;
    `skip_logs`: without the raw logs of `data/<edition>/`."""
    seen: set[tuple[int, int]] = set()
    disk = size = 0
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root).parts
        if skip_logs and len(rel) == 2 and rel[0] == "data":
            dirs[:] = [d for d in dirs if d not in RAW_LOGS]
        for name in [".", *files]:
            st = os.lstat(os.path.join(folder, name))
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            disk += st.st_blocks * 512
            size += st.st_size if name != "." else 0
    return disk, size


# Issue #50 target 6: the site at 420k records, raw logs aside, holds at most this much.
SITE_TARGET_MB = 600


def site_size_line(site: Path, label: str = "site") -> tuple[str, int]:
    """The site's size without its raw logs, as `du` counts it and as the bytes of its files,
    against target 6; and the on-disk bytes, for a ratio between two builds."""
    mb = 1024 * 1024
    disk, size = disk_use(site, skip_logs=True)
    line = (
        f"{label}, raw logs aside: {disk / mb:.0f} MB on disk ({size / mb:.0f} MB of files) "
        f"(<= {SITE_TARGET_MB} MB, so {disk / mb / SITE_TARGET_MB:.2f} x the target)"
    )
    return line, disk
