"""A page whose tail is final HTML skips markdown for it: the drill-down pages.

A drill-down page is a short markdown introduction (headings, links that `mkdocs --strict`
checks) and then raw HTML blocks: a table of the cell's runs and one block per attempt, with
every record's text already escaped. Markdown would store those blocks unchanged, but only
after its HTML parser has read every tag and character reference of them, which on a 40-model
edition was most of the site build. So the page marks where its HTML starts; this plugin hands
markdown the introduction only and puts the HTML back into the converted page.

The page file stays complete, so an engine without the plugin (Zensical, which ignores hooks)
builds the same page the slow way. The marker cannot come from a record: every `<` of a record
is a character reference on our pages.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- lr:raw-html-below -->"
_SPLIT = f"\n{MARKER}\n"


class RawTail:
    """mkdocs plugin events (registered by `publish.build.run_mkdocs`)."""

    def __init__(self) -> None:
        self._held: dict[str, str] = {}

    def on_page_markdown(self, markdown: str, page: Any, **_: Any) -> str:
        head, found, tail = markdown.partition(_SPLIT)
        if not found:
            return markdown
        self._held[page.file.src_uri] = tail
        return f"{head}\n\n{MARKER}\n"

    def on_page_content(self, html: str, page: Any, **_: Any) -> str:
        tail = self._held.pop(page.file.src_uri, None)
        if tail is None:
            return html
        before, found, after = html.partition(MARKER)
        if not found:  # markdown always keeps a comment block; never drop the page's runs
            raise RuntimeError(f"{page.file.src_uri}: the raw HTML marker was lost")
        return before + tail + after
