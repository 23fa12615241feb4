"""The items pages' raw HTML skips markdown (publish/engine/raw_html.py), and the cell pages are
plain HTML written outside mkdocs (publish/drilldown.py), so markdown checks neither's links (the
plugin only checks that each raw link lands on a file): here every link of every built
drill-down page must land, on a file of the site and, for a fragment, on an element with that
id; and each cell page keeps a row, with its anchor, for every run of its log."""

from __future__ import annotations

import gzip
import html.parser
import json
import posixpath
from html import unescape
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledgerrate.publish import load as load_mod
from ledgerrate.publish.build import build_site
from ledgerrate.publish.engine.raw_html import _NOT_PLAIN, MARKER, RawHtml, _decoded, broken_links
from tests.publish.factory import HOSTILE, WL, write_edition


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.runs: list[str] = []
        self.base = ""  # the page's <base href>, which its links resolve against

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "base" and found.get("href"):
            self.base = str(found["href"])
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.hrefs.append(str(found["href"]))
        if tag == "tr" and str(found.get("id") or "").startswith("run-"):
            self.runs.append(str(found["id"]).removeprefix("run-"))


def _scan(path: Path) -> _Links:
    scan = _Links()
    scan.feed(path.read_text("utf-8"))
    return scan


def _target(site: Path, page: Path, href: str, base: str = "") -> tuple[Path, str] | None:
    """The file and fragment a relative link of `page` lands on, resolved against the page's
    `<base href>` as a browser does (None: not a site link)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith("/"):
        return None
    folder = posixpath.normpath(posixpath.join(page.parent.relative_to(site).as_posix(), base))
    rel = posixpath.normpath(posixpath.join(folder, unquote(parts.path))) if parts.path else None
    if rel is None and base:  # a bare fragment lands on the base's page, not this one
        rel = folder
    target = page if rel is None else site / rel
    if target.is_dir():
        target = target / "index.html"
    return target, parts.fragment


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("editions")
    fixtures = {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(root, "2026-07", "2026-07-01", hostile=True, release_seeds=True),
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
        return build_site(root, tmp_path_factory.mktemp("build"))


@pytest.mark.slow
def test_every_link_of_every_drill_down_page_lands(built: Path) -> None:
    pages = sorted((built / "runs").rglob("index.html"))
    assert len(pages) >= 4  # cell pages and items pages of both editions
    ids: dict[Path, set[str]] = {}
    checked = fragments = 0
    for page in pages:
        scan = _scan(page)
        for href in scan.hrefs:
            landed = _target(built, page, href, scan.base)
            if landed is None:
                continue
            target, fragment = landed
            assert target.is_file(), f"{page.relative_to(built)}: {href} lands nowhere"
            if fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = _scan(target).ids
                assert fragment in ids[target], f"{page.relative_to(built)}: {href}: no such id"
                fragments += 1
            checked += 1
    # The runs' links to their items (another page) and the table's links to each run.
    assert checked > 50 and fragments > 10


@pytest.mark.slow
def test_cell_pages_keep_every_run_escaped(built: Path) -> None:
    page = built / "runs" / "2026-07" / WL / "small" / "single-shot" / "index.html"
    text = page.read_text("utf-8")
    scan = _scan(page)
    log = built / "data" / "2026-07" / "runs" / WL / "small" / "single-shot.jsonl.gz"
    lines = gzip.decompress(log.read_bytes()).decode("utf-8").splitlines()
    in_log = sorted(json.loads(line)["run_id"] for line in lines if line.strip())
    assert sorted(scan.runs) == in_log and in_log  # a row per run, each with its anchor
    assert HOSTILE not in text and "<script>alert" not in text
    # Written outside mkdocs, its links are URLs, never .md files.
    assert ".md" not in "".join(h for h in scan.hrefs if not h.startswith("http"))


# A cell page is one 4 KB block (28,000 of them at ten 215-model editions): its rows grow with
# the cell's runs, the rest is the page's frame. A cell of the scale set has 15 runs.
BLOCK = 4096
RUNS = 15


@pytest.mark.slow
def test_a_cell_page_of_fifteen_runs_fits_one_block(built: Path) -> None:
    # The fixture's cells have two runs each, and its hostile edition the longest names: the
    # frame of each page, and its longest row fifteen times over, must fit.
    pages = sorted((built / "runs").glob("*/*/*/*/index.html"))
    measured = 0
    for page in pages:
        text = page.read_bytes()
        rows = [line for line in text.split(b"\n") if line.startswith(b"<tr id=run-")]
        if not rows:  # a cell without records
            continue
        measured += 1
        frame = len(text) - sum(len(row) + 1 for row in rows)
        assert frame + RUNS * (max(len(row) for row in rows) + 1) <= BLOCK, page
    assert measured >= 4


def test_the_scripts_constants_are_the_packages() -> None:
    # What the cell pages no longer carry, javascripts/drilldown.js holds: the texts' limits
    # (which cut the items page's texts the same way) and an infrastructure exclusion's status.
    import re

    from ledgerrate.publish import drilldown
    from ledgerrate.publish.render import SITE_SRC
    from ledgerrate.schema import RunStatus

    script = (SITE_SRC / "javascripts" / "drilldown.js").read_text("utf-8")
    limits = re.search(r"var LIMITS = \{ input: (\d+), answer: (\d+), tool: (\d+) \};", script)
    assert limits is not None
    shown = tuple(int(n) for n in limits.groups())
    assert shown == (drilldown.INPUT_LIMIT, drilldown.ANSWER_LIMIT, drilldown.TOOL_LIMIT)
    assert f'var INFRA = "{RunStatus.infra_excluded}";' in script


def _page(uri: str, content: str = "", source: Path | None = None) -> SimpleNamespace:
    file = SimpleNamespace(src_uri=uri, abs_src_path=str(source) if source else None)
    return SimpleNamespace(file=file, content=content)


def test_a_page_without_the_marker_is_left_to_markdown() -> None:
    raw = RawHtml()
    page = _page("index.md", "<h1>Title</h1>")
    assert raw.on_page_markdown("# Title\n\ntext\n", page) == "# Title\n\ntext\n"
    assert raw.on_page_context({"k": 1}, page) == {"k": 1}
    assert page.content == "<h1>Title</h1>"


def test_the_tail_is_put_back_and_a_lost_marker_stops_the_build(tmp_path: Path) -> None:
    raw = RawHtml()
    source = tmp_path / "index.md"
    text = f"# Runs\n\nintro\n{MARKER}\n<div>runs</div>\n"
    source.write_text(text)
    page = _page("runs/a/index.md", source=source)
    head = raw.on_page_markdown(text, page)
    assert "<div>runs</div>" not in head and "lr:raw-html 0" in head
    page.content = "<h1>Runs</h1>\n<!-- lr:raw-html 0 -->\n"
    raw.on_page_context({}, page)
    assert page.content == "<h1>Runs</h1>\n<div>runs</div>\n\n"
    raw.on_page_markdown(text, page)
    page.content = "<h1>Runs</h1>"
    with pytest.raises(RuntimeError, match="marker was lost"):
        raw.on_page_context({}, page)


def test_blocks_are_read_again_from_the_page_file_and_must_not_have_changed(
    tmp_path: Path,
) -> None:
    # Between the two events only a digest is held: the blocks come back from the file.
    raw = RawHtml()
    source = tmp_path / "index.md"
    text = f"# Runs\n{MARKER}\n<div>runs</div>\n"
    source.write_text(text)
    page = _page("runs/a/index.md", source=source)
    raw.on_page_markdown(text, page)
    source.write_text(text.replace("runs</div>", "other runs</div>"))
    page.content = "<h1>Runs</h1>\n<!-- lr:raw-html 0 -->\n"
    with pytest.raises(RuntimeError, match="changed during the build"):
        raw.on_page_context({}, page)


def test_a_link_with_character_references_is_checked_as_a_browser_reads_it() -> None:
    # Edition values are entity-escaped, slashes of their paths included (`&#47;`).
    files = {"data/a b/x.json"}
    html = '<a href="..&#47;data&#47;a%20b&#47;x.json">x</a> <a href="..&#47;data&#47;gone">y</a>'
    assert broken_links("runs/index.md", html, files.__contains__) == ["..&#47;data&#47;gone"]


def test_each_anchor_of_a_missing_page_is_reported_and_a_landing_one_is_not() -> None:
    # Targets are checked once per page, but every link written to a missing one is named.
    files = {"items/index.md"}
    html = (
        '<a href="../items/#i-1">1</a> <a href="../items/#i-2">2</a> '
        '<a href="../gone/#i-1">3</a> <a href="../gone/#i-2">4</a> <a href="#own">5</a>'
    )
    assert broken_links("runs/index.md", html, files.__contains__) == [
        "../gone/#i-1",
        "../gone/#i-2",
    ]


def test_a_folder_link_lands_on_a_page_or_on_a_plain_index_html() -> None:
    # A results table links each cell's runs at its folder URL; the cell page is the folder's
    # index.html, written outside mkdocs. A folder with neither is still a broken link.
    files = {"runs/e/w/m/single-shot/index.html", "workloads/w/index.md", "runs/e/w/m/x.html"}
    html = (
        '<a href="../../runs/e/w/m/single-shot/">15 runs</a> <a href="../w/">w</a> '
        '<a href="../../runs/e/w/m/agentic/">15 runs</a> <a href="../../runs/e/w/m/">m</a>'
    )
    assert broken_links("workloads/w/index.md", html, files.__contains__) == [
        "../../runs/e/w/m/agentic/",
        "../../runs/e/w/m/",
    ]


@given(st.text(alphabet=st.characters(exclude_characters="#"), max_size=40))
def test_a_link_taken_as_a_plain_path_is_the_path_urlsplit_finds(href: str) -> None:
    # raw_html skips urlsplit for plain relative links (most of a drill-down page's).
    if not _NOT_PLAIN.search(href):
        assert urlsplit(href).path == href
        assert not urlsplit(href).scheme and not urlsplit(href).netloc


@given(st.text(alphabet="&#4759;-/ax", max_size=30))
def test_a_link_is_decoded_as_html_unescape_decodes_it(written: str) -> None:
    assert _decoded(written) == unescape(written)
