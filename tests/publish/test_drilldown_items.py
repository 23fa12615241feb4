"""Each item's input and expected answer are on one items page per edition and workload, and
every run on a cell page links there instead of repeating them."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.render import render_into
from tests.publish.factory import HOSTILE, WL, write_edition

PROMPT = "Extract the total of this invoice"


def _build(tmp_path: Path, *, release_seeds: bool) -> tuple[Path, BuildCache]:
    root = tmp_path / "editions"
    fixtures = {
        "2026-07": write_edition(
            root,
            "2026-07",
            "2026-07-01",
            hostile=True,
            release_seeds=release_seeds,
            prompt=f"{PROMPT} {HOSTILE}",
        )
    }
    docs = tmp_path / "docs"
    cache = BuildCache.open(tmp_path / "cache")
    render_into(root, docs, results_fn=lambda p: fixtures[Path(p).name], cache=cache)
    return docs, cache


def test_cell_page_links_the_items_page_which_shows_the_input_once(tmp_path: Path) -> None:
    docs, cache = _build(tmp_path, release_seeds=False)
    runs = docs / "runs" / "2026-07" / WL
    cell = (runs / "small" / "single-shot" / "index.html").read_text()
    assert PROMPT not in cell and "Input the model saw" not in cell
    # Relative to the page's base, the items page itself: a bare fragment.
    assert "<base href=../../>" in cell
    targets = re.findall(r"<a href=#([A-Za-z0-9._-]+)>(item-0\d)</a>", cell)
    targets = [(text, anchor) for anchor, text in targets]
    assert [t[0] for t in targets] == ["item-00", "item-01"]  # each run's item, in item order
    items = (runs / "index.md").read_text()
    assert items.count(PROMPT) == 2  # each item's input once, for all three models
    for _, anchor in targets:
        assert re.fullmatch(r"p-[0-9a-f]{10}", anchor)
        assert f'<p id="{anchor}" class="lr-item-input">' in items  # the link lands
    assert "sent in 3 runs" in items
    # The anchor each prompt had before the cell pages fit one block still lands: worked out
    # here from the page's own words, as a link published with an earlier build named it.
    former = re.findall(r'<span id="item-(item-0\d)-prompt-([0-9a-f]{12})"></span>', items)
    assert [item for item, _ in former] == ["item-00", "item-01"]
    for item, digest in former:
        text = f"{PROMPT} {HOSTILE} ({item[-2:]})"  # the factory numbers each item's prompt
        messages = [{"role": "user", "text": text}]
        shown = json.dumps(messages, sort_keys=True).encode("utf-8")
        assert hashlib.sha256(shown).hexdigest()[:12] == digest, item
    # The prompt is escaped as every record's text is: shown, never live.
    assert HOSTILE not in items and "<script>" not in items
    assert "&#60;script&#62;alert&#40;1&#41;&#60;&#47;script&#62;" in items
    # The seed is withheld: no ground truth on the items page either.
    assert "withheld until the seed" in items
    assert "<strong>Expected answer:</strong> withheld until the seed" in items
    assert "(from the published dataset)" not in items
    assert cache.misses.get("drilldown-items") == 1


def test_items_page_of_a_released_seed_without_its_dataset_shows_no_answer(
    tmp_path: Path,
) -> None:
    docs, _ = _build(tmp_path, release_seeds=True)
    items = (docs / "runs" / "2026-07" / WL / "index.md").read_text()
    assert "(from the published dataset)" not in items
    assert "withheld until the seed" not in items
    assert "not shown, the dataset was not regenerated in this build" in items


def test_two_prompts_that_would_share_an_anchor_stop_the_items_page() -> None:
    # The anchor is a digest prefix: were two prompts ever to share one, a run's link would
    # land on the wrong prompt, so the build says so instead.
    from types import SimpleNamespace

    from markupsafe import Markup

    from ledgerrate.publish.drilldown_records import items_of

    def attempt(item_id: str, text: str) -> Any:
        run = SimpleNamespace(item_id=item_id)
        prompt = [{"role": "user", "text": text}]
        return SimpleNamespace(run=run, prompt=prompt, prompt_id=Markup("p-0123456789"))

    assert len(items_of([[attempt("a", "x"), attempt("a", "x")]], None)) == 1
    with pytest.raises(ValueError, match="share the anchor p-0123456789"):
        items_of([[attempt("a", "x"), attempt("b", "x")]], None)
