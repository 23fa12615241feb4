"""The standalone verifier's two files, loaded from their paths as a reader runs them: they are
not part of the package and import nothing of it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

VERIFIER = Path(__file__).resolve().parents[2] / "ledgerrate" / "site" / "verifier"


def load(file: str, name: str) -> ModuleType:
    """`file` (e.g. `standalone_figures.py`) as a module called `name`, registered in
    `sys.modules` so that its dataclasses and pickling find it."""
    spec = importlib.util.spec_from_file_location(name, VERIFIER / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
