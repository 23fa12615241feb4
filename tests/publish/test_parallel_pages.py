"""Drill-down pages written by forked processes beside mkdocs' loop
(publish/engine/parallel_pages.py): the same site, byte for byte, as one process writes; a
child's warning or failure fails the build; a failed build leaves no child behind."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.core import forked
from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish.engine import parallel_pages
from ledgerrate.publish.engine.raw_html import RawHtml
from ledgerrate.publish.engine.run import run_mkdocs
from tests.publish.factory import (
    mkdocs_drilldowns,
    rendered_two_editions,
    tree_bytes,
    with_items_copies,
)


def _children_record(monkeypatch: pytest.MonkeyPatch, log: Path) -> None:
    """Each child appends the pages it wrote (one JSON line per child) to `log`."""
    real = parallel_pages._write_share

    def recorded(pages: Any, *args: Any) -> Any:
        report = real(pages, *args)
        with log.open("a") as out:
            out.write(json.dumps([page.file.src_uri for page in pages]) + "\n")
        return report

    monkeypatch.setattr(parallel_pages, "_write_share", recorded)


def _forking(monkeypatch: pytest.MonkeyPatch, processes: int) -> None:
    # The suite runs builds in one process (tests/conftest.py); the fixture's editions have a
    # few dozen drill-down pages, so any share is worth a process here.
    monkeypatch.setenv(forked.WORKERS_ENV, str(processes))
    monkeypatch.setattr(parallel_pages, "MIN_SHARE", 1)


def _dealt(costs: Any, delegable: Any, processes: int) -> list[list[int]]:
    """The drill-down pages dealt one at a time: every kind of page split across processes,
    so each process learns each kind's frame and sidebar from pages the others also have."""
    movable = [i for i, d in enumerate(delegable) if d]
    split = [[i for i, d in enumerate(delegable) if not d]] + [[] for _ in range(processes - 1)]
    for turn, index in enumerate(movable):
        split[turn % processes].append(index)
    return [sorted(share) for share in split]


@pytest.mark.parametrize(("processes", "deal"), [(2, "by cost"), (3, "by cost"), (2, "dealt")])
def test_the_site_is_byte_identical_to_one_process_writing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: int, deal: str
) -> None:
    docs = with_items_copies(rendered_two_editions(tmp_path, monkeypatch))
    run_mkdocs(docs, tmp_path / "one")
    log = tmp_path / "children.jsonl"
    with monkeypatch.context() as patch:
        _forking(patch, processes)
        _children_record(patch, log)
        if deal == "dealt":
            patch.setattr(parallel_pages, "shares", _dealt)
        run_mkdocs(docs, tmp_path / "forked")

    one, several = tree_bytes(tmp_path / "one"), tree_bytes(tmp_path / "forked")
    assert one.keys() == several.keys()
    assert sorted(name for name in one if one[name] != several[name]) == []
    shares = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(shares) == processes - 1
    written = [uri for share in shares for uri in share]
    assert len(written) == len(set(written)) > 0  # no page written twice
    # Children write drill-down pages only: the pages outside the navigation and the search.
    assert all(uri.startswith("runs/") for uri in written), written
    if deal == "dealt":  # the parent wrote drill-down pages of every kind beside the child's
        drilldowns = mkdocs_drilldowns(several)
        assert 0 < len(written) < len(drilldowns) - 2


def _break_last_drilldown(docs: Path) -> str:
    """A raw-HTML link to no file in the last drill-down page (a child's share ends there)."""
    page = sorted(docs.glob("runs/**/index.md"))[-1]
    text = page.read_text("utf-8")
    assert "<!-- lr:raw-html" in text
    page.write_text(text.rstrip("\n") + '\n<p><a href="../gone/">gone</a></p>\n', "utf-8")
    return page.relative_to(docs).as_posix()


