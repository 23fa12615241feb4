"""The house drawn from the imports (ARCHITECTURE.md §2): no module imports itself back through
others, the rooms (the package's top-level modules and packages) form no cycle except through an
import the layer contract lists with its reason, and every room is named by a contract, so a new
loose module at the root cannot escape the layers unnoticed.

grimp (import-linter's graph builder) draws the graph; imports made only for type checking are
left out, as the contracts leave them out.
"""

from __future__ import annotations

import configparser
from collections.abc import Collection, Iterable, Mapping
from functools import cache
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[2]
ROOT = "ledgerrate"


@cache
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(ROOT, exclude_type_checking_imports=True)


def contracts() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(REPO / ".importlinter", encoding="utf-8")
    return config


def _lines(value: str) -> list[str]:
    return [
        line.split("#", 1)[0].strip()
        for line in value.splitlines()
        if line.split("#", 1)[0].strip()
    ]


def allowed_exceptions() -> set[tuple[str, str]]:
    """The imports the layer contract lists as allowed against the layers (each with its
    reason in a comment above it)."""
    found = set()
    for section in contracts().sections():
        for line in _lines(contracts()[section].get("ignore_imports", "")):
            importer, imported = (part.strip() for part in line.split("->"))
            found.add((importer, imported))
    return found


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    nodes = sorted({*edges, *(t for targets in edges.values() for t in targets)})
    for start in nodes:
        if start in index:
            continue
        # Iterative, so a long chain of modules cannot exhaust Python's recursion limit.
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            advanced = False
            for target in targets:
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def room(module: str) -> str:
    """`ledgerrate.publish.engine.run` → `ledgerrate.publish`."""
    return ".".join(module.split(".")[:2])


def module_edges(skip: Collection[tuple[str, str]] = ()) -> dict[str, set[str]]:
    g = graph()
    return {
        m: {t for t in g.find_modules_directly_imported_by(m) if (m, t) not in skip}
        for m in g.modules
    }


def room_edges(skip: Collection[tuple[str, str]] = ()) -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for module, targets in module_edges(skip).items():
        for target in targets:
            if room(module) != room(target):
                rooms.setdefault(room(module), set()).add(room(target))
    return rooms


def test_no_module_imports_itself_back() -> None:
    assert cycles(module_edges()) == []


def test_the_rooms_form_no_cycle_but_through_a_listed_exception() -> None:
    exceptions = allowed_exceptions()
    assert cycles(room_edges(skip=exceptions)) == []
    # Each exception is still needed (the import exists), or the contract should drop it.
    edges = module_edges()
    for importer, imported in exceptions:
        assert imported in edges.get(importer, set()), f"{importer} -> {imported} is gone"


def test_every_room_is_named_by_a_contract() -> None:
    named: set[str] = set()
    for section in contracts().sections():
        values = contracts()[section]
        for key in ("layers", "source_modules"):
            for line in _lines(values.get(key, "")):
                for part in line.split("|"):
                    name = part.strip()
                    named.add(name if name.startswith(f"{ROOT}.") else f"{ROOT}.{name}")
    rooms = {room(m) for m in graph().modules if m != ROOT}
    assert rooms - named == set(), "rooms no import contract places: " + ", ".join(
        sorted(rooms - named)
    )


def test_the_schema_is_the_floor() -> None:
    """The model of every file imports nothing else of the package, so every room may import
    it and it never closes a loop (the layers contract sees only the rooms it lists)."""
    outside = {
        f"{module} -> {target}"
        for module, targets in module_edges().items()
        if room(module) == f"{ROOT}.schema"
        for target in targets
        if room(target) != f"{ROOT}.schema"
    }
    assert outside == set()


def test_a_cycle_is_found() -> None:
    """The check can fail: a two-room loop and a three-module loop are reported, a chain is not."""
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}}) == [["a", "b"]]
    assert cycles({"x": {"y"}, "y": {"z"}, "z": {"x"}, "w": {"x"}}) == [["x", "y", "z"]]
    assert cycles({"a": {"b"}, "b": {"c"}}) == []
