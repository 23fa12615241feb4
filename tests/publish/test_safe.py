"""Escaping: hostile text through the same markdown pipeline mkdocs uses stays inert."""

from __future__ import annotations

import html
from pathlib import Path

import markdown
import pytest
from jinja2 import Environment

from ledgerrate.publish.render import sync_tree
from ledgerrate.publish.safe import external_link, finalize, md_text, pre_block, segment
from tests.publish.factory import PAYLOADS

EXTENSIONS = ["tables", "toc"]


def _html(md: str) -> str:
    return markdown.markdown(md, extensions=EXTENSIONS)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_inline_text_is_inert(payload: str) -> None:
    out = _html(f"| a | b |\n|---|---|\n| {md_text(payload)} | x |\n")
    assert "<script" not in out and "<img" not in out and "href" not in out
    assert "<code>" not in out  # a backtick fence did not open a code span
    assert out.count("<td") == 2  # the row kept its two cells
    assert payload.replace("\n", " ") in html.unescape(out)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_pre_block_is_verbatim_and_inert(payload: str) -> None:
    text = f"before\n\n{pre_block(payload + chr(10) * 3 + '# not a heading')}\n\nafter\n"
    out = _html(text)
    assert out.count("<pre") == 1 and "<h1" not in out and "<script" not in out
    assert payload in html.unescape(out)


def test_pre_block_says_when_it_cut() -> None:
    shown = html.unescape(pre_block("x" * 50, limit=10))
    assert "x" * 11 not in shown and "40 more characters" in shown


def test_finalize_escapes_by_default() -> None:
    env = Environment(autoescape=False, finalize=finalize)
    out = env.from_string("{{ a }} {{ b }} {{ c }}").render(a="[x](javascript:1)", b=3, c=None)
    assert "[" not in out and "(" not in out and out.endswith("3 ")


def test_segment_refuses_paths() -> None:
    assert segment("extract.invoice.v1") == "extract.invoice.v1"
    for bad in ["..", "../etc", "a/b", "x y", "javascript:alert(1)", ""]:
        with pytest.raises(ValueError):
            segment(bad)


def test_external_link_only_for_http() -> None:
    assert 'href="https://example.com/p?a=1&amp;b=2"' in external_link(
        "https://example.com/p?a=1&b=2"
    )
    assert "href" not in external_link("javascript:alert(1)")
    assert "href" not in external_link('https://x.com/"onmouseover=alert(1)')


def test_sync_tree_touches_only_changed_files(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    (src / "a").mkdir(parents=True)
    (src / "a" / "same.md").write_text("same")
    (src / "new.md").write_text("new")
    (dst / "a").mkdir(parents=True)
    (dst / "a" / "same.md").write_text("same")
    (dst / "old").mkdir()
    (dst / "old" / "stale.md").write_text("stale")
    before = (dst / "a" / "same.md").stat().st_mtime_ns
    sync_tree(src, dst)
    assert (dst / "a" / "same.md").stat().st_mtime_ns == before
    assert (dst / "new.md").read_text() == "new"
    assert not (dst / "old").exists()
