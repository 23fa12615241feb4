"""A page's conversion kept in the build cache (publish/engine/converted_pages.py): the site is
byte for byte the one mkdocs builds converting every page, a changed page is converted again,
and a page whose conversion warned is never kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.engine import converted_pages
from ledgerrate.publish.engine.run import run_mkdocs
from tests.publish.factory import rendered_two_editions, tree_bytes


def _build(docs: Path, out: Path, store: Path | None) -> BuildCache | None:
    cache = None if store is None else BuildCache.open(store, index=store / "digests.json")
    run_mkdocs(docs, out, cache=cache)
    return cache


def test_kept_conversions_build_the_same_site_and_a_changed_page_is_converted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = rendered_two_editions(tmp_path, monkeypatch)
    store = tmp_path / "cache"
    first = _build(docs, tmp_path / "first", store)
    assert first is not None
    pages = first.misses[converted_pages.KIND]
    assert pages > 10
    again = _build(docs, tmp_path / "again", store)
    assert again is not None and converted_pages.KIND not in again.misses
    assert again.hits[converted_pages.KIND] == pages
    # the search index's entries of each page too (`_SearchEntries`)
    assert first.misses[converted_pages.SEARCH] > 10
    assert again.hits[converted_pages.SEARCH] == first.misses[converted_pages.SEARCH]
    assert converted_pages.SEARCH not in again.misses
    _build(docs, tmp_path / "plain", None)
    plain, kept = tree_bytes(tmp_path / "plain"), tree_bytes(tmp_path / "again")
    assert kept.keys() == plain.keys()
    assert sorted(name for name in kept if kept[name] != plain[name]) == []
    # One page's text changes: that page alone is converted again, and shows the change.
    about = docs / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\n## A new heading\n", "utf-8")
    changed = _build(docs, tmp_path / "changed", store)
    assert changed is not None and changed.misses[converted_pages.KIND] == 1
    html = (tmp_path / "changed" / "about" / "index.html").read_text(encoding="utf-8")
    assert 'id="a-new-heading"' in html


def test_a_page_whose_conversion_warned_is_converted_and_warns_on_every_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = rendered_two_editions(tmp_path, monkeypatch)
    about = docs / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + "\n[gone](../no-such-page.md)\n", "utf-8")
    store = tmp_path / "cache"
    for name in ("first", "second"):
        with pytest.raises(UsageProblem, match="no-such-page"):
            _build(docs, tmp_path / name, store)
