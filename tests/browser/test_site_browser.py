"""A real browser against the real site built from the bundled editions.

Debian's chromium, driven by playwright through `executable_path` (no browser download), opens
the pages from a local HTTP server that hosts the site under a sub-path (`/ledgerrate/`, as a
project page would be), follows every internal link and download, and reads the PDF rate card
back. Every page is watched: any request that leaves the site (another host, or this host
outside the sub-path) is refused and fails the test.
"""

from __future__ import annotations

import functools
import http.server
import io
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest
from pypdf import PdfReader

pytestmark = [pytest.mark.slow, pytest.mark.browser]

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
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ledgerrate.publish.build import build_site

    # A copy: building records first publications into edition folders, never into the repo's.
    editions = tmp_path_factory.mktemp("editions") / "editions"
    shutil.copytree(REPO / "editions", editions)
    out = tmp_path_factory.mktemp("build")
    return build_site(editions=editions, out=out, site_url=f"https://ledgerrate.example{PREFIX}")


PREFIX = "/ledgerrate/"


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

    def guard(route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        if url.startswith(server) or url.startswith(("data:", "blob:", "about:")):
            route.continue_()  # type: ignore[attr-defined]
        else:
            leaks.append(url)
            route.abort()  # type: ignore[attr-defined]

    page.route("**/*", guard)
    return page


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed: run `bash scripts/install-system-deps.sh test`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield instance
        instance.close()


def _internal_links(page: object, base: str) -> set[str]:
    hrefs = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "a[href], link[href], img[src], script[src]",
        "els => els.map(e => e.getAttribute('href') || e.getAttribute('src'))",
    )
    found = set()
    origin = base[: base.index("/", len("http://"))]
    for href in hrefs:
        url = urldefrag(urljoin(page.url, href)).url  # type: ignore[attr-defined]
        if url.startswith(origin):  # this host, inside the sub-path or (a bug) outside it
            found.add(url)
    return found


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
    assert "no language model was called" in body.lower()
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
    """Crawl every HTML page reachable from home; every internal URL answers 200 and no page
    makes a request that leaves the site."""
    page = _page(browser, server, leaks)
    seen: set[str] = set()
    queue = [server]
    broken: list[str] = []
    checked = 0
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        if not url.startswith(server):
            broken.append(f"{url} → outside {PREFIX}")
            continue
        response = page.request.get(url)
        checked += 1
        if response.status != 200:
            broken.append(f"{url} → {response.status}")
            continue
        is_html = "text/html" in response.headers.get("content-type", "")
        if is_html and urlparse(url).path.endswith(("/", ".html")):
            page.goto(url)
            queue.extend(_internal_links(page, server) - seen)
    assert broken == []
    assert checked > 30  # home, editions, workloads, models, data, errata and their downloads


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
        assert "no language model was called" in page.inner_text("body").lower(), path
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
