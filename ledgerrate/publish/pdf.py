"""The printed rate card: one A4 page, the same content as the home page (standard §6).

Rendering is locked down: the URL fetcher serves only files inside the template asset folder and
refuses every other URL (network, `file:` elsewhere, `data:`), so nothing in an edition can make
the renderer fetch anything. The PDF is tagged (PDF/UA-1) and embeds its fonts.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlparse

import jinja2
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from ledgerrate.io import atomic_write_bytes
from ledgerrate.publish import fmt
from ledgerrate.publish.fmt import rate_of
from ledgerrate.schema import EditionManifest, EditionResults, RateLine

ASSETS = Path(__file__).resolve().parents[2] / "templates" / "pdf"
DISCLAIMER = (
    "These rates are measurements of what the listed models cost to do each job to the stated "
    "quality bar under the LedgerRate methodology, with prices frozen at the start of the "
    "edition window. They are not quotes, offers or guarantees; your own volumes, prompts, "
    "prices and quality needs will give different figures."
)


class RefusingFetcher(URLFetcher):
    """Serves files from one folder and refuses everything else."""

    def __init__(self, root: Path) -> None:
        super().__init__(allowed_protocols={"file"})
        self.root = root.resolve()
        self.refused: list[str] = []

    def fetch(self, url: str, headers: dict[str, str] | None = None) -> URLFetcherResponse:
        parsed = urlparse(url)
        if parsed.scheme == "file" and not parsed.netloc:
            path = Path(unquote(parsed.path)).resolve()
            if path.is_file() and self.root in path.parents:
                kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                return URLFetcherResponse(
                    url, body=path.read_bytes(), headers={"Content-Type": kind}
                )
        self.refused.append(url)
        raise ValueError(f"refused by the rate-card renderer: {url}")


def footer_text(brand: str, methodology: str, date: str) -> str:
    return f"{brand} · methodology v{methodology} · {date}"


def _rate(line: RateLine | None, none_text: str, volume: int) -> str:
    if line is None:
        return none_text
    return (
        f"{rate_of(line, volume)} — {line.model_name} ({line.mode.value}), "
        f"pass rate {line.pass_rate:.2f}"
    )


def ratecard_context(results: EditionResults, manifest: EditionManifest) -> dict:
    lines, references = [], []
    n = max((c.n for w in results.workloads for c in w.cells), default=15) or 15
    for workload in results.workloads:
        flagship = _rate(workload.flagship, "no flagship evaluated", workload.volume)
        if workload.flagship is not None and workload.flagship_note:
            flagship += f" ({workload.flagship_note})"
        no_model = "no qualifying model" + (
            " (no language model evaluated)" if results.reference_only else ""
        )
        lines.append(
            {
                "job": workload.unit,
                "workload": workload.workload,
                "volume": f"{workload.volume:,}",
                "rate": _rate(workload.cheapest_qualifying, no_model, workload.volume),
                "flagship": flagship,
            }
        )
        for cell in workload.cells:
            if not cell.is_reference or cell.void:
                continue
            ref = workload.reference
            priced = ref is not None and (ref.model, ref.mode) == (cell.model, cell.mode)
            references.append(
                {
                    "job": workload.unit,
                    "pass_rate": fmt.pass_rate(cell),
                    "rate": rate_of(ref, workload.volume) if priced else fmt.cpo(cell),
                    "basis": cell.cost_basis,
                }
            )
    date = results.date.isoformat()
    return {
        "brand": results.brand,
        "edition": results.edition,
        "date": date,
        "methodology": results.methodology_version,
        "reference_only": results.reference_only,
        "quality_bar": results.quality_bar,
        "bar_items": int(-(-results.quality_bar * n // 1)),
        "n": n,
        "lines": lines,
        "references": references,
        "disclaimer": DISCLAIMER,
        "footer": footer_text(results.brand, results.methodology_version, date),
        "stylesheet": (ASSETS / "ratecard.css").as_uri(),
    }


def render_ratecard_html(results: EditionResults, manifest: EditionManifest) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(ASSETS),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("ratecard.html.j2").render(**ratecard_context(results, manifest))


def render_ratecard_pdf(results: EditionResults, manifest: EditionManifest, out: Path) -> Path:
    """Write the edition's rate card PDF to `out` atomically and return its path."""
    fetcher = RefusingFetcher(ASSETS)
    document = HTML(
        string=render_ratecard_html(results, manifest),
        base_url=ASSETS.as_uri() + "/",
        url_fetcher=fetcher,
    )
    pdf = document.write_pdf(pdf_variant="pdf/ua-1", pdf_tags=True, uncompressed_pdf=False)
    atomic_write_bytes(out, pdf)
    return out
