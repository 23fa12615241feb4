"""Shared test fixtures, and how tests are spread over xdist workers."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# Folders whose expensive fixtures are session-scoped (a registered, run and graded edition):
# their tests share one worker so the fixture is built once, not once per worker.
_SESSION_FOLDERS = {"verify", "editions"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup`, keep each module (or session-fixture folder) on one worker.

    Module-scoped fixtures such as the browser test's site build are otherwise built once per
    worker that happens to receive one of the module's tests."""
    for item in items:
        path = Path(str(item.fspath))
        folder = path.parent.name
        group = folder if folder in _SESSION_FOLDERS else f"{folder}/{path.stem}"
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture
def repo_root() -> Path:
    return REPO
