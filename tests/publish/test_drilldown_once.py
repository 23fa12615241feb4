"""The drill-down stage does each shared piece of work once per build: one compiled template
for every page of a kind, one read of a workload's published dataset for all its cells, and
each page linked from the cache entry that holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledgerrate.publish import drilldown
from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.render import render_into
from tests.publish.factory import WL, write_edition


def _edition(tmp_path: Path) -> tuple[Path, dict]:
    root = tmp_path / "editions"
    return root, {"2026-07": write_edition(root, "2026-07", "2026-07-01", hostile=True)}


def _render(tmp_path: Path, name: str, root: Path, fixtures: dict) -> tuple[Path, int]:
    cells = sum(len(w.cells) for r in fixtures.values() for w in r.workloads)
    docs = tmp_path / name
    cache = BuildCache.open(tmp_path / f"cache-{name}")
    render_into(root, docs, results_fn=lambda p: fixtures[Path(p).name], cache=cache)
    return docs, cells


def test_dataset_read_and_template_fetched_once_per_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[tuple[str, str]] = []
    real_read = drilldown.published_dataset

    def counted(docs: Path, edition_id: str, workload: str):
        reads.append((edition_id, workload))
        return real_read(docs, edition_id, workload)

    monkeypatch.setattr(drilldown, "published_dataset", counted)
    fetched: list[str] = []
    real_stage = drilldown.render_drilldowns

    def stage(env, editions, docs, cache, **options):
        real_get = env.get_template

        def get_template(name, *args, **kwargs):
            fetched.append(name)
            return real_get(name, *args, **kwargs)

        env.get_template = get_template
        return real_stage(env, editions, docs, cache, **options)

    real_env = drilldown.html_env

    def cell_env(pages):  # the cell pages' own environment (HTML, autoescaped)
        env = real_env(pages)
        real_get = env.get_template

        def get_template(name, *args, **kwargs):
            fetched.append(name)
            return real_get(name, *args, **kwargs)

        env.get_template = get_template
        return env

    monkeypatch.setattr(drilldown, "render_drilldowns", stage)
    monkeypatch.setattr(drilldown, "html_env", cell_env)
    _, cells = _render(tmp_path, "docs", *_edition(tmp_path))
    assert cells > 1  # more than one cell of the workload, so "once" is not "per cell"
    assert sorted(reads) == sorted(set(reads)) == [("2026-07", WL)]
    assert fetched.count(drilldown.TEMPLATE) == 1
    assert fetched.count(drilldown.ITEMS_TEMPLATE) == 1


def test_each_page_is_its_cached_entry_linked_not_copied(tmp_path: Path) -> None:
    """A drill-down page is linked from the cache entry that holds it (ten 215-model editions
    have 30,000 of them: reading and writing each again cost more than rendering the rest), and
    an edit made through the link in one build's pages is not what the next build publishes."""
    root, fixtures = _edition(tmp_path)
    docs, cells = _render(tmp_path, "docs", root, fixtures)
    entries = list((tmp_path / "cache-docs" / "products" / "drilldown").iterdir())
    pages = sorted((docs / "runs").glob("*/*/*/*/index.html"))
    assert len(pages) == cells == len(entries)
    for page in pages:
        assert any(page.samefile(entry) for entry in entries), page
    page = pages[0]
    original = page.read_bytes()
    page.write_bytes(b"edited in place\n")
    cache = BuildCache.open(tmp_path / "cache-docs")
    again = tmp_path / "again"
    render_into(root, again, results_fn=lambda p: fixtures[Path(p).name], cache=cache)
    assert (again / page.relative_to(docs)).read_bytes() == original
    assert cache.misses.get("drilldown") == 1
