"""Pages as build products: a template change re-renders the pages that read it, and only them,
and every docs tree is the one a build without page products writes."""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.publish import page_products
from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.render import TEMPLATES, render_into
from tests.publish.factory import private_reference_edition

WORKLOADS = ["triage.ap-inbox.v1", "reconcile.ledger.v1"]


@pytest.fixture(scope="module")
def editions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return private_reference_edition(tmp_path_factory, "e-pages", WORKLOADS).parent


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _same(one: Path, other: Path) -> None:
    mine, theirs = _tree(one), _tree(other)
    assert sorted(mine) == sorted(theirs)
    differ = [rel for rel in mine if mine[rel] != theirs[rel]]
    assert differ == []


class Builds:
    """Renders of the editions with page products, each into its own docs folder, sharing one
    cache; `templates` is a copy the test edits between renders."""

    def __init__(self, editions: Path, tmp: Path) -> None:
        self.editions, self.tmp = editions, tmp
        self.templates = tmp / "templates"
        shutil.copytree(TEMPLATES, self.templates)
        self.store = tmp / "cache"
        self.keys = {p.name: f"key of {p.name}" for p in editions.iterdir() if p.is_dir()}

    def render(self, name: str, *, pages: bool = True) -> tuple[Path, BuildCache]:
        cache = BuildCache.open(self.store, index=self.tmp / name / "digests.json")
        docs = self.tmp / name / "docs"
        render_into(
            self.editions,
            docs,
            cache=cache,
            templates=self.templates,
            edition_keys=self.keys if pages else None,
        )
        cache.save()
        return docs, cache

    def edit(self, template: str, text: str) -> None:
        path = self.templates / template
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


@pytest.fixture()
def builds(editions: Path, tmp_path: Path) -> Builds:
    return Builds(editions, tmp_path)


def test_unchanged_pages_are_placed_and_the_docs_are_the_same(builds: Builds) -> None:
    cold, made = builds.render("cold")
    jobs = made.misses[page_products.KIND]
    # home, indexes, primitives, errata; the edition; each workload's page and edition page
    assert jobs == 4 + 1 + 2 * len(WORKLOADS) + 1
    again, cache = builds.render("again")
    assert page_products.KIND not in cache.misses
    assert cache.hits[page_products.KIND] == jobs
    _same(cold, again)
    plain, _ = builds.render("plain", pages=False)
    _same(cold, plain)
    # placed, not written: the files are the cache's own
    page = again / "editions" / "e-pages" / "index.md"
    assert page.stat().st_nlink > 1


def test_a_template_change_re_renders_exactly_the_pages_that_read_it(builds: Builds) -> None:
    builds.render("cold")
    builds.edit("workload.md.j2", "\nA reworded line.\n")
    changed, cache = builds.render("workload-template")
    # the two workloads' own pages, not their edition pages, nor any other page
    assert cache.misses[page_products.KIND] == len(WORKLOADS)
    plain, _ = builds.render("plain", pages=False)
    _same(changed, plain)
    text = (changed / "workloads" / WORKLOADS[0] / "index.md").read_text(encoding="utf-8")
    assert "A reworded line." in text


def test_an_included_template_re_renders_every_page_that_includes_it(builds: Builds) -> None:
    """`_workload_edition.md.j2` is read through `{% include %}` by the workloads' pages and
    their edition pages alike, never named by the Python code."""
    builds.render("cold")
    builds.edit("_workload_edition.md.j2", "\nAn included line.\n")
    changed, cache = builds.render("included")
    readers = [
        rel
        for rel, text in _tree(changed).items()
        if rel.endswith(".md") and b"An included line." in text
    ]
    assert readers, "no page shows the included template"
    assert cache.misses[page_products.KIND] >= len(WORKLOADS)
    plain, _ = builds.render("plain", pages=False)
    _same(changed, plain)


def test_a_stale_hint_finds_nothing_and_the_job_runs_again(builds: Builds) -> None:
    """The names a job read last time are a hint: a product is kept under the digests of the
    templates its own run read, so a hint that misses a template cannot place a page made
    before that template changed."""
    builds.render("cold")
    hints = builds.store / "page-templates"
    for hint in hints.iterdir():
        hint.write_text("[]", encoding="utf-8")  # as if the jobs had read no template
    builds.edit("_workload_edition.md.j2", "\nAn included line.\n")
    again, _ = builds.render("again")
    plain, _ = builds.render("plain", pages=False)
    _same(again, plain)
    text = (again / "workloads" / WORKLOADS[0] / "index.md").read_text(encoding="utf-8")
    assert "An included line." in text
    assert all(hint.read_text(encoding="utf-8") != "[]" for hint in hints.iterdir())


def test_a_hint_naming_a_template_that_is_gone_runs_the_job_again(builds: Builds) -> None:
    """An upgrade that removes a template: the names a job read last time include it."""
    cold, _ = builds.render("cold")
    hints = builds.store / "page-templates"
    for hint in hints.iterdir():
        hint.write_text('["a-template-since-removed.md.j2"]', encoding="utf-8")
    again, cache = builds.render("again")
    _same(cold, again)
    assert cache.hits[page_products.KIND] > 0  # found under the names the jobs read now


