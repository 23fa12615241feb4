"""Runner throughput against a rate-limited provider, through the real scheduler and adapter.

A fake provider (a real HTTP server, in a child process so its CPU is not counted as ours)
answers with a fixed latency behind a token-bucket rate limit that replies 429 with Retry-After.
The runner is given more concurrency than the limit allows, so it must find the rate itself.
Printed, measured in this run: the runner's own CPU time per request (goal ≤ 2 ms; the server's
is not counted) and, last, completed requests per second ÷ the limit (goal ≥ 0.95). Every request
is journaled (fsynced) before it is sent and every record fsynced before it is acknowledged, as
in a real run.

    .venv/bin/python benchmarks/runner_throughput.py [--requests 2000] [--rate 200] [--latency 0.05]
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import multiprocessing as mp
import os
import pstats
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console

# Run as a script, this folder is on sys.path, so its sibling module imports plainly.
from throwaway import register_throwaway

from ledgerrate.core.gc_policy import for_batch_work
from ledgerrate.core.io import read_jsonl, write_yaml
from ledgerrate.generate.seeds import dataset_for
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.schema import AttemptStart, RunRecord
from ledgerrate.workloads.base import Answer, Dataset, Grade, Item, Prompt, Workload

KEY_ENV = "BENCH_FAKE_KEY"


def _generate(rng: random.Random, n: int) -> Dataset:
    items = tuple(
        Item(id=f"i{i:05d}", input={"x": rng.randint(0, 10**9)}, truth={}) for i in range(n)
    )
    return Dataset(workload="bench.echo.v1", items=items)


def _prompt(item: Item) -> Prompt:
    return Prompt(system="Echo.", user=f"Echo {item.input['x']}.")


def _grade(item: Item, answer: Answer) -> Grade:  # required by Workload; never called here
    return Grade(checks=())


WORKLOAD = Workload(
    id="bench.echo.v1",
    primitive="generate",  # the taxonomy is closed; any of the seven will do
    function="benchmark",
    version=1,
    title="Echo",
    summary="A trivial prompt: the benchmark measures the runner, not a workload.",
    modes=("single-shot",),
    unit="n/a",
    volume=1,
    prompt_template="Echo {x}.",
    output_schema={"type": "string"},
    generate=_generate,
    prompt=_prompt,
    grade=_grade,
)


def _serve(latency: float, rate: float, burst: float, port_out: mp.Queue, stop: mp.Event) -> None:
    from ledgerrate.testing.fake_provider import FakeProviderServer

    with FakeProviderServer(latency_s=latency, rate_limit_per_s=rate, burst=burst) as fake:
        port_out.put(fake.base_url("openai"))
        cpu0 = time.process_time()
        stop.wait()
        # The server's own CPU while it served: on a 2-core machine it competes with the runner.
        port_out.put(time.process_time() - cpu0)


def _edition(root: Path, base_url: str, n: int, concurrency: int) -> None:
    now = dt.datetime.now(dt.UTC)
    stamp = now.isoformat()
    write_yaml(
        root / "edition.yaml",
        {
            "id": root.name,
            "date": now.date().isoformat(),
            "methodology_version": "1.0",
            "window": {"opens": stamp, "closes": (now + dt.timedelta(hours=72)).isoformat()},
            "workloads": [
                {"id": WORKLOAD.id, "n": n, "n_reason": "a throughput benchmark, not a study"}
            ],
            "models": [
                {
                    "id": "fake",
                    "name": "fake",
                    "provider": "openai",
                    "family": "openai",
                    "api_model": "fake-default",
                    "base_url": base_url,
                    "api_key_env": KEY_ENV,
                    "concurrency": concurrency,
                    "sampling": {"temperature": 0},
                }
            ],
        },
    )
    price = {
        "input_per_mtok": "1",
        "output_per_mtok": "1",
        "source_url": "bench",
        "retrieved_at": stamp,
    }
    write_yaml(root / "pricing.yaml", {"frozen_at": stamp, "models": {"fake": price}})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=100.0, help="fake's limit, requests/s")
    parser.add_argument("--burst", type=float, default=10.0)
    parser.add_argument("--latency", type=float, default=0.1, help="fake's reply latency, s")
    parser.add_argument("--concurrency", type=int, default=32, help="runner's global cap")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="profile the run (event loop thread) and print its N costliest functions; "
        "the profiler's own overhead inflates the CPU figures of that run",
    )
    parser.add_argument(
        "--default-gc",
        action="store_true",
        help="Python's default collector pace, not the batch pace `ledgerrate run` sets",
    )
    args = parser.parse_args()
    if not args.default_gc:
        for_batch_work()
    profiler = cProfile.Profile(time.thread_time) if args.profile else None

    ctx = mp.get_context("spawn")
    port_q: mp.Queue = ctx.Queue()
    stop = ctx.Event()
    server = ctx.Process(target=_serve, args=(args.latency, args.rate, args.burst, port_q, stop))
    server.start()
    try:
        base_url = port_q.get(timeout=30)
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["LEDGERRATE_PRIVATE_DIR"] = str(Path(tmp) / "private")
            os.environ[KEY_ENV] = "bench-not-a-secret"
            root = Path(tmp) / "editions" / "bench"
            _edition(root, base_url, args.requests, args.concurrency)
            lookup = {WORKLOAD.id: WORKLOAD}.__getitem__
            register_throwaway(root, "nowhere: a throwaway benchmark edition", lookup=lookup)
            # The run's set-up regenerates the 2,000-item dataset and checks its hash before the
            # first request: the same work, timed alone, to tell it from per-request overhead.
            setup_cpu0 = time.process_time()
            dataset_for(root, WORKLOAD.id, lookup=lookup)
            dataset_cpu = time.process_time() - setup_cpu0
            load_before = os.getloadavg()
            times0 = os.times()
            cpu0, wall0 = time.process_time(), time.perf_counter()
            began = dt.datetime.now(dt.UTC)
            if profiler is not None:
                profiler.enable()
            summary = run_edition(
                root,
                RunOptions(concurrency=args.concurrency),
                lookup=lookup,
                console=Console(file=io.StringIO()),
                show_progress=False,
            )
            if profiler is not None:
                profiler.disable()
            wall = time.perf_counter() - wall0
            cpu = time.process_time() - cpu0
            times1 = os.times()
            root_log_dir = root / "runs" / WORKLOAD.id / "fake"
            records = read_jsonl(root_log_dir / "single-shot.jsonl", RunRecord)
            journal = read_jsonl(root_log_dir / "single-shot.started", AttemptStart)
            load_after = os.getloadavg()
    finally:
        stop.set()
        server_cpu = port_q.get(timeout=30) if server.is_alive() else None
        server.join(timeout=10)
    statuses = Counter(r.status.value for r in records)
    completed = statuses.get("completed", 0)
    achieved = completed / wall
    latency_ms = args.latency * 1000
    limit = f"{args.rate:g} req/s limit (burst {args.burst:g})"
    print(f"fake provider: {limit}, latency {latency_ms:g} ms")
    print(f"runner: global concurrency {args.concurrency}; attempts by status: {dict(statuses)}")
    print(f"missing items: {summary.missing}")
    attempts = sum(statuses.values())
    per_request_ms = cpu / attempts * 1000
    print(f"request starts journaled (fsynced before sending): {len(journal)} of {attempts}")
    # What the machine was doing: on a shared machine a miss can be the load, not the runner.
    print(
        f"machine load (1/5/15 min): {_load(load_before)} before, {_load(load_after)} after, "
        f"on {os.cpu_count()} cores"
    )
    if server_cpu is not None:
        per = server_cpu / attempts * 1000
        print(f"fake server CPU: {server_cpu:.2f} s = {per:.2f} ms per request")
    # Until the first request leaves, the runner regenerates and checks the dataset.
    setup = (min(s.started_at for s in journal) - began).total_seconds()
    sending = wall - setup
    print(
        f"setup before the first request: {setup:.2f} s; then {completed / sending:.1f} req/s "
        f"({completed / sending / args.rate:.3f} of the limit) while sending"
    )
    print(f"runner CPU / wall: {cpu / wall:.2f} (1.00 = one core busy the whole run)")
    print(
        f"of which the dataset's regeneration and hash check (timed alone): {dataset_cpu:.2f} s; "
        f"without it {(cpu - dataset_cpu) / attempts * 1000:.2f} ms per request"
    )
    # In the kernel: the fsyncs and socket calls; in Python: everything the runner itself does.
    user, system = times1.user - times0.user, times1.system - times0.system
    print(
        f"of which user {user / attempts * 1000:.2f} ms and system (kernel: fsync, sockets) "
        f"{system / attempts * 1000:.2f} ms per request"
    )
    print(f"runner CPU: {cpu:.2f} s = {per_request_ms:.2f} ms per request (goal <= 2)")
    print(f"completed {completed} requests in {wall:.2f} s = {achieved:.1f} req/s")
    if profiler is not None:
        _print_profile(profiler, args.profile)
    print(f"throughput / limit = {achieved / args.rate:.3f}  (goal >= 0.95)")


def _print_profile(profiler: cProfile.Profile, top: int) -> None:
    """The costliest functions by own time, then by time including callees."""
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(top)
        print(out.getvalue())


def _load(values: tuple[float, float, float]) -> str:
    return "/".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    main()
