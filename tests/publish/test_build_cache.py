"""The build cache: a rebuild reuses, a changed input invalidates, a damaged entry is remade."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ledgerrate.core.hashing import canonical_json, sha256_bytes
from ledgerrate.generate import dataset_files
from ledgerrate.publish import cache as cache_mod
from ledgerrate.publish import downloads as downloads_mod
from ledgerrate.publish import load as load_mod
from ledgerrate.publish.cache import BuildCache, key_of
from ledgerrate.publish.downloads import regenerate_released, write_downloads
from ledgerrate.publish.load import load_edition
from tests.publish.factory import private_reference_edition

WORKLOAD = "triage.ap-inbox.v1"


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return private_reference_edition(tmp_path_factory, "e-cache", [WORKLOAD])


def _downloads(edition: Path, dest: Path, cache: BuildCache) -> dict[str, str]:
    section = write_downloads(load_edition(edition), dest, cache)
    assert not section.dataset_notes, section.dataset_notes
    return {f.path: f.sha256 for f in section.files}


def test_rebuild_reuses_every_product(edition: Path, tmp_path: Path) -> None:
    cache = BuildCache.open(tmp_path / "cache")
    first = _downloads(edition, tmp_path / "one", cache)
    assert cache.hits == {} and cache.misses["dataset"] == 1 and cache.misses["gzip"] == 2
    again = BuildCache.open(tmp_path / "cache")
    second = _downloads(edition, tmp_path / "two", again)
    assert second == first
    assert again.misses == {}
    assert again.hits == {
        "gzip": 2,
        "dataset": 1,
        "bundle": 1,
        "corrected": 1,
        "results-csv": 1,
        "schemas": 1,  # the JSON Schemas come from the code: one product per toolchain
        "hashed": 1,  # the bytes behind the sealed hashes: keyed by the edition's sealed inputs
    }


def test_changed_log_invalidates_its_gzip_and_the_bundle(edition: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "editions" / edition.name
    shutil.copytree(edition, copy)
    cache = BuildCache.open(tmp_path / "cache")
    before = _downloads(copy, tmp_path / "one", cache)
    log = copy / "runs" / WORKLOAD / "reference" / "single-shot.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))  # one record fewer: a different input
    again = BuildCache.open(tmp_path / "cache")
    after = _downloads(copy, tmp_path / "two", again)
    rel = f"runs/{WORKLOAD}/reference/single-shot.jsonl.gz"
    assert after[rel] != before[rel]
    # The figures changed with the log: their CSV and corrected companion are remade too.
    assert again.misses == {"gzip": 1, "bundle": 1, "corrected": 1, "results-csv": 1}
    # The bytes behind the sealed hashes rest on the edition's inputs, not on its logs.
    assert again.hits == {"gzip": 1, "dataset": 1, "schemas": 1, "hashed": 1}


def test_an_erratum_remakes_the_corrected_results_not_the_figures_csv(
    edition: Path, tmp_path: Path
) -> None:
    import shutil

    import yaml

    copy = tmp_path / "editions" / edition.name
    shutil.copytree(edition, copy)
    cache = BuildCache.open(tmp_path / "cache")
    _downloads(copy, tmp_path / "one", cache)
    note = {
        "id": "2026-12-02",
        "date": "2026-12-02",
        "title": "A disclosure",
        "what_changed": "Nothing in the figures.",
        "why": "A reader asked.",
    }
    (copy / "errata.yaml").write_text(yaml.safe_dump({"edition": copy.name, "entries": [note]}))
    again = BuildCache.open(tmp_path / "cache")
    _downloads(copy, tmp_path / "two", again)
    assert again.misses.get("corrected") == 1 and "results-csv" not in again.misses
    corrected = json.loads((tmp_path / "two" / "results-corrected.json").read_text("utf-8"))
    assert corrected["errata"] == ["2026-12-02"]


def test_corrupt_cached_dataset_is_detected_and_rebuilt(edition: Path, tmp_path: Path) -> None:
    cache = BuildCache.open(tmp_path / "cache")
    first = _downloads(edition, tmp_path / "one", cache)
    [entry] = (e for e in (tmp_path / "cache" / "datasets").iterdir() if e.name[0] != ".")
    registered = json.loads((edition / "registration.json").read_text())
    # The entry is addressed by the registered dataset hash, and its content hashes to it.
    assert entry.name == registered["workloads"][WORKLOAD]["dataset_hash"]
    assert sha256_bytes((entry / "content.json").read_bytes()) == entry.name
    content = json.loads((entry / "content.json").read_text())
    content["items"][0]["input"]["tampered"] = True
    (entry / "content.json").write_text(json.dumps(content))
    again = BuildCache.open(tmp_path / "cache")
    assert _downloads(edition, tmp_path / "two", again) == first
    assert again.misses == {"dataset": 1}
    assert sha256_bytes((entry / "content.json").read_bytes()) == entry.name


def test_released_datasets_are_made_before_the_downloads_and_read_back_by_them(
    edition: Path, tmp_path: Path
) -> None:
    """A build regenerates released datasets first (their files spread over every CPU), and
    each edition's downloads then read them from the cache: the same files as without."""
    alone = _downloads(edition, tmp_path / "alone", BuildCache.open(tmp_path / "one"))
    cache = BuildCache.open(tmp_path / "two")
    regenerate_released([load_edition(edition)], cache)
    assert cache.misses == {"dataset": 1} and cache.hits == {}
    assert _downloads(edition, tmp_path / "after", cache) == alone
    assert cache.misses["dataset"] == 1 and cache.hits["dataset"] == 1
    # Held already (a warm build): looked for, not read; the downloads read and check it.
    regenerate_released([load_edition(edition)], cache)
    assert cache.misses["dataset"] == 1 and cache.hits["dataset"] == 1
    assert _downloads(edition, tmp_path / "again", cache) == alone
    assert cache.hits["dataset"] == 2


