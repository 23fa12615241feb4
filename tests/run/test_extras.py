"""The slow tests' guard for an optional extra: skipped on a developer's machine, an error in CI."""

from __future__ import annotations

import pytest

from tests.run import extras

ABSENT = (("ledgerrate-no-such-distribution", "local"),)


def test_a_missing_extra_names_its_make_target() -> None:
    assert extras.missing(ABSENT) == (
        "ledgerrate-no-such-distribution is not installed: the `local` extra (make local)"
    )
    assert extras.missing(()) is None


def test_a_missing_extra_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    mark = extras.requires(ABSENT)
    assert mark.name == "skipif" and mark.args == (True,)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(RuntimeError, match="`make test` should have installed it"):
        extras.requires(ABSENT)
