"""The mkdocs private API the engine uses is still there, as the engine uses it.

Two plug-ins of `ledgerrate/publish/engine/` reach past mkdocs' documented interface:
`parallel_pages.py` writes pages in forked children with `mkdocs.commands.build._build_page`,
and `shared_markdown.py` fills in what `Page.render` leaves on a page, the private
`Page._title_from_render` among it, instead of rendering. `pyproject.toml` bounds mkdocs to the
line these were written against; before the bound moves, this test names what a newer mkdocs
changed, in words that say which file to fix.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import mkdocs
import mkdocs.commands.build
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from ledgerrate.publish.engine import shared_markdown

PARALLEL = "ledgerrate/publish/engine/parallel_pages.py"
SHARED = "ledgerrate/publish/engine/shared_markdown.py"
# `_write_share` calls it with these five, positionally; any later parameter needs a default.
BUILD_PAGE_PARAMETERS = ("page", "config", "doc_files", "nav", "env")
# What `Page.render` leaves on a page: `shared_markdown._apply` sets exactly these instead.
RENDER_OUTPUTS = frozenset(
    {"content", "toc", "_title_from_render", "present_anchor_ids", "links_to_anchors"}
)


def _changed(file: str, api: str, found: str) -> str:
    return f"mkdocs {mkdocs.__version__} changed the private API {file} uses: {api} ({found})"


def build_page_problems(build_module: object) -> list[str]:
    api = "mkdocs.commands.build._build_page(page, config, doc_files, nav, env)"
    build_page = getattr(build_module, "_build_page", None)
    if not callable(build_page):
        return [_changed(PARALLEL, api, "no such function")]
    parameters = list(inspect.signature(build_page).parameters.values())
    names = tuple(p.name for p in parameters[: len(BUILD_PAGE_PARAMETERS)])
    rest = [p.name for p in parameters[len(BUILD_PAGE_PARAMETERS) :] if p.default is p.empty]
    if names != BUILD_PAGE_PARAMETERS or rest:
        return [_changed(PARALLEL, api, f"its signature is now {inspect.signature(build_page)}")]
    return []


def _rendered_page(tmp_path: Path, markdown: str) -> tuple[Page, set[str]]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(markdown, "utf-8")
    config = MkDocsConfig()
    config.load_dict({"site_name": "t", "docs_dir": str(docs), "site_dir": str(tmp_path / "s")})
    assert not config.validate()[0]
    file = File("index.md", str(docs), str(tmp_path / "s"), use_directory_urls=True)
    files = Files([file])
    page = Page(None, file, config)
    page.read_source(config)
    before = dict(vars(page))
    page.render(config, files)
    written = {k for k, v in vars(page).items() if k not in before or before[k] is not v}
    return page, written


def render_problems(page: Page, written: set[str], title: str) -> list[str]:
    api = f"Page.render leaves ({', '.join(sorted(RENDER_OUTPUTS))})"
    problems = []
    if written != RENDER_OUTPUTS:
        found = f"it now sets {sorted(written)}"
        problems.append(_changed(SHARED, api, found))
    if getattr(page, "_title_from_render", None) != title:
        problems.append(_changed(SHARED, "Page._title_from_render", "not the page's # title"))
    else:
        # The title the navigation shows is read back from it (`Page.title`).
        page._title_from_render = "Set by the engine"
        if page.title != "Set by the engine":
            problems.append(
                _changed(SHARED, "Page._title_from_render", "Page.title no longer reads it")
            )
    return problems


def test_build_page_is_called_as_mkdocs_defines_it() -> None:
    assert build_page_problems(mkdocs.commands.build) == []


def test_page_render_leaves_what_shared_markdown_fills_in(tmp_path: Path) -> None:
    page, written = _rendered_page(tmp_path, "# A title\n\nSome [text](#a-title).\n")
    # shared_markdown's own copy of a page's outputs reads the same private attribute.
    assert shared_markdown._Outputs.of(page).title == "A title"
    assert render_problems(page, written, "A title") == []


def test_a_changed_signature_is_named_with_the_file_that_uses_it() -> None:
    def moved(page, config, doc_files, nav, env, *, strict):
        """A newer mkdocs' writer with a required keyword."""

    class Newer:
        _build_page = staticmethod(moved)

    (message,) = build_page_problems(Newer)
    assert message.startswith(f"mkdocs {mkdocs.__version__} changed the private API {PARALLEL}")
    assert "mkdocs.commands.build._build_page(" in message and "strict" in message
    (gone,) = build_page_problems(object())
    assert "_build_page" in gone and "no such function" in gone


def test_a_render_that_sets_more_is_named_with_the_file_that_uses_it(tmp_path: Path) -> None:
    page, written = _rendered_page(tmp_path, "# A title\n")
    problems = render_problems(page, written | {"_new_output"}, "A title")
    assert problems and SHARED in problems[0] and "_new_output" in problems[0]
    # A title kept elsewhere: the attribute no longer holds the page's # title.
    (renamed,) = render_problems(page, written, "Another title")
    assert "Page._title_from_render" in renamed
