"""`ledgerrate new`: a complete, valid edition from a few `--model` arguments, its prices
pre-filled from the price database and held unconfirmed, and what to do next, in order."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ledgerrate import workloads
from ledgerrate.cli import app
from ledgerrate.core.edition import load_edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.generate.escrow import RECIPIENTS_ENV
from ledgerrate.generate.new_edition import Wanted, current_workloads, new_edition
from ledgerrate.generate.vendors import VENDORS, sampling_for
from ledgerrate.schema import STANDARD_N

OPENS = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)


def _new(root: Path, **kw: object) -> object:
    defaults: dict[str, object] = {
        "models": [
            Wanted("openai", "gpt-4o-mini"),
            Wanted("anthropic", "claude-3-5-haiku-latest"),
            Wanted("gemini", "gemini-2.5-pro"),
            Wanted("openai", "acme-unheard-of-1"),
        ],
        "flagships": [Wanted("openai-responses", "gpt-5")],
        "judges": [Wanted("anthropic", "claude-3-5-haiku-latest")],
        "opens": OPENS,
    }
    defaults.update(kw)
    return new_edition(root, **defaults)  # type: ignore[arg-type]


def test_the_current_version_of_every_workload() -> None:
    ids = current_workloads()
    assert "extract.invoice.v2" in ids and "extract.invoice.v1" not in ids
    assert "execute.month-end.v2" in ids and "query.nl2sql.v2" in ids
    bases = {w.rsplit(".v", 1)[0] for w in workloads.registry()}
    assert len(ids) == len(bases) == 7


def test_writes_an_edition_register_can_read(tmp_path: Path, operator_key: object) -> None:
    root = tmp_path / "editions" / "2027-01"
    plan = _new(root)
    edition = load_edition(root)
    m = edition.manifest
    assert m.id == "2027-01" and m.date == OPENS.date()
    assert m.window.opens == OPENS and m.window.closes - m.window.opens == dt.timedelta(hours=72)
    assert [w.id for w in m.workloads] == current_workloads()
    assert all(w.n == STANDARD_N and w.n_reason is None for w in m.workloads)
    by_id = {s.id: s for s in m.models}
    mini = by_id["gpt-4o-mini"]
    assert (mini.provider, mini.family, mini.base_url, mini.api_key_env) == (
        "openai",
        "openai",
        "https://api.openai.com/v1",
        "OPENAI_API_KEY",
    )
    assert mini.sampling == {"temperature": 0} and not mini.flagship
    gemini = by_id["gemini-2.5-pro"]
    assert (gemini.family, gemini.api_key_env) == ("google", "GEMINI_API_KEY")
    flagship = by_id["gpt-5"]
    assert flagship.flagship and flagship.sampling == {}
    assert "temperature" in flagship.sampling_notes
    assert "platform.openai.com" in flagship.sampling_notes
    # The judge is one of the models, so it is not listed twice.
    assert m.judge is not None and m.judge.model == "claude-3-5-haiku-latest" and m.judges == []
    # Recipients from the environment (the test session's operator key).
    recipients = (root / "seed-recipients.txt").read_text()
    assert operator_key.recipient in recipients  # type: ignore[attr-defined]
    assert plan.unknown == ["acme-unheard-of-1"]  # type: ignore[attr-defined]


def test_prices_are_prefilled_from_the_database_and_unconfirmed(tmp_path: Path) -> None:
    root = tmp_path / "2027-01"
    _new(root)
    pricing = load_edition(root).pricing
    assert pricing.frozen_at == OPENS
    mini = pricing.models["gpt-4o-mini"]
    assert (mini.input_per_mtok, mini.cached_input_per_mtok, mini.output_per_mtok) == (
        Decimal("0.15"),
        Decimal("0.075"),
        Decimal("0.6"),
    )
    assert mini.unconfirmed and "genai-prices" in mini.unconfirmed
    assert mini.retrieved_at is None and mini.retrieved_by is None
    assert mini.database is not None
    assert mini.database.version == version("genai-prices")
    assert mini.database.for_date == OPENS.date() and mini.database.model == "gpt-4o-mini"
    assert mini.source_url == mini.database.cites and mini.source_url.startswith("https://")
    claude = pricing.models["claude-3-5-haiku-latest"]
    assert claude.cache_write_per_mtok is not None  # every class the database knows
    # Tiers the frozen table cannot hold are said, not silently dropped.
    assert "200,000 input tokens" in (pricing.models["gemini-2.5-pro"].unconfirmed or "")
    unknown = pricing.models["acme-unheard-of-1"]
    assert unknown.input_per_mtok is None and unknown.output_per_mtok is None
    assert "does not know 'acme-unheard-of-1'" in (unknown.unconfirmed or "")
    # Unset new fields stay out of a confirmed entry's dump (hash compatibility).
    raw = yaml.safe_load((root / "pricing.yaml").read_text())
    assert raw["models"]["gpt-4o-mini"]["unconfirmed"]


def test_sampling_table_names_its_source() -> None:
    assert sampling_for("openai", "gpt-4o-mini") == ({"temperature": 0}, "")
    for model in ("o3-mini", "o1", "gpt-5", "gpt-5-mini", "o4-mini-2025-04-16"):
        settings, note = sampling_for("openai", model)
        assert settings == {} and "Source: https://" in note, model
    assert sampling_for("openai", "gpt-5-chat-latest")[0] == {"temperature": 0}
    assert sampling_for("anthropic", "o3-like-name")[0] == {"temperature": 0}


def test_every_family_maps_to_a_database_provider() -> None:
    import genai_prices.data_snapshot as snap

    providers = snap.get_snapshot().providers
    for family, vendor in VENDORS.items():
        assert snap.find_provider_by_id(providers, vendor.price_provider) is not None, family


def test_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    root = tmp_path / "2027-01"
    root.mkdir()
    (root / "notes.txt").write_text("mine")
    with pytest.raises(UsageProblem) as caught:
        _new(root)
    assert len(caught.value.lines) == 1 and "not an empty folder" in caught.value.lines[0]
    assert sorted(p.name for p in root.iterdir()) == ["notes.txt"]


def test_refuses_without_a_judge_or_with_a_bad_model(tmp_path: Path) -> None:
    with pytest.raises(UsageProblem, match="--judge"):
        _new(tmp_path / "a", judges=[])
    assert not (tmp_path / "a").exists()
    result = CliRunner().invoke(
        app, ["new", str(tmp_path / "b"), "--model", "gpt-4o", "--opens-at", "2027-01-05T09:00Z"]
    )
    assert result.exit_code == 2 and "give <family>/<api model>" in result.output
    assert not (tmp_path / "b").exists()


def test_cli_prints_the_next_steps_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(RECIPIENTS_ENV, raising=False)
    root = tmp_path / "2027-01"
    result = CliRunner().invoke(
        app,
        [
            "new",
            str(root),
            "--model",
            "openai/gpt-4o-mini",
            "--model",
            "openai/acme-unheard-of-1",
            "--judge",
            "openai/gpt-4o-mini",
            "--opens-at",
            "2027-01-05T09:00:00Z",
        ],
    )
    assert result.exit_code == 0, result.output
    out = result.output
    order = [
        "edition.yaml",
        f"prices confirm {root} gpt-4o-mini",
        f"prices confirm {root} acme-unheard-of-1 --source-url URL --retrieved-at TIME "
        "--input-per-mtok",
        "seed-recipients.txt",
        "OPENAI_API_KEY",
        f"ledgerrate register {root}",
        f"ledgerrate run {root}",
        f"ledgerrate grade {root}",
        "ledgerrate build",
        f"ledgerrate verify {root}",
    ]
    positions = [out.index(step) for step in order]
    assert positions == sorted(positions)
    assert not (root / "seed-recipients.txt").exists()
