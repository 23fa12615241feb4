"""A cell's runs page says which of its attempts were ingested from another harness, and from
which log and sample, as the edition and workload pages say it of the cell."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ledgerrate.core.io import append_jsonl, read_jsonl
from ledgerrate.core.layout import EditionPaths
from ledgerrate.publish.cache import BuildCache
from ledgerrate.publish.render import render_into
from ledgerrate.schema import RunRecord, RunSource
from tests.publish.factory import WL, write_edition

LOG_NAME = "<b>eval</b>.eval"


def test_the_runs_page_names_each_ingested_attempt(tmp_path: Path) -> None:
    root = tmp_path / "editions"
    results = write_edition(root, "2026-07", "2026-07-01")
    log = EditionPaths(root / "2026-07").runs(WL, "small", "single-shot")
    records = read_jsonl(log, RunRecord)
    source = RunSource(
        harness="inspect_ai",
        harness_version="0.3.285",
        log_name=LOG_NAME,
        log_sha256="a" * 64,
        sample="item-00#1",
        sample_uuid="u-1",
        ingested_at=dt.datetime(2026, 7, 1, tzinfo=dt.UTC),
    )
    records[0] = records[0].model_copy(update={"source": source})
    log.unlink()
    for record in records:
        append_jsonl(log, record)
    docs = tmp_path / "docs"
    render_into(root, docs, results_fn=lambda _p: results, cache=BuildCache.open(tmp_path / "c"))
    runs = docs / "runs" / "2026-07" / WL
    page = (runs / "small" / "single-shot" / "index.html").read_text()
    assert (
        "<strong>Ingested:</strong> 1 of these 2 attempts were run with another harness "
        "(Inspect AI)"
    ) in page
    # In the attempt's status cell (the next cell opens after it: the page leaves out optional
    # end tags), so a reader without scripts has it too.
    assert (
        "ingested from Inspect AI 0.3.285 log <code>&lt;b&gt;eval&lt;/b&gt;.eval</code>, "
        "sample <code>item-00#1</code><td>"
    ) in page
    assert LOG_NAME not in page
    other = (runs / "big" / "single-shot" / "index.html").read_text()
    assert "Ingested" not in other and "ingested from" not in other
