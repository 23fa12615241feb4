"""The Re-price panel's script in a real browser agrees with `results --prices` to the digit.

Each page here is the panel exactly as the site renders it (the `_reprice.md.j2` macro with the
data of `publish/reprice_view.py`) and the site's own `javascripts/reprice.js`, served from
127.0.0.1 and opened in the suite's chromium: for the three bundled editions and the 40-model
edition, at the frozen prices and at changed ones (set through the URL fragment, as a shared
link does, and by typing), every cell's re-priced spend, CPO, cost per attempt and rate, and
each workload's cheapest qualifying model, flagship and premium must equal what the command
line's code computes. Any request that leaves the page fails the test. The manual arm's test
edition (tests/manual/test_acceptance.py, TEST FIXTURE returns) is re-priced the same way: its
by-hand cells agree to the digit, are never ranked, and its void arm shows no figure.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from ledgerrate.metrics import reprice as rp
from ledgerrate.metrics.money import rate
from ledgerrate.publish.load import Edition, load_edition
from ledgerrate.publish.pages import make_env
from ledgerrate.publish.render import TEMPLATES
from ledgerrate.publish.reprice_view import METHOD, script_for
from ledgerrate.publish.repriced import repriced
from ledgerrate.schema import EditionResults, ReaderPrices
from tests.browser.test_site_browser import CHROMIUM, FLAGS
from tests.manual.test_acceptance import RECONCILE, build_manual_edition
from tests.metrics.test_reprice import inverting_prices
from tests.publish import reprice_fixture

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "ledgerrate" / "site" / "pages" / "javascripts" / "reprice.js"
BUNDLED = ("2026-11", "2026-11-b", "2026-12")
FORTY = reprice_fixture.card_fixture.EDITION
MANUAL = "2026-10-m"
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Re-price {edition}</title>
<style>.lr-scroll {{ overflow-x: auto; max-width: 100%; }} body {{ margin: 8px; }}</style>
</head><body><main><h1>Re-price {edition}</h1>
{panel}
</main><script src="reprice.js"></script></body></html>
"""


