"""Jobs on every CPU (ledgerrate/core/forked.py; publish/cache.py's map_cached for the build's):
the same results, in order, from other processes; what the workers did to the products cache
is counted and remembered by the parent; a failing job fails the call; and a parallel build
writes the same site as a serial one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ledgerrate.core import forked
from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish import load as load_mod
from ledgerrate.publish import render as render_mod
from ledgerrate.publish.build import build_site
from ledgerrate.publish.cache import BuildCache, map_cached
from tests.publish.factory import write_edition


def test_results_come_back_in_order_from_worker_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(forked.WORKERS_ENV, "2")
    cache = BuildCache.open(tmp_path / "cache")

    def job(n: int) -> tuple[int, int, Path]:
        return n * n, os.getpid(), cache.product_path("square", f"k{n}", lambda: b"x" * n)

    done = map_cached(job, list(range(1, 9)), cache)
    assert [square for square, _, _ in done] == [n * n for n in range(1, 9)]
    assert os.getpid() not in {pid for _, pid, _ in done}  # made elsewhere, not here
    assert all(path.read_bytes() == b"x" * n for n, (_, _, path) in enumerate(done, 1))
    assert cache.misses == {"square": 8} and cache.hits == {}
    # Back in this process, each entry the workers made is found, not made again.
    again = map_cached(job, list(range(1, 9)), cache)
    assert [path for _, _, path in again] == [path for _, _, path in done]
    assert cache.misses == {"square": 8} and cache.hits == {"square": 8}


def test_a_workers_digests_are_remembered_by_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(forked.WORKERS_ENV, "2")
    files = []
    for n in range(4):
        path = tmp_path / f"input-{n}.txt"
        path.write_text(f"input {n}\n", "utf-8")
        os.utime(path, (1_700_000_000, 1_700_000_000))  # old enough to be remembered
        files.append(path)
    cache = BuildCache.open(tmp_path / "cache", index=tmp_path / "digests.json")
    digests = map_cached(cache.file_digest, files, cache)
    cache.save()
    remembered = BuildCache.open(tmp_path / "cache", index=tmp_path / "digests.json")
    assert sorted(remembered._digests) == sorted(os.path.abspath(p) for p in files)
    assert [remembered._digests[os.path.abspath(p)][4] for p in files] == digests


def test_a_failing_job_fails_the_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forked.WORKERS_ENV, "2")

    def job(n: int) -> int:
        if n == 3:
            raise UsageProblem("item 3: the dataset does not hash to its registration")
        return n

    with pytest.raises(UsageProblem, match="item 3"):
        forked.map_forked(job, [1, 2, 3, 4])


def test_one_worker_or_one_job_runs_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forked.WORKERS_ENV, "1")
    assert forked.workers(10) == 1
    cache = BuildCache.open(tmp_path / "cache")
    made = map_cached(lambda n: cache.product_path("k", f"k{n}", lambda: b"x"), [1, 2], cache)
    assert len(made) == 2 and cache.misses == {"k": 2}  # counted once, not again on return
    monkeypatch.setenv(forked.WORKERS_ENV, "4")
    assert forked.workers(1) == 1 and forked.workers(3) == 3


def test_workers_are_capped_by_the_memory_available(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(forked.WORKERS_ENV, raising=False)
    monkeypatch.setattr(forked.os, "sched_getaffinity", lambda _pid: set(range(8)))
    gib = 1 << 30
    # Each worker is allowed what this process holds: 3 GB free for a 1 GB parent is 3.
    monkeypatch.setattr(forked, "_available_and_held", lambda: (3 * gib + 5, gib))
    assert forked.memory_cap() == 3 and forked.workers(100) == 3
    monkeypatch.setattr(forked, "_available_and_held", lambda: (gib // 2, gib))
    assert forked.workers(100) == 1  # never none
    monkeypatch.setattr(forked, "_available_and_held", lambda: (64 * gib, gib))
    assert forked.workers(100) == 8  # the CPUs decide when memory is plenty
    # A number named by the user is theirs to choose.
    monkeypatch.setattr(forked, "_available_and_held", lambda: (gib // 2, gib))
    monkeypatch.setenv(forked.WORKERS_ENV, "4")
    assert forked.workers(100) == 4


def test_the_memory_figures_are_read_from_the_kernel() -> None:
    found = forked._available_and_held()
    assert found is not None  # Linux: /proc/meminfo and /proc/self/statm
    available, held = found
    assert available > 0 and 1 << 20 < held < available * 64


def test_a_job_that_maps_again_runs_its_own_jobs_in_its_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A pool's workers may not fork workers of their own; nested jobs run where they are.
    monkeypatch.setenv(forked.WORKERS_ENV, "2")

    def outer(n: int) -> list[int]:
        return forked.map_forked(lambda m: m * n, [1, 2, 3])

    assert forked.map_forked(outer, [1, 2]) == [[1, 2, 3], [2, 4, 6]]


def _build(root: Path, out: Path, fixtures: dict, workers: str) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
        mp.setenv(forked.WORKERS_ENV, workers)
        # A site this small is otherwise written in one process (see `worth_forking`).
        mp.setattr(render_mod, "FORK_MIN_CELLS", 0)
        build_site(root, out, cache_dir=out.parent / f"cache-{workers}")
    return out / "docs"


def test_a_parallel_build_writes_the_serial_builds_site(tmp_path: Path) -> None:
    root = tmp_path / "editions"
    fixtures = {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(root, "2026-07", "2026-07-01", hostile=True, release_seeds=True),
    }
    serial = _build(root, tmp_path / "serial", fixtures, "1")
    parallel = _build(root, tmp_path / "parallel", fixtures, "2")
    files = sorted(p.relative_to(serial) for p in serial.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(parallel) for p in parallel.rglob("*") if p.is_file())
    assert any(f.parts[0] == "runs" for f in files) and any(f.suffix == ".gz" for f in files)
    for rel in files:
        assert (serial / rel).read_bytes() == (parallel / rel).read_bytes(), rel


def test_a_small_site_writes_its_pages_without_forking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few dozen cells: pages, drill-downs and downloads are milliseconds a job, cheaper in
    this process than a pool's fork; a site of a real edition's size still forks them."""
    root = tmp_path / "editions"
    fixtures = {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(root, "2026-07", "2026-07-01"),
    }
    monkeypatch.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
    monkeypatch.setenv(forked.WORKERS_ENV, "2")
    forks: list[int] = []
    real = forked.map_forked

    def counted(fn, jobs):  # type: ignore[no-untyped-def]
        forks.append(len(jobs))
        return real(fn, jobs)

    monkeypatch.setattr(forked, "map_forked", counted)
    cells = sum(len(w.cells) for f in fixtures.values() for w in f.workloads)
    assert 0 < cells < render_mod.FORK_MIN_CELLS
    build_site(root, tmp_path / "small", cache_dir=tmp_path / "cache-small")
    assert forks == []
    monkeypatch.setattr(render_mod, "FORK_MIN_CELLS", cells)
    build_site(root, tmp_path / "large", cache_dir=tmp_path / "cache-large")
    assert len(forks) >= 3  # downloads, pages and drill-downs, each on the workers
