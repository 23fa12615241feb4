"""Drill-down introductions are written as HTML and skip markdown (publish/html_prose.py): the
HTML must be what markdown wrote for the same text, hostile text included, and a text the
converter does not implement must be left to markdown, never shown as raw syntax."""

from __future__ import annotations

import re

import markdown
import pytest

from ledgerrate.publish.engine.raw_html import REGION_START
from ledgerrate.publish.html_prose import prose_html, prose_region
from ledgerrate.publish.html_table import TableSyntaxError
from ledgerrate.publish.safe import md_text
from tests.publish.factory import texts_sent_through

_PAGE_LINK = re.compile(r'href="([^"]*?)index\.md"')


def _markdown_writes(text: str) -> str:
    # mkdocs turns a link to `a/index.md` into `a/` (use_directory_urls); nothing else differs.
    html = markdown.markdown(text, extensions=["tables"])
    return _PAGE_LINK.sub(lambda m: f'href="{m[1] or "./"}"', html)


@pytest.fixture(scope="module")
def introductions(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every text the drill-down template sends through `html_prose`, for three editions: a
    reference-only one (its banner is a quote), one with hostile names and answers, and one
    whose seeds are released (a test seed: its dataset is not regenerated)."""
    editions = {
        "2026-04": {"reference_only": True},
        "2026-07": {"hostile": True},
        "2026-08": {"release_seeds": True},
    }
    return texts_sent_through(tmp_path_factory, editions, "prose_region", prose_region)


def test_each_introduction_is_the_html_markdown_writes_for_it(introductions: list[str]) -> None:
    assert len(introductions) >= 6  # every cell page of the three editions
    assert any("&#60;script&#62;" in t for t in introductions)  # hostile text reached one
    assert any(t.lstrip().startswith(">") for t in introductions)  # a banner quote
    assert any("not regenerated" in t for t in introductions)  # a released seed
    for text in introductions:
        # Every introduction takes the fast path: a refusal would fall back without a sound.
        assert prose_html(text) == _markdown_writes(text), text[:300]


def test_a_released_seeds_links_to_its_items_and_dataset() -> None:
    text = (
        "The seed of w.v1 is released, so each item's expected answer is shown, on the "
        "[items page](../../index.md), with the dataset file the model was given "
        "([data page](../../../../../data/2026-12/index.md), `dataset.json`).\n"
    )
    html = prose_html(text)
    assert '<a href="../../">items page</a>' in html and "<code>dataset.json</code>" in html
    assert html == _markdown_writes(text)


def test_quotes_that_only_blank_lines_separate_are_one_quote() -> None:
    text = "> **A.** one\n\n> **B.** two\n> more\n\nAfter [it](../x/index.md), `f.json`.\n"
    html = prose_html(text)
    assert html.count("<blockquote>") == 1
    assert html == _markdown_writes(text)


def test_our_one_line_html_block_is_kept_as_it_is() -> None:
    text = 'Intro.\n\n<p class="lr-table-data">Logs: <a href="a.gz" download>run log</a></p>\n'
    assert prose_html(text) == _markdown_writes(text)
    assert '<p class="lr-table-data">Logs: <a href="a.gz" download>run log</a></p>' in prose_html(
        text
    )


@pytest.mark.parametrize(
    "text",
    [
        "# A heading",
        "- a list item",
        "* a list item",
        "1. a numbered item",
        "    indented code",
        "a line break  \nafter two spaces",
        "*em*",
        "_em_",
        "`a & b`",
        "a < b",
        "| a | b |\n|---|---|",
        "Setext\n---",
        "> a quote\nits lazy continuation",
        "a [link](u) and ![image](i.png)",
    ],
)
def test_markdown_the_converter_does_not_write_is_left_to_markdown(text: str) -> None:
    with pytest.raises(TableSyntaxError):
        prose_html(text)
    region = prose_region(text)
    assert region == text and REGION_START not in region


def test_escaped_hostile_text_passes_unchanged() -> None:
    hostile = "**x** `y` <b>z</b> [l](javascript:alert(1)) # h\n- item & c"
    text = f"Model **{md_text(hostile)}** answered.\n"
    html = prose_html(text)
    assert html == _markdown_writes(text)
    assert "<b>" not in html and "javascript:" not in html.replace("javascript&#58;", "")
    assert REGION_START in prose_region(text)
