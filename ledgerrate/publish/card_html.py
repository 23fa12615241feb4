"""The printed rate card's HTML: what the PDF renderer lays out, and what names its PDF in the
build cache (the PDF is a function of this HTML and the toolchain). Apart from `pdf.py` so that
a build whose rate cards all come from the cache never loads the PDF renderer."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from ledgerrate.publish.card import RateCard

ASSETS = Path(__file__).resolve().parents[1] / "site" / "templates" / "pdf"
# Type sizes (pt) tried in turn until the card holds on one page; the smallest still prints
# legibly. A card that does not fit even then is refused, never split over two pages.
SIZES = (8.6, 8.0, 7.4, 6.8, 6.2)


@functools.cache
def _environment() -> jinja2.Environment:
    # One per process, so the template is compiled once (compiling costs more than rendering
    # it, and every edition's card and every size the PDF tries render it); jinja still
    # reloads it when its file changes (`mkdocs serve`).
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(ASSETS),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def render_ratecard_html(card: RateCard, size: float = SIZES[0]) -> str:
    template = _environment().get_template("ratecard.html.j2")
    return template.render(card=card, size=size, stylesheet=(ASSETS / "ratecard.css").as_uri())
