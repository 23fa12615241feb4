"""The reference solver is one notion of the model spec (`solver: reference`), not a provider
family; editions sealed with its old spelling (`provider: baseline`) read as it and keep their
sealed edition hash."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from ledgerrate.core.edition import edition_hash, edition_hash_document, load_edition
from ledgerrate.schema import EditionManifest, ModelSpec, register_provider_family

EDITIONS = Path(__file__).resolve().parents[2] / "editions"
BUNDLED = ("2026-11", "2026-11-b", "2026-12")


def _spec(**fields: object) -> ModelSpec:
    return ModelSpec.model_validate({"id": "ref", "name": "Reference", "family": "x", **fields})


@pytest.mark.parametrize("edition", BUNDLED)
def test_sealed_editions_read_baseline_as_the_reference_solver(edition: str) -> None:
    loaded = load_edition(EDITIONS / edition)
    reference = [m for m in loaded.manifest.models if m.is_reference]
    assert [m.id for m in reference] == ["reference"]
    assert reference[0].provider is None and reference[0].solver == "reference"
    # The hash document is the file as written, so the sealed edition hash holds.
    models = edition_hash_document(loaded.manifest)["models"]
    assert models[0]["provider"] == "baseline" and "solver" not in models[0]
    assert loaded.registration is not None
    sealed = loaded.registration.edition_hash
    assert edition_hash(loaded.manifest, loaded.registration.hash_scheme) == sealed


def test_the_new_spelling_dumps_as_written_and_round_trips() -> None:
    spec = _spec(solver="reference")
    dumped = spec.model_dump(mode="json")
    assert dumped["solver"] == "reference" and "provider" not in dumped
    assert ModelSpec.model_validate(dumped) == spec
    old = _spec(provider="baseline")
    assert old.is_reference and old.model_dump(mode="json")["provider"] == "baseline"
    assert ModelSpec.model_validate(old.model_dump(mode="json")).is_reference


def test_a_model_is_never_the_reference_solver() -> None:
    model = _spec(
        provider="openai", api_model="m", base_url="https://api.example/v1", api_key_env="K"
    )
    assert not model.is_reference and model.solver is None
    assert "solver" not in model.model_dump(mode="json")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"provider": "baseline", "solver": "reference"}, "give `solver: reference` alone"),
        (
            {"provider": "openai", "solver": "reference", "api_model": "m", "base_url": "u"},
            "not both",
        ),
        ({}, "provider is missing"),
        ({"solver": "oracle"}, "reference"),
    ],
)
def test_a_spec_names_a_provider_or_the_solver(fields: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        _spec(**fields)


def test_baseline_cannot_be_registered_as_a_family() -> None:
    with pytest.raises(ValueError, match="reference solver's old spelling"):
        register_provider_family("baseline")


def test_the_json_schema_accepts_both_spellings() -> None:
    provider = EditionManifest.model_json_schema()["$defs"]["ModelSpec"]["properties"]
    enum = next(o["enum"] for o in provider["provider"]["anyOf"] if "enum" in o)
    assert "baseline" in enum and "openai" in enum
    assert provider["solver"]["anyOf"][0] == {"const": "reference", "type": "string"}
