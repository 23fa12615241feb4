#!/usr/bin/env python3
"""LedgerRate standalone verifier: re-derive every hash a LedgerRate site publishes.

Written from the methodology pages (methodology/1.0/hashes.md), not from LedgerRate's code, and
sharing none of it: Python's standard library plus `rfc8785` and `pyyaml`, pinned in the
`requirements.txt` published beside this file. Its figures half, `standalone_figures.py`, sits
in the same folder.

    python verify_standalone.py https://example.org/         # a site, fetched over http(s)
    python verify_standalone.py build/site                    # a site folder on disk
    python verify_standalone.py ledgerrate-evidence-….tar.gz  # an edition's evidence bundle

It prints one line per check (matched; mismatched; disclosed, a defect an erratum discloses;
withheld until a named release; or not checked, with its reason) and a summary; the exit status
is 1 when anything mismatched, 2 on bad input.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
import gzip
import hashlib
import importlib.util
import json
import re
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import rfc8785
import yaml

HERE = Path(__file__).resolve().parent
DOMAIN = "ledgerrate-publication-v1"
SAFE_INTEGER = 2**53 - 1
BUNDLE_NAME = re.compile(
    r"^ledgerrate-evidence-(?P<edition>[A-Za-z0-9._-]+)-(?P<sha>[0-9a-f]{64})\.tar\.gz$"
)
# Sealed logs and their companions: "raw logs" in the checks' names.
RAW_LOG_DIRS = ("runs/", "grades/", "bodies/", "probes/")
# "disclosed": a defect an erratum discloses (not a pass, not a new mismatch).
STATUSES = ("matched", "mismatched", "disclosed", "withheld", "not checked")


class BadInput(Exception):
    """The input is not a site, a site URL or an evidence bundle."""


# --------------------------------------------------------------------------- hashing recipes


def _text_of(content: Any, key: str = "text") -> str | None:
    """A message's text: a plain string, or its text parts joined as the adapter wrote them
    (each adapter sends the prompt as one string or one text part)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p for p in content if isinstance(p, dict)]
        texts = [p[key] for p in parts if isinstance(p.get(key), str)]
        return "".join(texts) if texts else None
    return None


def prompt_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """{"system", "user"} of a model request, in any of the four wire formats a run may
    record: chat completions (`messages`, the system prompt a `system` message), Anthropic
    Messages (`system`, then `messages` whose content is text blocks), Gemini
    generateContent (`systemInstruction.parts`, then `contents` of `parts`) and the Responses
    API (`instructions`, then `input`). None when the body shows no prompt (no request)."""
    system: Any
    user: str | None
    if isinstance(body.get("contents"), list):
        system = _text_of((body.get("systemInstruction") or {}).get("parts")) or ""
        turns = [t for t in body["contents"] if t.get("role") == "user"]
        user = _text_of(turns[0].get("parts")) if turns else None
    elif isinstance(body.get("input"), list | str):
        system = body.get("instructions") or ""
        given = body["input"]
        if isinstance(given, str):
            user = given
        else:
            turns = [i for i in given if isinstance(i, dict) and i.get("role") == "user"]
            user = _text_of(turns[0].get("content")) if turns else None
    elif isinstance(body.get("messages"), list) and body["messages"]:
        messages = body["messages"]
        system = body.get("system")
        if isinstance(system, list):
            system = _text_of(system)
        if system is None:
            first = next((m for m in messages if m.get("role") == "system"), None)
            system = _text_of(first.get("content")) if first else ""
        turns = [m for m in messages if m.get("role") == "user"]
        user = _text_of(turns[0].get("content")) if turns else None
    else:
        return None
    return {"system": system, "user": user}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _plain(value: Any) -> Any:
    """Scheme 2's one rule before RFC 8785: an integer beyond ±(2^53 − 1) becomes its decimal
    string (I-JSON, RFC 7493), since a JCS number is a double."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE_INTEGER:
        return str(value)
    return value


def canonical(value: Any, scheme: int) -> bytes:
    """Canonical JSON bytes (UTF-8) under a hash scheme (hashes.md: "Canonical JSON")."""
    if scheme == 2:
        return rfc8785.dumps(_plain(value))
    if scheme == 1:
        text = json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        return text.encode("utf-8")
    raise BadInput(f"hash_scheme {scheme!r} is not 1 or 2")


def seed_commitment(seed: int, salt: str) -> str:
    return sha256(f"{seed}\u2016{salt}".encode())


def publication_digests(published_sha: str, errata_shas: Iterable[str]) -> list[str]:
    """d0 = sha256("ledgerrate-publication-v1\\n" + sha256(published.json));
    dk = sha256(d(k-1) + "\\n" + sha256(canonical JSON of erratum k))."""
    heads = [sha256(f"{DOMAIN}\n{published_sha}".encode())]
    for digest in errata_shas:
        heads.append(sha256(f"{heads[-1]}\n{digest}".encode()))
    return heads


# YAML → JSON (hashes.md: "From YAML to canonical JSON"): a plain scalar YAML resolves as a
# timestamp is read as the toolchain reads it (a date or a date-time) and spelled back as the
# toolchain writes it (ISO 8601, "T" between date and time, "Z" for UTC, a fraction only when
# non-zero). PyYAML's default loader would hand back datetime objects, which no JSON library
# spells that way; leaving the source text as it is breaks on "2026-12-01 21:40:00".
class _Loader(yaml.SafeLoader):
    pass


def _timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    text = loader.construct_scalar(node)
    return spell_timestamp(str(text))


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)


def spell_timestamp(text: str) -> str:
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text
    normal = re.sub(r"[ \t]+(?=[Zz+-]|$)", "", text.replace("t", "T").replace("z", "Z"))
    normal = re.sub(r"^(\d{4}-\d{1,2}-\d{1,2})[ \t]+", r"\1T", normal)
    normal = re.sub(r"([+-]\d{2})$", r"\1:00", normal)
    when = dt.datetime.fromisoformat(normal.replace("Z", "+00:00"))
    spelled = when.replace(tzinfo=None).isoformat()
    if when.tzinfo is None:
        return spelled
    offset = when.utcoffset()
    if offset == dt.timedelta(0):
        return spelled + "Z"
    return when.isoformat()


def load_yaml(data: bytes) -> Any:
    return yaml.load(data.decode("utf-8"), Loader=_Loader)


def parse_time(text: str) -> dt.datetime:
    when = dt.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


# Defaults an erratum's hash covers although errata.yaml may leave them out (hashes.md,
# "An erratum's hash"): the chain seals every field of the erratum schema.
ERRATUM_DEFAULTS: dict[str, Any] = {"figures": [], "files": [], "withdrawn": False}
FIGURE_DEFAULTS: dict[str, Any] = {"workload": None, "model": None, "mode": None}
ERRATUM_FIELDS = ("id", "date", "title", "what_changed", "why", "figures", "files", "withdrawn")


def erratum_document(entry: dict[str, Any]) -> dict[str, Any]:
    """The value whose scheme-1 canonical JSON an erratum's sha256 is."""
    doc = {key: entry[key] for key in ERRATUM_FIELDS if key in entry}
    for key, default in ERRATUM_DEFAULTS.items():
        doc.setdefault(key, default)
    doc["id"] = str(doc["id"])
    doc["figures"] = [{**FIGURE_DEFAULTS, **fig} for fig in doc["figures"]]
    # Fields the schema gained after the first errata were sealed: hashed only when set.
    for key, value in entry.items():
        if key not in doc and value not in (None, [], {}):
            doc[key] = value
    return doc