@pytest.fixture(scope="module")
def editions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Edition]:
    found = {e: load_edition(REPO / "editions" / e) for e in BUNDLED}
    found[FORTY] = reprice_fixture.edition(tmp_path_factory.mktemp("forty"))
    manual = build_manual_edition(tmp_path_factory.mktemp("manual"), site=False)
    found[MANUAL] = load_edition(manual["edition"])
    return found


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def server(editions: dict[str, Edition], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("pages")
    shutil.copy(SCRIPT, folder / "reprice.js")
    panel = make_env(TEMPLATES).get_template("_reprice.md.j2").module.panel  # type: ignore[attr-defined]
    for edition_id, edition in editions.items():
        html = panel(edition_id, script_for(edition), METHOD.format(root="/"))
        (folder / f"{edition_id}.html").write_text(
            PAGE.format(edition=edition_id, panel=html), encoding="utf-8"
        )
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `bash scripts/install-system-deps.sh test`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    left: list[str] = []
    page = browser.new_page()
    page.context.on("request", lambda r: None if r.url.startswith(server) else left.append(r.url))
    page.set_default_timeout(120_000)
    yield page
    page.close()
    assert left == [], f"requests left the page: {left}"


def _text(value: Decimal | None) -> str:
    return "" if value is None else format(value.normalize(), "f")


def fragment(edition: str, reader: ReaderPrices) -> str:
    """The panel's link format (`#reprice-<edition>/…`) for the reader's prices."""
    parts = []
    for model, price in sorted(reader.models.items()):
        for field, _ in rp.TOKEN_CLASSES:
            value = getattr(price, field)
            if value is not None:
                cls = field.removesuffix("_per_mtok")
                parts.append(f"t~{quote(model)}~{cls}={_text(value)}")
    parts += [f"h~{quote(m)}={_text(v)}" for m, v in sorted(reader.hourly.items())]
    parts += [f"p~{quote(k, safe='')}={_text(v)}" for k, v in sorted(reader.percent.items())]
    return f"#reprice-{edition}/" + "&".join(parts)


READ = """root => ({
  changed: root.getAttribute('data-changed'),
  label: root.querySelector('.lr-reprice-label').textContent,
  lines: [...root.querySelectorAll('.lr-reprice-changed li')].map(li => li.textContent),
  workloads: [...root.querySelectorAll('.lr-reprice-workload')].map(w => ({
    id: w.getAttribute('data-workload'),
    cells: [...w.querySelectorAll('tbody tr')].map(tr => ({
      model: tr.getAttribute('data-model'), mode: tr.getAttribute('data-mode'),
      cpo: tr.getAttribute('data-cpo'), rate: tr.getAttribute('data-rate'),
      spend: tr.getAttribute('data-spend'), cpa: tr.getAttribute('data-cpa'),
      shown: tr.children[4].textContent})),
    cheapest: w.querySelector('.lr-reprice-indices').getAttribute('data-cheapest'),
    cheapest_cpo: w.querySelector('.lr-reprice-indices').getAttribute('data-cheapest-cpo'),
    cheapest_rate: w.querySelector('.lr-reprice-indices').getAttribute('data-cheapest-rate'),
    flagship: w.querySelector('.lr-reprice-indices').getAttribute('data-flagship'),
    premium: w.querySelector('.lr-reprice-indices').getAttribute('data-premium'),
  })),
})"""


def _open(page: Any, server: str, edition: str, frag: str = "") -> dict[str, Any]:
    """A fresh load of the page at that address (as a shared link opens it)."""
    page.goto("about:blank")
    page.goto(f"{server}{edition}.html{frag}")
    page.wait_for_selector(".lr-reprice-workload", state="attached")
    return page.eval_on_selector("details.lr-reprice", READ)


def _agree(shown: dict[str, Any], expected: EditionResults) -> int:
    """Every cell and index of the page equals the command line's; returns cells compared."""
    from ledgerrate.core.usd import job_and_item

    compared = 0
    assert [w["id"] for w in shown["workloads"]] == [w.workload for w in expected.workloads]
    for page_w, cli_w in zip(shown["workloads"], expected.workloads, strict=True):
        for cell, mine in zip(page_w["cells"], cli_w.cells, strict=True):
            where = (cli_w.workload, mine.model, mine.mode.value)
            assert (cell["model"], cell["mode"]) == where[1:]
            assert cell["cpo"] == _text(mine.cpo_usd), where
            assert cell["spend"] == _text(mine.spend_usd), where
            assert cell["cpa"] == _text(mine.cost_per_attempt_usd), where
            line = mine.cpo_usd is not None and mine.pass_rate_ci is not None
            expected_rate = rate(mine.cpo_usd, cli_w.volume) if line else None
            assert cell["rate"] == _text(expected_rate), where
            if mine.cpo_usd is not None:
                assert cell["shown"] == job_and_item(mine.cpo_usd, cli_w.volume), where
            compared += 1
        line = cli_w.cheapest_qualifying
        assert page_w["cheapest"] == (f"{line.model}/{line.mode.value}" if line else "")
        if line is not None:
            assert page_w["cheapest_cpo"] == _text(line.cpo_usd)
            assert page_w["cheapest_rate"] == _text(line.rate_usd)
        flag = cli_w.flagship
        assert page_w["flagship"] == (f"{flag.model}/{flag.mode.value}" if flag else "")
        premium = cli_w.frontier_premium
        # The same double: both divide the two CPOs (exact at 1e-12) in IEEE arithmetic.
        assert (float(page_w["premium"]) if page_w["premium"] else None) == premium
    return compared


def _prices(edition: Edition, reader: ReaderPrices) -> rp.Prices:
    results = edition.results
    return rp.effective_prices(
        reader, edition.pricing, edition.manifest, rp.time_rates(results), rp.manual_rates(results)
    )


def _expected(edition: Edition, reader: ReaderPrices) -> EditionResults:
    return rp.reprice(edition.results, _prices(edition, reader), edition.manifest)


def _changed_bundled(edition: Edition) -> ReaderPrices:
    rates = rp.time_rates(edition.results)
    hourly = {m: Decimal("0.037") for m in rates if m != "reference"}
    return ReaderPrices(hourly=hourly, percent={"reference": Decimal("-12.5")})


def _changed_forty(edition: Edition) -> ReaderPrices:
    inverted, _, _ = inverting_prices(edition, "extract.invoice.v2")
    return ReaderPrices(
        models={
            **inverted.models,
            "m03": {"input_per_mtok": "0.000001", "reasoning_per_mtok": "7.25"},
            "m07": {"cached_input_per_mtok": "0", "output_per_mtok": "123.456789012345"},
        },
        hourly={"reference": Decimal("1.75")},
        percent={"contoso": Decimal("-33.333333"), "fabrikam": Decimal("250")},
    )


@pytest.mark.parametrize("edition_id", [*BUNDLED, FORTY])
def test_browser_and_command_line_agree_on_every_cell(
    page: Any, server: str, editions: dict[str, Edition], edition_id: str, tmp_path: Path
) -> None:
    edition = editions[edition_id]
    frozen = _open(page, server, edition_id)
    assert frozen["changed"] == "0"
    compared = _agree(frozen, _expected(edition, ReaderPrices()))
    reader = _changed_forty(edition) if edition_id == FORTY else _changed_bundled(edition)
    shown = _open(page, server, edition_id, fragment(edition_id, reader))
    assert shown["label"].lower().startswith(rp.LABEL)
    expected = _expected(edition, reader)
    prices = rp.effective_prices(
        reader, edition.pricing, edition.manifest, rp.time_rates(edition.results)
    )
    assert sorted(shown["lines"]) == sorted(prices.changed) and prices.changed
    compared += _agree(shown, expected)
    assert compared >= (1000 if edition_id == FORTY else 10)
    if edition_id in BUNDLED:
        # And the command itself, from the edition folder, gives those figures.
        from ledgerrate.core.io import write_yaml

        path = tmp_path / "my-prices.yaml"
        write_yaml(path, reader)
        _agree(shown, repriced(REPO / "editions" / edition_id, path).results)


def test_prices_that_invert_two_models_change_the_cheapest_on_the_page(
    page: Any, server: str, editions: dict[str, Edition]
) -> None:
    edition = editions[FORTY]
    reader, was, now = inverting_prices(edition, "extract.invoice.v2")
    frozen = _open(page, server, FORTY)
    invoice = next(w for w in frozen["workloads"] if w["id"] == "extract.invoice.v2")
    assert invoice["cheapest"].split("/")[0] == was
    shown = _open(page, server, FORTY, fragment(FORTY, reader))
    invoice = next(w for w in shown["workloads"] if w["id"] == "extract.invoice.v2")
    assert invoice["cheapest"].split("/")[0] == now
    _agree(shown, _expected(edition, reader))


def test_typing_a_price_reprices_labels_and_links_the_view(
    page: Any, server: str, editions: dict[str, Edition]
) -> None:
    """By keyboard alone: open the panel, type a price, and the view is labelled, lists the
    change, and its link (the address's fragment) reproduces it on a fresh load."""
    page.goto(f"{server}2026-12.html")
    page.focus("details.lr-reprice summary")
    page.keyboard.press("Enter")
    assert page.eval_on_selector("details.lr-reprice", "d => d.open")
    field = page.locator('input[data-hourly="smollm2"]')
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("0.02")
    status = page.locator(".lr-reprice-status").text_content()
    assert "not a published figure" in status
    state = page.eval_on_selector("details.lr-reprice", READ)
    assert state["lines"] == ["smollm2 hourly rate: $0.1 → $0.02 per hour"]
    link = page.url
    assert "#reprice-2026-12/h~smollm2=0.02" in link
    page.goto("about:blank")
    page.goto(link)
    page.wait_for_selector(".lr-reprice-workload", state="attached")
    assert page.eval_on_selector("details.lr-reprice", "d => d.open")
    assert page.eval_on_selector("details.lr-reprice", READ) == state
    assert field.input_value() == "0.02"
    expected = _expected(editions["2026-12"], ReaderPrices(hourly={"smollm2": Decimal("0.02")}))
    _agree(state, expected)
    # A bad value is marked invalid and changes nothing.
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("-1")
    assert field.get_attribute("aria-invalid") == "true"
    assert page.eval_on_selector("details.lr-reprice", READ) == state


def test_model_names_stay_inert(page: Any, server: str, editions: dict[str, Edition]) -> None:
    """The 40-model edition's names hold brackets and commas; a hostile one would hold markup:
    every name is set as text, so the page shows it as written and runs nothing."""
    page.goto(f"{server}{FORTY}.html")
    page.wait_for_selector(".lr-reprice-workload", state="attached")
    assert page.locator(".lr-reprice script:not(.lr-reprice-data)").count() == 0
    name = editions[FORTY].manifest.models[0].name
    assert page.locator(".lr-reprice-table th", has_text=name).count() >= 1


@pytest.mark.parametrize("width", [1280, 390])
def test_the_open_panel_passes_axe_and_fits_a_phone(page: Any, server: str, width: int) -> None:
    from axe_playwright_python.sync_playwright import Axe

    page.set_viewport_size({"width": width, "height": 900})
    for edition in ("2026-12", FORTY):
        page.goto(f"{server}{edition}.html")
        page.wait_for_selector(".lr-reprice-workload", state="attached")
        page.eval_on_selector("details.lr-reprice", "d => { d.open = true; }")
        violations = Axe().run(page).response["violations"]
        serious = [
            f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:3]]}"
            for v in violations
            if v["impact"] in ("serious", "critical")
        ]
        assert serious == [], (edition, serious)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, (edition, scroll)


