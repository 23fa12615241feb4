"""Shared synthetic-data helpers. Everything takes an explicit `random.Random`: no global state."""
