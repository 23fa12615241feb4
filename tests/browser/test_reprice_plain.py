"""The Re-price panel prints amounts exactly as `usd.plain` does, rounding carries included.

The script's formatting functions run in the suite's chromium on amounts around every place
where rounding to three significant digits carries into a new digit (0.0009995 → $0.00100,
0.0099995 → $0.01): the page and the Python figures must read the same characters. Before,
both printed "$0.001000" there, four significant digits.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerrate.core.usd import plain
from tests.browser.test_site_browser import CHROMIUM, FLAGS

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SCRIPT = Path(__file__).resolve().parents[2] / "ledgerrate/site/pages/javascripts/reprice.js"
NEEDED = ("pow10", "roundDiv", "fixedText", "commas", "rescale", "adjusted", "plainAbove", "plain")


def _functions() -> str:
    source = SCRIPT.read_text()
    constants = re.search(r"var SCALE = 40;.*?var S = pow10\(SCALE\);", source, re.S)
    assert constants is not None
    bodies = []
    for name in NEEDED:
        found = re.search(rf"\n  function {name}\(.*?\n  }}\n", source, re.S)
        assert found is not None, name
        bodies.append(found.group(0))
    return constants.group(0) + "".join(bodies)


AMOUNTS = [
    Decimal(f"{digits}e{exp}")
    for exp in range(-12, -2)
    for digits in ("9995", "99949", "99951", "1", "157", "9994999", "5")
]


def test_the_page_prints_an_amount_as_python_does() -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `bash scripts/install-system-deps.sh test`")
    from playwright.sync_api import sync_playwright

    cases = [(str(int(a.scaleb(12))), a) for a in AMOUNTS if a.scaleb(12) == int(a.scaleb(12))]
    script = (
        "(cases) => { " + _functions() + " return cases.map(function (c) "
        "{ return plain(BigInt(c), 12); }); }"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page()
            page.set_content("<!doctype html><title>plain</title>")
            shown = page.evaluate(script, [units for units, _ in cases])
        finally:
            browser.close()
    expected = [plain(amount) for _, amount in cases]
    assert shown == expected, json.dumps(list(zip(shown, expected, strict=True)))
    assert "$0.00100" in expected and "$0.01" in expected
