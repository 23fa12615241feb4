"""Figures of DESIGN.md §5: pure functions over pandas frames, no I/O."""
