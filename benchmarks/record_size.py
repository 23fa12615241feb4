"""Bytes per run record on a real-sized edition: stored form (bodies once) vs whole form.

Registers an edition of the seven workloads of `editions/2026-11` with N OpenAI-compatible
models served by the fake provider (a real HTTP server on 127.0.0.1), runs every cell in both
modes through the real runner, then measures in the same run: the bytes in git (cell logs plus
`bodies/`) per record, and the bytes of the same logs made whole (`bodies.whole_log_bytes`, what
a download holds). Then it releases the seeds, which stores the released datasets' files in the
edition (`released/`, the same whatever the number of models), and prints what the edition
holds in git with them (goal: ≤ 30 MB per 40-model edition). Prints the ratio last (goal: ≤ 3 KB
per record in git).

    .venv/bin/python benchmarks/record_size.py [--models 40] [--n 15]
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import tempfile
import time
from pathlib import Path

from rich.console import Console

# Run as a script, this folder is on sys.path, so its sibling module imports plainly.
from throwaway import register_throwaway

from ledgerrate.core.edition import load_edition
from ledgerrate.core.io import read_yaml, write_yaml
from ledgerrate.core.layout import EditionPaths, cell_log_files
from ledgerrate.generate.release import release_edition
from ledgerrate.run import bodies
from ledgerrate.run.scheduler import RunOptions, run_edition
from ledgerrate.testing.fake_provider import FakeProviderServer

KEY_ENV = "BENCH_FAKE_KEY"
SOURCE = Path(__file__).resolve().parent.parent / "editions" / "2026-11" / "edition.yaml"


def _edition(root: Path, base_url: str, models: int, n: int) -> None:
    now = dt.datetime.now(dt.UTC)
    stamp = now.isoformat()
    workloads = [w["id"] for w in read_yaml(SOURCE)["workloads"]]
    ids = [f"fake-{i:02d}" for i in range(models)]
    write_yaml(
        root / "edition.yaml",
        {
            "id": root.name,
            "date": now.date().isoformat(),
            "methodology_version": "1.0",
            "window": {"opens": stamp, "closes": (now + dt.timedelta(hours=72)).isoformat()},
            "workloads": [
                {"id": w, "n": n, **({} if n == 15 else {"n_reason": "a size benchmark"})}
                for w in workloads
            ],
            "models": [
                {
                    "id": mid,
                    "name": mid,
                    "provider": "openai",
                    "family": "openai",
                    "api_model": "fake-default",
                    "base_url": base_url,
                    "api_key_env": KEY_ENV,
                    "sampling": {"temperature": 0},
                    "concurrency": 16,
                }
                for mid in ids
            ],
        },
    )
    price = {
        "input_per_mtok": "1",
        "output_per_mtok": "1",
        "source_url": "bench",
        "retrieved_at": stamp,
    }
    write_yaml(root / "pricing.yaml", {"frozen_at": stamp, "models": dict.fromkeys(ids, price)})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--models", type=int, default=40)
    parser.add_argument("--n", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeProviderServer(latency_s=0.0) as fake:
        os.environ["LEDGERRATE_PRIVATE_DIR"] = str(Path(tmp) / "private")
        os.environ[KEY_ENV] = "bench-not-a-secret-key-0123456789"
        root = Path(tmp) / "editions" / "bench"
        _edition(root, fake.base_url("openai"), args.models, args.n)
        register_throwaway(root, "nowhere: a throwaway benchmark edition")
        started = time.perf_counter()
        run_edition(
            root,
            RunOptions(concurrency=16),
            console=Console(file=io.StringIO()),
            show_progress=False,
        )
        took = time.perf_counter() - started
        paths = EditionPaths(root)
        logs = cell_log_files(paths.runs_dir)
        records = sum(p.read_bytes().count(b"\n") for p in logs)
        log_bytes = sum(p.stat().st_size for p in logs)
        body_files = list(paths.bodies_dir.glob("*.txt"))
        body_bytes = sum(p.stat().st_size for p in body_files)
        whole_bytes = sum(len(bodies.whole_log_bytes(p, root)) for p in logs)
        release_edition(root, now=load_edition(root).manifest.window.closes)
        released = [p for p in paths.released_dir.rglob("*") if p.is_file()]
        released_bytes = sum(p.stat().st_size for p in released)
    stored = (log_bytes + body_bytes) / records
    whole = whole_bytes / records
    print(
        f"edition: {args.models} models, 7 workloads, both modes, n = {args.n}: {records} records"
    )
    print(f"run took {took:.1f} s against the fake provider")
    files = len(body_files)
    print(f"cell logs {log_bytes / 1e6:.2f} MB + bodies/ {body_bytes / 1e6:.2f} MB ({files} files)")
    print(f"whole form (downloads): {whole_bytes / 1e6:.2f} MB = {whole / 1000:.2f} KB per record")
    in_git = (log_bytes + body_bytes) / 1e6
    print(f"stored form (in git): {in_git:.2f} MB = {stored / 1000:.2f} KB per record")
    mb = released_bytes / 1e6
    print(f"released datasets stored (released/): {mb:.2f} MB ({len(released)} files)")
    print(f"edition in git with them: {in_git + mb:.2f} MB (budget 30 MB per 40-model edition)")
    print(f"stored / whole = {stored / whole:.3f}; KB per record in git = {stored / 1000:.2f}")


if __name__ == "__main__":
    main()
