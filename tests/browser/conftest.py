"""The browser tests' helpers (two_models.py) import plainly, as the grade and run tests' do."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
