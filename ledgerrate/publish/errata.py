"""Errata: which published figures a correction touched, and the Atom feed.

Corrections are loud (standard §7): a corrected figure is shown beside its superseded value
struck through, a withdrawn one keeps a tombstone, and every affected page carries the note.
"""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish.load import Edition
from ledgerrate.publish.safe import md_text, segment
from ledgerrate.schema import AffectedFigure, Erratum

ATOM = "http://www.w3.org/2005/Atom"
FigureKey = tuple[str | None, str | None, str | None, str]


@dataclass(frozen=True)
class Note:
    edition: str
    erratum: Erratum


def all_errata(editions: list[Edition]) -> list[Note]:
    """Every erratum, newest first. Ids are URLs, so two editions may not share one."""
    notes: list[Note] = []
    seen: dict[str, str] = {}
    for edition in editions:
        for entry in edition.errata.entries if edition.errata else []:
            if entry.id in seen:
                raise UsageProblem(
                    f"erratum id {entry.id} appears in editions {seen[entry.id]} and "
                    f"{edition.id}; ids are permanent URLs and must be unique"
                )
            seen[entry.id] = edition.id
            notes.append(Note(edition.id, entry))
    return sorted(notes, key=lambda n: (n.erratum.date, n.erratum.id), reverse=True)


def natural_key(erratum_id: str) -> list[Any]:
    """2026-12-01-9 before 2026-12-01-10: runs of digits compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", erratum_id)]


def by_edition(notes: list[Note]) -> list[tuple[str, list[Note]]]:
    """Errata grouped by edition, newest edition first, each edition's in number order."""
    groups: dict[str, list[Note]] = defaultdict(list)
    for note in notes:
        groups[note.edition].append(note)
    return [
        (edition, sorted(found, key=lambda n: natural_key(n.erratum.id)))
        for edition, found in sorted(groups.items(), key=lambda g: natural_key(g[0]), reverse=True)
    ]


def corrections(edition: Edition) -> dict[FigureKey, list[tuple[Erratum, AffectedFigure]]]:
    found: dict[FigureKey, list[tuple[Erratum, AffectedFigure]]] = defaultdict(list)
    for entry in edition.errata.entries if edition.errata else []:
        for fig in entry.figures:
            mode = str(fig.mode) if fig.mode is not None else None
            found[(fig.workload, fig.model, mode, fig.field)].append((entry, fig))
    return dict(found)


def touches(entry: Erratum, *, workload: str | None = None, model: str | None = None) -> bool:
    """Does an erratum concern this workload/model page? An erratum naming no figure concerns
    the whole edition, so it is shown everywhere the edition is."""
    if not entry.figures:
        return True
    return any(
        (workload is None or fig.workload in (None, workload))
        and (model is None or fig.model in (None, model))
        for fig in entry.figures
    )


def erratum_link(entry: Erratum, root: str) -> Markup:
    return Markup(f"[erratum {entry.id}]({root}errata/{segment(entry.id)}/index.md)")


def figure(
    shown: str,
    key: FigureKey,
    fixes: dict[FigureKey, list[tuple[Erratum, AffectedFigure]]],
    root: str,
) -> Markup:
    """A figure with its correction history: superseded values struck through (`<del>`)."""
    history = fixes.get(key, [])
    if not history:
        return md_text(shown)
    parts = []
    for entry, fig in history:
        parts.append(f"<del>{md_text(fig.old)}</del>")
        if fig.new is None:
            parts.append(f"withdrawn ({erratum_link(entry, root)})")
        else:
            parts.append(f"corrected ({erratum_link(entry, root)})")
    if all(fig.new is not None for _, fig in history):
        parts.append(str(md_text(shown)))
    return Markup(" ".join(parts))


def atom_feed(notes: list[Note], updated: dt.datetime, brand: str) -> bytes:
    """A valid Atom 1.0 feed of every erratum. Built with ElementTree so all text is escaped."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}id").text = "tag:ledgerrate,2026:errata"
    ET.SubElement(feed, f"{{{ATOM}}}title").text = f"{brand} errata"
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = updated.isoformat()
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = brand
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href="errata.xml")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", href="errata/")
    for note in notes:
        e = note.erratum
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        ET.SubElement(entry, f"{{{ATOM}}}id").text = f"tag:ledgerrate,{e.date}:errata/{e.id}"
        ET.SubElement(entry, f"{{{ATOM}}}title").text = f"{note.edition}: {e.title}"
        stamp = dt.datetime.combine(e.date, dt.time(0, 0), tzinfo=dt.UTC).isoformat()
        ET.SubElement(entry, f"{{{ATOM}}}updated").text = stamp
        ET.SubElement(entry, f"{{{ATOM}}}link", rel="alternate", href=f"errata/{e.id}/")
        summary = f"{e.what_changed}\n\nWhy: {e.why}"
        ET.SubElement(entry, f"{{{ATOM}}}summary", type="text").text = summary
    ET.indent(feed)
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True) + b"\n"