def test_a_dataset_that_cannot_be_regenerated_is_tried_once_per_build(
    edition: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the registered dataset: nothing published or cached, a note on the data page, and
    the failed generation is not spent again for the downloads."""
    made: list[str] = []

    def wrong(root: Path, workload: str) -> tuple[dict[str, object], dict[str, bytes]]:
        made.append(workload)
        return {"workload": workload, "items": [], "shared": {}}, {}

    monkeypatch.setattr(downloads_mod, "regenerate", wrong)
    cache = BuildCache.open(tmp_path / "cache")
    loaded = load_edition(edition)
    regenerate_released([loaded], cache)
    section = write_downloads(loaded, tmp_path / "out", cache)
    assert made == [WORKLOAD]
    (note,) = section.dataset_notes
    assert note.startswith(f"{WORKLOAD}: dataset not regenerated: dataset content does not hash")
    # Its card (what was registered) is published; none of the regenerated files.
    published = tmp_path / "out" / "datasets" / WORKLOAD
    assert [p.name for p in published.rglob("*")] == ["card.json"]
    assert not [e for e in (tmp_path / "cache" / "datasets").iterdir() if e.name[0] != "."]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_files_rendered_on_demand_join_their_items_in_order(
    edition: Path, workers: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files a workload renders from each item's text (board packs' PDFs) are rendered item
    by item on every CPU and published under their own item, the same with one worker or two."""

    def rendered(item: object) -> dict[str, bytes]:
        return {"pack.pdf": f"%PDF {item.id}".encode()}  # type: ignore[attr-defined]

    monkeypatch.setenv("LEDGERRATE_WORKERS", workers)
    monkeypatch.setattr(dataset_files, "on_demand_renderer", lambda *_: rendered)
    content, files = dataset_files.regenerate(edition, WORKLOAD)
    ids = [item["id"] for item in content["items"]]
    assert len(ids) > 2
    assert {rel: data for rel, data in files.items() if rel.endswith("/pack.pdf")} == {
        f"{i}/pack.pdf": f"%PDF {i}".encode() for i in ids
    }


def test_damaged_product_is_remade(tmp_path: Path) -> None:
    cache = BuildCache.open(tmp_path)
    key = key_of("test", 1)
    path = cache.product_path("gzip", key, lambda: b"right")
    path.write_bytes(b"wrong")  # same name, other bytes: the digest in the name catches it
    assert cache.product("gzip", key, lambda: b"right") == b"right"
    assert cache.misses == {"gzip": 2}


def _checked_product(cache_dir: Path, index: Path) -> tuple[BuildCache, str, Path]:
    """A product made, aged past the racy window, and checked once by a build whose index of
    input digests is `index`."""
    cache = BuildCache.open(cache_dir, index=index)
    key = key_of("test", 2)
    path = cache.product_path("gzip", key, lambda: b"right")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    assert cache.product("gzip", key, lambda: b"never made") == b"right"
    cache.save()
    return cache, key, path


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    reads: list[Path] = []
    real = cache_mod.sha256_file

    def counted(path: Path) -> str:
        reads.append(Path(path))
        return real(path)

    monkeypatch.setattr(cache_mod, "sha256_file", counted)
    return reads


def test_a_new_build_folder_reuses_the_products_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, key, path = _checked_product(tmp_path / "cache", tmp_path / "one" / "digests.json")
    # Every build links the products it reuses into its pages and site, and removes the last
    # build's links: the entry's ctime changes, its content does not.
    os.link(path, tmp_path / "linked")
    (tmp_path / "linked").unlink()
    reads = _reads(monkeypatch)
    other = BuildCache.open(tmp_path / "cache", index=tmp_path / "two" / "digests.json")
    assert other.product("gzip", key, lambda: b"never made") == b"right"
    assert reads == [] and other.hits == {"gzip": 1}


def test_a_write_through_a_link_is_caught_by_a_new_build_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, key, path = _checked_product(tmp_path / "cache", tmp_path / "one" / "digests.json")
    os.link(path, tmp_path / "site-file")
    (tmp_path / "site-file").write_bytes(b"wrong")  # edited in a built site, in place
    reads = _reads(monkeypatch)
    other = BuildCache.open(tmp_path / "cache", index=tmp_path / "two" / "digests.json")
    assert other.product("gzip", key, lambda: b"right") == b"right"
    assert reads == [path] and other.misses == {"gzip": 1}


def test_two_builds_keep_each_others_product_checks(tmp_path: Path) -> None:
    _checked_product(tmp_path / "cache", tmp_path / "one" / "digests.json")
    second = BuildCache.open(tmp_path / "cache", index=tmp_path / "two" / "digests.json")
    path = second.product_path("pdf", key_of("test", 3), lambda: b"card")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    second.product("pdf", key_of("test", 3), lambda: b"never made")
    second.save()
    remembered = json.loads((tmp_path / "cache" / "entries.json").read_text())
    assert sorted(name.split("/")[0] for name in remembered) == ["product:gzip", "product:pdf"]
    # A build folder's own index holds its inputs, not the machine's products.
    for index in (tmp_path / "one" / "digests.json", tmp_path / "two" / "digests.json"):
        assert not any(k.startswith("product:") for k in json.loads(index.read_text()))


def test_unchanged_rebuild_does_nothing_and_a_change_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledgerrate.publish import build as build_mod
    from tests.publish.factory import write_edition

    root = tmp_path / "editions"
    fixtures = {"2026-07": write_edition(root, "2026-07", "2026-07-01")}
    calls: list[str] = []

    def results(path: Path):
        calls.append(Path(path).name)
        return fixtures[Path(path).name]

    monkeypatch.setattr(load_mod, "edition_results", results)
    engines: list[Path] = []
    real = build_mod.run_engine
    monkeypatch.setattr(
        build_mod,
        "run_engine",
        lambda e, d, *rest: (engines.append(d), real(e, d, *rest)),
    )
    out = tmp_path / "out"
    build_mod.build_site(root, out)
    assert (len(calls), len(engines)) == (1, 1)
    build_mod.build_site(root, out)  # nothing changed: no figures, no pages, no mkdocs
    assert (len(calls), len(engines)) == (1, 1)
    (out / "site" / "index.html").unlink()  # output damaged: built again, figures reused
    build_mod.build_site(root, out)
    assert (len(calls), len(engines)) == (1, 2)
    assert (out / "site" / "index.html").is_file()
    # A new edition: only its figures are computed; the earlier edition's are reused.
    fixtures["2026-08"] = write_edition(root, "2026-08", "2026-08-01")
    build_mod.build_site(root, out)
    assert calls == ["2026-07", "2026-08"] and len(engines) == 3


def test_two_builds_needing_one_absent_dataset_generate_it_once(tmp_path: Path) -> None:
    """The second build waits for the first's generation and reads it; neither sees a torn
    entry. Separate opens of the lock file conflict even within one process (flock locks an
    open file description), so two threads stand for two builds."""
    content = {"items": [{"id": "i-1", "files": {"a.txt": sha256_bytes(b"a")}}]}
    registered = sha256_bytes(canonical_json(content).encode())
    inside, release = threading.Event(), threading.Event()
    made: list[str] = []

    def make() -> tuple[dict[str, object], dict[str, bytes]]:
        made.append(threading.current_thread().name)
        inside.set()
        assert release.wait(10)
        return content, {"i-1/a.txt": b"a", "i-1/extra.pdf": b"%PDF"}

    caches = [BuildCache.open(tmp_path / "cache") for _ in range(2)]
    results: dict[int, dict[str, bytes]] = {}

    def build(i: int) -> None:
        results[i] = caches[i].dataset(registered, "pdf-v1", make)

    first = threading.Thread(target=build, args=(0,), name="first")
    first.start()
    assert inside.wait(10)
    second = threading.Thread(target=build, args=(1,), name="second")
    second.start()
    second.join(0.3)
    assert second.is_alive(), "the second build did not wait for the first's generation"
    release.set()
    first.join(10)
    second.join(10)
    assert made == ["first"]
    assert results[0] == results[1]
    assert caches[0].misses == {"dataset": 1} and caches[1].hits == {"dataset": 1}


def test_examples_are_reused_until_their_log_changes(edition: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "editions" / edition.name
    shutil.copytree(edition, copy)
    cache = BuildCache.open(tmp_path / "cache")
    first = load_edition(copy, cache=cache).examples
    assert first == load_edition(copy).examples  # the same choice as without a cache
    assert first and cache.misses == {"examples": len(first)}
    log = copy / "runs" / WORKLOAD / "reference" / "single-shot.jsonl"
    shown = first[(WORKLOAD, "reference", "single-shot")][0].item_id
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(line for line in lines if f'"{shown}"'.encode() not in line))
    again = BuildCache.open(tmp_path / "cache")
    after = load_edition(copy, cache=again).examples
    assert shown not in {e.item_id for e in after[(WORKLOAD, "reference", "single-shot")]}
    assert after == load_edition(copy).examples
    assert again.misses == {"examples": 1}
    assert again.hits == ({"examples": len(first) - 1} if len(first) > 1 else {})


def test_a_cell_tables_downloads_follow_its_rows(edition: Path, tmp_path: Path) -> None:
    from ledgerrate.publish.tables import write_cell_table

    results = load_edition(edition).results
    cell = results.workloads[0].cells[0]
    cells = [cell, cell.model_copy(update={"model": "another"})]
    cache = BuildCache.open(tmp_path / "cache")
    made: dict[str, bytes] = {}
    for label, rows, with_cache in (("one", cells[:1], cache), ("both", cells, cache)):
        for cached in (with_cache, None):
            docs = tmp_path / f"{label}-{cached is not None}"
            write_cell_table(docs, "m", "cells", results, rows, "../", cached)
            made[f"{label}-{cached is not None}"] = (docs / "m" / "cells.csv").read_bytes() + (
                docs / "m" / "cells.json"
            ).read_bytes()
    assert made["one-True"] == made["one-False"] and made["both-True"] == made["both-False"]
    assert made["one-True"] != made["both-True"]  # same page and stem, other rows: remade
    assert cache.misses == {"cells-json": 2, "cells-csv": 2}


def test_a_rate_cards_downloads_follow_its_workloads(edition: Path, tmp_path: Path) -> None:
    from ledgerrate.publish.tables import write_workload_table

    results = load_edition(edition).results
    changed = results.model_copy(
        update={"workloads": [results.workloads[0].model_copy(update={"volume": 7})]}
    )
    cache = BuildCache.open(tmp_path / "cache")
    made: dict[str, bytes] = {}
    for label, shown in (("as-is", results), ("changed", changed), ("again", results)):
        for cached in (cache, None):
            docs = tmp_path / f"{label}-{cached is not None}"
            write_workload_table(docs, "", "ratecard", shown, "", cached)
            made[f"{label}-{cached is not None}"] = (docs / "ratecard.csv").read_bytes() + (
                docs / "ratecard.json"
            ).read_bytes()
    assert made["as-is-True"] == made["as-is-False"] == made["again-True"]
    assert made["changed-True"] == made["changed-False"] != made["as-is-True"]
    assert cache.misses == {"card-json": 2, "card-csv": 2}
    assert cache.hits == {"card-json": 1, "card-csv": 1}
