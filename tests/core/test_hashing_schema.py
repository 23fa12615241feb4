"""Content addresses and the exported JSON Schemas."""

from __future__ import annotations

import inspect
import json
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel
from typer.testing import CliRunner

import ledgerrate.schema as schema_module
from ledgerrate.cli import app
from ledgerrate.core.hashing import canonical_json, seed_commitment, sha256_json
from ledgerrate.schema import FILE_MODELS


def test_canonical_json_ignores_key_order_and_keeps_decimals() -> None:
    a = {"b": Decimal("0.10"), "a": [1, 2]}
    b = {"a": [1, 2], "b": Decimal("0.10")}
    assert canonical_json(a) == canonical_json(b) == '{"a":[1,2],"b":"0.10"}'
    assert sha256_json(a) == sha256_json(b)
    assert sha256_json({"b": Decimal("0.1")}) != sha256_json(a)


def test_seed_commitment_binds_seed_and_salt() -> None:
    c = seed_commitment(42, "ab" * 16)
    assert c != seed_commitment(43, "ab" * 16)
    assert c != seed_commitment(42, "cd" * 16)
    assert len(c) == 64


def _schema_models() -> list[type[BaseModel]]:
    return [
        obj
        for obj in vars(schema_module).values()
        if inspect.isclass(obj)
        and issubclass(obj, BaseModel)
        and obj.__module__.startswith(schema_module.__name__ + ".")
        and obj is not schema_module.Strict
    ]


def test_every_model_forbids_unknown_fields() -> None:
    assert len(_schema_models()) > 30  # the scan must see the models it checks
    for model in _schema_models():
        assert model.model_config.get("extra") == "forbid", model.__name__


def test_every_file_model_has_schema_version() -> None:
    for name, model in FILE_MODELS.items():
        assert "schema_version" in model.model_fields, name


def test_every_field_is_documented() -> None:
    """The exported schemas are read by outsiders: every field says what it is."""
    undocumented = [
        f"{model.__name__}.{name}"
        for model in _schema_models()
        for name, field in model.model_fields.items()
        if name != "schema_version" and not field.description
    ]
    assert undocumented == []


def test_schema_command_exports_valid_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("*.schema.json"))
    assert len(files) == len(FILE_MODELS)
    for path in files:
        doc = json.loads(path.read_text())
        assert doc["$schema"].startswith("https://json-schema.org/")
        assert doc["additionalProperties"] is False


def test_scheme_2_is_rfc8785_and_scheme_1_stays_as_sealed() -> None:
    value = {"b": 1.0, "a": [1e-7, 1e21, 0.1], "é": "x", "\u20ac": Decimal("2.50")}
    # Scheme 1 is what the November 2026 editions were sealed with: Python's float repr.
    assert canonical_json(value, 1) == '{"a":[1e-07,1e+21,0.1],"b":1.0,"é":"x","€":"2.50"}'
    # Scheme 2 is RFC 8785: ECMAScript number spelling, keys by UTF-16 code units.
    assert canonical_json(value, 2) == '{"a":[1e-7,1e+21,0.1],"b":1,"é":"x","€":"2.50"}'
    assert sha256_json(value, 1) != sha256_json(value, 2)
    # Where both agree (strings and integers only), the hash is the same in both schemes.
    plain = {"id": "x", "n": [1, 2], "s": 'line\nbreak "quoted"'}
    assert sha256_json(plain, 1) == sha256_json(plain, 2)


def test_both_schemes_refuse_nan_and_infinity() -> None:
    import math

    import pytest

    from ledgerrate.core.hashing import HashingError

    for bad in (math.nan, math.inf, -math.inf):
        for scheme in (1, 2):
            with pytest.raises(HashingError):
                sha256_json({"x": [bad]}, scheme)  # type: ignore[arg-type]
    with pytest.raises(HashingError):
        canonical_json({"x": 1}, 3)  # type: ignore[arg-type]


def test_scheme_2_spells_integers_beyond_doubles_as_strings() -> None:
    # A 63-bit database seed has no exact double: JCS would refuse it, so it hashes as text.
    big = 5633862341734979321
    assert canonical_json({"seed": big, "n": 2**53 - 1, "t": True}, 2) == (
        '{"n":9007199254740991,"seed":"5633862341734979321","t":true}'
    )


def test_source_hash_follows_an_edit_of_the_file_it_remembered(tmp_path: Path) -> None:
    """A grader's hash is remembered per process, but an edit to its file (another mtime or
    size) is read again: a remembered text must never outlive the source it came from."""
    import importlib.util
    import os

    from ledgerrate.core.hashing import sha256_text, source_hash

    path = tmp_path / "grader_under_edit.py"
    path.write_text("def grade(x):\n    return x > 1\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("grader_under_edit", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    first = source_hash(module)
    assert first == sha256_text(path.read_text(encoding="utf-8"))
    assert source_hash(module) == first

    path.write_text("def grade(x):\n    return x > 2\n", encoding="utf-8")  # same size
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert source_hash(module) == sha256_text(path.read_text(encoding="utf-8")) != first
