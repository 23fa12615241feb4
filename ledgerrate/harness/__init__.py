"""LedgerRate's workloads inside other evaluation harnesses (extra `inspect`: Inspect AI).

Runs made here are brought back with `ledgerrate ingest`, under the same rules as `run`.
"""
