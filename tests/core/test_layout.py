"""One owner for the edition's file layout (ARCHITECTURE.md §4): every edition file and folder
name is spelled in ledgerrate/core/layout.py, and modules join paths through it."""

from __future__ import annotations

import ast
from pathlib import Path

from ledgerrate.core import layout
from ledgerrate.core.layout import EditionPaths

PACKAGE = Path(layout.__file__).resolve().parent
# The standalone verifier shares no code with the package by design: it spells its own names.
SEPARATE = PACKAGE / "site" / "verifier"
# Pending: publish/pages.py still joins the index name by hand; it moves to EditionPaths.index
# with the next change to that file.

FILE_NAMES = {
    value
    for name, value in vars(layout).items()
    if name.isupper() and isinstance(value, str) and "." in value
}
FOLDERS = {
    layout.DATASETS,
    layout.RUNS,
    layout.GRADES,
    layout.BODIES,
    layout.PROBES,
    layout.REPRODUCTIONS,
    layout.SPOTCHECKS,
    layout.INCIDENTS,
    layout.RELEASED,
}


def _an_edition_folder(node: ast.expr) -> bool:
    """`root`, `edition_dir`, `paths.root`, `edition.paths.root`: what names an edition folder
    (a cache's or the site's `root` is `self.root` or `docs`, and is not one)."""
    if isinstance(node, ast.Name):
        return node.id in {"root", "edition_dir"}
    if isinstance(node, ast.Attribute) and node.attr == "root":
        return "paths" in ast.unparse(node.value)
    return False


def hand_built_paths(source: str) -> list[tuple[int, str]]:
    """Every `<path> / "<edition file or folder name>"` in `source`: an edition file name
    joined to anything, or a folder name joined to an edition folder."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)):
            continue
        right = node.right
        if not (isinstance(right, ast.Constant) and isinstance(right.value, str)):
            continue
        if right.value in FILE_NAMES or (right.value in FOLDERS and _an_edition_folder(node.left)):
            found.append((node.lineno, right.value))
    return found


def test_no_module_builds_an_edition_path_by_hand() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "layout.py" or SEPARATE in path.parents:
            continue
        rel = path.relative_to(PACKAGE).as_posix()
        for line, name in hand_built_paths(path.read_text(encoding="utf-8")):
            problems.append(f"ledgerrate/{rel}:{line}: joins {name!r} by hand")
    assert not problems, "use layout.EditionPaths instead:\n" + "\n".join(problems)


def test_the_scan_finds_what_the_modules_used_to_spell() -> None:
    """The two ways paths were built before EditionPaths owned them all are caught."""
    before = (
        "def grades(paths, w, m, mode):\n"
        '    return paths.root / "reproductions" / "grades" / w / m / f"{mode}.jsonl"\n'
        "def flags(root):\n"
        '    return root / "spotchecks"\n'
        "def results(root):\n"
        '    return root / "results.json"\n'
        "def cache(self):\n"
        '    return self.root / "datasets"\n'
    )
    assert sorted(hand_built_paths(before)) == [
        (2, "reproductions"),
        (4, "spotchecks"),
        (6, "results.json"),
    ]


def test_the_paths_keep_the_names_sealed_documents_record(tmp_path: Path) -> None:
    """Names published.json, the errata and the index of publications record: never renamed."""
    paths = EditionPaths(tmp_path / "editions" / "2026-11")
    root = paths.root
    assert paths.results == root / "results.json"
    assert paths.results_current == root / "results-current.json"
    assert paths.published == root / "published.json"
    assert paths.index == tmp_path / "editions" / "publications.jsonl"
    assert paths.bundled_index == root / "publications.jsonl"
    assert paths.reproduction_grades("w", "m", "agentic") == (
        root / "reproductions" / "grades" / "w" / "m" / "agentic.jsonl"
    )
    assert paths.spotcheck_flags("w") == root / "spotchecks" / "w.flags.json"
    assert paths.spotcheck_regrade("w") == root / "spotchecks" / "w.regrade.csv"
    assert paths.body("ab" * 32) == root / "bodies" / f"{'ab' * 32}.txt"


def test_flag_files_are_listed_by_workload(tmp_path: Path) -> None:
    paths = EditionPaths(tmp_path)
    assert paths.spotcheck_flag_files() == {}
    for workload in ("b.v1", "a.v1"):
        paths.spotcheck_flags(workload).parent.mkdir(parents=True, exist_ok=True)
        paths.spotcheck_flags(workload).write_text("{}")
    paths.spotcheck_sample("a.v1").write_text("{}")
    assert list(paths.spotcheck_flag_files()) == ["a.v1", "b.v1"]
