from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from ledgerrate.core.edition import load_edition, require_current_registration
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import seed_commitment
from ledgerrate.core.io import write_json
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seeds import dataset_for, load_seeds, release_seeds
from tests.run import toy
from tests.run.runkit import model, write_edition


def test_register_seals_once_and_dataset_round_trips(edition_factory, lookup, private_dir) -> None:
    root = edition_factory(models=[model("m1")], workloads=["toy.add.v1", "toy.mul.v1"])
    reg = register_edition(root, lookup=lookup)
    assert set(reg.workloads) == {"toy.add.v1", "toy.mul.v1"}
    assert reg.hash_scheme == 2  # new registrations hash with RFC 8785
    seeds = load_seeds(root)
    assert (private_dir / "2026-07" / "seeds.json").exists()
    assert not (root / "seeds.json").exists()  # withheld
    for wid, sealed in reg.workloads.items():
        entry = seeds.seeds[wid]
        assert seed_commitment(entry.seed, entry.salt) == sealed.seed_commitment
        assert entry.seed < 2**63 and len(entry.salt) == 64
        card = json.loads((root / "datasets" / wid / "card.json").read_text())
        assert card["dataset_hash"] == sealed.dataset_hash
        assert card["seed_commitment"] == sealed.seed_commitment
        assert card["hash_scheme"] == 2
        assert dataset_for(root, wid, lookup=lookup).hash_for(2) == sealed.dataset_hash
    # the two workloads got different seeds
    assert seeds.seeds["toy.add.v1"].seed != seeds.seeds["toy.mul.v1"].seed
    with pytest.raises(UsageProblem, match="already registered"):
        register_edition(root, lookup=lookup)


def test_register_refuses_missing_price_and_missing_compute(tmp_path: Path, lookup) -> None:
    root = write_edition(tmp_path / "a", models=[model("m1"), model("m2")], prices={})
    with pytest.raises(UsageProblem) as info:
        register_edition(root, lookup=lookup)
    assert "'m1'" in str(info.value) and "'m2'" in str(info.value)
    assert not (root / "registration.json").exists()
    root = write_edition(tmp_path / "b", models=[model("ref", "baseline")], compute=False)
    with pytest.raises(UsageProblem, match="compute"):
        register_edition(root, lookup=lookup)


def test_mismatch_names_every_changed_hash(edition_factory, lookup) -> None:
    root = edition_factory(models=[model("m1")])
    register_edition(root, lookup=lookup)
    changed = dataclasses.replace(toy.make(), prompt_template="Different {a} {b}")
    pricing = (root / "pricing.yaml").read_text().replace("'2.00'", "'3.00'")
    (root / "pricing.yaml").write_text(pricing)
    with pytest.raises(UsageProblem) as info:
        require_current_registration(load_edition(root), lambda _w: changed)
    text = str(info.value)
    assert "pricing hash" in text and "prompt hash" in text and "workload hash" in text
    assert "grader hash" not in text


def test_dataset_for_rejects_wrong_seed(edition_factory, lookup, private_dir) -> None:
    root = edition_factory(models=[model("m1")])
    register_edition(root, lookup=lookup)
    path = private_dir / root.name / "seeds.json"
    data = json.loads(path.read_text())
    data["seeds"]["toy.add.v1"]["seed"] += 1
    write_json(path, data)
    with pytest.raises(UsageProblem, match="commitment"):
        dataset_for(root, "toy.add.v1", lookup=lookup)


def test_dataset_for_unregistered_and_release(edition_factory, lookup, private_dir) -> None:
    root = edition_factory(models=[model("m1")])
    with pytest.raises(UsageProblem, match="not registered"):
        dataset_for(root, "toy.add.v1", lookup=lookup)
    reg = register_edition(root, lookup=lookup)
    with pytest.raises(UsageProblem, match="window closes"):
        release_seeds(root)
    manifest = load_edition(root).manifest
    path = release_seeds(root, now=manifest.window.closes)
    assert path == root / "seeds.json"
    (private_dir / root.name / "seeds.json").unlink()
    # released seeds alone rebuild the registered dataset
    assert dataset_for(root, "toy.add.v1", lookup=lookup).hash == (
        reg.workloads["toy.add.v1"].dataset_hash
    )


