"""Every citation of the design resolves: code, contracts, tests, benchmarks, README and guides
cite `ARCHITECTURE.md §n` only for sections that exist, and nothing cites the old `DESIGN.md`,
which the repository never held."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPO / "ARCHITECTURE.md"
# Where a reader meets a citation: the package, the import contracts, tests, benchmarks and docs.
SCANNED = ("ledgerrate", ".importlinter", "tests", "benchmarks", "README.md", "docs")
SUFFIXES = frozenset({".py", ".md", ".j2", ".toml", ".yml", ".yaml", ".txt", ".cfg", ""})
# One citation may name several sections: "ARCHITECTURE.md §1, §4" or "ARCHITECTURE.md §§1-2".
_CITATION = re.compile(r"ARCHITECTURE\.md\s*((?:§+\s*\d+(?:\s*[-–,]\s*§*\s*\d+)*))")
_NUMBER = re.compile(r"\d+")
_HEADING = re.compile(r"^##\s+(\d+)\.\s+\S", re.MULTILINE)
# The old name, spelled as a citation would spell it (this file's own mentions are exempt).
_OLD = re.compile(r"\bDESIGN\.md\b")


def sections(architecture: str) -> set[int]:
    """Section numbers of `## n. Title` headings."""
    return {int(n) for n in _HEADING.findall(architecture)}


def cited(text: str) -> set[int]:
    numbers: set[int] = set()
    for match in _CITATION.finditer(text):
        spec = match.group(1)
        found = [int(n) for n in _NUMBER.findall(spec)]
        if re.search(r"\d\s*[-–]\s*§*\s*\d", spec) and len(found) == 2:
            numbers.update(range(found[0], found[1] + 1))
        else:
            numbers.update(found)
    return numbers


def problems(texts: dict[str, str], architecture: str) -> list[str]:
    """One line per citation of a missing section and per mention of DESIGN.md."""
    have = sections(architecture)
    lines = []
    for name, text in sorted(texts.items()):
        for number in sorted(cited(text) - have):
            lines.append(f"{name}: cites ARCHITECTURE.md §{number}, which has no such section")
        for _ in _OLD.finditer(text):
            lines.append(f"{name}: cites DESIGN.md; cite the section of ARCHITECTURE.md instead")
    return lines


def _scanned_texts() -> dict[str, str]:
    texts = {}
    for name in SCANNED:
        root = REPO / name
        files = [root] if root.is_file() else sorted(root.rglob("*")) if root.is_dir() else []
        for path in files:
            if not path.is_file() or path.suffix not in SUFFIXES or "__pycache__" in path.parts:
                continue
            if path == Path(__file__).resolve():
                continue
            texts[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8", errors="replace")
    return texts


def test_every_citation_names_a_section_that_exists() -> None:
    texts = _scanned_texts()
    assert any(cited(text) for text in texts.values()), "no citation found: is the scan broken?"
    assert problems(texts, ARCHITECTURE.read_text(encoding="utf-8")) == []


def test_the_sections_the_code_was_written_against_exist() -> None:
    have = sections(ARCHITECTURE.read_text(encoding="utf-8"))
    assert {1, 2, 3, 4, 5, 6, 7} <= have


def test_a_citation_of_a_missing_section_fails() -> None:
    architecture = "# Title\n\n## 1. The pipeline\n\ntext\n\n## 2. Layout and layers\n"
    texts = {
        "ok.py": '"""Stages (ARCHITECTURE.md §1, §2)."""',
        "missing.py": '"""Figures (ARCHITECTURE.md §5)."""',
        "range.md": "See ARCHITECTURE.md §§1-3.",
        "old.py": "# the layer contract of DESIGN.md §2",
    }
    assert problems(texts, architecture) == [
        "missing.py: cites ARCHITECTURE.md §5, which has no such section",
        "old.py: cites DESIGN.md; cite the section of ARCHITECTURE.md instead",
        "range.md: cites ARCHITECTURE.md §3, which has no such section",
    ]


def test_headings_are_read_as_sections_only_when_numbered() -> None:
    text = "## 1. One\n### 2. Not a section\n## Two\n## 10. Ten\n"
    assert sections(text) == {1, 10}
