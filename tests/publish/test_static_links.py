"""The site's downloads are hard links to the rendered folder's files (publish/static_links.py):
the same site, byte for byte, as the one mkdocs builds by copying."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ledgerrate.publish import static_links
from ledgerrate.publish.build import run_mkdocs
from tests.publish.factory import rendered_two_editions, tree_bytes


def _same_file(a: Path, b: Path) -> bool:
    return os.path.samefile(a, b)


def test_downloads_are_linked_and_the_site_is_the_copied_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = rendered_two_editions(tmp_path, monkeypatch)
    run_mkdocs(docs, tmp_path / "linked")
    with monkeypatch.context() as patch:
        patch.setattr(static_links, "link_static_files", lambda files, docs_dir: 0)
        run_mkdocs(docs, tmp_path / "copied")

    linked, copied = tree_bytes(tmp_path / "linked"), tree_bytes(tmp_path / "copied")
    assert linked.keys() == copied.keys()
    assert sorted(name for name in linked if linked[name] != copied[name]) == []

    downloads = [p for p in docs.rglob("*.gz") if p.is_file()]
    assert len(downloads) > 4
    for source in downloads:
        rel = source.relative_to(docs)
        assert _same_file(source, tmp_path / "linked" / rel), rel
        assert not _same_file(source, tmp_path / "copied" / rel), rel
    # A page is written by mkdocs, never linked to its markdown; the theme's assets are copied.
    page = next((tmp_path / "linked" / "assets").rglob("*.js"))
    assert page.stat().st_nlink == 1
    assert (tmp_path / "linked" / "index.html").stat().st_nlink == 1


def test_a_filesystem_without_links_gets_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = rendered_two_editions(tmp_path, monkeypatch)

    def refuse(source: str, target: str) -> None:
        raise OSError(18, "Invalid cross-device link")

    with monkeypatch.context() as patch:
        patch.setattr(static_links.os, "link", refuse)
        run_mkdocs(docs, tmp_path / "site")
    downloads = [p for p in docs.rglob("*.gz") if p.is_file()]
    assert downloads
    for source in downloads:
        target = tmp_path / "site" / source.relative_to(docs)
        assert target.read_bytes() == source.read_bytes()
        assert not _same_file(source, target)
