"""A real-sized scale set, made by the toolchain's own means (nothing committed).

For each edition: write `edition.yaml` with every model id, `register` it, `run` ONE model
(`--models m000`) against the fake provider (a real HTTP server in a child process), `grade`,
then copy that model's cells to every other model id. A copy is rewritten as the runner would
have written it: the record's `model` and its deterministic `run_id` (`rawlog.run_id`), the
grade's `model` and `run_id`; everything the registration seals (dataset hash, prompt hash,
the prompt itself) is already right because every model answers the same registered items,
and every model has the same frozen price so each call's cost stays usage × price.
Last, the seeds are released, which stores each released dataset's files in its edition
(`released/`, as `seeds release` does; a set made before that gets them when next asked for).
`ledgerrate verify` accepts the result.

    .venv/bin/python benchmarks/scale_set.py OUT [--editions 1] [--models 40]

Sets are cached by their parameters under OUT (delete the folder to remake one).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

from rich.console import Console

# Run as a script, this folder is on sys.path, so its sibling module imports plainly.
from throwaway import register_throwaway

from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.io import write_yaml
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.release import release_edition
from ledgerrate.grade.stage import grade_edition
from ledgerrate.run.rawlog import run_id
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.workloads import get

KEY_ENV = "SCALE_FAKE_KEY"
SEED_MODEL = "m000"
# Long enough to register, run and grade one model on a busy 2-core machine.
WINDOW = dt.timedelta(minutes=4)
# The workloads of the bundled 2026-11 edition: every primitive, both modes.
WORKLOADS = (
    "extract.invoice.v1",
    "triage.ap-inbox.v1",
    "reconcile.ledger.v1",
    "generate.variance-commentary.v1",
    "synthesize.board-brief.v1",
    "query.nl2sql.v1",
    "execute.month-end.v1",
)


def _serve(port_out: mp.Queue, stop: mp.Event) -> None:
    from ledgerrate.testing.fake_provider import FakeProviderServer

    with FakeProviderServer(latency_s=0.0) as fake:
        port_out.put(fake.base_url("openai"))
        stop.wait()


def model_ids(n: int) -> list[str]:
    return [f"m{i:03d}" for i in range(n)]


def write_inputs(root: Path, base_url: str, n_models: int, now: dt.datetime) -> dt.datetime:
    """edition.yaml and pricing.yaml; returns the window's close (soon: the seeds are released
    once it has passed, so `verify` and the site see a finished edition)."""
    stamp = now.isoformat()
    closes = now + WINDOW
    models = [
        {
            "id": mid,
            "name": f"Scale model {mid}",
            "provider": "openai",
            "family": "openai",
            # fake-tool calls the first tool once in agentic mode, then answers: both modes
            # then carry agent steps, as real records do.
            "api_model": "fake-tool",
            "base_url": base_url,
            "api_key_env": KEY_ENV,
            "sampling": {"temperature": 0},
            "flagship": mid == SEED_MODEL,
        }
        for mid in model_ids(n_models)
    ]
    write_yaml(
        root / "edition.yaml",
        {
            "id": root.name,
            "date": now.date().isoformat(),
            "title": "Scale set (fake provider, replicated records)",
            "methodology_version": "1.0",
            "window": {"opens": stamp, "closes": closes.isoformat()},
            "workloads": [{"id": w} for w in WORKLOADS],
            "models": models,
        },
    )
    price = {
        "input_per_mtok": "2.5",
        "output_per_mtok": "10",
        "source_url": "scale set: an assumed price",
        "retrieved_at": stamp,
    }
    write_yaml(
        root / "pricing.yaml",
        {"frozen_at": stamp, "models": {mid: price for mid in model_ids(n_models)}},
    )
    return closes


def _copy_log(src: Path, dst: Path, model: str, edition: str) -> int:
    """Rewrite one cell's log for another model id, line by line (never the whole log held)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with src.open("rb") as reader, dst.open("wb") as writer:
        for line in reader:
            if not line.strip():
                continue
            rec = json.loads(line)
            rec["model"] = model
            rec["run_id"] = run_id(
                edition,
                rec["sitting"],
                rec["workload"],
                model,
                rec["mode"],
                rec["item_id"],
                rec["attempt"],
                kind=rec.get("kind", "registered"),
            )
            writer.write((canonical_json(rec) + "\n").encode("utf-8"))
            count += 1
    return count


_ATTEMPTS: dict[str, int] = {}  # seed-model run_id → attempt (a grade names only the run)