@pytest.mark.parametrize("processes", [1, 2])
def test_a_broken_link_in_a_childs_page_fails_the_strict_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    docs = with_items_copies(rendered_two_editions(tmp_path, monkeypatch))
    broken = _break_last_drilldown(docs)
    log = tmp_path / "children.jsonl"
    with monkeypatch.context() as patch:
        _forking(patch, processes)
        _children_record(patch, log)
        with pytest.raises(UsageProblem) as failed:
            run_mkdocs(docs, tmp_path / "site")
    assert f"{broken}: a link of its raw HTML lands on no file: ../gone/" in str(failed.value)
    if processes > 1:  # the page was a child's: its warning reached the parent's count
        assert broken in log.read_text()


def test_a_child_that_fails_or_dies_fails_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = with_items_copies(rendered_two_editions(tmp_path, monkeypatch))

    def fails(pages: Any, *args: Any) -> Any:
        raise RuntimeError("a child's page went wrong")

    def dies(pages: Any, *args: Any) -> Any:
        os._exit(3)

    for child, said in ((fails, "a child's page went wrong"), (dies, "ended with exit code 3")):
        with monkeypatch.context() as patch:
            _forking(patch, 2)
            patch.setattr(parallel_pages, "_write_share", child)
            with pytest.raises(UsageProblem, match=said):
                run_mkdocs(docs, tmp_path / "site")


def test_a_failed_build_leaves_no_child_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = with_items_copies(rendered_two_editions(tmp_path, monkeypatch))
    pid_file = tmp_path / "child.pid"

    def slow(pages: Any, *args: Any) -> Any:
        pid_file.write_text(str(os.getpid()))
        time.sleep(120)
        return {"warnings": [], "error": None}

    real_context = RawHtml.on_page_context

    def parent_fails(self: RawHtml, context: Any, page: Any, **kw: Any) -> Any:
        if pid_file.exists():
            raise RuntimeError("the parent's loop went wrong")
        return real_context(self, context, page, **kw)

    with monkeypatch.context() as patch:
        _forking(patch, 2)
        patch.setattr(parallel_pages, "_write_share", slow)
        # mkdocs registered the plugin's bound method at construction: patched on the class
        # before run_mkdocs makes one.
        patch.setattr(RawHtml, "on_page_context", parent_fails)
        patch.setattr(RawHtml.on_page_context, "mkdocs_priority", -100, raising=False)
        start = time.monotonic()
        while True:
            with pytest.raises((UsageProblem, RuntimeError)):
                run_mkdocs(docs, tmp_path / "site")
            if pid_file.exists() or time.monotonic() - start > 60:
                break
    pid = int(pid_file.read_text())
    assert time.monotonic() - start < 60  # the build did not wait for the sleeping child
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped


def test_shares_balance_the_cost_and_keep_kinds_together() -> None:
    # A 215-model edition's shape: ~250 pages in the navigation (some with large tables),
    # ~2,800 drill-down pages of mixed sizes.
    rng = random.Random(7)
    costs, delegable = [], []
    for index in range(3_050):
        drill = index >= 250
        delegable.append(drill)
        costs.append(48_000 + rng.randint(5_000, 400_000 if drill else 2_000_000))
    for processes in (2, 3, 4):
        split = parallel_pages.shares(costs, delegable, processes)
        assert sorted(i for share in split for i in share) == list(range(len(costs)))
        assert all(i in split[0] for i, d in enumerate(delegable) if not d)
        for share in split[1:]:  # a child's pages are one run of consecutive drill-downs
            assert all(delegable[i] for i in share)
            assert share == list(range(share[0], share[-1] + 1))
        assert len(split) == processes
        loads = [sum(costs[i] for i in share) for share in split]
        own = sum(c for c, d in zip(costs, delegable, strict=True) if not d)
        if own <= sum(costs) / processes:  # every process about the same
            assert max(loads) / min(loads) < 1.01, (processes, loads)
        else:  # the parent's own pages outweigh a share: it takes no drill-down page
            assert loads[0] == own and max(loads[1:]) / min(loads[1:]) < 1.01, (processes, loads)


def test_too_few_drill_down_pages_are_not_worth_a_process() -> None:
    costs = [50_000] * 300
    split = parallel_pages.shares(costs, [i >= 200 for i in range(300)], 2)
    assert split == [list(range(300))]  # 100 pages: below MIN_SHARE, the parent writes all
