"""`ledgerrate ingest`: runs made by another harness, brought into an edition as run records.

`inspect_log` reads Inspect AI eval logs (with Inspect's own reader), `interchange` the
run-record JSONL; both produce `Incoming` samples, which `admit` checks against the
registration under the rules of `run` and `stage` writes, durably and idempotently.
"""
