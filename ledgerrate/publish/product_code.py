"""Which code makes each kind of build product, so that a product is keyed by that code alone.

A product's cache key holds `BuildCache.code(kind)`, the digest of:
- the source of the modules named for its kind below and of every `ledgerrate` module they
  import, found by reading their import statements (an import inside a function counts, so a
  renderer imported lazily is still part of its product's code; one under `if TYPE_CHECKING:`
  does not, as it never runs: a type named only in annotations brings no code into the key),
  with each imported module's parent packages (importing a module runs their `__init__.py`);
- the files under `ledgerrate/site/` it reads (templates, CSS), named below; files there that a
  kind does not name cannot change its products;
- folders named below whose modules are reached without an import statement the scan can read
  (the workloads' catalogue);
- the versions of the third-party distributions those modules import, and Python's version.

So a change to one page template remakes only the products rendered from that template (the
pages that read it, `publish/page_products.py`); a change to the gzip code remakes the gzips,
one to the rate card's PDF code the rate cards. Before, every product was keyed by the digest
of the whole toolchain, and any upgrade was a cold build (15 minutes at ten 215-model
editions).

A module missing from this table costs nothing but correctness, so `tests/publish/
test_product_code.py` checks that every module named exists, that every kind the build makes is
named here, and which products a template-only change remakes.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProductCode:
    modules: tuple[str, ...]  # the modules whose functions make the product
    site: tuple[str, ...] = ()  # files or folders under `ledgerrate/site/` it reads
    trees: tuple[str, ...] = ()  # package folders reached without an import statement
    libraries: tuple[str, ...] = ()  # distributions it uses without importing them by name
    # Modules that make this kind's products and nothing else: other kinds' code stops there,
    # though their modules import them (the downloads import the gzip code to place the gzips).
    own: tuple[str, ...] = ()


_WORKLOADS = ("workloads", "synth")
_DRILLDOWN = ProductCode(
    ("ledgerrate.publish.drilldown", "ledgerrate.publish.pages"),
    site=("templates/run_cell.html.j2", "templates/run_items.md.j2", "templates/_macros.md.j2"),
    libraries=("jinja2",),
)

PRODUCTS: dict[str, ProductCode] = {
    # an edition's figures (`publish/build.py`) and the example lines its pages show
    "results": ProductCode(("ledgerrate.publish.load",), trees=_WORKLOADS),
    "examples": ProductCode(("ledgerrate.publish.load",)),
    # downloads (`publish/downloads.py`)
    "gzip": ProductCode(("ledgerrate.publish.log_gzip",), own=("ledgerrate.publish.log_gzip",)),
    "bundle": ProductCode(("ledgerrate.publish.bundle",)),
    "corrected": ProductCode(("ledgerrate.publish.corrected",)),
    "results-csv": ProductCode(("ledgerrate.publish.downloads",)),
    "schemas": ProductCode(("ledgerrate.core.schema_export",)),
    "hashed": ProductCode(("ledgerrate.publish.hashed_inputs",), trees=_WORKLOADS),
    # what renders a released dataset's files beyond its hashed content (board-pack PDFs)
    "dataset": ProductCode(
        (
            "ledgerrate.generate.dataset",
            "ledgerrate.generate.dataset_files",
            "ledgerrate.publish.downloads",
        ),
        trees=_WORKLOADS,
    ),
    "ratecard": ProductCode(
        ("ledgerrate.publish.pdf", "ledgerrate.publish.card_html"),
        site=("templates/pdf",),
        own=("ledgerrate.publish.pdf",),
    ),
    "chart": ProductCode(("ledgerrate.publish.charts",)),
    "workload-facts": ProductCode(("ledgerrate.publish.workload_facts",), trees=_WORKLOADS),
    **{
        kind: ProductCode(("ledgerrate.publish.tables",))
        for kind in ("cells-json", "cells-csv", "card-json", "card-csv")
    },
    # the pages (`publish/page_products.py`): no template here, each page job's key names the
    # templates it read; its files are kept by their own digests
    "pages": ProductCode(
        ("ledgerrate.publish.pages", "ledgerrate.publish.page_products"),
        trees=_WORKLOADS,
        libraries=("jinja2",),
    ),
    "page-file": ProductCode(("ledgerrate.publish.page_products",)),
    # a page's markdown converted by mkdocs (`publish/engine/converted_pages.py`)
    "converted": ProductCode(
        ("ledgerrate.publish.engine.converted_pages",), libraries=("mkdocs", "Markdown")
    ),
    # a page's entries in the search index (material's search plug-in, same module)
    "search-entries": ProductCode(
        ("ledgerrate.publish.engine.converted_pages",), libraries=("mkdocs-material",)
    ),
    "drilldown": _DRILLDOWN,
    "drilldown-items": _DRILLDOWN,
    "drilldown-workload": _DRILLDOWN,
    # compiled jinja templates: the key holds the template's source; the bytecode depends on
    # jinja and on how the environments are made (the pages', the mkdocs theme's)
    "jinja": ProductCode(
        ("ledgerrate.publish.engine.compiled_templates", "ledgerrate.publish.pages"),
        libraries=("jinja2", "mkdocs", "mkdocs-material"),
    ),
}


@dataclass(frozen=True)
class CodeFiles:
    """What a kind's products are made from, as files and distribution names."""

    files: tuple[Path, ...]
    imported: tuple[str, ...]  # top-level names of third-party modules imported
    libraries: tuple[str, ...]