MANUAL_READ = """root => [...root.querySelectorAll('.lr-reprice-workload')].map(w => {
  const row = w.querySelector('tbody tr[data-model="manual"]');
  const line = w.querySelector('.lr-reprice-by-hand');
  return {id: w.getAttribute('data-workload'), shown: row && row.children[4].textContent,
    head: row && row.children[0].textContent,
    vs_cheapest: line && line.getAttribute('data-vs-cheapest')};
})"""


def test_the_manual_arm_reprices_in_the_browser_as_on_the_command_line(
    page: Any, server: str, editions: dict[str, Edition], tmp_path: Path
) -> None:
    """The TEST FIXTURE manual arm on three workloads and a void one: at the recorded rates and
    at the reader's (a link, then typing), every by-hand cell equals `results --prices` to the
    digit, the arm is never the cheapest, and the void arm shows no re-priced figure."""
    from ledgerrate.core.io import write_yaml
    from ledgerrate.publish.by_hand import ratio

    edition = editions[MANUAL]
    frozen = _open(page, server, MANUAL)
    assert frozen["changed"] == "0"
    _agree(frozen, _expected(edition, ReaderPrices()))
    # The analyst made far cheaper than the models, the cheap model dearer than the flagship.
    reader = ReaderPrices(
        models={"cheap": {"input_per_mtok": "50", "output_per_mtok": "200"}},
        hourly={"manual": Decimal("0.000123456789")},
    )
    shown = _open(page, server, MANUAL, fragment(MANUAL, reader))
    path = tmp_path / "my-prices.yaml"
    write_yaml(path, reader)
    cli = repriced(edition.paths.root, path)
    assert sorted(shown["lines"]) == sorted(cli.changed)
    assert len([x for x in cli.changed if x.startswith("manual hourly rate")]) == 3
    _agree(shown, cli.results)
    by_hand = {(w["id"], c["model"]): c for w in shown["workloads"] for c in w["cells"]}
    extract = by_hand[("extract.invoice.v2", "manual")]
    assert extract["cpo"] and extract["spend"]  # a figure, compared above to the digit
    assert all(w["cheapest"].split("/")[0] != "manual" for w in shown["workloads"])
    invoice = next(w for w in cli.results.workloads if w.workload == "extract.invoice.v2")
    assert invoice.cheapest_qualifying is not None
    assert invoice.cheapest_qualifying.model == "big"
    void = by_hand[(RECONCILE, "manual")]
    assert void["cpo"] == void["spend"] == void["cpa"] == void["rate"] == ""
    rows = {r["id"]: r for r in page.eval_on_selector("details.lr-reprice", MANUAL_READ)}
    assert rows[RECONCILE]["shown"] == "void: no figure"
    # An unknown tool line: the known lines at the reader's rate, and no CPO at any rate.
    judged = by_hand[("generate.variance-commentary.v1", "manual")]
    assert judged["cpo"] == judged["cpa"] == "" and judged["spend"]
    assert rows["generate.variance-commentary.v1"]["shown"] == (
        "unknown (tool: style checker unknown)"
    )
    assert rows["extract.invoice.v2"]["head"].startswith("By hand")
    manual = next(c for c in invoice.cells if c.model == "manual")
    assert manual.cpo_usd is not None
    want = ratio(manual.cpo_usd, invoice.cheapest_qualifying.cpo_usd)
    assert float(rows["extract.invoice.v2"]["vs_cheapest"]) == want
    # Typed into the hourly table's by-hand row: one rate for every manual cell.
    page.goto(f"{server}{MANUAL}.html")
    page.wait_for_selector(".lr-reprice-workload", state="attached")
    page.eval_on_selector("details.lr-reprice", "d => { d.open = true; }")
    field = page.locator('input[data-hourly="manual"]')
    assert field.input_value() == "" and field.get_attribute("placeholder") == "as recorded"
    field.fill("30")
    typed = page.eval_on_selector("details.lr-reprice", READ)
    cli = _expected(edition, ReaderPrices(hourly={"manual": Decimal("30")}))
    assert sorted(typed["lines"]) == sorted(
        _prices(edition, ReaderPrices(hourly={"manual": Decimal("30")})).changed
    )
    _agree(typed, cli)
