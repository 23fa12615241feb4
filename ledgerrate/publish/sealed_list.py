"""The data page's list of sealed files: each file a seal names, where its exact bytes are, and
what sealed them (published.json at publication, or the erratum whose index line sealed the
bytes it corrected). Paths come from edition folder names, so each is escaped and checked.

The logs and request strings published.json sealed as they still are (two logs per cell, about
6,000 files in a 215-model edition) are counted per folder, not listed: their sealed sha256 and
size are published.json's, which is published beside them, and each log is linked from its
cell's runs page. A log that grew since, and every file an erratum sealed, is still listed."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from ledgerrate.core.layout import PUBLISHED
from ledgerrate.publish.downloads import SealedDownload
from ledgerrate.publish.filelist import folder_counts, hash_html, size_text
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


# Folders whose files published.json sealed are counted, not listed (see above).
_COUNTED = ("runs", "grades", "probes", "bodies")


def _counted(entry: SealedDownload) -> bool:
    return entry.sealed_by == PUBLISHED and not entry.grown and entry.name.split("/")[0] in _COUNTED


def _counts(entries: list[SealedDownload]) -> str:
    return folder_counts(
        ((e.name, e.size) for e in entries), "Sealed by published.json, as sealed", "Sealed size"
    )


def sealed_html(entries: list[SealedDownload]) -> Markup:
    """The folders counted, then one collapsible table of the files listed (raw HTML blocks: no
    blank line inside)."""
    if not entries:
        return Markup("")
    counted = [e for e in entries if _counted(e)]
    entries = [e for e in entries if not _counted(e)]
    blocks = [_counts(counted)] if counted else []
    rows = "".join(
        f"<tr><td><code>{escape(e.name)}</code></td><td>{_link(e.path)}</td>"
        f"<td>{escape(_how(e))}</td><td>{size_text(e.size)}</td><td>{hash_html(e.sha256)}</td>"
        f"<td>{escape(e.sealed_by)}</td></tr>"
        for e in entries
    )
    blocks.append(
        '<details class="lr-files"><summary>Sealed files listed one by one — '
        f"{len(entries)}</summary>"
        "<table><thead><tr><th>Sealed file</th><th>Download</th><th>Sealed bytes</th>"
        "<th>Size</th><th>sha256</th><th>Sealed by</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></details>"
    )
    return Markup("\n\n".join(blocks))
