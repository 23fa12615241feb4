"""Each glossary term's first use on a page links to its entry; links, headings, code and
attributes are never touched, and the glossary has an entry for every anchor linked."""

from __future__ import annotations

import re
from pathlib import Path

from ledgerrate.publish.glossary_links import TERMS, glossary_href, link_terms

GLOSSARY = Path(__file__).resolve().parents[2] / "ledgerrate" / "site" / "pages" / "glossary.md"


def _slug(heading: str) -> str:
    # mkdocs' toc slug: lower case, punctuation dropped, spaces to hyphens.
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading).strip().lower())


def test_first_use_only_and_never_inside_a_link_heading_or_code() -> None:
    page = (
        '<h1>CPO of a cell</h1><p title="a cell">Each <a href="x">cell</a> has a CPO; '
        "another cell, another CPO.</p><pre><code>cell</code></pre>"
        "<p>single-shot and agentic cells, withdrawn by an erratum.</p>"
    )
    out = link_terms(page, "../glossary/")
    assert out.count('href="../glossary/#cell"') == 1
    assert out.count('href="../glossary/#cpo"') == 1
    assert "<h1>CPO of a cell</h1>" in out and '<p title="a cell">' in out
    assert '<a href="x">cell</a>' in out and "<pre><code>cell</code></pre>" in out
    assert 'has a <a class="lr-term" href="../glossary/#cpo">CPO</a>;' in out
    assert '<a class="lr-term" href="../glossary/#cell">cell</a>, another' in out
    # One anchor for both modes: only the first of them is linked.
    assert out.count("#single-shot-and-agentic") == 1
    assert 'href="../glossary/#erratum">erratum</a>' in out


def test_every_linked_anchor_is_a_glossary_heading() -> None:
    headings = re.findall(r"^## (.+)$", GLOSSARY.read_text("utf-8"), re.MULTILINE)
    slugs = {_slug(h) for h in headings}
    assert {anchor for _, anchor in TERMS} <= slugs


def test_the_href_climbs_to_the_site_root() -> None:
    assert glossary_href("") == "glossary/"
    assert glossary_href("workloads/extract.invoice.v2/") == "../../glossary/"


def test_the_plugin_links_every_page_but_the_glossary() -> None:
    from types import SimpleNamespace

    from ledgerrate.publish.glossary_links import GlossaryLinks

    plugin = GlossaryLinks()
    page = SimpleNamespace(url="editions/2026-12/")
    assert 'href="../../glossary/#cpo"' in plugin.on_page_content("<p>CPO</p>", page=page)
    glossary = SimpleNamespace(url="glossary/")
    assert plugin.on_page_content("<p>CPO</p>", page=glossary) == "<p>CPO</p>"
