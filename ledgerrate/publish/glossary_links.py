"""The first use of each term on a page links to its entry on the glossary page.

Done on each page's HTML after markdown (an mkdocs plugin event, registered by
`publish.engine.run.run_mkdocs` and the mkdocs hook), so every page gets it, generated or
hand-written, without a template having to know which of its words comes first. Only text is
touched: never a tag or attribute, and never text inside a link, a heading, code, a script or a
form control, so no link is nested in another and no heading's anchor changes.
"""

from __future__ import annotations

import re
from typing import Any

# (pattern, glossary anchor); an anchor is linked once per page, at the first of its patterns to
# appear. Anchors are the slugs mkdocs' toc gives the glossary's headings.
TERMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, flags), anchor)
    for pattern, anchor, flags in (
        (r"\bCPO\b", "cpo", 0),
        (r"\bcost per successful outcome\b", "cpo", re.IGNORECASE),
        (r"\bquality bar\b", "quality-bar", re.IGNORECASE),
        (r"\breference baselines?\b", "reference-baseline", re.IGNORECASE),
        (r"\bpass rates?\b", "pass-rate", re.IGNORECASE),
        (r"\bjudged-task protocol\b", "judge", re.IGNORECASE),
        (r"\bself-judg\w*", "self-judging", re.IGNORECASE),
        (r"\bcells?\b", "cell", re.IGNORECASE),
        (r"\bflagships?\b", "flagship", re.IGNORECASE),
        (r"\bpremium\b", "premium", re.IGNORECASE),
        (r"\bsingle-shot\b", "single-shot-and-agentic", re.IGNORECASE),
        (r"\bagentic\b", "single-shot-and-agentic", re.IGNORECASE),
        (r"\bsittings?\b", "sitting", re.IGNORECASE),
        (r"\bqualif(?:y|ying|ies)\b", "qualifying", re.IGNORECASE),
        (r"\berrat(?:um|a)\b", "erratum", re.IGNORECASE),
        (r"\bwithdrawn\b", "withdrawn", re.IGNORECASE),
        (r"\bvoid\b", "void", re.IGNORECASE),
        (r"\bprimitives?\b", "primitive", re.IGNORECASE),
        (r"\bcost basis\b", "cost-basis", re.IGNORECASE),
    )
)
# Text inside these elements is never linked.
_SKIP = frozenset(
    {"a", "code", "pre", "script", "style", "h1", "h2", "h3", "h4", "h5", "h6", "button",
     "label", "textarea", "select", "option", "svg", "title", "kbd", "samp"}
)  # fmt: skip
_TOKEN = re.compile(r"<!--.*?-->|<[^>]*>", re.DOTALL)
_TAG = re.compile(r"<\s*(/?)\s*([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)\s*>")
GLOSSARY = "glossary/"


def _link(href: str, anchor: str, text: str) -> str:
    return f'<a class="lr-term" href="{href}#{anchor}">{text}</a>'


def link_terms(html: str, glossary_href: str) -> str:
    """`html` with each term's first use in plain text linked to `glossary_href#anchor`."""
    done: set[str] = set()
    skipping: dict[str, int] = {}
    out: list[str] = []
    position = 0
    for match in _TOKEN.finditer(html):
        out.append(_text(html[position : match.start()], glossary_href, done, skipping))
        token = match.group(0)
        tag = _TAG.fullmatch(token)
        if tag is not None and tag.group(2).lower() in _SKIP:
            name = tag.group(2).lower()
            if tag.group(1):
                skipping[name] = max(0, skipping.get(name, 0) - 1)
            elif not tag.group(3):
                skipping[name] = skipping.get(name, 0) + 1
        out.append(token)
        position = match.end()
    out.append(_text(html[position:], glossary_href, done, skipping))
    return "".join(out)


def _text(text: str, href: str, done: set[str], skipping: dict[str, int]) -> str:
    if not text.strip() or any(skipping.values()):
        return text
    # Earliest first, so a term linked here is the first use on the page.
    while True:
        found = [
            (m.start(), m.end(), anchor)
            for pattern, anchor in TERMS
            if anchor not in done and (m := pattern.search(text)) is not None
        ]
        if not found:
            return text
        start, end, anchor = min(found)
        done.add(anchor)
        head, word, tail = text[:start], text[start:end], text[end:]
        return head + _link(href, anchor, word) + _text(tail, href, done, skipping)


def glossary_href(page_url: str) -> str:
    """The glossary's address relative to a page at `page_url` (mkdocs' directory URLs)."""
    return "../" * page_url.count("/") + GLOSSARY


class GlossaryLinks:
    """mkdocs plugin event: link each page's first use of each glossary term."""

    def on_page_content(self, html: str, page: Any, **_: Any) -> str:
        url = page.url or ""
        if url.rstrip("/") == GLOSSARY.rstrip("/"):
            return html
        return link_terms(html, glossary_href(url))
