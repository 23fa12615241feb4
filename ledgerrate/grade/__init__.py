"""Grading: workload graders, the blinded judge, and human spot-checks (ARCHITECTURE.md §1, §4)."""
