"""Large results tables are written as HTML and skip markdown (publish/html_table.py): the HTML
must be what markdown wrote for the same table, hostile text included; a raw block's broken
link must still fail the strict build; and the site search must not index the blocks."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish.engine.raw_html import region
from ledgerrate.publish.engine.run import run_mkdocs
from ledgerrate.publish.html_table import TableSyntaxError, html_table, table_html
from ledgerrate.publish.safe import html_only, md_text
from tests.publish.factory import texts_sent_through

_PAGE_LINK = re.compile(r'href="([^"]*?)index\.md"')


def _as_mkdocs_writes(html: str) -> str:
    # mkdocs turns a link to `a/index.md` into `a/` (use_directory_urls); nothing else differs.
    return _PAGE_LINK.sub(lambda m: f'href="{m[1] or "./"}"', html)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every table the templates send through `html_table`, as markdown, for two editions
    (one with hostile names, notes and answers)."""
    editions = {"2026-04": {"reference_only": True}, "2026-07": {"hostile": True}}
    return texts_sent_through(tmp_path_factory, editions, "html_table", html_table)


def test_each_table_is_the_html_markdown_writes_for_it(tables: list[str]) -> None:
    # Outcomes, costs, usage per workload and edition, the trendline and every cell table.
    assert len(tables) >= 8
    assert any("&#60;script&#62;" in t for t in tables)  # hostile text reached a table
    for text in tables:
        expected = _as_mkdocs_writes(markdown.markdown(text, extensions=["tables"]))
        assert table_html(text) == expected, text[:300]


class _Dom(HTMLParser):
    """What a browser builds from HTML, as a flat list: tags with their decoded attributes, and
    decoded text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.seen: list[object] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        self.seen.append(f"/{tag}")

    def handle_data(self, data: str) -> None:
        self.seen.append(data)


def test_the_page_gets_the_same_table_with_fewer_references(tables: list[str]) -> None:
    """The table as published (`html_table`) is the HTML markdown writes with the references
    only markdown needed written as characters: the same elements, attributes and text."""
    shrunk = 0
    for text in tables:
        written = table_html(text)
        published = html_only(written)
        assert _Dom(published).seen == _Dom(written).seen, text[:300]
        assert str(html_table(text)) == str(region(published))
        shrunk += len(written) - len(published)
    assert shrunk > 0
    hostile = [html_only(table_html(t)) for t in tables if "&#60;script&#62;" in t]
    assert hostile and all("<script" not in t and "&#60;script&#62;" in t for t in hostile)


def test_a_page_link_takes_its_final_form_and_a_file_link_stays() -> None:
    text = "| A | B |\n|---|---:|\n| [m](../../models/m1/index.md) | [csv](cells.csv) |\n"
    html = table_html(text)
    assert '<a href="../../models/m1/">m</a>' in html
    assert '<td style="text-align: right;"><a href="cells.csv">csv</a></td>' in html


@pytest.mark.parametrize("cell", ["**bold**", "`code`", "a < b", "AT&T", "_em_", "a\\|b"])
def test_markdown_the_converter_does_not_write_stops_the_build(cell: str) -> None:
    with pytest.raises(TableSyntaxError, match="table cell"):
        table_html(f"| A |\n|---|\n| {cell} |\n")


def test_escaped_hostile_text_passes_unchanged() -> None:
    hostile = "**x** `y` <b>z</b> [l](javascript:alert(1)) a | b & c"
    html = table_html(f"| A |\n|---|\n| {md_text(hostile)} |\n")
    assert f"<td>{md_text(hostile)}</td>" in html
    assert "<b>" not in html and "javascript:" not in html.replace("javascript&#58;", "")


def _docs(root: Path, link: str) -> Path:
    docs = root / "docs"
    (docs / "models" / "m1").mkdir(parents=True)
    (docs / "models" / "m1" / "index.md").write_text("# Model m1\n", "utf-8")
    (docs / "cells.csv").write_text("a,b\n", "utf-8")
    table = table_html(f"| Model | Data |\n|---|---|\n| {link} | [csv](cells.csv) |\n")
    page = f"# Results\n\nSome prose about zebras.\n\n{region(table)}\nAfter the table.\n"
    (docs / "index.md").write_text(page, "utf-8")
    return docs


def test_raw_tables_are_in_the_page_but_not_in_the_search(tmp_path: Path) -> None:
    run_mkdocs(_docs(tmp_path, "[Model m1](models/m1/index.md)"), tmp_path / "site")
    page = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert '<td><a href="models/m1/">Model m1</a></td>' in page
    assert "lr:raw-html" not in page and "After the table." in page
    index = json.loads((tmp_path / "site" / "search" / "search_index.json").read_text("utf-8"))
    text = " ".join(entry["text"] for entry in index["docs"])
    assert "zebras" in text and "cells.csv" not in text and "After the table" in text


def test_a_broken_link_in_a_raw_table_fails_the_strict_build(tmp_path: Path) -> None:
    with pytest.raises(UsageProblem) as failed:
        run_mkdocs(_docs(tmp_path, "[gone](models/m2/index.md)"), tmp_path / "site")
    assert "models/m2/" in "\n".join(failed.value.lines)
