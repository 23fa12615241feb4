"""The data page's list of sealed files: each file a seal names, where its exact bytes are, and
what sealed them (published.json at publication, or the erratum whose index line sealed the
bytes it corrected). Paths come from edition folder names, so each is escaped and checked."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from ledgerrate.publish.downloads import SealedDownload
from ledgerrate.publish.filelist import hash_html, size_text
from ledgerrate.publish.safe import segment


def _link(path: str) -> str:
    try:
        href = "/".join(segment(p) for p in path.split("/"))
    except ValueError:
        return escape(path)
    return f'<a href="{escape(href, quote=True)}">{escape(path)}</a>'


def _how(entry: SealedDownload) -> str:
    if entry.gzipped:
        note = f"gunzip: the first {entry.size:,} bytes are the sealed bytes"
        return note + (" (the log grew since: records appended)" if entry.grown else "")
    return "the file's bytes"


def sealed_html(entries: list[SealedDownload]) -> Markup:
    """One collapsible table (a raw HTML block: no blank line inside)."""
    if not entries:
        return Markup("")
    rows = "".join(
        f"<tr><td><code>{escape(e.name)}</code></td><td>{_link(e.path)}</td>"
        f"<td>{escape(_how(e))}</td><td>{size_text(e.size)}</td><td>{hash_html(e.sha256)}</td>"
        f"<td>{escape(e.sealed_by)}</td></tr>"
        for e in entries
    )
    return Markup(
        f'<details class="lr-files"><summary>Sealed files — {len(entries)}</summary>'
        "<table><thead><tr><th>Sealed file</th><th>Download</th><th>Sealed bytes</th>"
        "<th>Size</th><th>sha256</th><th>Sealed by</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></details>"
    )
