"""A real browser against the real site built from the bundled editions.

Debian's chromium, driven by playwright through `executable_path` (no browser download), opens
the pages from a local HTTP server that hosts the site under a sub-path (`/ledgerrate/`, as a
project page would be), follows every internal link and download, and reads the PDF rate card
back. Every page is watched: any request that leaves the site (another host, or this host
outside the sub-path) fails the test, and chromium resolves no host name, so none can reach
another machine.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import io
import re
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
from pypdf import PdfReader

from tests.browser.two_models import HOSTILE, build_two_model_edition

# The first test's setup builds the fake-provider edition and the whole site (about three
# minutes on a loaded 2-core machine, more when other builds share it): beyond the suite's
# 600-second default for one test.
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(1500)]

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Every host name fails to resolve (the site is served from the 127.0.0.1 literal): a
    # request meant for another host never leaves the machine, and the request listener of
    # `_page` still records it. Not a route: with one, playwright disables the HTTP cache
    # and hands every request to Python and back, which made each page load 40% slower.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from ledgerrate.publish.build import build_site

    # A copy: building records first publications into edition folders, never into the repo's.
    editions = tmp_path_factory.mktemp("editions") / "editions"
    shutil.copytree(REPO / "editions", editions)
    # Beside them, an edition with two priced models (see two_models.py): compare pages, a
    # flagship-vs-cheapest pair and agentic steps need language models in an edition.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path_factory.mktemp("private")))
        build_two_model_edition(editions / TWO_MODELS)
        out = tmp_path_factory.mktemp("build")
        yield build_site(editions=editions, out=out, site_url=f"https://ledgerrate.example{PREFIX}")


PREFIX = "/ledgerrate/"
TWO_MODELS = "2026-10-t"


class _SubPath(http.server.SimpleHTTPRequestHandler):
    """Serves the site under PREFIX only, and its 404.html for anything missing, as a static
    host does."""

    def log_message(self, *args: object) -> None:
        return

    def send_head(self):  # type: ignore[no-untyped-def]
        path = urlparse(self.path).path
        if not path.startswith(PREFIX):
            self.send_error(404, "outside the site")
            return None
        self.path = "/" + self.path[len(PREFIX) :]
        if not Path(self.translate_path(self.path)).exists():
            self.path = "/404.html"
            body = Path(self.translate_path(self.path)).read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    handler = functools.partial(_SubPath, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}{PREFIX}"
    httpd.shutdown()


@pytest.fixture
def leaks() -> Iterator[list[str]]:
    """Requests that left the site; every test using `_page` must end with none."""
    found: list[str] = []
    yield found
    assert found == [], f"requests left the site: {found}"


def _page(browser: object, server: str, leaks: list[str]) -> object:
    page = browser.new_page()  # type: ignore[attr-defined]

    def guard(request: object) -> None:
        url = request.url  # type: ignore[attr-defined]
        if not url.startswith((server, "data:", "blob:", "about:")):
            leaks.append(url)

    # On the context, not the page: it sees requests of workers and popups too.
    page.context.on("request", guard)  # type: ignore[attr-defined]
    # A drill-down page holds every run of a cell; on a loaded machine it can take longer than
    # playwright's 30-second default to load.
    page.set_default_navigation_timeout(180_000)  # type: ignore[attr-defined]
    page.set_default_timeout(120_000)  # type: ignore[attr-defined]
    return page


@pytest.fixture(scope="module")
def browser(site: Path) -> Iterator[object]:
    # After the site: building runs the fake-provider edition through asyncio, which cannot
    # start inside playwright's running event loop.
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `bash scripts/install-system-deps.sh test`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield instance
        instance.close()


# rel values of <link> that name another page instead of loading anything into this one.
_NAVIGATION_RELS = {"canonical", "next", "prev", "alternate", "author", "license", "help"}
_CSS_URL = re.compile(
    r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')"""
)


def _css_urls(text: str) -> list[str]:
    return [next(g for g in m.groups() if g is not None) for m in _CSS_URL.finditer(text)]


