"""Full builds of small fixture editions: every page type, strict mkdocs, and hostile text."""

from __future__ import annotations

import gzip
import hashlib
import html
import html.parser
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypdf import PdfReader

from ledgerrate.publish import load as load_mod
from ledgerrate.publish.build import build_site
from ledgerrate.schema import EditionResults
from tests.publish.factory import PAYLOADS, WL, write_edition

pytestmark = pytest.mark.slow

ERRATUM = {
    "id": "2026-07-09",
    "date": "2026-07-09",
    "title": "Small model spend re-priced",
    "what_changed": "Cached tokens were billed at the input price.",
    "why": "The frozen table lists a cached-input price.",
    "figures": [
        {
            "workload": WL,
            "model": "small",
            "mode": "single-shot",
            "field": "cpo_usd",
            "old": "$0.0040",
            "new": "$0.0030",
        },
        {
            "workload": WL,
            "model": "big",
            "mode": "single-shot",
            "field": "spend_usd",
            "old": "$0.50",
            "new": None,
        },
    ],
    "withdrawn": True,
}


def _use(monkeypatch: pytest.MonkeyPatch, fixtures: dict[str, EditionResults]) -> None:
    # Hand-built results stand in for the metrics stage: the figures under test are known.
    monkeypatch.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])


