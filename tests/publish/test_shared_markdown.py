"""Pages that are a title and raw HTML get markdown's output filled in
(publish/engine/shared_markdown.py), and the site is byte for byte the one mkdocs builds
converting every page."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.publish.engine import shared_markdown
from ledgerrate.publish.engine.raw_html import MARKER
from ledgerrate.publish.engine.run import run_mkdocs
from ledgerrate.publish.engine.shared_markdown import SharedMarkdown, _split
from tests.publish.factory import rendered_two_editions, tree_bytes


def _title_and_raw_pages(docs: Path, count: int = 8) -> Path:
    """`docs` with `count` pages of the one shape this plug-in fills in, a title and raw HTML
    below it (each cell's drill-down page had it; they are plain HTML outside mkdocs now,
    publish/drilldown.py, so the site has no such page of its own left)."""
    for i in range(count):
        page = docs / "runs" / "2026-07" / f"shape-{i}" / "index.md"
        page.parent.mkdir(parents=True)
        page.write_text(
            "---\nsearch:\n  exclude: true\n---\n"
            f"# Runs: cell {i} (edition 2026-07)\n\n{MARKER}\n"
            f'<table><tr><th>run</th></tr><tr><td id="run-{i}">{i}</td></tr></table>\n',
            "utf-8",
        )
    return docs


def _built(docs: Path, out: Path, patch: pytest.MonkeyPatch, *, off: bool = False) -> Counter[str]:
    made: Counter[str] = Counter()
    real_apply = shared_markdown._apply

    def apply(page: Any, outputs: Any) -> None:
        made["filled"] += 1
        real_apply(page, outputs)

    patch.setattr(shared_markdown, "_apply", apply)
    if off:
        patch.setattr(SharedMarkdown, "on_page_markdown", lambda self, markdown, **_: markdown)
    run_mkdocs(docs, out)
    return made


def test_the_site_is_byte_identical_to_one_converting_every_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _title_and_raw_pages(rendered_two_editions(tmp_path, monkeypatch))
    with monkeypatch.context() as patch:
        made = _built(docs, tmp_path / "filled", patch)
    with monkeypatch.context() as patch:
        assert _built(docs, tmp_path / "converted", patch, off=True)["filled"] == 0

    filled, converted = tree_bytes(tmp_path / "filled"), tree_bytes(tmp_path / "converted")
    drilldowns = [p for p in filled if p.startswith("runs/2026-07/shape-")]
    assert len(drilldowns) > 4
    # One kind (the drill-down pages): its first page learned, its second confirmed.
    assert made["filled"] == len(drilldowns) - 2
    assert filled.keys() == converted.keys()
    assert sorted(name for name in filled if filled[name] != converted[name]) == []


def test_a_kind_whose_second_page_disagrees_is_converted_from_then_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _title_and_raw_pages(rendered_two_editions(tmp_path, monkeypatch))
    real_fill = shared_markdown._Learned.fill

    def wrong(self: Any, title: str, slug: str) -> Any:
        return real_fill(self, title + " (not what markdown wrote)", slug)

    with monkeypatch.context() as patch:
        patch.setattr(shared_markdown._Learned, "fill", wrong)
        made = _built(docs, tmp_path / "refused", patch)
    with monkeypatch.context() as patch:
        _built(docs, tmp_path / "converted", patch, off=True)
    assert made["filled"] == 0
    assert tree_bytes(tmp_path / "refused") == tree_bytes(tmp_path / "converted")


@pytest.mark.parametrize(
    "title",
    [
        "Runs: extract.invoice.v1 · m000 · agentic (edition 2027&#45;01)",
        "A &amp; B &#x2F; C",
    ],
)
def test_a_plain_title_and_placeholders_are_one_kind(title: str) -> None:
    rest = "\n\n<!-- lr:raw-html 0 -->\n\n<!-- lr:raw-html 1 -->\n"
    assert _split(f"# {title}\n{rest}") == (title, rest)


@pytest.mark.parametrize(
    "markdown",
    [
        "# Runs *of* a model\n\n<!-- lr:raw-html 0 -->\n",  # emphasis
        "# Runs of m_1_\n\n<!-- lr:raw-html 0 -->\n",
        "# Runs of `code`\n\n<!-- lr:raw-html 0 -->\n",
        "# Runs of [a](b.md)\n\n<!-- lr:raw-html 0 -->\n",  # a link mkdocs checks
        "# Runs of <b>x</b>\n\n<!-- lr:raw-html 0 -->\n",
        "# Runs of A & B\n\n<!-- lr:raw-html 0 -->\n",  # a bare ampersand markdown escapes
        "# Runs of \\x\n\n<!-- lr:raw-html 0 -->\n",
        "# Runs #\n\n<!-- lr:raw-html 0 -->\n",  # a closing hash markdown drops
        "# Runs\n\nSome prose.\n\n<!-- lr:raw-html 0 -->\n",  # more than a title
        "# Runs\n## Below\n<!-- lr:raw-html 0 -->\n",
        "Runs\n\n<!-- lr:raw-html 0 -->\n",  # no heading
    ],
)
def test_anything_markdown_would_change_is_converted(markdown: str) -> None:
    assert _split(markdown) is None