# --------------------------------------------------------------------------- reporting


class Report:
    def __init__(self, quiet: bool = False) -> None:
        self.rows: list[tuple[str, str, str, str, str | None]] = []
        self.quiet = quiet

    def record(
        self, status: str, scope: str, check: str, detail: str, until: str | None = None
    ) -> None:
        if status not in STATUSES:
            status, detail = "mismatched", f"{detail} (reported with unknown status {status!r})"
        self.rows.append((status, scope, check, detail, until))
        if self.quiet and status == "matched":
            return
        tail = f" (withheld until {until})" if status == "withheld" else ""
        print(f"{status.upper():<12} {scope}: {check}: {detail}{tail}", flush=True)

    def for_scope(self, scope: str) -> Callable[..., None]:
        def record(status: str, check: str, detail: str, until: str | None = None) -> None:
            self.record(status, scope, check, detail, until)

        return record

    def count(self, status: str) -> int:
        return sum(1 for row in self.rows if row[0] == status)

    def summary(self) -> str:
        lines = [
            f"summary: {self.count('matched')} matched, {self.count('mismatched')} mismatched, "
            f"{self.count('disclosed')} disclosed by an erratum, "
            f"{self.count('withheld')} withheld, {self.count('not checked')} not checked"
        ]
        for status, scope, check, detail, until in self.rows:
            if status == "withheld":
                lines.append(f"  withheld until {until}: {scope}: {check}: {detail}")
            elif status == "disclosed":
                lines.append(f"  disclosed: {scope}: {check}: {detail}")
            elif status == "not checked":
                lines.append(f"  not checked: {scope}: {check}: {detail}")
            elif status == "mismatched":
                lines.append(f"  MISMATCH: {scope}: {check}: {detail}")
        return "\n".join(lines)


# --------------------------------------------------------------------------- inputs


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.read()
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise BadInput(f"{url}: HTTP {error.code}") from None
    except urllib.error.URLError as error:
        raise BadInput(f"{url}: {error.reason}") from None


def _safe_rel(rel: str) -> str:
    parts = Path(rel).parts
    if Path(rel).is_absolute() or ".." in parts or not parts:
        raise BadInput(f"refusing the path {rel!r}: it leaves the download folder")
    return rel


def fetch_site(root_url: str, into: Path) -> Path:
    """Download a site's publication index, errata feed and every edition's data folder (the
    files its SHA256SUMS lists) into `into`; returns `into`."""
    base = root_url if root_url.endswith("/") else root_url + "/"
    into.mkdir(parents=True, exist_ok=True)
    for name in ("publications.jsonl", "errata.xml"):
        data = _get(urllib.parse.urljoin(base, name))
        if data is not None:
            (into / name).write_bytes(data)
    index = into / "publications.jsonl"
    if not index.is_file():
        raise BadInput(
            f"{base}: no publications.jsonl at the site root; is this a LedgerRate site?"
        )
    editions = sorted(
        {json.loads(line)["edition"] for line in index.read_bytes().splitlines() if line.strip()}
    )
    wanted: list[tuple[str, Path]] = []
    for edition in editions:
        # The rate card's machine-readable forms sit at the site root (figures.md).
        for name in (f"ratecard-{edition}.json", f"ratecard-{edition}.csv"):
            wanted.append((name, into / name))
        folder = into / "data" / edition
        folder.mkdir(parents=True, exist_ok=True)
        sums = _get(urllib.parse.urljoin(base, f"data/{edition}/SHA256SUMS"))
        if sums is None:
            continue
        (folder / "SHA256SUMS").write_bytes(sums)
        for line in sums.decode("utf-8").splitlines():
            if line.strip():
                rel = _safe_rel(line.split("  ", 1)[1])
                wanted.append((f"data/{edition}/{urllib.parse.quote(rel)}", folder / rel))

    def download(job: tuple[str, Path]) -> None:
        data = _get(urllib.parse.urljoin(base, job[0]))
        if data is not None:
            job[1].parent.mkdir(parents=True, exist_ok=True)
            job[1].write_bytes(data)

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(download, wanted))
    # Files a seal names that SHA256SUMS does not list are looked for too: "downloadable" is
    # then what the site serves, not what it lists.
    extra: list[tuple[str, Path]] = []
    for edition in editions:
        folder = into / "data" / edition
        published = _published_from_site(folder)
        for name in published.get("files", {}) if published else {}:
            rel = _safe_rel(name)
            for candidate in (rel, rel + ".gz", rel + ".txt"):
                if not (folder / candidate).exists():
                    extra.append(
                        (f"data/{edition}/{urllib.parse.quote(candidate)}", folder / candidate)
                    )
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(download, extra))
    return into


