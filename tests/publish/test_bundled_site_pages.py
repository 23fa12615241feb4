"""The built site of the bundled editions, as a reader meets it: who runs the site and when
the next edition is due (editions/site.yaml), the verifier's install commands, the data page's
offer of Inspect logs, and a search index whose text is escaped once (#46 items 16 and 17)."""

from __future__ import annotations

import contextlib
import html
import http.server
import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from ledgerrate.publish.inspect_export import reader_commands

REPO = Path(__file__).resolve().parents[2]
# An entity escaped a second time (`&amp;#39;`, `&amp;lt;`): a hit would show it as text.
TWICE = re.compile(r"&amp;(?:#\d+|#x[0-9a-f]+|lt|gt|quot|apos|amp);", re.IGNORECASE)
PRE = re.compile(r'<pre class="lr-verbatim"><code>(.*?)</code></pre>', re.DOTALL)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ledgerrate.publish.build import build_site

    # A copy: a build records publications into the edition folders, never into the repo's.
    editions = tmp_path_factory.mktemp("editions") / "editions"
    shutil.copytree(REPO / "editions", editions)
    return build_site(editions=editions, out=tmp_path_factory.mktemp("build"))


def _read(site: Path, rel: str) -> str:
    return (site / rel).read_text("utf-8")


def _blocks(page: str) -> list[str]:
    return [html.unescape(b) for b in PRE.findall(page)]


def test_the_search_index_holds_text_escaped_once(site: Path) -> None:
    raw = _read(site, "search/search_index.json")
    assert not TWICE.search(raw), raw[max(0, TWICE.search(raw).start() - 80) :][:200]  # type: ignore[union-attr]
    docs = json.loads(raw)["docs"]
    texts = {doc["location"]: doc["text"] for doc in docs}
    assert not any("&#39;" in t or "&#x27;" in t for t in texts.values())
    # Apostrophes read as written: in hand-written prose, in an edition's own pages (the model's
    # name as its notes give it) and in text the build writes around an edition's files.
    with_apostrophe = [loc for loc, t in texts.items() if "'" in t]
    assert any(loc.startswith("about") for loc in with_apostrophe)
    assert any(loc.startswith("data/2026-12") for loc in with_apostrophe)
    assert any("LedgerRate's grade as the score" in t for t in texts.values())


def test_home_and_about_say_who_runs_the_site_and_what_is_not_stated(site: Path) -> None:
    for rel in ("index.html", "about/index.html"):
        page = _read(site, rel)
        assert 'id="who-runs-this-site"' in page, rel
        assert "<strong>Operated by</strong>: The LedgerRate project." in page
        # The repository names no contact channel and no date: the page invents neither.
        assert "<strong>Contact</strong>: not stated." in page
        assert "<strong>Next edition</strong>: not stated. No date has been set" in page
        assert "check-it-yourself-the-standalone-verifier" in page


def test_the_data_page_offers_inspect_logs_made_from_its_bundle(site: Path) -> None:
    bundles = sorted((site / "data" / "2026-12" / "bundle").glob("*.tar.gz"))
    assert len(bundles) == 1
    page = _read(site, "data/2026-12/index.html")
    assert 'id="inspect-ai-logs"' in page
    assert "\n".join(reader_commands(bundles[0].name)) in _blocks(page)
    # An edition whose only cells are the reference baseline's has nothing to export.
    assert 'id="inspect-ai-logs"' not in _read(site, "data/2026-11/index.html")


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(Quiet, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _fetch_and_check(site: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    """The data index's commands up to the checksum check, against the site on 127.0.0.1 (the
    install and run that follow it are tests/verify/test_standalone.py's fresh-venv test)."""
    (block,) = [b for b in _blocks(_read(site, "data/index.html")) if "verify_standalone" in b]
    lines = block.splitlines()
    assert lines[-1].startswith("sha256sum -c SHA256SUMS && python3 -m venv venv && ")
    assert lines[-1].endswith('venv/bin/python verify_standalone.py "$SITE"')
    with _served(site) as url:
        script = "\n".join([f"SITE={url}", *lines[1:-1], "sha256sum -c SHA256SUMS"])
        return subprocess.run(
            ["bash", "-e", "-c", script],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "NO_PROXY": "127.0.0.1"},
        )


def test_the_verifier_install_commands_fetch_and_check_the_published_files(
    site: Path, tmp_path: Path
) -> None:
    done = _fetch_and_check(site, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    fetched = tmp_path / "ledgerrate-verifier"
    for name in ("verify_standalone.py", "standalone_figures.py", "requirements.txt"):
        assert (fetched / name).read_bytes() == (site / "data" / "verifier" / name).read_bytes()
        assert f"{name}: OK" in done.stdout


def test_the_checksum_line_stops_a_changed_verifier(site: Path, tmp_path: Path) -> None:
    changed = tmp_path / "site"
    shutil.copytree(site, changed)
    target = changed / "data" / "verifier" / "verify_standalone.py"
    target.write_text(target.read_text("utf-8") + "\n# changed in transit\n", "utf-8")
    work = tmp_path / "work"
    work.mkdir()
    # The page's hashes are those of the real files; the changed file no longer has its own.
    (changed / "data" / "index.html").write_bytes((site / "data" / "index.html").read_bytes())
    done = _fetch_and_check(changed, work)
    assert done.returncode != 0
    assert "verify_standalone.py: FAILED" in done.stdout


def test_a_changed_site_file_alone_rebuilds_the_pages(tmp_path: Path) -> None:
    """The build's no-change check sees editions/site.yaml: the facts are not left stale."""
    from ledgerrate.publish.build import build_site

    editions = tmp_path / "editions"
    shutil.copytree(REPO / "editions", editions)
    out = tmp_path / "build"
    site = build_site(editions=editions, out=out)
    assert "<strong>Contact</strong>: not stated." in _read(site, "index.html")
    (editions / "site.yaml").write_text(
        "operator: The LedgerRate project\ncontact: https://example.org/ledgerrate/issues\n"
    )
    site = build_site(editions=editions, out=out)
    for rel in ("index.html", "about/index.html"):
        assert 'href="https://example.org/ledgerrate/issues"' in _read(site, rel), rel
