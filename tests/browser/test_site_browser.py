"""A real browser against the real site built from the bundled editions.

Debian's chromium, driven by playwright through `executable_path` (no browser download), opens
the pages from a local HTTP server, follows every internal link and download, and reads the PDF
rate card back.
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
    return build_site(editions=editions, out=out)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


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
    for href in hrefs:
        url = urldefrag(urljoin(page.url, href)).url  # type: ignore[attr-defined]
        if url.startswith(base):
            found.add(url)
    return found


def test_home_shows_the_rate_card(browser: object, server: str) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    response = page.goto(server)
    assert response is not None and response.status == 200
    body = page.inner_text("body")
    assert "quality bar" in body.lower()
    assert "no language model was called" in body.lower()
    assert "methodology v1.0" in body.lower()
    table = page.locator("table").first
    assert table.is_visible()
    assert errors == []


def test_every_internal_link_and_download_resolves(browser: object, server: str) -> None:
    """Crawl every HTML page reachable from home; every internal URL answers 200."""
    page = browser.new_page()  # type: ignore[attr-defined]
    seen: set[str] = set()
    queue = [server]
    broken: list[str] = []
    checked = 0
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
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


def test_workload_page_charts_load(browser: object, server: str) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(urljoin(server, "workloads/extract.invoice.v1/"))
    charts = page.locator("svg[role=img], img[src$='.svg']")
    assert charts.count() >= 1
    for index in range(charts.count()):
        chart = charts.nth(index)
        box = chart.bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100
        label = chart.get_attribute("aria-labelledby") or chart.get_attribute("alt")
        assert label


def test_edition_and_data_pages_open(browser: object, server: str) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    ids = sorted(p.parent.name for p in (REPO / "editions").glob("*/edition.yaml"))
    assert len(ids) >= 2
    for path in [f"{kind}/{i}/" for i in ids for kind in ("editions", "data")]:
        response = page.goto(urljoin(server, path))
        assert response is not None and response.status == 200, path
        assert "no language model was called" in page.inner_text("body").lower(), path
    text = page.inner_text("body")
    assert "SHA256SUMS" in text


def test_pdf_rate_card_downloads_with_disclaimer_and_footer(browser: object, server: str) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    page.goto(server)
    link = page.locator("a[href$='.pdf']").first
    href = link.get_attribute("href")
    assert href
    response = page.request.get(urljoin(page.url, href))
    assert response.status == 200
    reader = PdfReader(io.BytesIO(response.body()))
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    assert "not quotes, offers or guarantees" in text
    assert "methodology v1.0" in text and "LedgerRate ·" in text
