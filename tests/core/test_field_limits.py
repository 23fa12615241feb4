"""Every free-text field an operator writes in an edition file has its own documented bound.

A 500 KB title fits under the file size limit and the 2 MB bound of any text, yet would be
repeated on every page, card and bundle: `register` refuses it in one line naming the file, the
field and the limit, and changes nothing. The bounds are the schema's, so the published JSON
Schemas carry them and the sealed hashes (over the data, not the schema) do not move.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from ledgerrate import cli
from ledgerrate.core.io import FileProblem, load_model
from ledgerrate.schema import (
    MAX_ACCOUNT_CHARS,
    MAX_LINE_CHARS,
    MAX_NOTE_CHARS,
    MAX_URL_CHARS,
    EditionManifest,
    ErrataFile,
    PricingTable,
)

REPO = Path(__file__).resolve().parents[2]
# 2026-12 has every kind of entry: judges, n_reason, self-hosted prices, errata with figures.
SOURCE = REPO / "editions" / "2026-12"
GUIDE = REPO / "docs" / "operator-guide.md"

# (file, path to the field inside the YAML document, its bound)
FIELDS: list[tuple[str, tuple[Any, ...], int]] = [
    ("edition.yaml", ("title",), MAX_LINE_CHARS),
    ("edition.yaml", ("brand",), MAX_LINE_CHARS),
    ("edition.yaml", ("notes", 0), MAX_NOTE_CHARS),
    ("edition.yaml", ("workloads", 0, "n_reason"), MAX_NOTE_CHARS),
    ("edition.yaml", ("models", 0, "name"), MAX_LINE_CHARS),
    ("edition.yaml", ("models", 0, "family"), MAX_LINE_CHARS),
    ("edition.yaml", ("models", 0, "sampling_notes"), MAX_NOTE_CHARS),
    ("edition.yaml", ("models", 0, "base_url"), MAX_URL_CHARS),
    ("edition.yaml", ("models", 0, "api_model"), MAX_LINE_CHARS),
    ("pricing.yaml", ("compute", "source_url"), MAX_URL_CHARS),
    ("pricing.yaml", ("self_hosted", "smollm2", "assumption"), MAX_NOTE_CHARS),
    ("pricing.yaml", ("self_hosted", "smollm2", "instance"), MAX_LINE_CHARS),
    ("errata.yaml", ("entries", 0, "title"), MAX_LINE_CHARS),
    ("errata.yaml", ("entries", 0, "what_changed"), MAX_ACCOUNT_CHARS),
    ("errata.yaml", ("entries", 0, "why"), MAX_ACCOUNT_CHARS),
]
MODELS = {"edition.yaml": EditionManifest, "pricing.yaml": PricingTable, "errata.yaml": ErrataFile}


def _set(doc: Any, path: tuple[Any, ...], value: str) -> None:
    for step in path[:-1]:
        doc = doc[step]
    doc[path[-1]] = value


def _write(tmp_path: Path, name: str, path: tuple[Any, ...], text: str) -> Path:
    doc = yaml.safe_load((SOURCE / name).read_text())
    _set(doc, path, text)
    target = tmp_path / name
    target.write_text(yaml.safe_dump(doc, allow_unicode=True, width=1 << 30))
    return target


def _value(length: int, path: tuple[Any, ...]) -> str:
    # A URL must still read as one where a validator looks; any text does for the others.
    if path[-1] in ("base_url", "source_url"):
        return "https://example.test/" + "p" * (length - len("https://example.test/"))
    return "x" * length


@pytest.mark.parametrize(("name", "path", "limit"), FIELDS, ids=lambda v: str(v))
def test_a_field_over_its_bound_is_one_line_naming_file_field_and_limit(
    tmp_path: Path, name: str, path: tuple[Any, ...], limit: int
) -> None:
    at_limit = _write(tmp_path, name, path, _value(limit, path))
    load_model(MODELS[name], at_limit)  # exactly at the bound: accepted
    over = _write(tmp_path, name, path, _value(limit + 1, path))
    with pytest.raises(FileProblem) as caught:
        load_model(MODELS[name], over)
    [line] = caught.value.lines
    field = ".".join(str(p) for p in path)
    assert str(over) in line and field in line and f"at most {limit} characters" in line
    assert len(line) < 400


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_register_refuses_a_half_megabyte_title_and_changes_nothing(tmp_path: Path) -> None:
    edition = tmp_path / "editions" / "draft"
    shutil.copytree(REPO / "editions" / "2026-11", edition)
    manifest = edition / "edition.yaml"
    text = manifest.read_text()
    text = re.sub(r"^title: .*$", f'title: "{"x" * 500_000}"', text, count=1, flags=re.M)
    manifest.write_text(text)
    before = _tree(edition)
    result = CliRunner().invoke(cli.app, ["register", str(edition)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    [line] = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert str(manifest) in line and "title" in line and f"at most {MAX_LINE_CHARS}" in line
    assert len(line) < 400
    assert _tree(edition) == before


def _strings(node: Any, defs: dict[str, Any], path: str, seen: set[str]) -> list[tuple[str, Any]]:
    """Every string field of a JSON Schema (not enums, dates or decimals) with its maxLength."""
    out: list[tuple[str, Any]] = []
    if not isinstance(node, dict):
        return out
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return out
        return _strings(defs[name], defs, path, seen | {name})
    if "anyOf" in node:
        if any(alt.get("type") == "number" for alt in node["anyOf"]):
            return out  # an exact decimal (`Usd`), read as a number or its text
        for alt in node["anyOf"]:
            out += _strings(alt, defs, path, seen)
    if node.get("type") == "string" and not {"enum", "const", "format"} & node.keys():
        out.append((path, node.get("maxLength")))
    for key, sub in node.get("properties", {}).items():
        out += _strings(sub, defs, f"{path}.{key}", seen)
    for key in ("items", "additionalProperties"):
        out += _strings(node.get(key), defs, f"{path}[]", seen)
    for sub in node.get("patternProperties", {}).values():
        out += _strings(sub, defs, f"{path}[]", seen)
    return out


@pytest.mark.parametrize("model", [EditionManifest, PricingTable, ErrataFile])
def test_every_text_field_of_an_edition_file_has_a_documented_bound(model: type) -> None:
    schema = model.model_json_schema(mode="validation")
    fields = _strings(schema, schema.get("$defs", {}), model.__name__, set())
    assert fields
    unbounded = [(p, n) for p, n in fields if n is None or n > MAX_ACCOUNT_CHARS]
    assert unbounded == []
    guide = GUIDE.read_text()
    for limit in (MAX_LINE_CHARS, MAX_URL_CHARS, MAX_NOTE_CHARS, MAX_ACCOUNT_CHARS):
        assert f"{limit:,}" in guide


def test_the_bundled_editions_files_still_read() -> None:
    # The bounds are on the schema, never on the data (`verify` checks the hashes): each bundled
    # file is within them.
    for edition in sorted(p for p in (REPO / "editions").iterdir() if p.is_dir()):
        for name, model in MODELS.items():
            if (edition / name).exists():
                load_model(model, edition / name)