class _References(html.parser.HTMLParser):
    """What an HTML page links to (`links`: pages and downloads a reader may follow) and what
    a browser would load to show it (`resources`: scripts, stylesheets, icons, images, frames,
    media and inline-style `url()`s)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.resources: list[str] = []
        self.base: str | None = None  # the first <base href>, which every link resolves against
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value for name, value in attrs if value is not None}
        if tag == "base" and "href" in found and self.base is None:
            self.base = found["href"]
        if tag in ("a", "area") and "href" in found:
            self.links.append(found["href"])
        if tag == "link" and "href" in found:
            rels = set(found.get("rel", "").lower().split())
            kind = self.links if rels and rels <= _NAVIGATION_RELS else self.resources
            kind.append(found["href"])
        for name in ("src", "poster", "data"):
            if name in found and tag not in ("a", "link"):
                self.resources.append(found[name])
        for name in ("srcset", "imagesrcset"):
            for candidate in found.get(name, "").split(","):
                if candidate.strip():
                    self.resources.append(candidate.split()[0])
        self.resources.extend(_css_urls(found.get("style", "")))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.resources.extend(_css_urls(data))


def _references(url: str, body: str, css: bool) -> tuple[set[str], set[str]]:
    """(links, resources) of a fetched page or stylesheet, absolute and without fragments;
    data: URLs are inline, so not resources."""
    if css:
        links, resources = [], _css_urls(body)
    else:
        scan = _References()
        scan.feed(body)
        scan.close()
        links, resources = scan.links, scan.resources
        if scan.base is not None:  # as a browser resolves them (the cell pages have one)
            url = urljoin(url, scan.base)
    absolute = [
        {urldefrag(urljoin(url, ref.strip())).url for ref in refs} for refs in (links, resources)
    ]
    return absolute[0], {ref for ref in absolute[1] if not ref.startswith("data:")}


# Straight to the local server, never through a proxy the environment may name.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _fetch(url: str) -> tuple[int, str, bytes]:
    """(status, content type, body) of a GET, redirects followed. Plain HTTP from here, as
    playwright's request API would do it from its driver, at a tenth of the cost per request
    (the crawl makes about 700)."""
    try:
        with _DIRECT.open(url, timeout=120) as response:
            return response.status, response.headers.get("content-type", ""), response.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers.get("content-type", ""), b""


def _drill_down_cell(url: str, server: str) -> tuple[str, str] | None:
    """(edition, workload) of a per-cell drill-down page (runs/<edition>/<workload>/<model>/
    <mode>/), None for any other page."""
    parts = urlparse(url).path[len(urlparse(server).path) :].strip("/").split("/")
    return (parts[1], parts[2]) if len(parts) == 5 and parts[0] == "runs" else None


def test_home_shows_the_rate_card(browser: object, server: str, leaks: list[str]) -> None:
    page = _page(browser, server, leaks)
    errors: list[str] = []
    fonts: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))  # type: ignore[attr-defined]
    page.on("request", lambda r: fonts.append(r.url) if ".ttf" in r.url else None)  # type: ignore[attr-defined]
    response = page.goto(server)  # type: ignore[attr-defined]
    assert response is not None and response.status == 200
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    body = page.inner_text("body")  # type: ignore[attr-defined]
    assert "quality bar" in body.lower()
    # The newest bundled edition says what produced its figures.
    said = body.lower()
    assert "no language model was called" in said or "one real language model" in said
    assert "not quotes, offers or guarantees" in body  # the disclaimer, on the card itself
    newest = sorted(p.parent.name for p in (REPO / "editions").glob("*/edition.yaml"))[-1]
    assert f"methodology v1.0 · edition {newest} ·" in body
    table = page.locator("table").first  # type: ignore[attr-defined]
    assert table.is_visible()
    assert errors == []
    assert fonts and all(url.startswith(server) for url in fonts)  # the site's own fonts


def test_a_missing_page_gets_a_working_404_under_the_sub_path(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    response = page.goto(urljoin(server, "no/such/page/"))  # type: ignore[attr-defined]
    assert response is not None and response.status == 404
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    styled = page.evaluate(  # type: ignore[attr-defined]
        "() => [...document.styleSheets].some(s => (s.href || '').includes('main'))"
    )
    assert styled  # its stylesheet resolved inside /ledgerrate/, not at the host root
    home = page.locator("a.md-header__button.md-logo").get_attribute("href")  # type: ignore[attr-defined]
    assert home is not None and home.startswith(PREFIX)


def test_every_internal_link_and_download_resolves(
    browser: object, server: str, leaks: list[str]
) -> None:
    """Crawl every HTML page reachable from home; every internal URL (links, downloads, and
    what pages and stylesheets load) answers 200, and no page makes or names a request that
    leaves the site.

    Every URL is fetched over plain HTTP and every page's HTML is read; every page but the
    per-cell drill-downs is also opened in the browser (its requests watched by `_page`). Of
    the per-cell drill-downs (about a third of the site, all from one template) the browser
    opens one per edition here, and one per workload in
    `test_one_drill_down_per_workload_reads_the_checks`. What the rest would load is read from
    their HTML instead: none names a resource outside the site, and each one they name answers
    200 here. tests/publish/test_drilldown_links.py checks their fragments."""
    page = _page(browser, server, leaks)
    origin = server[: server.index("/", len("http://"))]
    seen: set[str] = set()
    queue = [server]
    broken: list[str] = []
    outside: list[str] = []
    opened: set[str] = set()
    opened_editions: set[str] = set()
    drill_downs = 0
    checked = 0
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        if not url.startswith(server):
            broken.append(f"{url} → outside {PREFIX}")
            continue
        status, kind, body = _fetch(url)
        checked += 1
        if status != 200:
            broken.append(f"{url} → {status}")
            continue
        is_html = "text/html" in kind and urlparse(url).path.endswith(("/", ".html"))
        if not is_html and "text/css" not in kind:
            continue
        links, resources = _references(url, body.decode("utf-8", "replace"), css=not is_html)
        outside.extend(f"{url} loads {ref}" for ref in resources if not ref.startswith(server))
        queue.extend(ref for ref in links | resources if ref.startswith(origin) and ref not in seen)
        cell = _drill_down_cell(url, server) if is_html else None
        drill_downs += cell is not None
        if is_html and (cell is None or cell[0] not in opened_editions):
            if cell is not None:
                opened_editions.add(cell[0])
            shown = page.goto(url)  # type: ignore[attr-defined]
            assert shown is not None and shown.status == 200, url
            opened.add(url)
    assert broken == []
    assert outside == []
    assert checked > 30  # home, editions, workloads, models, data, errata and their downloads
    # Some per-cell pages were left to the HTML reading, and each edition had one opened: the
    # bundled editions and the two-model one.
    assert drill_downs > len(opened_editions) >= 4
    assert len(opened) < sum(1 for u in seen if u.endswith("/") and u.startswith(server))


def test_workload_page_charts_load(browser: object, server: str, leaks: list[str]) -> None:
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, "workloads/extract.invoice.v1/"))
    charts = page.locator("svg[role=img], img[src$='.svg']")
    assert charts.count() >= 1
    for index in range(charts.count()):
        chart = charts.nth(index)
        box = chart.bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100
        label = chart.get_attribute("aria-labelledby") or chart.get_attribute("alt")
        assert label


def test_edition_and_data_pages_open(browser: object, server: str, leaks: list[str]) -> None:
    page = _page(browser, server, leaks)
    ids = sorted(p.parent.name for p in (REPO / "editions").glob("*/edition.yaml"))
    assert len(ids) >= 2
    for path in [f"{kind}/{i}/" for i in ids for kind in ("editions", "data")]:
        response = page.goto(urljoin(server, path))
        assert response is not None and response.status == 200, path
        # Every page of a bundled edition says what produced it: reference baselines only, or
        # beside them a real model served on this machine.
        body = page.inner_text("body").lower()
        assert "no language model was called" in body or "one real language model" in body, path
    text = page.inner_text("body")  # type: ignore[attr-defined]
    assert "SHA256SUMS" in text
    assert "results-corrected.json" in text


def test_data_page_is_compact(browser: object, server: str, leaks: list[str]) -> None:
    page = _page(browser, server, leaks)
    page.set_viewport_size({"width": 1280, "height": 900})  # type: ignore[attr-defined]
    page.goto(urljoin(server, "data/2026-11/"))  # type: ignore[attr-defined]
    height = page.evaluate("() => document.documentElement.scrollHeight")  # type: ignore[attr-defined]
    assert height < 6000, height  # was ~43,000 px with every sha256 wrapped over eight lines
    short = page.locator("code.lr-hash").first  # type: ignore[attr-defined]
    assert len(short.get_attribute("data-copy") or "") == 64


def test_corrected_results_mark_the_withdrawn_month_end_figures(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    sealed = page.request.get(urljoin(server, "data/2026-11/results.json")).json()  # type: ignore[attr-defined]
    fixed = page.request.get(urljoin(server, "data/2026-11/results-corrected.json")).json()  # type: ignore[attr-defined]
    marks = {(c["workload"], c["field"], c["erratum"], c["status"]) for c in fixed["corrections"]}
    assert ("execute.month-end.v1", "pass_rate", "2026-11-29", "withdrawn") in marks
    assert ("execute.month-end.v1", "cpo_usd", "2026-11-29", "withdrawn") in marks
    [month_end] = [
        w for w in fixed["results"]["workloads"] if w["workload"] == "execute.month-end.v1"
    ]
    assert all(c["pass_rate"] is None for c in month_end["cells"])
    [was] = [w for w in sealed["workloads"] if w["workload"] == "execute.month-end.v1"]
    assert any(c["pass_rate"] is not None for c in was["cells"])  # the sealed file as published


def test_pdf_rate_card_downloads_with_disclaimer_and_footer(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    page.goto(server)
    link = page.locator("a[href$='.pdf']").first
    href = link.get_attribute("href")
    assert href
    response = page.request.get(urljoin(page.url, href))
    assert response.status == 200
    reader = PdfReader(io.BytesIO(response.body()))
    assert len(reader.pages) == 1
    text = " ".join(reader.pages[0].extract_text().split())
    assert "not quotes, offers or guarantees" in text
    assert "methodology v1.0" in text and "LedgerRate ·" in text


# --------------------------------------------------------------------------- explore and audit


def _table_after(page: object, csv_name: str, nth: int = 0) -> object:
    """The results table that follows the nth paragraph linking `csv_name` (its data)."""
    # On an older edition's page of a workload the table's data is one folder up (`../`).
    linked = f"a[href='{csv_name}'], a[href='../{csv_name}']"
    marker = page.locator(f"p.lr-table-data:has({linked})").nth(nth)  # type: ignore[attr-defined]
    return marker.locator("xpath=following::table[1]")


def _column(table: object, header: str) -> int:
    heads = table.locator("thead th").all_inner_texts()  # type: ignore[attr-defined]
    return [h.strip() for h in heads].index(header)


def _visible_rows(table: object) -> list[object]:
    rows = table.locator("tbody tr")  # type: ignore[attr-defined]
    return [rows.nth(i) for i in range(rows.count()) if rows.nth(i).is_visible()]


def _keys(table: object, col: int) -> list[str]:
    return [
        r.locator("td").nth(col).locator("[data-sort]").get_attribute("data-sort")  # type: ignore[attr-defined]
        for r in _visible_rows(table)
    ]


def test_results_table_sorts_numbers_as_numbers_and_no_outcome_last(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, f"workloads/extract.invoice.v1/{TWO_MODELS}/"))  # type: ignore[attr-defined]
    costs = _table_after(page, f"cells-{TWO_MODELS}.csv", nth=1)  # outcomes, costs, usage
    col = _column(costs, "CPO per job · per item [95% CI per item]")
    header = costs.locator("thead th").nth(col).locator("button")  # type: ignore[attr-defined]
    header.click()
    up = [float(k) for k in _keys(costs, col)]
    # Shown as plain dollars of different lengths: as text they would not sort so.
    assert len(up) == 5 and up == sorted(up) and up[0] < up[-1]
    header.click()
    down = [float(k) for k in _keys(costs, col)]
    assert down == sorted(up, reverse=True)
    page.goto(urljoin(server, f"workloads/execute.month-end.v1/{TWO_MODELS}/"))  # type: ignore[attr-defined]
    costs = _table_after(page, f"cells-{TWO_MODELS}.csv", nth=1)
    col = _column(costs, "CPO per job · per item [95% CI per item]")
    header = costs.locator("thead th").nth(col).locator("button")  # type: ignore[attr-defined]
    for _direction in ("ascending", "descending"):
        header.click()
        texts = [r.locator("td").nth(col).inner_text() for r in _visible_rows(costs)]
        keys = _keys(costs, col)
        assert keys[0] != "" and texts[-1] == "no successful outcome", texts
        assert keys.index("") == next(i for i, t in enumerate(texts) if "no successful" in t)


def test_results_table_filters_by_mode_vendor_and_qualifying(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, f"workloads/extract.invoice.v1/{TWO_MODELS}/"))  # type: ignore[attr-defined]
    data = page.request.get(  # type: ignore[attr-defined]
        urljoin(server, f"workloads/extract.invoice.v1/cells-{TWO_MODELS}.json")
    ).json()
    vendor_of = {"reference": "reference", "cheap": "openai", "big": "anthropic"}
    outcomes = _table_after(page, f"cells-{TWO_MODELS}.csv", nth=0)
    assert len(_visible_rows(outcomes)) == len(data)
    bar = outcomes.locator("xpath=preceding::div[contains(@class,'lr-filters')][1]")
    bar.locator("select[data-filter=mode]").select_option("agentic")
    rows = _visible_rows(outcomes)
    mode_col = _column(outcomes, "Mode")
    assert [r.locator("td").nth(mode_col).inner_text() for r in rows] == ["agentic"] * len(rows)
    assert len(rows) == sum(1 for c in data if c["mode"] == "agentic")
    bar.locator("select[data-filter=vendor]").select_option("openai")
    bar.locator("select[data-filter=mode]").select_option("")
    assert len(_visible_rows(outcomes)) == sum(1 for c in data if vendor_of[c["model"]] == "openai")
    bar.locator("select[data-filter=qualifying]").select_option("yes")
    expected = [c for c in data if vendor_of[c["model"]] == "openai" and c["qualifying"]]
    assert len(_visible_rows(outcomes)) == len(expected) > 0
    bar.locator("select[data-filter=vendor]").select_option("")
    bar.locator("select[data-filter=qualifying]").select_option("no")
    assert len(_visible_rows(outcomes)) == sum(1 for c in data if not c["qualifying"])


def test_results_tables_read_with_javascript_off(browser: object, server: str) -> None:
    context = browser.new_context(java_script_enabled=False)  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(urljoin(server, f"workloads/extract.invoice.v1/{TWO_MODELS}/"))
    outcomes = _table_after(page, f"cells-{TWO_MODELS}.csv", nth=0)
    assert outcomes.locator("tbody tr").count() == 5
    assert page.locator(".lr-filters").count() == 0  # no controls without the script
    assert "15/15 = 1.00" in outcomes.inner_text()
    context.close()


def test_compare_picker_reads_the_published_figures(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, f"compare/{TWO_MODELS}/"))  # type: ignore[attr-defined]
    form = page.locator("form.lr-compare")  # type: ignore[attr-defined]
    for box in form.locator("input[name=model]").all():
        box.set_checked(box.get_attribute("value") in {"cheap", "big"})
    form.locator(".lr-compare-go").click()
    table = form.locator("table.lr-compare-table")
    table.wait_for()
    results = page.request.get(  # type: ignore[attr-defined]
        urljoin(server, f"data/{TWO_MODELS}/results-corrected.json")
    ).json()["results"]
    [extract] = [w for w in results["workloads"] if w["workload"] == "extract.invoice.v1"]
    row = table.locator("tr[data-workload='extract.invoice.v1'][data-mode='single-shot']")
    for model in ("cheap", "big"):
        [cell] = [c for c in extract["cells"] if c["model"] == model and c["mode"] == "single-shot"]
        cpo = row.locator(f"td[data-field='{model}:cpo_usd']")
        assert float(cpo.get_attribute("data-value")) == float(cell["cpo_usd"])
        rate = row.locator(f"td[data-field='{model}:pass_rate']")
        assert float(rate.get_attribute("data-value")) == cell["pass_rate"]
        assert rate.inner_text().startswith(f"{cell['passes']}/{cell['n']} = ")
    # The paired verdict sits on the row of the mode it compared.
    verdict_row = table.locator(
        f"tr[data-workload='extract.invoice.v1'][data-mode='{extract['routing']['challenger_mode']}']"
    )
    assert extract["routing"]["verdict"] in verdict_row.locator("td").last.inner_text()
    # The static flagship-vs-cheapest page shows the same figures without the picker.
    page.goto(urljoin(server, f"compare/{TWO_MODELS}/cheap.vs.big/"))  # type: ignore[attr-defined]
    text = page.inner_text("article")  # type: ignore[attr-defined]
    assert "Cheap model vs Big model" in text and "14/15 = 0.93" in text and "15/15 = 1.00" in text


def test_cost_at_my_volume_multiplies_the_published_cpos(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, f"editions/{TWO_MODELS}/"))  # type: ignore[attr-defined]
    results = page.request.get(urljoin(server, f"data/{TWO_MODELS}/results.json")).json()  # type: ignore[attr-defined]
    [extract] = [w for w in results["workloads"] if w["workload"] == "extract.invoice.v1"]
    low, high = (float(extract[k]["cpo_usd"]) for k in ("cheapest_qualifying", "flagship"))
    row = page.locator("form.lr-calc tr[data-workload='extract.invoice.v1']")  # type: ignore[attr-defined]
    row.locator("input").fill("2500")
    cost = {
        k: float(
            row.locator(
                f"[data-out={k}] [data-cost], [data-out={k}][data-cost]"
            ).first.get_attribute("data-cost")
        )
        for k in ("cheapest", "flagship", "difference")
    }
    assert cost["cheapest"] == pytest.approx(2500 * low)
    assert cost["flagship"] == pytest.approx(2500 * high)
    assert cost["difference"] == pytest.approx(2500 * (high - low))
    # The page cites where the figures come from, and the link resolves.
    source = page.locator("form.lr-calc .lr-calc-source a").first.get_attribute("href")  # type: ignore[attr-defined]
    assert source and source.endswith("results.json")
    assert page.request.get(urljoin(page.url, source)).status == 200  # type: ignore[attr-defined]
    # On the home page (a reference-only edition) the baselines' line is computed the same way.
    page.goto(server)  # type: ignore[attr-defined]
    row = page.locator("form.lr-calc tbody tr").first  # type: ignore[attr-defined]
    ref = float(row.get_attribute("data-reference-cpo"))
    row.locator("input").fill("40000")
    shown = row.locator("[data-out=reference] [data-cost]").get_attribute("data-cost")
    assert float(shown) == pytest.approx(40000 * ref)
    assert row.locator("[data-out=cheapest]").inner_text().strip() != ""


def test_calculator_never_totals_jobs_that_have_no_figure(
    browser: object, server: str, leaks: list[str]
) -> None:
    """On the home page (2026-12: no job has a qualifying model) the total is "—" with the
    reason, never "$0.00", which a reader takes for "costs nothing"; the inputs have a border."""
    page = _page(browser, server, leaks)
    page.goto(server)  # type: ignore[attr-defined]
    page.locator("form.lr-calc tbody tr input").first.fill("5000")  # type: ignore[attr-defined]
    total = page.locator("form.lr-calc [data-total=cheapest]")  # type: ignore[attr-defined]
    assert total.inner_text().strip() == "— (no job has a qualifying model)"
    assert total.get_attribute("data-cost") is None
    flagship = page.locator("form.lr-calc [data-total=flagship]").inner_text()  # type: ignore[attr-defined]
    assert flagship.strip() == "— (no job has a flagship figure)"
    # The baselines priced some jobs only: the total says over how many.
    reference = page.locator("form.lr-calc [data-total=reference]").inner_text()  # type: ignore[attr-defined]
    assert re.search(r"^\$\S+ \(\d of 7 jobs; the others have no figure\)$", reference.strip())
    border = page.locator("form.lr-calc input").first.evaluate(  # type: ignore[attr-defined]
        "e => getComputedStyle(e).borderTopWidth + ' ' + getComputedStyle(e).borderTopStyle"
    )
    assert border.split() == ["1px", "solid"]


def _latest_grade(edition: Path, workload: str, model: str, mode: str, run_id: str) -> dict:
    import json

    found = None
    for line in (edition / "grades" / workload / model / f"{mode}.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["run_id"] == run_id and (
            found is None or record["revision"] >= found["revision"]
        ):
            found = record
    assert found is not None
    return found


def test_one_drill_down_per_workload_reads_the_checks(
    browser: object, server: str, leaks: list[str]
) -> None:
    """From each workload's page, follow a results table's link to one of its cells' runs and
    read the first run's checks against the grade log itself.

    Each workload once, the bundled editions taken in turn, so every workload's drill-down and
    every edition (seeds released and withheld) is read; every other cell's links are checked
    by the crawl above and tests/publish/test_drilldown_links.py, and each page load costs a
    fifth of a second here."""
    page = _page(browser, server, leaks)
    editions = sorted(p.parent for p in (REPO / "editions").glob("*/edition.yaml"))
    workloads = sorted({p.name for edition in editions for p in (edition / "runs").iterdir()})
    pairs = []
    for k, workload in enumerate(workloads):
        having = [edition for edition in editions if (edition / "runs" / workload).is_dir()]
        pairs.append((having[k % len(having)], workload))
    assert {edition for edition, _ in pairs} == set(editions)
    assert any((edition / "seeds.json").exists() for edition, _ in pairs)
    assert not all((edition / "seeds.json").exists() for edition, _ in pairs)
    opened = 0
    for edition, workload in pairs:
        # An edition's results of a workload are on its page of that workload, the newest
        # edition's on the workload's own page (its edition page points there).
        page.goto(urljoin(server, f"workloads/{workload}/{edition.name}/"))  # type: ignore[attr-defined]
        runs = f"a[href*='runs/{edition.name}/{workload}/']"
        if page.locator(runs).count() == 0:  # type: ignore[attr-defined]
            page.locator(f"a[href$='#edition-{edition.name}']").first.click()  # type: ignore[attr-defined]
            page.wait_for_load_state()  # type: ignore[attr-defined]
        link = page.locator(runs).first  # type: ignore[attr-defined]
        link.click()
        page.wait_for_load_state()  # type: ignore[attr-defined]
        section = page.locator("h2.lr-run").first  # type: ignore[attr-defined]
        run_id = section.get_attribute("id").removeprefix("run-")
        parts = page.url.rstrip("/").split("/")  # type: ignore[attr-defined]
        model, mode = parts[-2], parts[-1]
        grade = _latest_grade(edition, workload, model, mode, run_id)
        checks = section.locator("xpath=following::table[1]")
        names = checks.locator("tbody tr td:first-child").all_inner_texts()
        results = checks.locator("tbody tr td:nth-child(2)").all_inner_texts()
        assert names == [c["name"] for c in grade["checks"]], (workload, names)
        assert results == ["pass" if c["passed"] else "FAIL" for c in grade["checks"]]
        body = page.inner_text("main")  # type: ignore[attr-defined]
        assert "The model's answer" in body and "Input the model saw" not in body
        # The item's input and expected answer are on the workload's items page, once for
        # every model and mode: the run's link lands on its prompt there.
        # The prompt's anchor (or, for a request that is not a chat, the item's).
        item = section.locator(
            "xpath=following::a[contains(@href, '#p-') or contains(@href, '#item-')][1]"
        )
        target = item.get_attribute("href").split("#", 1)[1]
        item.click()
        page.wait_for_load_state()  # type: ignore[attr-defined]
        assert page.url.endswith(f"runs/{edition.name}/{workload}/#{target}")  # type: ignore[attr-defined]
        assert page.locator(f"[id='{target}']").count() == 1  # type: ignore[attr-defined]
        items = page.inner_text("article")  # type: ignore[attr-defined]
        assert "Input the model saw" in items
        if (edition / "seeds.json").exists():
            assert "Expected answer (from the published dataset)" in items
        else:
            assert "withheld until the seed" in items
            assert "Expected answer (from the published dataset)" not in items
        opened += 1
    assert opened == len(workloads) >= 7


def test_drill_down_shows_agentic_steps_and_keeps_model_text_inert(
    browser: object, server: str, leaks: list[str]
) -> None:
    """The script reads the cell's logs and shows each run in full: the agent's steps behind a
    disclosure opened from the keyboard, the request read back with its strings from bodies/,
    and a hostile answer as text."""
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, f"runs/{TWO_MODELS}/execute.month-end.v1/cheap/agentic/"))  # type: ignore[attr-defined]
    steps = page.locator("details.lr-steps summary").first  # type: ignore[attr-defined]
    assert "Agent steps" in steps.inner_text()
    assert "The tool answered" not in page.inner_text("main")  # type: ignore[attr-defined]
    steps.focus()
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    body = page.inner_text("main")  # type: ignore[attr-defined]
    assert "Tool call" in body and "The tool answered" in body
    assert "request's stored strings are missing" not in body
    page.goto(urljoin(server, f"runs/{TWO_MODELS}/extract.invoice.v1/big/single-shot/"))  # type: ignore[attr-defined]
    page.locator("section.lr-run-detail").first.wait_for()  # type: ignore[attr-defined]
    assert HOSTILE in page.inner_text("main")  # type: ignore[attr-defined]  # shown as text
    assert page.evaluate("() => window.__pwned === undefined")  # type: ignore[attr-defined]
    assert page.locator("main img[src=x], main script").count() == 0  # type: ignore[attr-defined]


def test_drill_down_without_scripts_reaches_every_run_and_its_logs(
    browser: object, server: str
) -> None:
    """Scripts off, a cell page is its runs table: a row per run of the published sitting, each
    with its anchor and its item's link, and the logs that hold the rest, which download. A run's
    link from elsewhere lands on its row; axe finds nothing serious on the page."""
    from axe_playwright_python.sync_playwright import Axe

    context = browser.new_context(java_script_enabled=False)  # type: ignore[attr-defined]
    page = context.new_page()
    cell = f"runs/{TWO_MODELS}/execute.month-end.v1/cheap/agentic/"
    page.goto(urljoin(server, cell))
    rows = page.locator("table.lr-runs tbody tr[id^='run-']")
    run_ids = [row.get_attribute("id").removeprefix("run-") for row in rows.all()]
    log = page.locator("a[href$='.jsonl.gz']").first
    # The page's links are relative to its <base> (the workload's items page), as the browser
    # resolves them.
    base = urljoin(page.url, page.locator("base").get_attribute("href"))
    response = page.request.get(urljoin(base, log.get_attribute("href")))
    assert response.status == 200
    import gzip
    import json

    records = [json.loads(line) for line in gzip.decompress(response.body()).splitlines()]
    assert sorted(run_ids) == sorted(r["run_id"] for r in records if r["kind"] == "registered")
    assert page.locator("section.lr-run-detail").count() == 0  # no script, no detail
    page.goto(urljoin(server, f"{cell}#run-{run_ids[-1]}"))
    assert page.locator(f"tr[id='run-{run_ids[-1]}']").count() == 1
    assert page.locator("html[lang=en]").count()
    # Headers as the browser's accessibility tree has them: the first row's are the columns',
    # each run's first cell its row's (the table model's own scope, which the page leaves to it).
    tree = context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    roles = [n.get("role", {}).get("value") for n in tree if not n.get("ignored")]
    assert roles.count("columnheader") == 7 and roles.count("rowheader") == len(run_ids)
    context.close()
    # axe runs as a script itself: the page without its own script is the same page with the
    # script's request refused.
    context = browser.new_context()  # type: ignore[attr-defined]
    page = context.new_page()
    page.route("**/javascripts/drilldown.js", lambda route: route.abort())
    page.goto(urljoin(server, cell))
    assert page.locator("section.lr-run-detail").count() == 0
    violations = Axe().run(page).response["violations"]
    assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []
    context.close()


def test_drill_down_is_usable_from_the_keyboard(
    browser: object, server: str, leaks: list[str]
) -> None:
    """The first Tab reaches the skip link, which moves the focus to the runs; a run's detail
    link moves it to that run's heading, named for the item and attempt."""
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, f"runs/{TWO_MODELS}/extract.invoice.v1/big/single-shot/"))  # type: ignore[attr-defined]
    page.locator("section.lr-run-detail").first.wait_for()  # type: ignore[attr-defined]
    page.keyboard.press("Tab")  # type: ignore[attr-defined]
    assert page.evaluate("document.activeElement.className") == "lr-skip"  # type: ignore[attr-defined]
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    assert page.evaluate("document.activeElement.id") == "main"  # type: ignore[attr-defined]
    detail = page.locator("table.lr-runs tbody tr a[href*='#run-']").first  # type: ignore[attr-defined]
    target = detail.get_attribute("href").split("#", 1)[1]
    detail.focus()
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    heading = page.locator(f"h2[id='{target}']")  # type: ignore[attr-defined]
    assert heading.count() == 1 and heading.inner_text().startswith("Item ")
    assert page.url.endswith(f"#{target}")  # type: ignore[attr-defined]


