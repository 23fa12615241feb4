"""Our own large markdown tables, turned into HTML at render time instead of by markdown.

A 200-model edition's workload and edition pages hold tables of thousands of rows, and
python-markdown's inline pass over every cell of them was most of mkdocs' time on those pages.
These tables are written by our templates, so their syntax is known exactly: every value from
an edition went through `safe.finalize`, which turns each character markdown could act on
(`|`, `[`, `*`, `` ` ``, `<`, `&` …) into a character reference. What is left that markdown
would act on is ours: the `|` between cells, `[text](target)` links and our own inline HTML.
So a row splits on `|` and a link is the one pattern to convert; anything else markdown would
have treated specially is refused, so a template change can never silently show raw syntax.

The HTML is what python-markdown's `tables` extension writes for the same text (a test holds
both to the same bytes on every table of the test editions, hostile names and answers
included), with each link already in its final form:
`…/index.md` becomes `…/`, as mkdocs writes it under `use_directory_urls`. The table is handed
to mkdocs as a raw block (`publish/engine/raw_html.py`), which checks that each of its links lands.
"""

from __future__ import annotations

import re

from markupsafe import Markup

from ledgerrate.publish.engine.raw_html import region
from ledgerrate.publish.safe import html_only

_LINK = re.compile(r"\[([^\[\]]*)\]\(([^()\s]*)\)")
# What may remain in a cell once links are converted: our tags and character references.
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")
# Markdown syntax the converter does not implement: seen in a cell, it stops the build. (A
# bracket alone is text to markdown too: no page defines a reference link.)
_UNSUPPORTED = re.compile(r"[*`<>&]|\\|\]\(|(?:^|\s)_|_(?:\s|$)")
_ALIGN = {(True, False): "left", (True, True): "center", (False, True): "right"}


class TableSyntaxError(ValueError):
    """A table that this converter cannot turn into the HTML markdown would write."""


def _url(target: str) -> str:
    # mkdocs' use_directory_urls: a page `a/index.md` is served at `a/` (our pages are all
    # index pages: links.py), every other file at its own path.
    if target.endswith("/index.md") or target == "index.md":
        return target[: -len("index.md")] or "./"
    return target


def _link(found: re.Match[str]) -> str:
    if re.search(r'[&"<>]', found[2]):  # markdown would escape these in the href
        raise TableSyntaxError(f"a link target this converter does not escape: {found[2]!r}")
    return f'<a href="{_url(found[2])}">{found[1]}</a>'


def _cells(line: str) -> list[str]:
    body = line.strip()
    if not body.startswith("|"):
        raise TableSyntaxError(f"not a table row: {line[:80]!r}")
    body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [cell.strip() for cell in body.split("|")]


def inline_html(cell: str) -> str:
    """`cell` with its links converted; any other markdown syntax left in it is refused."""
    if "![" in cell:  # an image to markdown, which the link pattern would take for a link
        raise TableSyntaxError(f"markdown image in a table cell: {cell[:120]!r}")
    html = _LINK.sub(_link, cell)
    leftover = _ENTITY.sub("", _TAG.sub("", html))
    if bad := _UNSUPPORTED.search(leftover):
        raise TableSyntaxError(f"markdown syntax {bad[0]!r} in a table cell: {cell[:120]!r}")
    return html


def _aligns(separator: str) -> list[str | None]:
    out: list[str | None] = []
    for cell in _cells(separator):
        if not re.fullmatch(r":?-+:?", cell):
            raise TableSyntaxError(f"not a separator row: {separator[:80]!r}")
        out.append(_ALIGN.get((cell.startswith(":"), cell.endswith(":"))))
    return out


def _row(tag: str, cells: list[str], aligns: list[str | None]) -> str:
    # Like markdown: a short row is padded with empty cells, a long one cut to the header.
    cells = (cells + [""] * len(aligns))[: len(aligns)]
    parts = ["<tr>"]
    for cell, align in zip(cells, aligns, strict=True):
        style = f' style="text-align: {align};"' if align else ""
        parts.append(f"<{tag}{style}>{cell}</{tag}>")
    parts.append("</tr>")
    return "\n".join(parts)


def table_html(markdown_table: str) -> str:
    """The HTML of one pipe table (header row, separator row, body rows)."""
    lines = [line for line in markdown_table.strip("\n").split("\n") if line.strip()]
    if len(lines) < 2:
        raise TableSyntaxError("a table needs a header and a separator row")
    aligns = _aligns(lines[1])
    head = _row("th", [inline_html(c) for c in _cells(lines[0])], aligns)
    rows = [_row("td", [inline_html(c) for c in _cells(line)], aligns) for line in lines[2:]]
    body = ["<tbody>", *rows, "</tbody>"] if rows else []
    return "\n".join(["<table>", "<thead>", head, "</thead>", *body, "</table>"])


def html_table(markdown_table: str) -> Markup:
    """Jinja filter: the table as a raw HTML block that skips markdown, without the character
    references only markdown needed (`safe.html_only`)."""
    return region(html_only(table_html(markdown_table)))
