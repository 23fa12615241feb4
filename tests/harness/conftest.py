"""Fixtures of the harness round trip: one registered edition served by the scripted fake."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

from tests.harness.roundtrip import Bench, make_bench


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    work = tmp_path_factory.mktemp("roundtrip")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEDGERRATE_PRIVATE_DIR", str(work / "private"))
        made = make_bench(work, dt.datetime.now(dt.UTC).replace(microsecond=0))
        try:
            yield made
        finally:
            made.fake.close()