class Scanner:
    """Reads the imports of a package's modules once for every kind: the kinds reach mostly the
    same modules. `remembered`: imports read by an earlier build, by the digest of the module's
    source, so that a build after a change to one file parses that file alone (parsing every
    module and finding it by name was three seconds of each build that is not a no-change one).
    `used` is what this scan read, for the next build to remember."""

    def __init__(self, package: Path, remembered: dict[str, list[list[str]]] | None = None):
        self.package = package
        self.remembered = remembered or {}
        self.used: dict[str, list[list[str]]] = {}
        self._paths: dict[str, Path | None] = {}

    def path(self, name: str) -> Path | None:
        if name not in self._paths:
            self._paths[name] = module_path(name, self.package)
        return self._paths[name]

    def imports(self, path: Path, current: str) -> list[list[str]]:
        source = path.read_bytes()
        key = f"{hashlib.sha256(source).hexdigest()} {current}"
        found = self.remembered.get(key)
        if found is None:
            found = [list(part) for part in _imports(source, current)]
        self.used[key] = found
        return found

    def code_files(self, kind: str) -> CodeFiles:
        spec = PRODUCTS[kind]
        package = self.package
        found: dict[Path, None] = {}
        imported: set[str] = set()
        pending = list(spec.modules)
        seen: set[str] = set()
        others = {m for other in PRODUCTS.values() for m in other.own if m not in spec.modules}
        excluded = {self.path(m) for m in others}
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            for path in self._module_and_parents(name):
                if path in found or path in excluded:
                    continue
                found[path] = None
                internal, external = self.imports(path, _package_of(name, path, package))
                pending.extend(internal)
                imported.update(external)
        for rel in spec.site:
            found.update(dict.fromkeys(_files(package / "site" / rel)))
        for tree in spec.trees:
            found.update(dict.fromkeys(p for p in _files(package / tree) if p.suffix == ".py"))
        return CodeFiles(tuple(sorted(found)), tuple(sorted(imported)), spec.libraries)

    def _module_and_parents(self, name: str) -> list[Path]:
        parts = name.split(".")
        paths = [self.path(".".join(parts[:i])) for i in range(1, len(parts) + 1)]
        return [p for p in paths if p is not None]


def code_files(kind: str, package: Path) -> CodeFiles:
    """The files of the code that makes `kind`'s products in the package at `package`."""
    return Scanner(package).code_files(kind)


def _files(root: Path) -> Iterable[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def module_path(name: str, package: Path) -> Path | None:
    """The source file of `ledgerrate` module `name` under `package`, if it is one."""
    parts = name.split(".")[1:]
    base = package.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(name: str, path: Path, package: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


@functools.lru_cache(maxsize=1024)
def _imports(source: bytes, current: str) -> tuple[list[str], list[str]]:
    """The `ledgerrate` modules that the module in package `current` (its `source`) imports
    (`from a import b` names `a.b` too, in case `b` is a module), and the top-level names of
    the other modules it imports."""
    tree = ast.parse(source)
    internal: list[str] = []
    external: list[str] = []
    for node in _run_nodes(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = current.split(".")[: len(current.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            top = name.partition(".")[0]
            if top == "ledgerrate":
                internal.append(name)
            elif top and top not in sys.stdlib_module_names and top != "__future__":
                external.append(top)
    return internal, external


def _run_nodes(tree: ast.AST) -> Iterable[ast.AST]:
    """Every node of `tree` but those under `if TYPE_CHECKING:` (its `else` is walked): an
    import there is read by type checkers only, never run, so the code it names makes
    nothing. Any other test, `if not TYPE_CHECKING:` or `if TYPE_CHECKING and x:` among them,
    is walked whole."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))


def _is_type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING` or `<module>.TYPE_CHECKING` (`typing.TYPE_CHECKING`), and nothing else."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Attribute)
        and test.attr == "TYPE_CHECKING"
        and isinstance(test.value, ast.Name)
    )