class _Scan(html.parser.HTMLParser):
    """Collects what would be live in a browser: elements, attributes, link targets."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        # `<script type="application/json">`: data a page's own script reads, never run.
        self.data: list[str] = []
        self.handlers: list[str] = []
        self.hrefs: list[str] = []
        self._in_script = False
        self._in_data = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kind = dict(attrs).get("type") or ""
        self._in_data = tag == "script" and kind == "application/json"
        self._in_script = tag == "script" and not self._in_data
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(f"{tag} {name}={value}")
            if name in {"href", "src", "action", "formaction"} and value:
                self.hrefs.append(value)

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.scripts.append(data)
        if self._in_data and data.strip():
            self.data.append(data)


def _read(path: Path) -> str:
    """Page text as a reader sees it: character references decoded (tags are left alone)."""
    return html.unescape(path.read_text("utf-8"))


def _pages(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text("utf-8") for p in site.rglob("*.html")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("editions")
    fixtures = {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(
            root, "2026-07", "2026-07-01", hostile=True, errata=[ERRATUM], release_seeds=True
        ),
    }
    out = tmp_path_factory.mktemp("build")
    with pytest.MonkeyPatch.context() as mp:
        _use(mp, fixtures)
        site = build_site(root, out)
    return site


def test_every_page_type_is_built(built: Path) -> None:
    for rel in [
        "index.html",
        "editions/2026-07/index.html",
        "editions/2026-04/index.html",
        f"workloads/{WL}/index.html",
        "models/small/index.html",
        "models/ref/index.html",
        "data/2026-07/index.html",
        "errata/2026-07-09/index.html",
        "errata/index.html",
        "errata.xml",
        "data/2026-07/ratecard.pdf",
        f"workloads/{WL}/trend.svg",
        f"workloads/{WL}/cost-vs-pass-2026-07.svg",
    ]:
        assert (built / rel).is_file(), rel
    assert not (built.parent / "docs" / ".render").exists()
    assert not list(built.parent.glob(".staging-*")), "staging folder left behind"


def test_home_is_the_latest_rate_card(built: Path) -> None:
    home = _read(built / "index.html")
    assert "Rate card — edition 2026-07" in home
    # The term's first use on the page links to the glossary.
    pass_rate = '<a class="lr-term" href="glossary/#pass-rate">pass rate</a>'
    assert f"{pass_rate} of at least <strong>0.80</strong>" in home
    assert "$3.00" in home  # 0.039 / 13 × 1000: the fixture's cheapest qualifying rate
    # The flagship's spend is withdrawn by the fixture's erratum, and its CPO (spend ÷ passes)
    # with it: no flagship rate may be printed from a withdrawn figure.
    assert "$30.00" not in home and "<em>withdrawn</em>" in home
    assert "no flagship evaluated" not in home  # the flagship was evaluated
    assert "Reference baselines" in home and "never ranked" in home
    assert "not quotes, offers or guarantees" in home  # the card's disclaimer, as in the PDF
    assert "LedgerRate · methodology v1.0 · edition 2026-07 · 2026-07-01" in home
    assert 'href="data/2026-07/ratecard.pdf"' in home


def test_reference_only_edition_says_so_everywhere(built: Path) -> None:
    for rel in ["editions/2026-04/index.html", "data/2026-04/index.html"]:
        assert "no language model was called" in _read(built / rel), rel
    workload = _read(built / f"workloads/{WL}/index.html")
    assert "no language model was called" in workload


def test_workload_page_figures(built: Path) -> None:
    page = _read(built / f"workloads/{WL}/index.html")
    assert "small sample: n = 15" in page
    assert "no successful outcome" in page  # the 0-pass agentic cell
    assert "Routing verdict: inconclusive" in page and "would settle it" in page
    assert "not pooled" in page  # other sittings of the flagship cell
    assert "full manual regrade" in page
    assert "<del>$0.0040</del>" in page and "corrected" in page
    assert "<del>$0.50</del> withdrawn" in page  # a tombstone, not a silent gap
    assert 'alt="' in page


def test_downloads_and_checksums(built: Path) -> None:
    data = built / "data" / "2026-07"
    sums = (data / "SHA256SUMS").read_text("utf-8").splitlines()
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in sums}
    for rel in [
        "results.json",
        "results.csv",
        "ratecard.pdf",
        f"runs/{WL}/small/single-shot.jsonl.gz",
        "schemas/run-record.schema.json",
    ]:
        assert rel in listed, rel
    for rel, digest in listed.items():
        assert hashlib.sha256((data / rel).read_bytes()).hexdigest() == digest, rel
    raw = gzip.decompress((data / f"runs/{WL}/small/single-shot.jsonl.gz").read_bytes())
    assert raw.count(b"\n") == 2
    EditionResults.model_validate_json((data / "results.json").read_text("utf-8"))
    page = _read(data / "index.html")
    assert "✓ matches" in page


def test_errata_feed_is_atom(built: Path) -> None:
    tree = ET.parse(built / "errata.xml")
    ns = {"a": "http://www.w3.org/2005/Atom"}
    root = tree.getroot()
    assert root.tag == "{http://www.w3.org/2005/Atom}feed"
    for required in ("a:id", "a:title", "a:updated"):
        assert root.find(required, ns) is not None
    entries = root.findall("a:entry", ns)
    assert len(entries) == 1
    assert entries[0].find("a:title", ns).text.endswith("Small model spend re-priced")
    edition = _read(built / "editions/2026-07/index.html")
    assert "erratum 2026-07-09" in edition
    assert "erratum 2026-07-09" in _read(built / "models/small/index.html")


def test_hostile_text_is_never_live(built: Path) -> None:
    passwd = Path("/etc/passwd").read_text("utf-8").splitlines()
    for rel, text in _pages(built).items():
        scan = _Scan()
        scan.feed(text)
        for body in scan.scripts:
            assert "alert" not in body, f"{rel}: live script {body[:80]!r}"
        # A data element holding hostile text is inert only if that text cannot end it early:
        # the whole element must still parse as the JSON the page wrote.
        for body in scan.data:
            assert "</" not in body, f"{rel}: a data script could be closed early: {body[:80]!r}"
            json.loads(body)
        assert not scan.handlers, f"{rel}: event handler attributes {scan.handlers}"
        for target in scan.hrefs:
            assert not target.strip().lower().startswith("javascript:"), f"{rel}: {target}"
        assert "root:x:0:0" not in text and passwd[0] not in text, rel
    # The payloads are still there, shown as text: escaped, not dropped.
    shown = _read(built / f"workloads/{WL}/index.html")
    for payload in PAYLOADS:
        for line in payload.splitlines():
            assert line in shown, line


def test_the_build_and_the_render_find_the_editions_in_one_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`publish.load.edition_dirs` is the one finder, asked once per build: the build's figures
    step and the render both take the editions from it, so a folder it leaves out is neither
    figured nor paged."""
    root = tmp_path / "editions"
    fixtures = {
        "2026-07": write_edition(root, "2026-07", "2026-07-01"),
        "2026-08": write_edition(root, "2026-08", "2026-08-01"),
    }
    _use(monkeypatch, fixtures)
    (root / "notes").mkdir()  # no edition.yaml: not an edition
    (root / "README.md").write_text("not an edition", "utf-8")
    assert [p.name for p in load_mod.edition_dirs(root)] == ["2026-07", "2026-08"]
    every = load_mod.edition_dirs
    asked: list[Path] = []

    def first_only(editions: Path) -> list[Path]:
        asked.append(editions)
        return every(editions)[:1]

    monkeypatch.setattr(load_mod, "edition_dirs", first_only)
    site = build_site(root, tmp_path / "out")
    assert asked == [root.resolve()]
    assert (site / "editions" / "2026-07" / "index.html").is_file()
    assert not (site / "editions" / "2026-08").exists()
    assert not (site / "data" / "2026-08").exists()


