"""The site search holds edition text escaped once, as the search UI expects: a model name with
quotes, `<` and `&` reads as written in a hit, never as `&#39;` or `&amp;#39;`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledgerrate.publish.compare import render_compare
from ledgerrate.publish.engine.run import run_mkdocs
from ledgerrate.publish.pages import make_env
from ledgerrate.publish.render import TEMPLATES, render_into
from tests.publish import factory

# Quotes, an ampersand, a literal entity and markup: what a model's name or output may hold.
NAME = "it's R&D's \"q\" &amp; <b>x</b>"
TWICE = re.compile(r"&amp;(?:#\d+|#x[0-9a-f]+|lt|gt|quot|apos);", re.IGNORECASE)
NOSCRIPT = re.compile(r"<noscript>(.*?)</noscript>", re.DOTALL)


def test_hostile_model_text_is_escaped_once_in_the_search_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(factory, "HOSTILE", f"{NAME} {factory.HOSTILE}")
    editions = tmp_path / "editions"
    results = factory.write_edition(editions, "2026-07", "2026-07-01", hostile=True)
    monkeypatch.setattr("ledgerrate.publish.load.edition_results", lambda _d: results)
    render_into(editions, tmp_path / "docs")
    run_mkdocs(tmp_path / "docs", tmp_path / "site")
    raw = (tmp_path / "site" / "search" / "search_index.json").read_text("utf-8")
    assert not TWICE.search(raw), TWICE.search(raw)
    texts = " ".join(doc["text"] for doc in json.loads(raw)["docs"])
    # Escaped once: the hit shows `it's R&D's "q" &amp; <b>x</b>` as written.
    assert "Small it's R&amp;D's \"q\" &amp;amp; &lt;b&gt;x&lt;/b&gt;" in texts
    # And the page itself keeps it inert.
    page = (tmp_path / "site" / "models" / "small" / "index.html").read_text("utf-8")
    assert "<b>x</b>" not in page and "<script>alert(1)" not in page


def test_no_character_reference_inside_a_noscript_block(tmp_path: Path) -> None:
    """Zensical indexes a `<noscript>` block's HTML as text: an entity there (the edition id's
    `-` as `&#45;` in a link) reached its search index as `&amp;#45;`."""
    edition = factory_edition(tmp_path)
    render_compare(make_env(TEMPLATES), [edition], tmp_path / "docs")
    page = (tmp_path / "docs" / "compare" / "2026-07" / "index.md").read_text("utf-8")
    blocks = NOSCRIPT.findall(page)
    assert blocks and all("&#" not in block for block in blocks), blocks
    assert 'href="../../editions/2026-07/"' in page


def factory_edition(tmp_path: Path):  # type: ignore[no-untyped-def]
    from ledgerrate.publish.load import load_edition

    results = factory.write_edition(tmp_path / "editions", "2026-07", "2026-07-01")
    return load_edition(tmp_path / "editions" / "2026-07", lambda _root: results)
