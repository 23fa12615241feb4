"""Independent build jobs on every CPU: forked worker processes that share what the parent has
loaded (editions, templates, the cache's digests) without pickling any of it.

A 200-model edition's drill-down pages are ~3,000 independent renders, most of a cold build
after mkdocs; one process used one core of two. Each job's result and what it did to the
products cache (hits, misses, new input digests) come back to the parent, so the build's
statistics and its remembered digests are the same as a serial build's. The pages themselves
are files, written by whichever process rendered them; the output is the same bytes in any
order. `LEDGERRATE_WORKERS=1` (or a machine without `fork`) runs the jobs in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ledgerrate.publish.cache import BuildCache

WORKERS_ENV = "LEDGERRATE_WORKERS"
T = TypeVar("T")
J = TypeVar("J")
# What a worker runs, set by the parent right before it forks: a fork copies it, so nothing of
# it is pickled (only a job's index goes to the worker, and its small result comes back).
_current: tuple[Callable[[Any], Any], Sequence[Any], BuildCache] | None = None


def workers(jobs: int) -> int:
    """How many processes to run `jobs` jobs in: one per usable CPU, at most one per job."""
    named = os.environ.get(WORKERS_ENV, "").strip()
    cpus = int(named) if named.isdigit() else len(os.sched_getaffinity(0))
    if "fork" not in multiprocessing.get_all_start_methods():
        cpus = 1
    return max(1, min(cpus, jobs))


def map_forked(fn: Callable[[J], T], jobs: Sequence[J], cache: BuildCache) -> list[T]:
    """`[fn(job) for job in jobs]`, spread over forked workers; the first job to fail raises
    its exception here."""
    count = workers(len(jobs))
    if count <= 1:
        return [fn(job) for job in jobs]
    global _current
    _current = (fn, jobs, cache)
    try:
        with multiprocessing.get_context("fork").Pool(count) as pool:
            outcomes = pool.map(_run, range(len(jobs)), chunksize=1)
    finally:
        _current = None
    results = []
    for result, hits, misses, digests in outcomes:
        cache.absorb(hits, misses, digests)
        results.append(result)
    return results


def _run(index: int) -> tuple[Any, dict[str, int], dict[str, int], dict[str, list[Any]]]:
    assert _current is not None, "a worker runs only jobs its parent forked it for"
    fn, jobs, cache = _current
    hits, misses = dict(cache.hits), dict(cache.misses)
    cache.added.clear()
    result = fn(jobs[index])
    return (
        result,
        {k: n - hits.get(k, 0) for k, n in cache.hits.items() if n != hits.get(k, 0)},
        {k: n - misses.get(k, 0) for k, n in cache.misses.items() if n != misses.get(k, 0)},
        dict(cache.added),
    )