def replicate(root: Path, n_models: int) -> int:
    """Copy the seed model's cells to every other model id; returns records written."""
    edition = root.name
    runs = sorted((root / "runs").glob(f"*/{SEED_MODEL}/*.jsonl"))
    for log in runs:
        for line in log.read_bytes().splitlines():
            rec = json.loads(line)
            _ATTEMPTS[rec["run_id"]] = rec["attempt"]
    written = 0
    for mid in model_ids(n_models)[1:]:
        for log in runs:
            workload, mode = log.parent.parent.name, log.stem
            written += _copy_log(
                log, root / "runs" / workload / mid / f"{mode}.jsonl", mid, edition
            )
            grades = root / "grades" / workload / SEED_MODEL / f"{mode}.jsonl"
            if grades.exists():
                _copy_grades(grades, root / "grades" / workload / mid / f"{mode}.jsonl", mid)
    return written + sum(1 for log in runs for _ in log.open("rb"))


def _copy_grades(src: Path, dst: Path, model: str) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("rb") as reader, dst.open("wb") as writer:
        for line in reader:
            if not line.strip():
                continue
            rec = json.loads(line)
            attempt = _ATTEMPTS[rec["run_id"]]
            rec["model"] = model
            rec["run_id"] = run_id(
                rec["edition"],
                rec["sitting"],
                rec["workload"],
                model,
                rec["mode"],
                rec["item_id"],
                attempt,
            )
            writer.write((canonical_json(rec) + "\n").encode("utf-8"))


def make_edition(root: Path, base_url: str, n_models: int) -> tuple[int, dt.datetime]:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    closes = write_inputs(root, base_url, n_models, now)
    # A throwaway set: its seeds are released below, so nothing needs escrow.
    register_throwaway(root, "nowhere: a benchmark scale set, released below")
    run_edition(
        root,
        RunOptions(models=[SEED_MODEL], concurrency=16),
        console=Console(file=io.StringIO()),
        show_progress=False,
    )
    grade_edition(root)
    return replicate(root, n_models), closes


def ensure_scale_set(out: Path, n_editions: int, n_models: int) -> Path:
    """editions/ folder of the scale set with these parameters, made once and reused."""
    target = out / f"e{n_editions}-m{n_models}"
    editions = target / "editions"
    if (target / "DONE").exists():
        _store_datasets(editions)
        return editions
    for workload in WORKLOADS:
        get(workload)  # a KeyError here names a workload the registry lost
    os.environ.setdefault("LEDGERRATE_PRIVATE_DIR", str(target / "private"))
    os.environ[KEY_ENV] = "scale-not-a-secret"
    ctx = mp.get_context("spawn")
    port_q: mp.Queue = ctx.Queue()
    stop = ctx.Event()
    server = ctx.Process(target=_serve, args=(port_q, stop))
    server.start()
    try:
        # A spawned interpreter can take long to start on a loaded machine.
        base_url = port_q.get(timeout=300)
        total = 0
        closing: list[tuple[Path, dt.datetime]] = []
        for index in range(n_editions):
            start = time.perf_counter()
            root = editions / f"2027-{index + 1:02d}"
            made, closes = make_edition(root, base_url, n_models)
            total += made
            closing.append((root, closes))
            print(f"{root.name}: made in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    finally:
        stop.set()
        server.join(timeout=10)
    # Released seeds let `verify` regenerate datasets, rebuild prompts and re-grade every run;
    # the release stores each released dataset's files in the edition (`released/`), as
    # `seeds release` does for a real edition, so that a build publishes them as stored.
    for root, closes in closing:
        wait = (closes - dt.datetime.now(dt.UTC)).total_seconds() + 1
        if wait > 0:
            print(f"{root.name}: waiting {wait:.0f} s for its window to close", file=sys.stderr)
            time.sleep(wait)
        release_edition(root)
    (target / "DONE").write_text(f"{total} run records\n")
    return editions


def _store_datasets(editions: Path) -> None:
    """A set made before datasets were stored at release gets them, as a released edition
    does: `seeds release` again stores what is missing (once, then a look at the manifest)."""
    for root in sorted(p for p in editions.iterdir() if (p / "edition.yaml").is_file()):
        if not EditionPaths(root).released_manifest.exists():
            release_edition(root)
            print(f"{root.name}: released datasets stored", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--editions", type=int, default=1)
    parser.add_argument("--models", type=int, default=40)
    args = parser.parse_args()
    editions = ensure_scale_set(args.out.resolve(), args.editions, args.models)
    print(editions)


if __name__ == "__main__":
    main()
