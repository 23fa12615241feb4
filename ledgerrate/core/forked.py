"""Independent jobs on every CPU: forked worker processes that share what the parent has
loaded (editions, templates, datasets, graders) without pickling any of it.

A 200-model edition's drill-down pages are ~3,000 independent renders and its verification
~40,000 independent re-gradings; one process used one core of two. Only a job's index goes to
a worker and its result comes back, so a job may close over anything. Results come back in the
order of the jobs; the output of a build or a verification is the same in any order.
`LEDGERRATE_WORKERS=1` (or a machine without `fork`) runs the jobs in this process.
"""

from __future__ import annotations

import contextlib
import gc
import json
import multiprocessing
import os
import signal
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

WORKERS_ENV = "LEDGERRATE_WORKERS"
T = TypeVar("T")
J = TypeVar("J")
# What a worker runs, set by the parent right before it forks: a fork copies it, so nothing of
# it is pickled.
_current: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def workers(jobs: int) -> int:
    """How many processes to run `jobs` jobs in: one per usable CPU, at most one per job, and
    no more than the memory available holds (`memory_cap`) unless `LEDGERRATE_WORKERS` names
    the number."""
    named = os.environ.get(WORKERS_ENV, "").strip()
    cpus = int(named) if named.isdigit() else min(len(os.sched_getaffinity(0)), memory_cap())
    if "fork" not in multiprocessing.get_all_start_methods():
        cpus = 1
    if multiprocessing.current_process().daemon:  # a worker: its jobs run in it, not deeper
        cpus = 1
    return max(1, min(cpus, jobs))


def memory_cap() -> int:
    """How many workers the memory available holds, each allowed as much as this process holds
    now: a forked worker starts sharing every page with its parent and at worst ends with a
    copy of each (copy on write). A 420k-record build's parent held about 1 GB; on a machine
    with less than that free per CPU, fewer workers run instead of the kernel killing one."""
    found = _available_and_held()
    if found is None:  # the kernel does not say (not Linux): the CPUs decide
        return os.cpu_count() or 1
    available, held = found
    return max(1, available // max(held, 1))


def _available_and_held() -> tuple[int, int] | None:
    """(bytes the kernel can give without swapping, bytes this process holds), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            fields = dict(line.split(":", 1) for line in meminfo)
        available = int(fields["MemAvailable"].split()[0]) * 1024
        with open("/proc/self/statm", encoding="ascii") as statm:
            held = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, KeyError, ValueError, IndexError):
        return None
    return available, held


def map_forked(fn: Callable[[J], T], jobs: Sequence[J]) -> list[T]:
    """`[fn(job) for job in jobs]`, spread over forked workers; the first job to fail raises
    its exception here."""
    count = workers(len(jobs))
    if count <= 1:
        return [fn(job) for job in jobs]
    global _current
    _current = (fn, jobs)
    # Everything loaded so far is moved out of the collector's reach for the workers' lifetime
    # (Python's advice before a fork): a worker's full collection would otherwise walk, and so
    # copy, the parent's whole heap, an edition's records included.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(count) as pool:
            return pool.map(_run, range(len(jobs)), chunksize=1)
    finally:
        gc.unfreeze()
        _current = None


def batches(items: Sequence[J], size: int) -> list[Sequence[J]]:
    """`items` in runs of `size`: a job worth more than its hand-off to a worker."""
    return [items[start : start + size] for start in range(0, len(items), size)]


def _run(index: int) -> Any:
    assert _current is not None, "a worker runs only jobs its parent forked it for"
    fn, jobs = _current
    return fn(jobs[index])


class BesideFailed(RuntimeError):
    """A process forked by `beside` failed, or ended before it reported."""


@dataclass
class Beside:
    """A function running in a forked process beside this one (`beside`)."""

    pid: int
    _report: int  # the read end of the pipe the child writes its result to

    def join(self) -> Any:
        """The function's result (JSON); `BesideFailed` if it raised or its process died."""
        with os.fdopen(self._report, "rb") as report:
            raw = report.read()
        _pid, status = os.waitpid(self.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if not raw or code != 0:
            how = f"by signal {-code}" if code < 0 else f"with exit code {code}"
            raise BesideFailed(f"a forked process ended {how} before its report")
        found = json.loads(raw)
        if found["error"] is not None:
            raise BesideFailed(found["error"])
        return found["result"]

    def kill(self) -> None:
        """End it now (the work it was doing is not wanted), and reap it."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self._report)


def beside(fn: Callable[[], Any]) -> Beside:
    """Start `fn()` in a forked process, which shares everything loaded here; its result
    (anything JSON can carry) comes back from `join`. Nothing it changes in its memory comes
    back: only its result and its files."""
    read, write = os.pipe()
    gc.freeze()  # a child's collections would otherwise walk, and so copy, the whole heap
    pid = os.fork()
    if pid == 0:  # the child: run, report, and leave without any of the parent's clean-up
        code = 1
        try:
            os.close(read)
            try:
                found = {"result": fn(), "error": None}
            except BaseException:  # reported: the parent decides what a failure means
                found = {"result": None, "error": traceback.format_exc()}
            with os.fdopen(write, "wb") as out:
                out.write(json.dumps(found).encode())
            code = 0
        finally:
            os._exit(code)
    gc.unfreeze()
    os.close(write)
    return Beside(pid, read)
