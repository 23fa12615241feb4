"""The browser tests' helpers (two_models.py) import plainly, as the grade and run tests' do."""

from __future__ import annotations