def test_gap_chart_and_pareto_frontier_on_the_bundled_editions(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    ids = sorted(p.parent.name for p in (REPO / "editions").glob("*/edition.yaml"))
    pages = ["", *[f"editions/{i}/" for i in ids]]
    for path in pages:
        page.goto(urljoin(server, path))  # type: ignore[attr-defined]
        chart = page.locator("img.lr-gap")  # type: ignore[attr-defined]
        assert chart.count() == 1, path
        box = chart.bounding_box()
        assert box is not None and box["width"] > 100, path
        svg = page.request.get(urljoin(page.url, chart.get_attribute("src"))).text()  # type: ignore[attr-defined]
        assert "<title" in svg and "<desc" in svg and "log scale" in svg
        shown = ids[-1] if path == "" else path.split("/")[1]
        assert f"edition {shown} ·" in svg  # the standard footer
    frontiers: dict[str, int] = {}
    for edition in ids:
        for workload in sorted(p.name for p in (REPO / "editions" / edition / "runs").iterdir()):
            svg = page.request.get(  # type: ignore[attr-defined]
                urljoin(server, f"workloads/{workload}/cost-vs-pass-{edition}.svg")
            ).text()
            # A workload whose every figure was withdrawn draws no cell, so it has no frontier
            # and its description says so.
            drawn = 'id="pareto-frontier"' in svg and "Pareto frontier (" in svg
            assert drawn or "there is no Pareto frontier" in svg, (edition, workload)
            frontiers[edition] = frontiers.get(edition, 0) + drawn
    # Every bundled edition has priced cells, so each draws at least one frontier.
    assert all(frontiers.get(e, 0) >= 1 for e in ids), frontiers


# One page of every kind (home, edition, workload, a workload's older edition, model, compare,
# runs, items, data, errata, erratum, methodology, glossary), at a desktop width and a phone's.
PAGE_KINDS = {
    "home": "",
    "edition": "editions/2026-12/",
    "workload": "workloads/extract.invoice.v2/",
    "workload-edition": "workloads/extract.invoice.v2/2026-11-b/",
    "model": "models/smollm2/",
    "compare": f"compare/{TWO_MODELS}/",
    "runs": "runs/2026-12/query.nl2sql.v1/smollm2/agentic/",
    "items": "runs/2026-12/query.nl2sql.v1/",
    "data": "data/2026-12/",
    "errata": "errata/",
    "erratum": "errata/2026-12-01-12/",
    "methodology": "methodology/1.0/",
    "glossary": "glossary/",
}
WIDTHS = {"desktop": 1280, "phone": 390}


def _sized_page(browser: object, server: str, leaks: list[str], width: int) -> object:
    page = _page(browser, server, leaks)
    page.set_viewport_size({"width": width, "height": 900})  # type: ignore[attr-defined]
    return page


@pytest.mark.parametrize("width", list(WIDTHS))
def test_axe_core_finds_no_serious_violation_on_any_kind_of_page(
    browser: object, server: str, leaks: list[str], width: str
) -> None:
    """axe-core (an accessibility checker nobody here wrote) on one page of every kind."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    page = _sized_page(browser, server, leaks, WIDTHS[width])
    found: dict[str, list[str]] = {}
    for kind, rel in PAGE_KINDS.items():
        page.goto(urljoin(server, rel))  # type: ignore[attr-defined]
        page.wait_for_load_state("load")  # type: ignore[attr-defined]
        if kind == "runs":  # each run's detail, added by the script from the logs
            page.locator("section.lr-run-detail").first.wait_for()  # type: ignore[attr-defined]
        violations = axe.run(page).response["violations"]
        serious = [
            f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:3]]}"
            for v in violations
            if v["impact"] in ("serious", "critical")
        ]
        if serious:
            found[kind] = serious
    assert found == {}, found


def test_no_page_scrolls_sideways_at_phone_width(
    browser: object, server: str, leaks: list[str]
) -> None:
    """At 390 px only a table's own scroll box may be wider than the screen, never the page."""
    page = _sized_page(browser, server, leaks, WIDTHS["phone"])
    wide: dict[str, list[str]] = {}
    for kind, rel in PAGE_KINDS.items():
        page.goto(urljoin(server, rel))  # type: ignore[attr-defined]
        page.wait_for_load_state("load")  # type: ignore[attr-defined]
        scroll = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        if scroll > WIDTHS["phone"]:
            # Name what sticks out (outside the off-screen navigation drawer and the boxes).
            culprits = page.evaluate(  # type: ignore[attr-defined]
                """w => [...document.querySelectorAll('body *')]
                  .filter(e => e.getBoundingClientRect().right > w + 1
                    && !e.closest('nav, .md-typeset__scrollwrap, .lr-scroll'))
                  .slice(0, 5).map(e => e.tagName + '.' + e.className)""",
                WIDTHS["phone"],
            )
            wide[kind] = [f"scrollWidth {scroll}", *culprits]
    assert wide == {}, wide


def test_screenshots_of_home_pdf_card_and_workload_at_both_widths(
    browser: object, server: str, leaks: list[str]
) -> None:
    """Written into build/screenshots/ so a person can look at them after `make test`."""
    import pdfplumber

    out = REPO / "build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    for width, pixels in WIDTHS.items():
        page = _sized_page(browser, server, leaks, pixels)
        for kind in ("home", "workload"):
            page.goto(urljoin(server, PAGE_KINDS[kind]))  # type: ignore[attr-defined]
            page.wait_for_load_state("load")  # type: ignore[attr-defined]
            target = out / f"{kind}-{width}.png"
            page.screenshot(path=str(target), full_page=True)  # type: ignore[attr-defined]
            assert target.stat().st_size > 10_000
        page_bytes = page.request.get(urljoin(server, "data/2026-12/ratecard.pdf")).body()  # type: ignore[attr-defined]
        # The printed card is one A4 page: at phone width it is the same page, drawn as a
        # phone screen shows it (390 CSS pixels at three device pixels each).
        pixels_wide = pixels * (3 if width == "phone" else 1)
        with pdfplumber.open(io.BytesIO(page_bytes)) as pdf:
            sheet = pdf.pages[0]
            image = sheet.to_image(resolution=72 * pixels_wide / float(sheet.width))
            target = out / f"ratecard-pdf-{width}.png"
            image.save(str(target))
            assert image.original.size[0] == pytest.approx(pixels_wide, abs=2)
        assert target.stat().st_size > 10_000


def test_sortable_tables_keep_their_columns_apart(
    browser: object, server: str, leaks: list[str]
) -> None:
    """A table made sortable carries a class, which the theme's table style skips: its cells
    must still be padded, or "1" and "model-failure" read as "1model-failure"."""
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, PAGE_KINDS["workload"]))  # type: ignore[attr-defined]
    page.wait_for_selector("table.lr-sortable td")  # type: ignore[attr-defined]
    left, right = page.evaluate(  # type: ignore[attr-defined]
        """() => { const s = getComputedStyle(document.querySelector('table.lr-sortable td'));
                   return [parseFloat(s.paddingLeft), parseFloat(s.paddingRight)]; }"""
    )
    assert left >= 6 and right >= 6


