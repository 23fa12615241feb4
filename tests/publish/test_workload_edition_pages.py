"""An older edition's results of a workload are on a page of their own, and the newest
edition's page points to the workload page's heading for it: the anchor it links must be the
id markdown gives that heading, whatever the edition id holds (`mkdocs --strict` fails else)."""

from __future__ import annotations

import re

import markdown
import pytest

from ledgerrate.publish import links
from ledgerrate.publish.safe import md_text


@pytest.mark.parametrize("edition", ["2026-11", "2026-11-b", "2027.01", "Q3_2027"])
def test_the_link_to_an_editions_heading_is_the_id_markdown_gives_it(edition: str) -> None:
    # The workload page writes the heading with the edition id escaped for markdown.
    page = markdown.markdown(f"### Edition {md_text(edition)}\n", extensions=["toc"])
    [made] = re.findall(r'id="([^"]*)"', page)
    link = links.workload_section(
        "extract.invoice.v1", links.heading_anchor(f"Edition {edition}"), "../../", "x"
    )
    assert link.endswith(f"#{made})")