def test_a_page_file_missing_from_the_cache_is_written_again(builds: Builds) -> None:
    cold, _ = builds.render("cold")
    kept = builds.store / "products" / page_products.FILES
    for entry in kept.iterdir():
        entry.unlink()
    again, cache = builds.render("again")
    _same(cold, again)
    assert cache.misses[page_products.FILES] > 0
    assert filecmp.cmp(cold / "index.md", again / "index.md", shallow=False)


class Built:
    """One edition built by `ledgerrate build` into `out`, with the machine cache `cache`."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        from ledgerrate.publish import build as build_mod
        from ledgerrate.publish import load as load_mod
        from tests.publish.factory import write_edition

        self.root = tmp_path / "editions"
        self.fixtures = {"2026-07": write_edition(self.root, "2026-07", "2026-07-01")}
        monkeypatch.setattr(load_mod, "edition_results", lambda d: self.fixtures[Path(d).name])
        self.cache, self.out = tmp_path / "cache", tmp_path / "out"
        self.build_site = build_mod.build_site
        self.site = self.build_site(self.root, self.out, cache_dir=self.cache)
        self.first = _tree(self.site)

    def again(self) -> None:
        """Build again with the same inputs, past the no-change check (its record lost), and
        check the site is the one the first build published."""
        (self.out / "state" / "last-build").unlink()
        (self.out / "state" / "unchanged.json").unlink(missing_ok=True)
        self.build_site(self.root, self.out, cache_dir=self.cache)
        again = _tree(self.site)
        assert sorted(again) == sorted(self.first)
        assert [rel for rel in self.first if self.first[rel] != again[rel]] == []


@pytest.mark.slow
def test_a_build_with_nothing_new_to_render_places_every_page_and_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that gets past the no-change check with the same inputs (its record lost) runs
    no page job, writes no download and takes no drill-down cell's key: each is placed from the
    cache, the logs and cell folders stay in the live site, and the site is the one the first
    build published."""
    from ledgerrate.publish import drilldown, pages, render

    built = Built(tmp_path, monkeypatch)
    logs = built.site / "data" / "2026-07" / "runs"
    inode = logs.stat().st_ino

    def refused(*_: object, **__: object) -> None:
        raise AssertionError("rendered again")

    monkeypatch.setattr(render, "write_downloads", refused)
    monkeypatch.setattr(drilldown, "_render_cells", refused)  # no cell's key taken again
    for name in ("render_home", "render_edition", "render_workload_page", "render_model"):
        monkeypatch.setattr(pages, name, refused)
    built.again()
    assert logs.stat().st_ino == inode


@pytest.mark.slow
def test_downloads_whose_gzips_left_the_cache_are_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edition's downloads are placed from the cache with their log folders only listed;
    when a listed gzip is gone from the cache and the folder must be written, the downloads
    are made again, and the site is the same."""
    from ledgerrate.publish.carried import STATE

    built = Built(tmp_path, monkeypatch)
    gzips = sorted((built.cache / "products" / "gzip").iterdir())
    assert gzips, "the fixture has no gzipped log"
    for entry in gzips:
        entry.unlink()
    (built.out / "state" / STATE).unlink()  # the log folders are written, not kept
    built.again()
    assert sorted((built.cache / "products" / "gzip").iterdir()), "the gzips were not made again"


@pytest.mark.slow
def test_an_edition_added_remakes_nothing_of_the_editions_already_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#50 target 4: adding an edition costs that edition's own products and the pages that
    list editions. The earlier edition's downloads, drill-down cells and edition page are
    placed from the cache, not made again; of its pages only its workloads' pages, which
    pointed back to the workloads' pages as the newest edition's and now show its results, are
    rendered again."""
    from ledgerrate.publish import drilldown, pages, render
    from tests.publish.factory import write_edition

    built = Built(tmp_path, monkeypatch)
    made = tmp_path / "made.txt"  # appended to by forked workers too

    def noting(real: Any, edition_of: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            with made.open("a", encoding="utf-8") as log:
                log.write(f"{real.__name__} {edition_of(*args, **kwargs).id}\n")
            return real(*args, **kwargs)

        return call

    spied = {
        (render, "write_downloads"): lambda edition, *_, **__: edition,
        (drilldown, "_render_cells"): lambda *args, **_: args[4][0],
        (pages, "render_edition"): lambda *args, **_: args[2],
        (pages, "render_workload_edition"): lambda *args, **_: args[3],
    }
    for (module, name), edition_of in spied.items():
        monkeypatch.setattr(module, name, noting(getattr(module, name), edition_of))
    built.fixtures["2026-08"] = write_edition(built.root, "2026-08", "2026-08-01")
    built.build_site(built.root, built.out, cache_dir=built.cache)
    calls = made.read_text(encoding="utf-8").splitlines()
    assert sorted({line.split()[0] for line in calls}) == sorted(name for _, name in spied)
    again = sorted(line for line in calls if not line.endswith(" 2026-08"))
    workloads = len(built.fixtures["2026-07"].workloads)
    assert again == ["render_workload_edition 2026-07"] * workloads
    assert (built.site / "editions" / "2026-08" / "index.html").is_file()
