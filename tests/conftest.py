"""Shared test fixtures, and how tests are spread over xdist workers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyrage
import pytest

from ledgerrate.generate.escrow import IDENTITY_ENV, RECIPIENTS_ENV

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


@dataclass(frozen=True)
class OperatorKey:
    """A throwaway age key pair made for the test session; never committed anywhere."""

    recipient: str
    identity_file: Path


@pytest.fixture(scope="session")
def operator_key(tmp_path_factory: pytest.TempPathFactory) -> OperatorKey:
    identity = pyrage.x25519.Identity.generate()
    path = tmp_path_factory.mktemp("operator-key") / "age-identity.txt"
    path.write_text(f"# throwaway test identity\n{identity}\n")
    path.chmod(0o600)
    return OperatorKey(str(identity.to_public()), path)


@pytest.fixture(scope="session", autouse=True)
def _escrow_to_the_test_key(operator_key: OperatorKey) -> Iterator[None]:
    """Every test registers with an escrow recipient (register refuses without one), and no
    test sees an operator identity from the developer's shell unless it sets one itself.
    Session-wide, so session fixtures that register editions get it too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RECIPIENTS_ENV, operator_key.recipient)
        patch.delenv(IDENTITY_ENV, raising=False)
        yield