def test_failed_mkdocs_publishes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ledgerrate.core.errors import UsageProblem
    from ledgerrate.publish.engine import run as engine_run

    root = tmp_path / "editions"
    fixtures = {"2026-07": write_edition(root, "2026-07", "2026-07-01")}
    _use(monkeypatch, fixtures)
    out = tmp_path / "out"
    (out / "site").mkdir(parents=True)
    (out / "site" / "index.html").write_text("previous site", "utf-8")

    def broken(docs: Path, site: Path, **_: object) -> None:
        raise UsageProblem("mkdocs: simulated strict warning")

    monkeypatch.setattr(engine_run, "run_mkdocs", broken)
    with pytest.raises(UsageProblem):
        build_site(root, out)
    assert (out / "site" / "index.html").read_text("utf-8") == "previous site"
    assert not (out / "docs").exists()
    assert not list(out.glob(".staging-*"))
    assert not (root / "2026-07" / "published.json").exists()


@pytest.mark.slow
def test_open_window_is_provisional_and_not_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before its window closes an edition is shown as provisional and no publication is
    recorded; once closed, the next build records results.json and published.json."""
    from ledgerrate.publish import load as load_mod

    root = tmp_path / "editions"
    fixtures = {"2026-07": write_edition(root, "2026-07", "2026-07-01")}
    _use(monkeypatch, fixtures)
    out = tmp_path / "out"
    monkeypatch.setattr(load_mod, "window_closed", lambda manifest, now=None: False)
    build_site(root, out)
    home = _read(out / "site" / "index.html")
    # An unfinished edition never takes over the home page: it lives on its own page.
    assert "No edition has been published yet" in home and "(provisional)" in home
    assert "Provisional." in _read(out / "site" / "editions" / "2026-07" / "index.html")
    card = PdfReader(out / "site" / "data" / "2026-07" / "ratecard.pdf").pages[0].extract_text()
    assert "PROVISIONAL" in card
    assert not (root / "2026-07" / "published.json").exists()
    monkeypatch.setattr(load_mod, "window_closed", lambda manifest, now=None: True)
    build_site(root, out)
    assert "Provisional." not in _read(out / "site" / "index.html")
    assert "Rate card — edition 2026-07" in _read(out / "site" / "index.html")
    assert (root / "2026-07" / "published.json").exists()
    assert (root / "2026-07" / "results.json").exists()


def test_corrected_results_mark_each_erratum_and_agree_with_the_csv(built: Path) -> None:
    import csv
    import json

    data = built / "data" / "2026-07"
    sealed = (data / "results.json").read_bytes()
    fixed = json.loads((data / "results-corrected.json").read_text("utf-8"))
    assert fixed["sealed_sha256"] == hashlib.sha256(sealed).hexdigest()
    assert fixed["errata"] == ["2026-07-09"]
    marks = {(c["model"], c["field"]): c for c in fixed["corrections"]}
    assert marks[("big", "spend_usd")]["status"] == "withdrawn"
    assert marks[("big", "spend_usd")]["as_published"] == "0.42"  # the sealed figure
    assert marks[("small", "cpo_usd")]["status"] == "corrected"
    [workload] = fixed["results"]["workloads"]
    big = next(c for c in workload["cells"] if c["model"] == "big")
    assert big["spend_usd"] is None and big["cpo_usd"] is None
    assert any("erratum 2026-07-09" in flag for flag in big["flags"])
    # the CSV carries the same figures as the corrected file
    rows = list(csv.DictReader((data / "results.csv").read_text("utf-8").splitlines()))
    for cell in workload["cells"]:
        row = next(r for r in rows if (r["model"], r["mode"]) == (cell["model"], cell["mode"]))
        for field in ("pass_rate", "cpo_usd", "spend_usd"):
            value = cell[field]
            assert row[field] == ("" if value is None else str(value)), (cell["model"], field)
    page = _read(data / "index.html")
    assert "as first published" in page and "as corrected" in page