def test_compare_picker_says_whether_each_cell_qualifies_and_its_n(
    browser: object, server: str, leaks: list[str]
) -> None:
    page = _page(browser, server, leaks)
    page.goto(urljoin(server, "compare/2026-12/"))  # type: ignore[attr-defined]
    form = page.locator("form.lr-compare")  # type: ignore[attr-defined]
    for box in form.locator("input[name=model]").all():
        box.set_checked(True)
    form.locator(".lr-compare-go").click()
    table = form.locator("table.lr-compare-table")
    table.wait_for()
    # query.nl2sql.v1's reference baseline passed 5/5, and cannot qualify at n = 5.
    row = table.locator("tr[data-workload='query.nl2sql.v1'][data-mode='single-shot']")
    assert row.locator("td[data-field='reference:pass_rate']").inner_text().startswith("5/5")
    qualifies = row.locator("td[data-field='reference:qualifying']").inner_text()
    assert qualifies == "no: n = 5, short of the standard's 15 (n = 5)"


# --- Re-price at my prices (javascripts/reprice.js; tests/browser/test_reprice_browser.py holds
# the script to the command line's digits) ---------------------------------------------------

_SPENDS = """d => Object.fromEntries([...d.querySelectorAll('.lr-reprice-workload tbody tr')]
  .map(tr => [tr.closest('.lr-reprice-workload').dataset.workload + '/' + tr.dataset.model
    + '/' + tr.dataset.mode, tr.dataset.spend]))"""


