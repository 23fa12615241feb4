"""Issue #44 points 1, 2 and 4: the site's downloads hold every sealed file byte for byte.

The site served a rewritten results.json under the sealed name, run logs with their request
bodies inlined (so unzipped they were not the sealed logs) and no `bodies/`; its
results-corrected.json then named the rewritten file as sealed and quoted its figures as
published. Each test writes the downloads of a copy of a small published edition.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ledgerrate.core import layout, seal
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import canonical_json, sha256_bytes, sha256_file
from ledgerrate.metrics.report import edition_results
from ledgerrate.publish.downloads import write_downloads
from ledgerrate.publish.load import load_edition
from ledgerrate.publish.published import ensure_published
from ledgerrate.run.bodies import BodyStore
from tests.verify.conftest import write_erratum

pytestmark = pytest.mark.slow

WORKLOAD = "triage.ap-inbox.v1"
GRADES = f"grades/{WORKLOAD}/reference/single-shot.jsonl"
RUNS = f"runs/{WORKLOAD}/reference/single-shot.jsonl"
CURRENT = "results-current.json"
PROMPT = "Classify every message of this inbox.\n" * 30  # long enough to be stored once


def site_name(name: str) -> str:
    """The documented place of a sealed file under data/<edition>/ (the data page says it)."""
    if name.endswith(".jsonl") and name.startswith(("runs/", "grades/", "probes/")):
        return f"{name}.gz"
    return f"{name}.txt" if name.endswith(".md") else name


def _downloads(edition: Path, dest: Path) -> dict[str, str]:
    write_downloads(load_edition(edition), dest)
    lines = (dest / "SHA256SUMS").read_text().splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines)}


def _site_bytes(dest: Path, name: str) -> bytes:
    data = (dest / site_name(name)).read_bytes()
    return gzip.decompress(data) if site_name(name).endswith(".gz") else data


def _correct_figures(edition: Path) -> None:
    """An erratum that changes a figure: the sealed file stays, the figures change beside it."""
    log = edition / GRADES
    lines = log.read_text().splitlines()
    record = json.loads(lines[0])
    record["outcome"] = "fail" if record["outcome"] == "pass" else "pass"
    lines[0] = json.dumps(record, sort_keys=True, separators=(",", ":"))
    log.write_text("\n".join(lines) + "\n")
    before = json.loads((edition / "results.json").read_text())
    [cell] = next(w for w in before["workloads"] if w["workload"] == WORKLOAD)["cells"]
    after = edition_results(edition)
    [new] = next(w for w in after.workloads if w.workload == WORKLOAD).cells
    figure = {
        "workload": WORKLOAD,
        "model": "reference",
        "mode": "single-shot",
        "field": "passes",
        "old": str(cell["passes"]),
        "new": str(new.passes),
    }
    write_erratum(edition, [GRADES, "results.json"], "a test of the downloads", [figure])
    ensure_published(edition, after)


def test_every_sealed_file_is_downloadable_byte_for_byte(edition_copy: Path, tmp_path: Path):
    _correct_figures(edition_copy)
    sums = _downloads(edition_copy, tmp_path / "data")
    published = json.loads((edition_copy / "published.json").read_text())
    held = seal.read_index(edition_copy.parent / layout.INDEX_NAME)[-1].entry.files or {}
    assert CURRENT in held
    sealed = {**published["files"], **{n: f.sha256 for n, f in held.items()}}
    sizes = {**published["sizes"], **{n: f.size for n, f in held.items()}}
    for name, digest in sealed.items():
        data = _site_bytes(tmp_path / "data", name)
        # A log may have grown since (append-only): its sealed bytes come first.
        assert sha256_bytes(data[: sizes[name]]) == digest, name
        assert site_name(name) in sums, name
    assert (tmp_path / "data" / "results.json").read_bytes() == (
        edition_copy / "results.json"
    ).read_bytes()


def test_results_corrected_names_the_sealed_file_and_its_figures(
    edition_copy: Path, tmp_path: Path
):
    sealed = json.loads((edition_copy / "results.json").read_text())
    _correct_figures(edition_copy)
    _downloads(edition_copy, tmp_path / "data")
    doc = json.loads((tmp_path / "data" / "results-corrected.json").read_text())
    published = json.loads((edition_copy / "published.json").read_text())
    assert doc["sealed_sha256"] == published["files"]["results.json"]
    [correction] = doc["corrections"]
    [cell] = next(w for w in sealed["workloads"] if w["workload"] == WORKLOAD)["cells"]
    assert correction["as_published"] == cell["passes"]
    assert str(correction["as_published"]) == correction["published_text"]


def test_a_results_file_that_is_not_the_sealed_one_is_refused(edition_copy: Path, tmp_path):
    (edition_copy / "results.json").write_text(
        (edition_copy / "results.json").read_text().replace('"n": 15', '"n": 14', 1)
    )
    with pytest.raises(UsageProblem, match=r"not the bytes published\.json seals"):
        write_downloads(load_edition(edition_copy), tmp_path / "data")


def test_raw_logs_are_the_logs_as_written_with_their_bodies(edition_copy: Path, tmp_path):
    """A run record whose request keeps its prompt in bodies/: the download is the log's own
    bytes, gzipped, and the prompt's file is published beside it."""
    stored = BodyStore(edition_copy).store({"model": "m", "prompt": PROMPT})
    [digest] = stored.moved.values()
    log = edition_copy / RUNS
    lines = log.read_text().splitlines()
    record = json.loads(lines[0])
    record.update(request=None, request_stored=stored.model_dump(mode="json"))
    lines[0] = canonical_json(record)
    log.write_text("\n".join(lines) + "\n")
    sums = _downloads(edition_copy, tmp_path / "data")
    assert _site_bytes(tmp_path / "data", RUNS) == log.read_bytes()
    body = f"bodies/{digest}.txt"
    assert (tmp_path / "data" / body).read_bytes() == PROMPT.encode()
    assert sums[body] == sha256_file(edition_copy / body)


def test_the_data_page_links_every_sealed_file_and_says_what_sealed_it(
    edition_copy: Path, tmp_path: Path
):
    from ledgerrate.publish.sealed_list import sealed_html

    _correct_figures(edition_copy)
    section = write_downloads(load_edition(edition_copy), tmp_path / "data")
    html = str(sealed_html(section.sealed))
    published = json.loads((edition_copy / "published.json").read_text())
    # The seal is published beside the downloads: the logs and request strings it sealed as
    # they still are are counted per folder on the page, their sha256 and size being its own.
    assert (tmp_path / "data" / "published.json").read_bytes() == (
        edition_copy / "published.json"
    ).read_bytes()
    for name in [*published["files"], CURRENT]:
        assert (tmp_path / "data" / site_name(name)).is_file(), name
        [entry] = [s for s in section.sealed if s.name == name]
        counted = name.startswith(("runs/", "grades/", "probes/", "bodies/"))
        if counted and entry.sealed_by == "published.json" and not entry.grown:
            folder = "/".join(name.split("/")[:-1][:2]) + "/"
            assert f"<code>{folder}</code>" in html and f'href="{site_name(name)}"' not in html
        else:
            assert f'href="{site_name(name)}"' in html, name
    # The erratum sealed the grade log it corrected again: that one is listed with its seal.
    assert f'href="{site_name(GRADES)}"' in html
    [current] = [s for s in section.sealed if s.name == CURRENT]
    assert current.sealed_by == "erratum 2026-11-30"
    assert current.sha256 == sha256_file(edition_copy / CURRENT)
    [sealed] = [s for s in section.sealed if s.name == "results.json"]
    assert sealed.sealed_by == "published.json"
