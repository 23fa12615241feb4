"""The Re-price panel's data is inert in the page: a hostile model name can neither close the
JSON script element nor become markup, and reads back exactly as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ledgerrate.publish.pages import make_env
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.reprice_view import data_script, reprice_data
from tests.publish import reprice_fixture

HOSTILE = '</script><script>alert(1)</script><!-- & "q" \u2028 <b>x</b>'


def test_a_hostile_name_stays_inside_the_data(tmp_path: Path) -> None:
    edition = reprice_fixture.edition(tmp_path)
    first = edition.manifest.models[0]
    edition.manifest.models[0] = first.model_copy(update={"name": HOSTILE})
    data = reprice_data(edition, "extract.invoice.v2")
    script = str(data_script(data))
    assert script.count("<") == 2 and script.count(">") == 2  # its own two tags only
    assert "&" not in script.split(">", 1)[1].rsplit("<", 1)[0]
    body = re.fullmatch(
        r'<script type="application/json" class="lr-reprice-data">(.*)</script>', script, re.S
    )
    assert body is not None
    names = {m["id"]: m["name"] for m in json.loads(body.group(1))["models"]}
    assert names[first.id] == HOSTILE
    panel = make_env(TEMPLATES).get_template("_reprice.md.j2").module.panel  # type: ignore[attr-defined]
    page = str(panel(edition.id, data_script(data), "/methodology/1.0/repricing/"))
    assert page.count("<script") == 1 and "alert(1)</script>" not in page
    # Markdown sees one raw HTML block: no blank line inside the panel.
    assert "\n\n" not in page.strip()
