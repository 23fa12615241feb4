"""The site's downloads are hard links to the rendered folder's files
(publish/engine/static_links.py): the same site, byte for byte, as the one mkdocs builds by
copying."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ledgerrate.core import forked
from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish.engine import static_links
from ledgerrate.publish.engine.run import run_mkdocs
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


def _beside(monkeypatch: pytest.MonkeyPatch) -> None:
    # The suite builds in one process (tests/conftest.py), and the fixture has a few hundred
    # downloads, fewer than a process is worth.
    monkeypatch.setenv(forked.WORKERS_ENV, "2")
    monkeypatch.setattr(static_links, "MIN_BESIDE", 1)


def test_links_made_beside_the_conversion_give_the_same_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = rendered_two_editions(tmp_path, monkeypatch)
    run_mkdocs(docs, tmp_path / "here")
    children: list[int] = []
    real = forked.beside

    def counted(fn: object) -> forked.Beside:
        side = real(fn)  # type: ignore[arg-type]
        children.append(side.pid)
        return side

    with monkeypatch.context() as patch:
        _beside(patch)
        patch.setattr(forked, "beside", counted)
        run_mkdocs(docs, tmp_path / "beside")
    assert children  # the links were made in another process
    here, beside = tree_bytes(tmp_path / "here"), tree_bytes(tmp_path / "beside")
    assert here.keys() == beside.keys()
    assert sorted(name for name in here if here[name] != beside[name]) == []
    downloads = [p for p in docs.rglob("*.gz") if p.is_file()]
    assert downloads and all(
        _same_file(source, tmp_path / "beside" / source.relative_to(docs)) for source in downloads
    )


def test_a_linking_process_that_dies_fails_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = rendered_two_editions(tmp_path, monkeypatch)
    with monkeypatch.context() as patch:
        _beside(patch)
        patch.setattr(static_links, "_link", lambda listed: os._exit(9))
        with pytest.raises(UsageProblem, match=r"linking the downloads .* exit code 9"):
            run_mkdocs(docs, tmp_path / "site")
