"""The exact bytes behind every structured or source hash an edition seals, published under
`data/<edition>/hashed/` so that an outsider recomputes each hash with `sha256sum` and checks
the bytes against the files they stand for (methodology: hashes.md).

* `edition.json`, `pricing.json`: the canonical JSON whose sha256 is the registration's
  `edition_hash` and `pricing_hash` (the YAML with the schema's defaults filled in, in the
  registration's hash scheme);
* `errata/<id>.json`: the canonical JSON whose sha256 the publication chain seals per erratum;
* `workloads/<workload>/r<N>/`: per grader revision of each registered workload version, the
  source text hashed into `grader_hash`, `generator_hash` and the prompt code, the prompt
  template and rubric, and `workload.json`, the record whose canonical JSON is `workload_hash`;
  `workloads/<workload>/manifest.json` lists them and which grader revisions the edition's
  figures may rest on.

The bytes are what the toolchain hashes today, written whether or not they still hash to what
was sealed: a registration that no longer matches its edition is then visible to any reader
(the standalone verifier reports it), not hidden by a missing file.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from ledgerrate.core import seal
from ledgerrate.core.edition import edition_hash_document, pricing_hash_document
from ledgerrate.core.hashing import HashScheme, canonical_json, sha256_bytes
from ledgerrate.publish.cache import BuildCache, key_of, write_plain
from ledgerrate.publish.load import Edition
from ledgerrate.schema import Erratum
from ledgerrate.workloads.base import Workload

FOLDER = "hashed"


def _source_text(objects: tuple[Any, ...]) -> str:
    # The same text `ledgerrate.core.hashing.source_hash` hashes: each object's source, joined by
    # one newline (read through inspect, as the hash is).
    return "\n".join(inspect.getsource(obj) for obj in objects)


def _name(obj: Any) -> str:
    module = inspect.getmodule(obj)
    where = module.__name__ if module else "?"
    qualname = getattr(obj, "__qualname__", None)
    return f"{where}:{qualname}" if qualname and not inspect.ismodule(obj) else where


def _pretty(doc: Any) -> bytes:
    return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def revision_files(workload: Workload, scheme: HashScheme) -> tuple[dict[str, bytes], dict]:
    """The files of one grader revision and its manifest entry."""
    sources = {
        "grader.txt": (workload.grade, *workload.grader_sources),
        "generator.txt": (workload.generate, *workload.generator_sources),
        "prompt_code.txt": (workload.prompt, *workload.prompt_sources),
    }
    files = {name: _source_text(objs).encode("utf-8") for name, objs in sources.items()}
    files["prompt_template.txt"] = workload.prompt_template.encode("utf-8")
    if workload.rubric is not None:
        files["rubric.txt"] = workload.rubric.encode("utf-8")
    record = {
        "id": workload.id,
        "prompt": workload.prompt_hash,
        "rubric": workload.rubric_hash,
        "grader": workload.grader_hash,
        "generator": workload.generator_hash,
        "prompt_code": sha256_bytes(files["prompt_code.txt"]),
        "output_schema": dict(workload.output_schema),
    }
    files["workload.json"] = canonical_json(record, scheme).encode("utf-8")
    entry = {
        "workload_hash": workload.workload_hash_for(scheme),
        "grader_hash": workload.grader_hash,
        "generator_hash": workload.generator_hash,
        "prompt_hash": workload.prompt_hash,
        "rubric_hash": workload.rubric_hash,
        "prompt_code_hash": record["prompt_code"],
        "sources": {name: [_name(obj) for obj in objs] for name, objs in sources.items()},
        "files": {name: sha256_bytes(data) for name, data in sorted(files.items())},
    }
    return files, entry


def workload_files(workload: Workload, sealed_hash: str, scheme: HashScheme) -> dict[str, bytes]:
    """Every revision of a registered workload version, under `workloads/<id>/`."""
    revisions = (*workload.superseded, workload)
    out: dict[str, bytes] = {}
    entries = []
    registered = None
    for number, revision in enumerate(revisions, start=1):
        files, entry = revision_files(revision, scheme)
        entries.append({"revision": number, **entry})
        for name, data in files.items():
            out[f"r{number}/{name}"] = data
        if entry["workload_hash"] == sealed_hash:
            registered = number
    manifest = {
        "workload": workload.id,
        "hash_scheme": scheme,
        "registered_revision": registered,
        # The grader revisions whose grades may decide this edition's figures: the revision
        # sealed at registration and every published correction after it.
        "graders_allowed": [
            {"revision": e["revision"], "grader_hash": e["grader_hash"]}
            for e in entries
            if registered is not None and e["revision"] >= registered
        ],
        "revisions": entries,
    }
    out["manifest.json"] = _pretty(manifest)
    return out


def erratum_bytes(entry: Erratum) -> bytes:
    """The canonical JSON the chain seals for an erratum (`seal.erratum_digest`)."""
    data = canonical_json(entry.model_dump(mode="json")).encode("utf-8")
    if sha256_bytes(data) != seal.erratum_digest(entry):
        # The chain's recipe moved (a field added to Erratum): publish what it hashes.
        raise RuntimeError(f"erratum {entry.id}: seal.erratum_digest no longer hashes its dump")
    return data


def hashed_files(edition: Edition) -> dict[str, bytes]:
    """Every file under `hashed/` for `edition` (relative path → bytes)."""
    from ledgerrate.workloads import get

    out: dict[str, bytes] = {}
    reg = edition.registration
    if reg is not None:
        scheme = reg.hash_scheme
        document = edition_hash_document(edition.manifest)
        out["edition.json"] = canonical_json(document, scheme).encode()
        if edition.pricing is not None:
            document = pricing_hash_document(edition.pricing)
            out["pricing.json"] = canonical_json(document, scheme).encode()
        for workload_id, sealed in sorted(reg.workloads.items()):
            try:
                workload = get(workload_id)
            except KeyError:
                continue
            for rel, data in workload_files(workload, sealed.workload_hash, scheme).items():
                out[f"workloads/{workload_id}/{rel}"] = data
    for entry in edition.errata.entries if edition.errata else []:
        out[f"errata/{entry.id}.json"] = erratum_bytes(entry)
    return out


def _hashed_files_json(edition: Edition) -> bytes:
    # Every file is UTF-8 text (canonical JSON, source code, prompts), so one JSON object holds
    # them all as one cache product.
    files = {rel: data.decode("utf-8") for rel, data in hashed_files(edition).items()}
    return json.dumps(files, sort_keys=True, ensure_ascii=False).encode("utf-8")


def write_hashed_inputs(edition: Edition, dest: Path, cache: BuildCache) -> None:
    """Write `hashed/` into an edition's data folder (before its SHA256SUMS is written).

    A cache product keyed by the code that makes it and the edition's sealed inputs: reading the
    workloads' sources imports the catalogue (and through it the PDF renderer), which a build
    on a warm cache must not pay for."""
    paths = edition.paths
    inputs = [paths.manifest, paths.pricing, paths.registration, paths.errata]
    key = key_of(
        "hashed",
        cache.code("hashed"),
        edition.id,
        [(p.name, cache.file_digest(p)) for p in inputs if p.is_file()],
    )
    files = json.loads(cache.product("hashed", key, lambda: _hashed_files_json(edition)))
    for rel, text in sorted(files.items()):
        write_plain(dest / FOLDER / rel, text.encode("utf-8"))