def _refusing(times: int, base):
    """The toy workload with a generator that refuses its first `times` seeds."""
    calls = {"n": 0}

    def generate(rng, n):
        calls["n"] += 1
        if calls["n"] <= times:
            raise ValueError("reference result unusable for this seed")
        return base.generate(rng, n)

    return dataclasses.replace(base, generate=generate)


def test_register_redraws_a_refused_seed_and_discloses_it(edition_factory, lookup) -> None:
    refusing = _refusing(2, lookup("toy.add.v1"))
    root = edition_factory(models=[model("ref", "baseline")])
    registration = register_edition(root, lookup=lambda _wid: refusing)
    sealed = registration.workloads["toy.add.v1"]
    assert sealed.rejected_draws == 2
    # The sealed seed is the accepted one: it regenerates the registered dataset.
    assert dataset_for(root, "toy.add.v1", lookup=lambda _wid: refusing).hash == sealed.dataset_hash


def test_register_gives_up_after_bounded_redraws(edition_factory, lookup) -> None:
    refusing = _refusing(99, lookup("toy.add.v1"))
    root = edition_factory(models=[model("ref", "baseline")])
    with pytest.raises(UsageProblem, match="refused 5 fresh seeds"):
        register_edition(root, lookup=lambda _wid: refusing)
    assert not (root / "registration.json").exists()


def _pricing_with(root: Path, **times: str) -> None:
    import yaml

    table = yaml.safe_load((root / "pricing.yaml").read_text())
    # Both times are set, so a test names the one it makes late (the others are in time).
    table["frozen_at"] = times.get("frozen_at", "2026-12-01T21:00:00Z")
    table["compute"]["retrieved_at"] = times.get("compute", "2026-12-01T21:00:00Z")
    (root / "pricing.yaml").write_text(yaml.safe_dump(table))


def test_register_refuses_prices_later_than_registration(edition_factory, lookup) -> None:
    # 2026-12's case: the window opens at 21:50, registration at 21:38:24, and the table says it
    # was frozen at 21:45 and read at 21:40, after the registration that sealed its hash.
    import datetime as dt

    opens = dt.datetime(2026, 12, 1, 21, 50, tzinfo=dt.UTC)
    root = edition_factory(models=[model("ref", "baseline")], opens=opens)
    _pricing_with(root, frozen_at="2026-12-01T21:45:00Z", compute="2026-12-01T21:40:00Z")
    registered = dt.datetime(2026, 12, 1, 21, 38, 24, tzinfo=dt.UTC)
    with pytest.raises(UsageProblem) as info:
        register_edition(root, lookup=lookup, now=registered)
    lines = str(info.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == ["frozen_at", "compute.retrieved_at"]
    for line in lines:
        assert line.startswith(f"{root / 'pricing.yaml'}: ")
        assert "is after the registration (2026-12-01T21:38:24Z)" in line
        assert "register only once the table is frozen" in line
    assert not (root / "registration.json").exists()
    # The same table registered after both times is accepted.
    reg = register_edition(root, lookup=lookup, now=dt.datetime(2026, 12, 1, 21, 46, tzinfo=dt.UTC))
    assert reg.pricing_hash


def test_register_refuses_prices_later_than_window_open(edition_factory, lookup) -> None:
    import datetime as dt

    opens = dt.datetime(2026, 12, 1, 21, 50, tzinfo=dt.UTC)
    root = edition_factory(models=[model("ref", "baseline")], opens=opens)
    _pricing_with(root, frozen_at="2026-12-01T21:55:00Z")
    with pytest.raises(UsageProblem, match=r"frozen_at: .* after the window opens"):
        register_edition(
            root,
            lookup=lookup,
            now=dt.datetime(2026, 12, 1, 22, 0, tzinfo=dt.UTC),
            seeds_kept_elsewhere="a safe",
        )
    # Frozen exactly at window open, before a registration after it: the standard's own case.
    _pricing_with(root, frozen_at="2026-12-01T21:50:00Z")
    reg = register_edition(
        root,
        lookup=lookup,
        now=dt.datetime(2026, 12, 1, 22, 0, tzinfo=dt.UTC),
    )
    assert reg.registered_at == dt.datetime(2026, 12, 1, 22, 0, tzinfo=dt.UTC)
