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


def _converted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path, BuildCache]:
    """The two editions' docs, built once into `first` with a new products cache."""
    docs = rendered_two_editions(tmp_path, monkeypatch)
    store = tmp_path / "cache"
    first = _build(docs, tmp_path / "first", store)
    assert first is not None
    return docs, store, first


def _about_extended(docs: Path, store: Path, out: Path, text: str) -> str:
    """The about page with `text` appended, built into `out`: the one page converted again.
    Its built HTML."""
    about = docs / "about.md"
    about.write_text(about.read_text(encoding="utf-8") + text, "utf-8")
    changed = _build(docs, out, store)
    assert changed is not None and changed.misses[converted_pages.KIND] == 1
    return (out / "about" / "index.html").read_text(encoding="utf-8")


def test_kept_conversions_build_the_same_site_and_a_changed_page_is_converted_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs, store, first = _converted_once(tmp_path, monkeypatch)
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
    html = _about_extended(docs, store, tmp_path / "changed", "\n## A new heading\n")
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


def test_a_file_added_to_the_site_converts_no_page_that_does_not_link_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An edition added to a site adds files (its pages, charts, downloads) that no unchanged
    # page links to: those pages' conversions stay kept. A page that does link to the new file
    # is converted again, and links to it.
    docs, store, first = _converted_once(tmp_path, monkeypatch)
    pages = first.misses[converted_pages.KIND]
    (docs / "notes").mkdir()
    (docs / "notes" / "added.txt").write_text("a file no page links to yet\n", "utf-8")
    added = _build(docs, tmp_path / "added", store)
    assert added is not None and converted_pages.KIND not in added.misses
    assert added.hits[converted_pages.KIND] == pages
    _build(docs, tmp_path / "plain", None)
    assert tree_bytes(tmp_path / "added") == tree_bytes(tmp_path / "plain")
    html = _about_extended(docs, store, tmp_path / "linked", "\n[notes](notes/added.txt)\n")
    assert 'href="../notes/added.txt"' in html


class _Files:
    """Stands in for mkdocs' files: looked up by source path."""

    def __init__(self, *rows: tuple[str, str]) -> None:
        self.found = {src: _File(src, url) for src, url in rows}

    def get_file_from_path(self, path: str) -> object | None:
        return self.found.get(path)


class _File:
    def __init__(self, src: str, url: str) -> None:
        self.src_uri, self.dest_uri, self.url, self.inclusion = src, url + "index.html", url, "I"


def test_a_conversion_is_keyed_by_the_files_it_looked_up_and_by_no_other() -> None:
    looked = ["b.md", "missing.md"]
    key = converted_pages._key("first", looked, _Files(("a.md", "a/"), ("b.md", "b/")))
    assert key == converted_pages._key("first", looked, _Files(("b.md", "b/"), ("c.md", "c/")))
    # a looked-up file moved, or one that was missing now found: another key
    assert key != converted_pages._key("first", looked, _Files(("b.md", "bee/")))
    assert key != converted_pages._key(
        "first", looked, _Files(("b.md", "b/"), ("missing.md", "missing/"))
    )
    assert key != converted_pages._key("other", looked, _Files(("b.md", "b/")))
