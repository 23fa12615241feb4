"""`register` refuses a run protocol the standard (§1, §3) does not allow."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest
import yaml

from ledgerrate.core.errors import UsageProblem
from ledgerrate.generate.register import register_edition
from ledgerrate.workloads import registry
from ledgerrate.workloads.base import PRIMITIVES
from tests.run.runkit import model, write_edition


def _edit(path: Path, change) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


def _refused(root: Path, lookup, *needles: str) -> None:
    with pytest.raises(UsageProblem) as info:
        register_edition(root, lookup=lookup)
    text = str(info.value)
    assert all(n in text for n in needles), text
    assert not (root / "registration.json").exists()


def test_prices_frozen_after_window_open_are_refused(tmp_path: Path, lookup) -> None:
    root = write_edition(tmp_path / "e1", models=[model("m1")], n=15)
    _edit(
        root / "pricing.yaml",
        lambda d: d.update(
            frozen_at=(
                dt.datetime.fromisoformat(d["frozen_at"]) + dt.timedelta(minutes=5)
            ).isoformat()
        ),
    )
    _refused(root, lookup, "pricing.yaml: frozen_at", "after the window opens")


def test_price_retrieved_after_the_table_was_frozen_is_refused(tmp_path: Path, lookup) -> None:
    root = write_edition(tmp_path / "e2", models=[model("m1")], n=15)

    def later(d) -> None:
        frozen = dt.datetime.fromisoformat(d["frozen_at"])
        d["models"]["m1"]["retrieved_at"] = (frozen + dt.timedelta(hours=1)).isoformat()

    _edit(root / "pricing.yaml", later)
    _refused(root, lookup, "models.m1.retrieved_at", "after frozen_at")


def test_sampling_without_temperature_zero_needs_a_note(tmp_path: Path, lookup) -> None:
    root = write_edition(tmp_path / "e3", models=[model("m1", sampling={})], n=15)
    _refused(root, lookup, "models.m1.sampling", "sampling_notes")
    noted = model("m1", sampling={}, sampling_notes="The API rejects temperature; default used.")
    root = write_edition(tmp_path / "e4", models=[noted], n=15)
    assert register_edition(root, lookup=lookup).workloads


def test_n_other_than_fifteen_needs_a_recorded_reason(tmp_path: Path, lookup) -> None:
    root = write_edition(tmp_path / "e5", models=[model("m1")], n=4)
    _edit(root / "edition.yaml", lambda d: [w.pop("n_reason") for w in d["workloads"]])
    _refused(root, lookup, "workloads.toy.add.v1.n: 4", "n_reason")
    root = write_edition(tmp_path / "e6", models=[model("m1")], n=4)  # with a reason
    assert register_edition(root, lookup=lookup).workloads["toy.add.v1"].n_items == 4


def test_primitives_are_the_closed_set_of_seven() -> None:
    assert PRIMITIVES == (
        "extract",
        "classify",
        "reconcile",
        "generate",
        "synthesize",
        "query",
        "execute",
    )
    assert {w.primitive for w in registry().values()} == set(PRIMITIVES)
    some = next(iter(registry().values()))
    with pytest.raises(ValueError, match="not one of the standard's seven"):
        dataclasses.replace(some, primitive="compute")
