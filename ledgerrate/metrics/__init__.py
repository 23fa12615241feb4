"""Figures of ARCHITECTURE.md §5: pure functions over pandas frames, I/O only at the edges.

load (read an edition) → sittings (which records count) → cells (per-cell figures, with
intervals and money) → void / indices / routing (derived, per workload) → compute (the whole
`EditionResults`) → report and console (the `results` command); trend spans editions.
"""
