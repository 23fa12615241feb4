"""Markdown links between our pages. Targets are `index.md` files, so `mkdocs --strict`
checks every one of them; ids are validated as URL segments before they reach a link."""

from __future__ import annotations

from markupsafe import Markup

from ledgerrate.publish.safe import md_text, segment
from ledgerrate.schema import MANUAL_MODEL


def _link(text: object, target: str) -> Markup:
    return Markup(f"[{md_text(text)}]({target})")


def edition(edition_id: str, root: str, text: object | None = None) -> Markup:
    return _link(text or edition_id, f"{root}editions/{segment(edition_id)}/index.md")


def edition_section(edition_id: str, anchor: str, root: str, text: object) -> Markup:
    """A heading of an edition's page (`re-price`: its panel for every workload)."""
    return _link(text, f"{root}editions/{segment(edition_id)}/index.md#{segment(anchor)}")


def edition_href(edition_id: str, root: str) -> Markup:
    """An edition page's URL for an `href` of our own HTML, with no character reference in it:
    Zensical indexes a `<noscript>` block's HTML as text, so `2026&#45;12` there reached its
    search index escaped a second time."""
    return Markup(f"{root}editions/{segment(edition_id)}/")


def workload(workload_id: str, root: str, text: object | None = None) -> Markup:
    return _link(text or workload_id, f"{root}workloads/{segment(workload_id)}/index.md")


def heading_anchor(heading: str) -> str:
    """The id markdown's `toc` gives a heading of this text (an edition id may hold `.`, which
    the id drops): a link to it must be that id, which `mkdocs --strict` checks."""
    from markdown.extensions.toc import slugify

    return slugify(heading, "-")


def workload_section(workload_id: str, anchor: str, root: str, text: object) -> Markup:
    """A heading of a workload's page (`heading_anchor("Edition <id>")`: an edition's results)."""
    return _link(text, f"{root}workloads/{segment(workload_id)}/index.md#{segment(anchor)}")


def workload_edition(
    workload_id: str, edition_id: str, root: str, text: object | None = None
) -> Markup:
    """One edition's results of a workload: a page of its own for every edition but the
    newest, whose results are on the workload's page (and whose page here points there)."""
    target = f"{root}workloads/{segment(workload_id)}/{segment(edition_id)}/index.md"
    return _link(text or f"{workload_id} in edition {edition_id}", target)


def primitive(name: str, root: str, text: object | None = None) -> Markup:
    return _link(text or name, f"{root}primitives/{segment(name)}/index.md")


def model(model_id: str, root: str, text: object | None = None) -> Markup:
    if model_id == MANUAL_MODEL:  # the manual arm is no model: its page is the method's
        return _link(text or "by hand (analyst)", f"{root}methodology/1.0/manual-arm.md")
    return _link(text or model_id, f"{root}models/{segment(model_id)}/index.md")


def data(edition_id: str, root: str, text: object | None = None) -> Markup:
    return _link(text or f"data of {edition_id}", f"{root}data/{segment(edition_id)}/index.md")


def erratum(erratum_id: str, root: str, text: object | None = None) -> Markup:
    return _link(text or f"erratum {erratum_id}", f"{root}errata/{segment(erratum_id)}/index.md")


def methodology(version: str, root: str, available: set[str]) -> Markup:
    """Methodology pages are hand-written; link only to a version that is in the build."""
    if version in available:
        return _link(f"methodology v{version}", f"{root}methodology/{segment(version)}/index.md")
    return md_text(f"methodology v{version} (its pages are not part of this build)")


def _file_target(path: str) -> str | None:
    # Paths come from edition folder names, so an unsafe one is shown, never linked.
    try:
        return "/".join(segment(p) for p in path.split("/"))
    except ValueError:
        return None


def file(path: str, root_rel: str, text: object | None = None) -> Markup:
    """A download, as a markdown link."""
    safe = _file_target(path)
    return md_text(text or path) if safe is None else _link(text or path, f"{root_rel}{safe}")


def file_html(path: str, root_rel: str, text: object | None = None) -> Markup:
    """A download, as an HTML link (inside a raw HTML block, where markdown links stay text)."""
    safe = _file_target(path)
    shown = md_text(text or path)
    return shown if safe is None else Markup(f'<a href="{root_rel}{safe}">{shown}</a>')


def compare(edition_id: str, root: str, text: object | None = None) -> Markup:
    return _link(text or "compare models", f"{root}compare/{segment(edition_id)}/index.md")
