"""Make hostile text inert in generated markdown.

Everything read from an edition (model outputs, names, notes, errata, URLs) may contain HTML,
markdown links, code fences or extension syntax. HTML-escaping alone is not enough in markdown:
`[x](javascript:…)` has no HTML in it. So every punctuation character that markdown or its
extensions could act on becomes a numeric character reference, which a browser shows unchanged
and which no markdown rule matches. Our own HTML and links are wrapped in `Markup` and pass as is.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from markupsafe import Markup

# Every ASCII character with a meaning to markdown, HTML, attr_list or snippet syntax.
_ACTIVE = frozenset("\\`*_{}[]()<>#+-!|&\"'~=:^$%@;/")
_SAFE_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$")
_HTTP_URL = re.compile(r"^https?://[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]+$")


def _entity(char: str) -> str:
    return f"&#{ord(char)};"


# What each character becomes. The drill-down pages escape every record, so the work is one
# regex scan in C per string with a lookup per active character only: str.translate with a
# dict looks up every character and cost several times more on model text.
_INLINE = {c: _entity(c) for c in _ACTIVE} | {c: " " for c in "\r\n\t"}
_BLOCK = {c: _entity(c) for c in _ACTIVE | {"\n", "\r"}} | {"\t": "&#9;"}


def _replacer(table: dict[str, str]) -> Callable[[str], str]:
    pattern = re.compile("[" + re.escape("".join(sorted(table))) + "]")
    lookup = table.__getitem__
    return lambda text: pattern.sub(lambda m: lookup(m[0]), text)


_escape_inline = _replacer(_INLINE)
_escape_block = _replacer(_BLOCK)


# In HTML that markdown never reads (a raw block, `engine/raw_html.py`) only these characters
# still need a reference; every other reference `_escape_inline` wrote is the character itself
# to a browser (in text and in a quoted attribute alike). Newlines stay references: a raw block
# loses its blank lines (`raw_html.region`), and a `<pre>` keeps its lines as `&#10;`.
_HTML_SYNTAX = frozenset("<>&\"'\n\r\t")
_PLAIN_REFERENCE = re.compile(
    "&#(" + "|".join(str(ord(c)) for c in sorted(_ACTIVE - _HTML_SYNTAX)) + ");"
)


def html_only(html: str) -> str:
    """`html`, our own markup with every value escaped for markdown, with the references that
    only markdown needed turned back into their characters: a browser builds the same page
    from it, a fifth fewer bytes in a results table (`single&#45;shot`, `0&#47;15`). Only for
    HTML that reaches the page as a raw block, which markdown never reads: `<`, `&` and
    quotes stay references, so hostile text stays text."""
    return _PLAIN_REFERENCE.sub(lambda m: chr(int(m[1])), html)


def md_text(value: Any) -> Markup:
    """Inline text: one line, nothing active. Newlines become spaces so a table row survives."""
    return Markup(_escape_inline(str(value)))


def pre_block(value: Any, *, limit: int | None = None) -> Markup:
    """Verbatim multi-line text as one `<pre>` line: newlines are entities too, so no blank line
    ends the HTML block early and markdown never sees the content as markdown."""
    text = str(value)
    cut = ""
    if limit is not None and len(text) > limit:
        cut = f"\n… ({len(text) - limit} more characters in the raw log download)"
        text = text[:limit]
    body = _escape_block(text + cut)
    return Markup(f'<pre class="lr-verbatim"><code>{body}</code></pre>')


def segment(value: str) -> Markup:
    """A path segment we put in a URL (edition, model, workload, erratum ids). The schema already
    restricts them; refusing anything else here means a bad id breaks the build, not a link."""
    if not _SAFE_SEGMENT.match(value) or value in {".", ".."}:
        raise ValueError(f"unsafe URL segment: {value!r}")
    return Markup(value)


def external_link(url: str, text: str | None = None) -> Markup:
    """A link to a URL from an edition file, only when it is plain http(s); else inert text."""
    if _HTTP_URL.match(url):
        shown = md_text(text if text is not None else url)
        return Markup(f'<a href="{html.escape(url, quote=True)}" rel="nofollow">{shown}</a>')
    return md_text(text if text is not None else url)


def finalize(value: Any) -> Any:
    """Jinja `finalize`: every `{{ … }}` passes through here, so escaping is the default and
    forgetting a filter cannot publish live text."""
    if type(value) is str:  # most values (a drill-down page has thousands): no other test
        return Markup(_escape_inline(value))
    if isinstance(value, Markup):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float, Decimal)):
        return md_text(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return md_text(value.isoformat())
    return md_text(value)
