"""Issue #47's "done when": from an empty folder, `ledgerrate new` for three models (one per
wire format, served by the fake provider) + `prices confirm` + `register` + `run` + `grade` +
`build` + `verify` succeeds with no hand edit of YAML; the edition page sets the frozen prices
beside the price database's (one frozen price differs, and the difference is listed, never
applied), and the workload pages and `verify` set each cell's cost beside the database's."""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.testing.fake_provider import FakeProviderServer

pytestmark = pytest.mark.slow

KEYS = {
    "OPENAI_API_KEY": "sk-test-openai-0123456789abcdef",
    "ANTHROPIC_API_KEY": "sk-test-anthropic-0123456789abcdef",
    "GEMINI_API_KEY": "test-gemini-0123456789abcdefghij",
}
MODELS = {
    "openai": "gpt-4o-mini",
    "anthropic": "claude-3-5-haiku-latest",
    "gemini": "gemini-2.0-flash",
}


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, f"ledgerrate {' '.join(args[:2])}:\n{result.output}"
    return result.output


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.read_text())))


def test_new_to_verify_with_no_hand_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "private"))
    editions = tmp_path / "editions"
    root = editions / "2026-12-e2e"
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    read = (now - dt.timedelta(minutes=20)).isoformat()
    with FakeProviderServer() as fake:
        args = ["new", str(root), "--opens-at", (now - dt.timedelta(minutes=5)).isoformat()]
        for family, api_model in MODELS.items():
            args += ["--model", f"{family}/{api_model}"]
            args += ["--base-url", f"{family}={fake.base_url(family)}"]
        args += ["--judge", "openai/gpt-4o-mini", "--n", "1", "--n-reason", "a fast test"]
        out = _cli(*args)
        assert "next:" in out
        assert sorted(p.name for p in root.iterdir()) == [
            "edition.yaml",
            "pricing.yaml",
            "seed-recipients.txt",
        ]
        # The operator read gpt-4o-mini's page and found another input price than the
        # database's: it is frozen as read, and the difference is listed, not applied.
        _cli("prices", "confirm", str(root), "gpt-4o-mini", "--source-url",
             "https://openai.com/api/pricing/", "--retrieved-at", read, "--by", "A. Operator",
             "--input-per-mtok", "0.20")  # fmt: skip
        for api_model in ("claude-3-5-haiku-latest", "gemini-2.0-flash"):
            _cli("prices", "confirm", str(root), api_model, "--source-url",
                 "https://vendor.example/pricing", "--retrieved-at", read)  # fmt: skip
        out = _cli("register", str(root))
        assert "gpt-4o-mini: 1 difference(s) from gpt-4o-mini in the database" in out
        assert "input: frozen $0.2, database $0.15 per 1M tokens" in out
        assert "claude-3-5-haiku-latest: the frozen prices match" in out
        _cli("run", str(root))
        _cli("grade", str(root))
    site = tmp_path / "build"
    _cli("build", "--editions", str(editions), "--out", str(site))
    report = _cli("verify", str(root))
    assert "VERIFIED" in report and "cell costs beside the price database" in report
    assert re.search(r"price database genai-prices [0-9.]+: .* gpt-4o-mini · single-shot: "
                     r"\d+ counted call\(s\), LedgerRate \$[0-9.]+, database \$[0-9.]+, "
                     r"difference \$-[0-9.]+ \(information\)", report)  # fmt: skip

    page = _text(site / "site" / "editions" / "2026-12-e2e" / "index.html")
    table = page[page.index("Prices beside a price database") :]
    assert "gpt-4o-mini gpt-4o-mini input $0.20 $0.15" in table
    assert "gpt-4o-mini differs from the database (1): input: frozen $0.2, database $0.15" in table
    assert "gemini-2.0-flash : the frozen prices match the database" in table

    published = json.loads(
        (site / "site" / "data" / "2026-12-e2e" / "price-database.json").read_text()
    )
    cells = published["cells"]
    # Every cell that ran, for all three models (each known to the database).
    ran = {
        tuple(p.relative_to(root / "runs").with_suffix("").parts)
        for p in (root / "runs").glob("*/*/*.jsonl")
    }
    assert {(c["workload"], c["model"], c["mode"]) for c in cells} == ran
    assert len({c["model"] for c in cells}) == 3 and len({c["workload"] for c in cells}) == 7
    mini = [c for c in cells if c["model"] == "gpt-4o-mini"]
    assert all(Decimal(c["difference_usd"]) < 0 for c in mini if c["calls"])
    others = [c for c in cells if c["model"] != "gpt-4o-mini"]
    assert all(Decimal(c["difference_usd"]) == 0 for c in others)
    workload = _text(site / "site" / "workloads" / "extract.invoice.v2" / "index.html")
    assert "Computed cost beside the price database" in workload
