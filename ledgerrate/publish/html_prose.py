"""Our own short markdown prose, turned into HTML at render time instead of by markdown.

Every drill-down page opens with a few paragraphs (the edition's banner, what the page shows,
the cell's figures, where its records are). A 200-model edition has thousands of such pages, and
markdown's inline pass over their character references was most of what mkdocs spent on a
drill-down page once its runs skipped markdown (`publish/engine/raw_html.py`). Like the large tables
(`publish/html_table.py`), this prose is written by our templates with every edition value
escaped by `safe.finalize`, so the markdown it can hold is known: paragraphs, `> ` quotes,
`**strong**`, `` `code` `` of a file name, `[text](target)` links and one-line `<p …>` blocks of
our own HTML. Anything else is refused and the text is left to markdown, the slow way: a
template change can cost speed, never show raw syntax. The HTML is what python-markdown writes
for the same text (tests/publish/test_html_prose.py holds every drill-down introduction of the
test editions, hostile ones included, to the same bytes).
"""

from __future__ import annotations

import re

from markupsafe import Markup

from ledgerrate.publish.engine.raw_html import region
from ledgerrate.publish.html_table import TableSyntaxError, inline_html

_STRONG = re.compile(r"\*\*([^*\n]+)\*\*")
_CODE = re.compile(r"`([A-Za-z0-9._/-]+)`")
_RAW_BLOCK = re.compile(r"<p(?: [^<>]*)?>.*</p>")
# A line markdown would read as the start of another kind of block (heading, list, rule, code,
# setext underline, table, quote), or as a hard line break (trailing spaces).
_OTHER_BLOCK = re.compile(r"[\s#>+=<|-]|\*(?:\s|\*\*)|\d+[.)]")
_QUOTE = "> "


def _paragraph(lines: list[str]) -> str:
    for line in lines:
        if _OTHER_BLOCK.match(line) or line != line.rstrip() or "|" in line:
            raise TableSyntaxError(f"not a plain paragraph line: {line[:120]!r}")
    text = _STRONG.sub(r"<strong>\1</strong>", _CODE.sub(r"<code>\1</code>", "\n".join(lines)))
    return f"<p>{inline_html(text)}</p>"


def prose_html(markdown: str) -> str:
    """The HTML python-markdown writes for `markdown` (raises TableSyntaxError where the text
    holds anything this converter does not implement)."""
    out: list[str] = []
    quoted: list[str] = []  # markdown merges quotes that only blank lines separate

    def close_quote() -> None:
        if quoted:
            out.append("\n".join(["<blockquote>", *quoted, "</blockquote>"]))
            quoted.clear()

    for block in re.split(r"\n(?:[ \t]*\n)+", markdown.strip("\n")):
        lines = block.split("\n")
        if all(line.startswith(_QUOTE) for line in lines):
            quoted.append(_paragraph([line[len(_QUOTE) :] for line in lines]))
            continue
        close_quote()
        if len(lines) == 1 and _RAW_BLOCK.fullmatch(block):
            out.append(block)  # our own HTML block: markdown keeps it as it is
        else:
            out.append(_paragraph(lines))
    close_quote()
    return "\n".join(out)


def prose_region(markdown: str) -> Markup:
    """Jinja filter: the prose as a raw HTML block that skips markdown, or, where the converter
    refuses it, the markdown unchanged."""
    if not markdown.strip():
        return Markup(markdown)
    try:
        return region(prose_html(markdown))
    except TableSyntaxError:
        return Markup(markdown)
