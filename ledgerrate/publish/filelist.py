"""The data page's file list: per-cell logs summarised per folder, the rest grouped, short hashes.

An edition has hundreds of downloads; one table row per file with a full sha256 wrapped over
eight lines made the page ~43,000 px tall. Files are grouped (edition files, then datasets,
schemas and the bytes behind each sealed hash), each group a `<details>` block; a hash shows its
first 12 hex digits and copies in full on click (SHA256SUMS has all). The run and grade logs
(two per cell) and the request strings in `bodies/` are summarised per folder instead of listed:
a 215-model edition has about 6,000 of them, 5.9 MB of page per edition listed. Each log is
linked from its cell's runs page, each body is named by its sha256, and SHA256SUMS lists every
one with its hash. Paths come from edition folder names, so every one is escaped and checked as
URL segments.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

from ledgerrate.publish.downloads import Download
from ledgerrate.publish.safe import segment

SHORT = 12


@dataclass(frozen=True)
class Group:
    key: tuple[int, str]
    title: str
    files: list[Download]

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


def size_text(size: int) -> str:
    if size < 1000:
        return f"{size} B"
    for unit in ("kB", "MB", "GB"):
        size_f = size / 1000
        if size_f < 1000 or unit == "GB":
            return f"{size_f:.1f} {unit}"
        size = int(size_f)
    return f"{size} B"


# Summarised, not listed: (group key prefix, the folder's row title).
_SUMMARISED = 1  # a cell's run and grade logs
_BODIES = (5, "bodies")


def _group_of(path: str) -> tuple[tuple[int, str], str]:
    parts = path.split("/")
    if parts[0] == "bodies" and len(parts) == 2:
        return _BODIES, "request strings, each named by its sha256"
    if parts[0] in ("runs", "grades") and len(parts) == 4:
        workload, model, mode = parts[1], parts[2], parts[3].split(".")[0]
        return (1, f"{workload}/{model}/{mode}"), f"{workload} · {model} · {mode}"
    if parts[0] == "datasets" and len(parts) >= 3:
        return (2, parts[1]), f"dataset files · {parts[1]}"
    if parts[0] == "schemas":
        return (3, "schemas"), "JSON Schemas of every file"
    if parts[0] == "hashed" and len(parts) >= 4 and parts[1] == "workloads":
        return (4, f"hashed/{parts[2]}"), f"hashed source · {parts[2]}"
    if parts[0] == "hashed":
        return (4, "hashed"), "canonical JSON of edition_hash, pricing_hash and each erratum"
    if parts[0] == "spotchecks":
        return (0, "spotchecks"), "spot-check sheets"
    return (0, "edition"), "edition files, results and rate card"


def group_files(files: list[Download]) -> list[Group]:
    found: dict[tuple[int, str], list[Download]] = defaultdict(list)
    titles: dict[tuple[int, str], str] = {}
    for f in files:
        key, title = _group_of(f.path)
        found[key].append(f)
        titles[key] = title
    return [
        Group(key, titles[key], sorted(found[key], key=lambda f: f.path)) for key in sorted(found)
    ]


def _href(path: str) -> str | None:
    try:
        return "/".join(segment(p) for p in path.split("/"))
    except ValueError:
        return None


def hash_html(sha256: str) -> str:
    full = escape(sha256, quote=True)
    return (
        f'<code class="lr-hash" title="sha256 {full} (click to copy)" data-copy="{full}">'
        f"{escape(sha256[:SHORT])}…</code>"
    )


def _row(f: Download) -> str:
    href = _href(f.path)
    name = escape(f.path)
    link = f'<a href="{escape(href, quote=True)}">{name}</a>' if href else name
    return f"<tr><td>{link}</td><td>{size_text(f.size)}</td><td>{hash_html(f.sha256)}</td></tr>"


def folder_counts(files: Iterable[tuple[str, int]], heading: str, size_heading: str) -> str:
    """One row per folder (`runs/<workload>/`, `bodies/`) of the (path, size) pairs given: how
    many files it holds and their size, for pages that count per-cell files instead of listing
    them."""
    folders: dict[str, list[int]] = defaultdict(list)
    for path, size in files:
        folders["/".join(path.split("/")[:-1][:2]) + "/"].append(size)
    rows = "".join(
        f"<tr><td><code>{escape(folder)}</code></td><td>{len(sizes)}</td>"
        f"<td>{size_text(sum(sizes))}</td></tr>"
        for folder, sizes in sorted(folders.items())
    )
    return (
        f'<table class="lr-folders"><thead><tr><th>{heading}</th><th>Files</th>'
        f"<th>{size_heading}</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _summary(groups: list[Group]) -> str:
    """One row per folder of summarised files (a workload's run logs, its grade logs, bodies);
    a cell's group holds its run log and its grade log."""
    return folder_counts(
        ((f.path, f.size) for group in groups for f in group.files), "Folder", "Size"
    )


def files_html(files: list[Download]) -> Markup:
    """Raw HTML blocks (no blank line inside, so markdown leaves them alone): the summary of the
    per-cell logs and bodies first, then each other group."""
    groups = group_files(files)
    summarised = [g for g in groups if g.key[0] == _SUMMARISED or g.key == _BODIES]
    blocks = [_summary(summarised)] if summarised else []
    for group in groups:
        if group.key[0] == _SUMMARISED or group.key == _BODIES:
            continue
        opened = " open" if group.key == (0, "edition") else ""
        count = f"{len(group.files)} file{'s' if len(group.files) != 1 else ''}"
        rows = "".join(_row(f) for f in group.files)
        blocks.append(
            f'<details class="lr-files"{opened}><summary>{escape(group.title)} — {count}, '
            f"{size_text(group.size)}</summary>"
            "<table><thead><tr><th>File</th><th>Size</th><th>sha256</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></details>"
        )
    return Markup("\n\n".join(blocks))
