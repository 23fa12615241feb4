"""Grading: workload graders, the blinded judge, and human spot-checks (DESIGN.md §1, §4)."""
