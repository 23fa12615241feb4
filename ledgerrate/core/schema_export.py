"""JSON Schemas of every edition file, published on the site for readers to validate against."""

from __future__ import annotations

import json
from pathlib import Path

from ledgerrate.core.io import atomic_write_text
from ledgerrate.schema import FILE_MODELS


def schema_documents() -> dict[str, dict]:
    docs = {}
    for name, model in FILE_MODELS.items():
        stem = name.replace(".", "-")
        doc = model.model_json_schema()
        doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        doc["$id"] = f"ledgerrate/{stem}.schema.json"
        docs[f"{stem}.schema.json"] = doc
    return docs


def export_schemas(out: Path) -> list[Path]:
    written = []
    for filename, doc in sorted(schema_documents().items()):
        path = out / filename
        atomic_write_text(path, json.dumps(doc, indent=2, sort_keys=True) + "\n")
        written.append(path)
    return written