@pytest.mark.parametrize("width", list(WIDTHS))
def test_reprice_panel_on_the_built_site(
    browser: object, server: str, leaks: list[str], width: str
) -> None:
    """On the rate card (home, edition) and a workload page: opened by keyboard, a price typed,
    the figures re-priced and labelled with the change listed, nothing leaving the page, axe
    content and no sideways scroll on a phone. On the two-model edition, whose cells were
    priced call by call from real (fake-provider) usage, half the vendor's prices give exactly
    half its spend from the published totals."""
    from decimal import Decimal

    from axe_playwright_python.sync_playwright import Axe

    page = _sized_page(browser, server, leaks, WIDTHS[width])
    for rel in ("", "editions/2026-12/", "workloads/query.nl2sql.v1/"):
        page.goto(urljoin(server, rel))  # type: ignore[attr-defined]
        panel = page.locator('details.lr-reprice[data-edition="2026-12"]').first  # type: ignore[attr-defined]
        panel.locator("summary").focus()
        page.keyboard.press("Enter")  # type: ignore[attr-defined]
        field = panel.locator('input[data-hourly="smollm2"]')
        field.fill("0.02")
        assert "not a published figure" in panel.locator(".lr-reprice-status").text_content()
        assert panel.locator(".lr-reprice-changed li").all_text_contents() == [
            "smollm2 hourly rate: $0.1 → $0.02 per hour"
        ]
        assert "#reprice-2026-12/h~smollm2=0.02" in page.url  # type: ignore[attr-defined]
        serious = [
            v["id"]
            for v in Axe().run(page).response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert serious == [], (rel, serious)
        scroll = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert scroll <= WIDTHS[width], (rel, scroll)
    page.goto(urljoin(server, f"editions/{TWO_MODELS}/"))  # type: ignore[attr-defined]
    panel = page.locator("details.lr-reprice").first  # type: ignore[attr-defined]
    panel.locator("summary").click()
    frozen = panel.evaluate(_SPENDS)
    panel.locator("fieldset select").select_option("openai")
    panel.locator("fieldset input").fill("-50")
    panel.locator("fieldset button", has_text="Apply").click()
    halved = panel.evaluate(_SPENDS)
    cheap = [key for key in frozen if "/cheap/" in key and frozen[key]]
    assert cheap and all(Decimal(halved[k]) * 2 == Decimal(frozen[k]) for k in cheap)
    assert all(halved[k] == frozen[k] for k in frozen if "/big/" in k)
