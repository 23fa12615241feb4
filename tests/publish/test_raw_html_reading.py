"""How publish/engine/raw_html.py reads a page: only its head at conversion (the tail of runs
when the page is written), regions found as the regex it replaced found them, and a page whose
head or tail changed between the two stops the build; the site is the one mkdocs builds reading
whole pages."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledgerrate.publish.engine import raw_html
from ledgerrate.publish.engine.raw_html import MARKER, REGION_END, REGION_START, RawHtml, read_head
from ledgerrate.publish.engine.run import run_mkdocs
from tests.publish.factory import (
    rendered_two_editions,
    tree_bytes,
    with_items_copies,
)

# The regex `_split` used before `str.find`: the reference it must agree with.
_REGION = re.compile(f"\n{re.escape(REGION_START)}\n(.*?)\n{re.escape(REGION_END)}\n", re.DOTALL)


def _reference(markdown: str) -> tuple[str, list[str]]:
    blocks: list[str] = []

    def hold(found: re.Match[str]) -> str:
        blocks.append(found[1])
        return f"\n\n<!-- lr:raw-html {len(blocks) - 1} -->\n\n"

    head, found, tail = markdown.partition(f"\n{MARKER}\n")
    head = _REGION.sub(hold, head)
    if found:
        blocks.append(tail)
        head = f"{head}\n\n<!-- lr:raw-html {len(blocks) - 1} -->\n"
    return head, blocks


_PIECES = st.sampled_from(["\n", "a", "<p>x</p>", REGION_START, REGION_END, MARKER, "\n\n", " "])


@given(st.lists(_PIECES, max_size=24))
def test_regions_are_split_as_the_regex_split_them(pieces: list[str]) -> None:
    markdown = "".join(pieces)
    assert raw_html._split(markdown) == _reference(markdown)


def _page_file(tmp_path: Path, text: bytes) -> Path:
    path = tmp_path / "index.md"
    path.write_bytes(text)
    return path


def test_only_the_head_is_read_and_decoded(tmp_path: Path) -> None:
    head = "---\nsearch:\n  exclude: true\n---\n# Runs \u00b7 m1\n\nintro\n"
    # A tail that is not even UTF-8: reading it at conversion would fail.
    tail = b"<div>" + b"\xff" * 50_000 + b"</div>\n"
    path = _page_file(tmp_path, "\ufeff".encode() + head.encode() + f"\n{MARKER}\n".encode() + tail)
    found = read_head(str(path))
    assert found is not None
    text, stamp = found
    assert text == f"{head}\n{MARKER}\n"  # the BOM dropped, as mkdocs drops it
    assert stamp[0] == path.stat().st_size


def test_a_page_without_the_marker_is_read_by_mkdocs(tmp_path: Path) -> None:
    assert read_head(str(_page_file(tmp_path, b"# Title\n\n" + b"x" * 20_000))) is None
    # Windows line ends: mkdocs' universal newlines find the marker, a byte search would not.
    crlf = f"# Runs\r\n{MARKER}\r\n<div>runs</div>\r\n".encode()
    assert read_head(str(_page_file(tmp_path, crlf))) is None


def _page(path: Path) -> SimpleNamespace:
    return SimpleNamespace(file=SimpleNamespace(src_uri="runs/a/index.md", abs_src_path=str(path)))


def _converted(raw: RawHtml, page: SimpleNamespace) -> None:
    source = raw.on_page_read_source(page)
    assert source is not None and "<div>runs" not in source
    raw.on_page_markdown(source, page)
    page.content = "<h1>Runs</h1>\n<!-- lr:raw-html 0 -->\n<!-- lr:raw-html 1 -->\n"


def test_the_tail_read_when_written_is_put_back(tmp_path: Path) -> None:
    text = f"# Runs\n\n{REGION_START}\n<p>intro</p>\n{REGION_END}\n\n{MARKER}\n<div>runs</div>\n"
    page = _page(_page_file(tmp_path, text.encode()))
    raw = RawHtml()
    _converted(raw, page)
    raw.on_page_context({}, page)
    assert page.content == "<h1>Runs</h1>\n<p>intro</p>\n<div>runs</div>\n\n"


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace("<div>runs</div>", "<div>other runs</div>"),  # the tail, unread
        lambda t: t.replace("<p>intro</p>", "<p>other</p>"),  # the head, same size
    ],
)
def test_a_page_changed_between_conversion_and_writing_stops_the_build(
    tmp_path: Path, change: object
) -> None:
    text = f"# Runs\n\n{REGION_START}\n<p>intro</p>\n{REGION_END}\n\n{MARKER}\n<div>runs</div>\n"
    path = _page_file(tmp_path, text.encode())
    page = _page(path)
    raw = RawHtml()
    _converted(raw, page)
    path.write_text(change(text), "utf-8")  # type: ignore[operator]
    with pytest.raises(RuntimeError, match="changed during the build"):
        raw.on_page_context({}, page)


def test_the_site_is_the_one_built_reading_whole_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = with_items_copies(rendered_two_editions(tmp_path, monkeypatch))
    heads: list[str] = []
    real = RawHtml.on_page_read_source

    def counted(self: RawHtml, page: object, **kw: object) -> str | None:
        found = real(self, page, **kw)
        if found is not None:
            heads.append(found)
        return found

    with monkeypatch.context() as patch:
        patch.setattr(RawHtml, "on_page_read_source", counted)
        run_mkdocs(docs, tmp_path / "heads")
    with monkeypatch.context() as patch:
        patch.setattr(RawHtml, "on_page_read_source", lambda self, page, **kw: None)
        run_mkdocs(docs, tmp_path / "whole")
    assert len(heads) > 4  # the drill-down pages were converted from their heads
    heads_site, whole_site = tree_bytes(tmp_path / "heads"), tree_bytes(tmp_path / "whole")
    assert heads_site.keys() == whole_site.keys()
    assert sorted(name for name in heads_site if heads_site[name] != whole_site[name]) == []