def unpack_bundle(path: Path, into: Path) -> Path:
    """Unpack an evidence bundle; returns the edition folder inside `into`."""
    with tarfile.open(path, "r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            rel = _safe_rel(member.name)
            handle = tar.extractfile(member)
            if handle is None:
                continue
            target = into / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(handle.read())
    folders = [p for p in into.iterdir() if p.is_dir()]
    if len(folders) != 1:
        raise BadInput(f"{path}: an evidence bundle holds one edition folder, found {len(folders)}")
    return folders[0]


def _published_from_site(folder: Path) -> dict[str, Any] | None:
    """published.json of a site's edition folder: beside the downloads, or in its bundle."""
    if (folder / "published.json").is_file():
        return json.loads((folder / "published.json").read_bytes())
    data = _bundle_member(folder, "published.json")
    return json.loads(data) if data is not None else None


def _bundle_path(folder: Path) -> Path | None:
    found = sorted((folder / "bundle").glob("ledgerrate-evidence-*.tar.gz"))
    return found[-1] if found else None


def _bundle_member(folder: Path, name: str) -> bytes | None:
    path = _bundle_path(folder)
    if path is None:
        return None
    with tarfile.open(path, "r:gz") as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.split("/", 1)[-1] == name:
                handle = tar.extractfile(member)
                return handle.read() if handle else None
    return None


# --------------------------------------------------------------------------- one edition


class EditionView:
    """One edition's files as the input holds them: a site's `data/<edition>/` (logs gzipped)
    or an unpacked evidence bundle (logs as written)."""

    def __init__(self, folder: Path, mode: str, site_root: Path | None) -> None:
        self.folder = folder
        self.mode = mode
        self.site_root = site_root
        self.id = folder.name

    def read(self, rel: str) -> bytes | None:
        path = self.folder / rel
        return path.read_bytes() if path.is_file() else None

    def download(self, rel: str) -> tuple[bytes | None, str]:
        """The bytes a reader gets for a sealed file, and from where: the file itself, or for a
        log its `.gz` unzipped."""
        data = self.read(rel)
        if data is not None:
            return data, rel
        packed = self.read(rel + ".gz")
        if packed is not None:
            return gzip.decompress(packed), rel + ".gz (unzipped)"
        # Markdown goes out as .txt, so that a web server serves it as text, not as a page.
        text = self.read(rel + ".txt") if rel.endswith(".md") else None
        if text is not None:
            return text, rel + ".txt"
        return None, ""

    def yaml(self, rel: str) -> Any:
        data = self.read(rel)
        return load_yaml(data) if data is not None else None

    def json(self, rel: str) -> Any:
        data = self.read(rel)
        return json.loads(data) if data is not None else None

    def published_bytes(self) -> bytes | None:
        data = self.read("published.json")
        if data is None and self.mode == "site":
            data = _bundle_member(self.folder, "published.json")
        return data


class Checker:
    def __init__(self, view: EditionView, report: Report, index_lines: list[bytes]) -> None:
        self.view = view
        self.record = report.for_scope(view.id)
        self.index_lines = index_lines
        self.registration = view.json("registration.json")
        self.errata = (view.yaml("errata.yaml") or {}).get("entries") or []
        self.scheme = int((self.registration or {}).get("hash_scheme") or 1)

    # ------------------------------------------------------------------ files and seals

    def sums(self) -> None:
        data = self.view.read("SHA256SUMS")
        if data is None:
            self.record("mismatched", "SHA256SUMS", "no SHA256SUMS in the edition's folder")
            return
        bad = []
        lines = [line for line in data.decode("utf-8").splitlines() if line.strip()]
        for line in lines:
            digest, _, rel = line.partition("  ")
            found = self.view.read(rel)
            if found is None:
                bad.append(f"{rel}: listed but not downloadable")
            elif sha256(found) != digest:
                bad.append(f"{rel}: sha256 {sha256(found)[:12]}…, SHA256SUMS says {digest[:12]}…")
        for problem in bad:
            self.record("mismatched", "SHA256SUMS line", problem)
        if not bad:
            self.record("matched", "SHA256SUMS", f"all {len(lines)} lines")

    def bundle_name(self, bundle: Path | None) -> None:
        path = bundle or _bundle_path(self.view.folder)
        if path is None:
            if self.registration is not None:
                self.record(
                    "mismatched", "evidence bundle", "no bundle/ledgerrate-evidence-*.tar.gz"
                )
            return
        match = BUNDLE_NAME.match(path.name)
        found = sha256(path.read_bytes())
        if match and match["sha"] == found and match["edition"] == self.view.id:
            self.record("matched", "evidence bundle name", f"{path.name[:40]}… is its own sha256")
        else:
            self.record("mismatched", "evidence bundle name", f"{path.name}: sha256 is {found}")

    def _lines(self) -> list[dict[str, Any]]:
        return [
            e
            for e in (json.loads(raw) for raw in self.index_lines)
            if e.get("edition") == self.view.id
        ]

    def _erratum_seals(self) -> dict[str, tuple[str, int, str]]:
        """File → (sha256, size, line) of the newest bytes a publication line sealed for a file
        an erratum names (hashes.md, "Files an erratum names")."""
        seals: dict[str, tuple[str, int, str]] = {}
        for number, entry in enumerate(self._lines(), start=1):
            for name, sealed in (entry.get("files") or {}).items():
                seals[name] = (
                    sealed["sha256"],
                    int(sealed["size"]),
                    f"publication line {number} of this edition",
                )
        return seals

    def sealed_files(self) -> None:
        data = self.view.published_bytes()
        if data is None:
            if self.registration is not None and self.index_lines:
                self.record(
                    "mismatched",
                    "published.json",
                    "not found (neither beside the data nor in the bundle)",
                )
            return
        published = json.loads(data)
        sizes = published.get("sizes", {})
        seals = self._erratum_seals()
        named = {name for entry in self.errata for name in entry.get("files") or []}
        named |= {"results-current.json"} if "results.json" in named else set()
        ok = {"sealed file": 0, "raw log": 0}
        files = dict(published.get("files", {}))
        for name, (digest, size, _) in seals.items():
            files.setdefault(name, digest)
            sizes.setdefault(name, size)
        for name, digest in sorted(files.items()):
            kind = "raw log" if name.startswith(RAW_LOG_DIRS) else "sealed file"
            found, where = self.view.download(name)
            if found is None:
                self.record("mismatched", kind, f"{name}: sealed but not downloadable")
                continue
            size = sizes.get(name)
            via = "published.json"
            if name in seals and name != "results.json":
                digest, size, via = seals[name]
            # Logs are append-only: the sealed bytes are their first `size` bytes.
            prefix = found[:size] if name.endswith(".jsonl") and size is not None else found
            if sha256(prefix) == digest:
                ok[kind] += 1
                continue
            why = ""
            if via == "published.json" and name in named:
                why = "; an erratum names it but no publication line seals its new bytes"
            self.record(
                "mismatched",
                kind,
                f"{name} ({where}): sha256 {sha256(prefix)[:12]}… ≠ {digest[:12]}… "
                f"sealed by {via}{why}",
            )
        for kind, count in ok.items():
            if count:
                self.record(
                    "matched", f"{kind}s", f"{count} equal byte for byte to their latest seal"
                )

    def chain(self) -> None:
        lines = self._lines()
        if not lines:
            if self.registration is not None and self.view.published_bytes() is not None:
                self.record(
                    "mismatched",
                    "publication chain",
                    "published, but no line in publications.jsonl",
                )
            return
        for number, entry in enumerate(lines, start=1):
            digests = publication_digests(
                entry["published_json"], [e["sha256"] for e in entry.get("errata", [])]
            )
            status = "matched" if digests[-1] == entry["digest"] else "mismatched"
            self.record(
                status,
                "publication digest",
                f"state {number} of {len(lines)}: {entry['digest'][:16]}…"
                + ("" if status == "matched" else f" ≠ recomputed {digests[-1][:16]}…"),
            )
        latest = lines[-1]
        published = self.view.published_bytes()
        if published is not None:
            found = sha256(published)
            status = "matched" if found == latest["published_json"] else "mismatched"
            self.record(status, "published.json in the chain", f"sha256 {found[:16]}…")
        sealed = [(e["id"], e["sha256"]) for e in latest.get("errata", [])]
        here = [str(e.get("id")) for e in self.errata]
        if [i for i, _ in sealed] != here[: len(sealed)]:
            self.record(
                "mismatched",
                "errata order",
                f"sealed {[i for i, _ in sealed]}, errata.yaml has {here}",
            )
        for erratum_id in here[len(sealed) :]:
            self.record(
                "mismatched",
                "erratum sealed",
                f"{erratum_id} is in errata.yaml but in no publication line",
            )
        by_id = {str(e.get("id")): e for e in self.errata}
        for erratum_id, digest in sealed:
            found_entry = by_id.get(erratum_id)
            if found_entry is None:
                self.record(
                    "mismatched", "erratum hash", f"{erratum_id}: sealed but not in errata.yaml"
                )
                continue
            doc = erratum_document(found_entry)
            found = sha256(canonical(doc, 1))
            status = "matched" if found == digest else "mismatched"
            self.record(
                status,
                "erratum hash",
                f"{erratum_id}: {found[:16]}… from errata.yaml"
                + ("" if status == "matched" else f", sealed {digest[:16]}…"),
            )
            published_doc = self.view.read(f"hashed/errata/{erratum_id}.json")
            if published_doc is not None:
                self._canonical_bytes(
                    f"hashed/errata/{erratum_id}.json",
                    published_doc,
                    digest,
                    1,
                    "erratum canonical bytes",
                )

    def _canonical_bytes(
        self, rel: str, data: bytes, expected: str, scheme: int, check: str
    ) -> Any:
        value = json.loads(data)
        problems = []
        if sha256(data) != expected:
            problems.append(f"sha256 {sha256(data)[:12]}… ≠ sealed {expected[:12]}…")
        if canonical(value, scheme) != data:
            problems.append(f"not the scheme-{scheme} canonical form of itself")
        self.record(
            "mismatched" if problems else "matched",
            check,
            f"{rel}: " + ("; ".join(problems) or f"hashes to the sealed {expected[:16]}…"),
        )
        return value

    # ------------------------------------------------------------------ registration

    def registration_hashes(self) -> None:
        reg = self.registration
        if reg is None:
            self.record(
                "not checked",
                "registration",
                "the edition is not registered (no registration.json)",
            )
            return
        pricing = self.view.yaml("pricing.yaml")
        if pricing is None:
            self.record("mismatched", "pricing_hash", "pricing.yaml is missing")
        else:
            found = sha256(canonical(pricing, self.scheme))
            if found == reg["pricing_hash"]:
                self.record(
                    "matched",
                    "pricing_hash",
                    f"pricing.yaml as canonical JSON (scheme {self.scheme}): {found[:16]}…",
                )
            elif self.view.read("hashed/pricing.json") is None:
                self.record(
                    "mismatched",
                    "pricing_hash",
                    f"pricing.yaml as canonical JSON (scheme {self.scheme}): {found[:16]}… ≠ "
                    f"registered {reg['pricing_hash'][:16]}…",
                )
            # Otherwise pricing.yaml leaves out a default: the published bytes decide (below).
        self.hashed_yaml(reg, "pricing")
        self.hashed_yaml(reg, "edition")
        escrow = reg.get("seed_escrow")
        if escrow:
            data = self.view.read(escrow["file"])
            found = sha256(data) if data is not None else "missing"
            self.record(
                "matched" if found == escrow["sha256"] else "mismatched",
                "seed escrow",
                f"{escrow['file']}: {found[:16]}…",
            )
        for workload, sealed in sorted(reg.get("workloads", {}).items()):
            self.workload_sources(workload, sealed)

    def hashed_yaml(self, reg: dict[str, Any], name: str) -> None:
        """`<name>_hash` through the published bytes `hashed/<name>.json`: they hash to it, are
        their own canonical form, hold every value `<name>.yaml` states, and add only the
        defaults of `schemas/<name>-yaml.schema.json`."""
        field, rel = f"{name}_hash", f"hashed/{name}.json"
        data = self.view.read(rel)
        if data is None:
            if name == "edition":
                self.record(
                    "not checked",
                    field,
                    f"needs {rel}, which the site publishes and an evidence bundle does not "
                    "carry; run against the site",
                )
            return
        value = self._canonical_bytes(rel, data, reg[field], self.scheme, field)
        stated = self.view.yaml(f"{name}.yaml") or {}
        differences = list(_differences(stated, value, f"{name}.yaml"))
        schema = self.view.json(f"schemas/{name}-yaml.schema.json")
        added = f"the rest are not checked against defaults (no schemas/{name}-yaml.schema.json)"
        if schema is not None:
            differences += list(_defaults(stated, value, schema, schema, f"{name}.yaml"))
            added = "every field it adds is its schema's default"
        check = f"{name}.yaml in {field}"
        if differences:
            self.record("mismatched", check, "; ".join(differences[:5]))
        else:
            self.record(
                "matched",
                check,
                f"every field {name}.yaml states is hashed with the same value; {added}",
            )

    def workload_sources(self, workload: str, sealed: dict[str, Any]) -> None:
        base = f"hashed/workloads/{workload}"
        manifest = self.view.json(f"{base}/manifest.json")
        if manifest is None:
            self.record(
                "not checked",
                f"{workload} source hashes",
                "needs hashed/workloads/ from the site (an evidence bundle does not carry the "
                "hashed source); run against the site",
            )
            return
        revisions = {r["revision"]: r for r in manifest.get("revisions", [])}
        for number, entry in sorted(revisions.items()):
            bad = []
            for name, digest in entry.get("files", {}).items():
                data = self.view.read(f"{base}/r{number}/{name}")
                if data is None or sha256(data) != digest:
                    bad.append(name)
            self.record(
                "mismatched" if bad else "matched",
                f"{workload} r{number} hashed files",
                ", ".join(bad) or f"{len(entry.get('files', {}))} files hash as listed",
            )
        registered = next(
            (n for n, r in revisions.items() if r.get("workload_hash") == sealed["workload_hash"]),
            None,
        )
        if registered is None:
            self.record(
                "mismatched",
                f"{workload} workload_hash",
                f"no published revision has the registered {sealed['workload_hash'][:16]}…",
            )
            return
        folder = f"{base}/r{registered}"
        record_bytes = self.view.read(f"{folder}/workload.json")
        if record_bytes is None:
            self.record(
                "mismatched", f"{workload} workload_hash", f"{folder}/workload.json missing"
            )
            return
        record = self._canonical_bytes(
            f"{folder}/workload.json",
            record_bytes,
            sealed["workload_hash"],
            self.scheme,
            f"{workload} workload_hash",
        )

        def text_hash(name: str) -> str | None:
            data = self.view.read(f"{folder}/{name}")
            return sha256(data) if data is not None else None

        pairs = {
            "prompt_hash": ("prompt_template.txt", "prompt"),
            "rubric_hash": ("rubric.txt", "rubric"),
            "grader_hash": ("grader.txt", "grader"),
            "generator_hash": ("generator.txt", "generator"),
        }
        for field, (name, key) in pairs.items():
            found = text_hash(name)
            ok = found == sealed.get(field) and record.get(key) == found
            self.record(
                "matched" if ok else "mismatched",
                f"{workload} {field}",
                f"sha256 of r{registered}/{name}: {str(found)[:16]}…"
                + (
                    ""
                    if ok
                    else f"; registered {str(sealed.get(field))[:16]}…, "
                    f"workload.json {str(record.get(key))[:16]}…"
                ),
            )
        found = text_hash("prompt_code.txt")
        ok = found == record.get("prompt_code") and record.get("id") == workload
        self.record(
            "matched" if ok else "mismatched",
            f"{workload} prompt code",
            f"r{registered}/prompt_code.txt hashes to workload.json's prompt_code",
        )
        allowed = {g["grader_hash"]: g["revision"] for g in manifest.get("graders_allowed", [])}
        expected = {r["grader_hash"]: n for n, r in revisions.items() if n >= registered}
        self.record(
            "matched" if allowed == expected else "mismatched",
            f"{workload} graders allowed",
            f"revisions {sorted(allowed.values())}: the registered revision {registered} "
            "and every later one",
        )
        self.grades_rest_on(workload, allowed)

    def grades_rest_on(self, workload: str, allowed: dict[str, int]) -> None:
        stray = 0
        counted = 0
        for path in sorted((self.view.folder / "grades" / workload).glob("*/*.jsonl*")):
            data = path.read_bytes()
            if path.name.endswith(".gz"):
                data = gzip.decompress(data)
            for line in data.splitlines():
                if line.strip():
                    counted += 1
                    if json.loads(line).get("grader_hash") not in allowed:
                        stray += 1
        if counted:
            self.record(
                "mismatched" if stray else "matched",
                f"{workload} grades' graders",
                f"{counted - stray} of {counted} grade records by an allowed grader revision",
            )

    # ------------------------------------------------------------------ hashes other files name

    def named_hashes(self) -> None:
        """Hashes that other published files repeat: each dataset card's, the corrected
        results' `sealed_sha256`, an evidence bundle's in-toto subjects."""
        reg = self.registration or {}
        for workload, sealed in sorted(reg.get("workloads", {}).items()):
            card = self.view.json(f"datasets/{workload}/card.json")
            if card is None:
                continue
            fields = ("dataset_hash", "generator_hash", "seed_commitment")
            differ = [f for f in fields if card.get(f) != sealed.get(f)]
            self.record(
                "mismatched" if differ else "matched",
                "dataset card",
                f"{workload}: "
                + (
                    f"{', '.join(differ)} differ from the registration"
                    if differ
                    else "dataset_hash, generator_hash and seed_commitment as registered"
                ),
            )
        corrected = self.view.json("results-corrected.json")
        published = self.view.published_bytes()
        if corrected is not None and published is not None:
            sealed_results = json.loads(published).get("files", {}).get("results.json")
            found = corrected.get("sealed_sha256")
            self.record(
                "matched" if found == sealed_results else "mismatched",
                "results-corrected.json",
                f"sealed_sha256 {str(found)[:16]}… "
                + ("is" if found == sealed_results else "is not")
                + " the sha256 published.json seals for results.json",
            )
        statement = self.view.json("statement.intoto.json")
        if statement is not None:
            wrong = []
            for subject in statement.get("subject", []):
                data = self.view.read(subject["name"])
                if data is None or sha256(data) != subject["digest"]["sha256"]:
                    wrong.append(subject["name"])
            self.record(
                "mismatched" if wrong else "matched",
                "in-toto statement",
                ", ".join(wrong[:5])
                or f"{len(statement.get('subject', []))} subjects hash as listed",
            )

    # ------------------------------------------------------------------ run records

    def _request(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """A run record's request as sent: `request`, or `request_stored.body` with each moved
        string read back from `bodies/<sha256>.txt` at its JSON pointer (hashes.md)."""
        if record.get("request") is not None or not record.get("request_stored"):
            return record.get("request")
        stored = record["request_stored"]
        body = json.loads(json.dumps(stored.get("body")))
        for pointer, digest in (stored.get("moved") or {}).items():
            text = self.view.read(f"bodies/{digest}.txt")
            if text is None or sha256(text) != digest:
                return None  # reported with the sealed files
            parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
            target = body
            for part in parts[:-1]:
                target = target[int(part)] if isinstance(target, list) else target[part]
            last = parts[-1]
            if isinstance(target, list):
                target[int(last)] = text.decode("utf-8")
            else:
                target[last] = text.decode("utf-8")
        return body if isinstance(body, dict) else None

    def run_records(self) -> None:
        """Each run record's `dataset_hash` is the registered one, and its `prompt_hash`, where
        its request shows the prompt, is the sha256 of the scheme-1 canonical JSON of
        {"system", "user"}: the system text and the first user message."""
        reg = self.registration or {}
        sealed = reg.get("workloads", {})
        by_item: dict[tuple[str, str], set[str]] = {}
        shown: dict[tuple[str, str], str] = {}
        counts = {"dataset": 0, "dataset bad": 0, "prompt": 0, "prompt bad": 0, "no request": 0}
        bad: list[str] = []
        for path in sorted((self.view.folder / "runs").glob("*/*/*.jsonl*")):
            data = path.read_bytes()
            if path.name.endswith(".gz"):
                data = gzip.decompress(data)
            where = path.relative_to(self.view.folder).as_posix()
            for line in data.splitlines():
                if not line.strip():
                    continue
                record = json.loads(line)
                workload, item = record.get("workload"), record.get("item_id")
                registered = (sealed.get(workload) or {}).get("dataset_hash")
                if registered is not None:
                    counts["dataset"] += 1
                    if record.get("dataset_hash") != registered:
                        counts["dataset bad"] += 1
                        bad.append(f"{where} {item}: dataset_hash is not the registered one")
                key = (workload, item)
                by_item.setdefault(key, set()).add(record.get("prompt_hash"))
                prompt = prompt_of(self._request(record) or {})
                if prompt is None:
                    counts["no request"] += 1
                    continue
                found = sha256(canonical(prompt, 1))
                counts["prompt"] += 1
                shown[key] = found
                if found != record.get("prompt_hash"):
                    counts["prompt bad"] += 1
                    bad.append(f"{where} {item}: prompt_hash is not that of its request")
        for problem in bad[:10]:
            self.record("mismatched", "run record hashes", problem)
        # A record without a model request (a deterministic baseline) carries its item's
        # prompt hash: the same as the item's model runs, where the edition has some.
        spread = [k for k, hashes in by_item.items() if len(hashes) > 1]
        for workload, item in spread:
            self.record("mismatched", "run record hashes", f"{workload} {item}: two prompt hashes")
        unmatched = [k for k in by_item if k not in shown]
        if counts["dataset"] and not bad and not spread:
            self.record(
                "matched",
                "run record hashes",
                f"{counts['dataset']} run records name the registered dataset_hash; "
                f"{counts['prompt']} prompt_hash recomputed from their request; "
                f"{len(by_item) - len(unmatched)} items whose every run carries the prompt hash "
                "recomputed from a model request",
            )
        if unmatched:
            self.record(
                "not checked",
                "baseline prompt hashes",
                f"{len(unmatched)} items were run by deterministic baselines only, which record "
                "no model request: their prompt_hash is recomputed by rendering the prompt "
                "(hashed/…/prompt_code.txt) from the released dataset",
            )

    # ------------------------------------------------------------------ seeds and datasets

    def seeds(self) -> None:
        reg = self.registration
        if reg is None:
            return
        released = (self.view.json("seeds.json") or {}).get("seeds")
        lost = self.view.json("seeds-lost.json")
        for workload, sealed in sorted(reg.get("workloads", {}).items()):
            commitment = sealed["seed_commitment"]
            if released and workload in released:
                entry = released[workload]
                found = seed_commitment(int(entry["seed"]), entry["salt"])
                ok = found == commitment == entry.get("commitment")
                self.record(
                    "matched" if ok else "mismatched",
                    "seed commitment",
                    f"{workload}: sha256(seed‖salt) = {found[:16]}…",
                )
                self.dataset(workload, sealed)
            elif lost is not None:
                ok = lost.get("commitments", {}).get(workload) == commitment
                self.record(
                    "matched" if ok else "mismatched",
                    "seed commitment (seeds lost)",
                    f"{workload}: the sealed loss statement of {lost.get('declared_at')} names the "
                    "registered commitment; the seeds can no longer be opened",
                )
            else:
                until = self._release_date()
                self.record(
                    "withheld",
                    "seed and dataset",
                    f"{workload}: the commitment {commitment[:16]}… opens when the seed is "
                    "released",
                    until=until,
                )
        if lost is not None:
            found = sha256(self.view.read("registration.json") or b"")
            self.record(
                "matched" if lost.get("registration_sha256") == found else "mismatched",
                "seed loss statement",
                "names the sha256 of registration.json",
            )

    def _release_date(self) -> str:
        closes = ((self.view.yaml("edition.yaml") or {}).get("window") or {}).get("closes")
        return f"the next edition's release (no date set yet; this window closed {closes})"

    def dataset(self, workload: str, sealed: dict[str, Any]) -> None:
        rel = f"datasets/{workload}/dataset.json"
        data = self.view.read(rel)
        if data is None:
            where = (
                "an evidence bundle carries the sealed files only; run against the site"
                if self.view.mode == "bundle"
                else "not published although the seed is released"
            )
            self.record(
                "not checked" if self.view.mode == "bundle" else "mismatched",
                "dataset hash",
                f"{workload}: {rel}: {where}",
            )
            return
        value = self._canonical_bytes(
            rel, data, sealed["dataset_hash"], self.scheme, "dataset hash"
        )
        card = self.view.json(f"datasets/{workload}/card.json") or {}
        if card.get("dataset_hash") != sealed["dataset_hash"]:
            self.record(
                "mismatched",
                "dataset card",
                f"{workload}: card.json names {str(card.get('dataset_hash'))[:16]}…",
            )
        bad, count = [], 0
        for item in value.get("items", []):
            for name, digest in (item.get("files") or {}).items():
                count += 1
                found = self.view.read(f"datasets/{workload}/{item['id']}/{name}")
                if found is None or sha256(found) != digest:
                    bad.append(f"{item['id']}/{name}")
        for name, digest in (card.get("files") or {}).items():
            found = self.view.read(f"datasets/{workload}/{name}")
            if found is None or sha256(found) != digest:
                bad.append(f"{name} (card)")
        if count or bad:
            self.record(
                "mismatched" if bad else "matched",
                "dataset item files",
                f"{workload}: "
                + (", ".join(bad[:5]) or f"{count} files hash as dataset.json lists"),
            )

    # ------------------------------------------------------------------ prices

    def prices(self) -> None:
        reg = self.registration
        pricing = self.view.yaml("pricing.yaml")
        manifest = self.view.yaml("edition.yaml") or {}
        if reg is None or pricing is None:
            return
        limits = {"registered_at": parse_time(reg["registered_at"])}
        opens = (manifest.get("window") or {}).get("opens")
        if opens:
            limits["the window's opening"] = parse_time(opens)
        stamps = [("frozen_at", pricing.get("frozen_at")), *_retrieved(pricing, "pricing")]
        late = []
        for where, value in stamps:
            if value is None:
                continue
            when = parse_time(value)
            frozen = pricing.get("frozen_at")
            # A frozen table holds no price read after it was frozen.
            if where != "frozen_at" and frozen is not None and when > parse_time(frozen):
                late.append(f"{where} {value} is later than frozen_at {frozen}")
            for name, limit in limits.items():
                if when > limit:
                    late.append(f"{where} {value} is later than {name} {limit.isoformat()}")
        if not late:
            self.record(
                "matched",
                "price times",
                f"frozen_at and {len(stamps) - 1} retrieved_at no later than registration and "
                "window opening, and no price read after frozen_at",
            )
            return
        disclosed = [str(e["id"]) for e in self.errata if _discloses_prices(e)]
        for problem in late:
            if disclosed:
                # A defect an erratum discloses is neither passed nor a new finding.
                self.record(
                    "disclosed", "price times", f"{problem}: disclosed by erratum {disclosed[0]}"
                )
            else:
                self.record("mismatched", "price times", problem)

    # ------------------------------------------------------------------ figures

    def figures(self, data_folder: Path) -> None:
        try:
            module = _figures_module()
        except Exception as error:
            self.record("mismatched", "figures", f"standalone_figures.py failed to load: {error!r}")
            return
        if module is None:
            self.record(
                "mismatched",
                "figures",
                f"standalone_figures.py is missing beside {Path(__file__).name}; "
                "no figure was checked",
            )
            return
        try:
            module.check_figures(data_folder, self.record)
        except Exception as error:
            self.record(
                "mismatched",
                "figures",
                f"standalone_figures.check_figures failed: {type(error).__name__}: {error}",
            )

    def run(self, data_folder: Path, bundle: Path | None = None) -> None:
        self.sums()
        self.bundle_name(bundle)
        self.sealed_files()
        self.chain()
        self.registration_hashes()
        self.run_records()
        self.named_hashes()
        self.seeds()
        self.prices()
        self.figures(data_folder)


def _retrieved(value: Any, where: str) -> Iterable[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "retrieved_at" and item is not None:
                yield f"{where}.retrieved_at", item
            else:
                yield from _retrieved(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _retrieved(item, f"{where}[{index}]")


def _discloses_prices(entry: dict[str, Any]) -> bool:
    """An erratum discloses late prices when its `discloses` lists `price-times` (hashes.md,
    "Price times")."""
    return "price-times" in (entry.get("discloses") or [])


def _differences(stated: Any, hashed: Any, where: str) -> Iterable[str]:
    """Where a YAML file's own values differ from the JSON that was hashed for it."""
    if isinstance(stated, dict) and isinstance(hashed, dict):
        for key, value in stated.items():
            if key not in hashed:
                if value is not None:
                    yield f"{where}.{key}: stated but not hashed"
            else:
                yield from _differences(value, hashed[key], f"{where}.{key}")
    elif isinstance(stated, list) and isinstance(hashed, list):
        if len(stated) != len(hashed):
            yield f"{where}: {len(stated)} entries, {len(hashed)} hashed"
        for index, (a, b) in enumerate(zip(stated, hashed, strict=False)):
            yield from _differences(a, b, f"{where}[{index}]")
    elif stated != hashed and not _same_number(stated, hashed):
        yield f"{where}: {stated!r} stated, {hashed!r} hashed"


def _resolve(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A schema node with its `$ref` followed, and of an `anyOf`, the variant that is an object
    or an array (the other is null)."""
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    for variant in node.get("anyOf", []):
        variant = _resolve(variant, schema)
        if variant.get("type") in ("object", "array") or "properties" in variant:
            return variant
    return node


def _defaults(
    stated: Any, hashed: Any, node: dict[str, Any], schema: dict[str, Any], where: str
) -> Iterable[str]:
    """Where the hashed JSON adds a field the YAML leaves out that is not its schema's default
    (hashes.md, "The registration"): a field with a `default` must equal it, and one without
    (a list or mapping that starts empty) must be empty and not required."""
    node = _resolve(node, schema)
    if isinstance(hashed, dict) and "properties" in node:
        given = stated if isinstance(stated, dict) else {}
        for key, value in hashed.items():
            prop = node["properties"].get(key)
            if prop is None:
                yield f"{where}.{key}: hashed but not in the schema"
            elif key in given:
                yield from _defaults(given[key], value, prop, schema, f"{where}.{key}")
            elif "default" in prop:
                if value != prop["default"] and not _same_number(value, prop["default"]):
                    default = prop["default"]
                    yield f"{where}.{key}: hashed {value!r}, the schema's default is {default!r}"
            elif key in node.get("required", []) or value not in ([], {}):
                yield f"{where}.{key}: hashed {value!r} but the YAML does not state it"
    elif isinstance(hashed, list) and "items" in node:
        given_items = stated if isinstance(stated, list) else []
        for index, item in enumerate(hashed):
            mine = given_items[index] if index < len(given_items) else None
            yield from _defaults(mine, item, node["items"], schema, f"{where}[{index}]")


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and float(a) == float(b)
    )


def _figures_module() -> Any:
    path = HERE / "standalone_figures.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("standalone_figures", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as an import would: dataclasses look their module up.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- site-wide


def check_index(lines: list[bytes], report: Report, whole: bool) -> None:
    if not whole:
        report.record(
            "not checked",
            "publications.jsonl",
            "previous-line links",
            "an evidence bundle carries only its edition's lines; run against the site for the "
            "whole chain",
        )
        return
    bad = []
    previous = None
    for number, raw in enumerate(lines, start=1):
        entry = json.loads(raw)
        expected: str | None = sha256(previous) if previous is not None else None
        if entry.get("previous") != expected:
            bad.append(
                f"line {number} names {str(entry.get('previous'))[:12]}…, "
                f"the line before hashes to {str(expected)[:12]}…"
            )
        previous = raw
    for problem in bad:
        report.record("mismatched", "publications.jsonl", "chain", problem)
    if not bad:
        report.record(
            "matched",
            "publications.jsonl",
            "chain",
            f"each of {len(lines)} lines names the sha256 of the line before",
        )


def check_feed(root: Path, editions: list[EditionView], report: Report) -> None:
    path = root / "errata.xml"
    if not path.is_file():
        report.record("mismatched", "errata.xml", "Atom feed", "no errata.xml at the site root")
        return
    atom = "{http://www.w3.org/2005/Atom}"
    feed = ET.parse(path).getroot()
    entries = {}
    for entry in feed.findall(f"{atom}entry"):
        ident = entry.findtext(f"{atom}id") or ""
        entries[ident.rsplit("/", 1)[-1]] = entry.findtext(f"{atom}title") or ""
    expected = {}
    for view in editions:
        for erratum in (view.yaml("errata.yaml") or {}).get("entries") or []:
            expected[str(erratum["id"])] = f"{view.id}: {erratum['title']}"
    missing = sorted(set(expected) - set(entries))
    extra = sorted(set(entries) - set(expected))
    titles = sorted(
        k
        for k in set(expected) & set(entries)
        if " ".join(expected[k].split()) != " ".join(entries[k].split())
    )
    problems = (
        [f"missing {missing}"] * bool(missing)
        + [f"not an erratum {extra}"] * bool(extra)
        + [f"titles differ {titles}"] * bool(titles)
    )
    report.record(
        "mismatched" if problems else "matched",
        "errata.xml",
        "Atom feed",
        "; ".join(problems) or f"{len(entries)} entries, one per erratum, titles as in errata.yaml",
    )


# --------------------------------------------------------------------------- main


def _site_shaped(edition_folder: Path, into: Path) -> Path:
    """A bundle's edition folder laid out as a site's data folder (logs as .jsonl.gz), for the
    figures half, which reads a site's data folder."""
    target = into / "site-shaped" / edition_folder.name
    for path in edition_folder.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(edition_folder)
        out = target / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if rel.parts[0] in {"runs", "grades"} and path.suffix == ".jsonl":
            out.with_name(out.name + ".gz").write_bytes(
                gzip.compress(path.read_bytes(), compresslevel=1, mtime=0)
            )
        else:
            shutil.copyfile(path, out)
    return target


def verify(source: str, report: Report, only: list[str] | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="ledgerrate-verify-") as scratch:
        tmp = Path(scratch)
        bundle: Path | None = None
        if re.match(r"^https?://", source):
            root = fetch_site(source, tmp / "site")
            mode = "site"
        else:
            path = Path(source)
            site_root = path.resolve().parent.parent
            if (path / "SHA256SUMS").is_file() and (site_root / "publications.jsonl").is_file():
                # A site's data/<edition>/ folder: that edition of the site around it.
                path, only = site_root, [*(only or []), path.resolve().name]
            inside = _bundle_path(path) if path.is_dir() and not (path / "data").is_dir() else None
            if inside is not None:
                path = inside  # a data/<edition>/ folder: its bundle
            if path.is_dir() and path.name == "bundle":
                found = sorted(path.glob("ledgerrate-evidence-*.tar.gz"))
                if not found:
                    raise BadInput(f"{path}: no ledgerrate-evidence-*.tar.gz in it")
                path = found[-1]
            if path.is_file() and path.name.endswith(".tar.gz"):
                bundle = path
                mode = "bundle"
                root = tmp
                edition_folder = unpack_bundle(path, tmp / "bundle")
            elif path.is_dir() and (path / "data").is_dir():
                root, mode = path, "site"
            else:
                raise BadInput(
                    f"{source}: not a site folder (no data/), an http(s) URL or an evidence "
                    "bundle (.tar.gz)"
                )
        if mode == "site":
            index_path = root / "publications.jsonl"
            index_lines = (
                [raw for raw in index_path.read_bytes().split(b"\n") if raw.strip()]
                if index_path.is_file()
                else []
            )
            folders = sorted(
                p for p in (root / "data").iterdir() if p.is_dir() and (p / "SHA256SUMS").is_file()
            )
            views = [EditionView(p, "site", root) for p in folders]
        else:
            raw = (
                (edition_folder / "publications.jsonl").read_bytes()
                if (edition_folder / "publications.jsonl").is_file()
                else b""
            )
            index_lines = [line for line in raw.split(b"\n") if line.strip()]
            views = [EditionView(edition_folder, "bundle", None)]
        every = views
        if only:
            every, views = views, [v for v in views if v.id in only]
            if not views:
                raise BadInput(f"none of the editions {only} is in {source}")
        check_index(index_lines, report, whole=mode == "site")
        for view in views:
            figures_folder = view.folder if mode == "site" else _site_shaped(view.folder, tmp)
            Checker(view, report, index_lines).run(figures_folder, bundle)
        if mode == "site":
            # The feed lists every edition's errata, whichever editions were asked for.
            check_feed(root, every, report)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "source", help="a site folder, a site's http(s) URL, or an evidence bundle (.tar.gz)"
    )
    parser.add_argument("--edition", action="append", help="check only this edition (repeatable)")
    parser.add_argument(
        "--quiet", action="store_true", help="print only what did not match, and the summary"
    )
    args = parser.parse_args(argv)
    report = Report(quiet=args.quiet)
    try:
        verify(args.source, report, args.edition)
    except BadInput as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    print(report.summary())
    return 1 if report.count("mismatched") else 0


if __name__ == "__main__":
    sys.exit(main())
