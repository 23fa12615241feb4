"""`ledgerrate prices confirm`, and `register` refusing an edition while a price is unconfirmed;
every refusal of `register` names the one command or field that fixes it."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.core.edition import load_edition, pricing_hash
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import FileProblem
from ledgerrate.generate.confirm_prices import confirm_price
from ledgerrate.generate.new_edition import Wanted, new_edition
from ledgerrate.generate.register import register_edition
from ledgerrate.schema import ModelPrice
from ledgerrate.workloads.base import Workload

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
OPENS = NOW - dt.timedelta(minutes=5)
READ = NOW - dt.timedelta(minutes=30)
REPO = Path(__file__).resolve().parents[2]


def _toy_lookup(workload_id: str) -> Workload:
    from tests.run import toy

    return toy.lookup("toy.add.v1")


@pytest.fixture
def edition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEDGERRATE_PRIVATE_DIR", str(tmp_path / "private"))
    root = tmp_path / "editions" / "2026-12-z"
    new_edition(
        root,
        models=[Wanted("openai", "gpt-4o-mini"), Wanted("anthropic", "acme-unheard-of-1")],
        judges=[Wanted("openai", "gpt-4o-mini")],
        opens=OPENS,
    )
    return root


def _confirm(root: Path, model: str, **kw: object) -> ModelPrice:
    args: dict[str, object] = {
        "source_url": "https://openai.com/api/pricing/",
        "retrieved_at": READ,
        "by": "A. Operator",
    }
    args.update(kw)
    return confirm_price(root, model, **args)  # type: ignore[arg-type]


def test_confirm_records_who_read_the_page_and_when(edition: Path) -> None:
    confirmed = _confirm(edition, "gpt-4o-mini", prices={"output_per_mtok": Decimal("0.65")})
    assert confirmed.unconfirmed is None
    assert confirmed.retrieved_at == READ and confirmed.retrieved_by == "A. Operator"
    assert confirmed.source_url == "https://openai.com/api/pricing/"
    assert confirmed.output_per_mtok == Decimal("0.65")  # the page's figure, not the database's
    assert confirmed.input_per_mtok == Decimal("0.15")
    stored = load_edition(edition).pricing.models["gpt-4o-mini"]
    assert stored == confirmed and stored.database is not None  # provenance kept
    raw = yaml.safe_load((edition / "pricing.yaml").read_text())["models"]["gpt-4o-mini"]
    assert "unconfirmed" not in raw and raw["retrieved_by"] == "A. Operator"


def test_an_unknown_model_is_confirmed_with_the_page_s_prices(edition: Path) -> None:
    before = (edition / "pricing.yaml").read_bytes()
    with pytest.raises(FileProblem) as caught:
        _confirm(edition, "acme-unheard-of-1")
    assert "input_per_mtok" in " ".join(caught.value.lines)
    assert (edition / "pricing.yaml").read_bytes() == before
    confirmed = _confirm(
        edition,
        "acme-unheard-of-1",
        prices={"input_per_mtok": Decimal("1"), "output_per_mtok": Decimal("5")},
    )
    assert (confirmed.input_per_mtok, confirmed.output_per_mtok) == (Decimal(1), Decimal(5))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"retrieved_at": OPENS + dt.timedelta(minutes=1)}, "after the table's frozen_at"),
        ({"source_url": "vendor page"}, "--source-url"),
        ({"by": "  "}, "--by"),
    ],
)
def test_bad_confirmations_change_nothing(edition: Path, change: dict, message: str) -> None:
    before = (edition / "pricing.yaml").read_bytes()
    with pytest.raises(UsageProblem) as caught:
        _confirm(edition, "gpt-4o-mini", **change)
    assert len(caught.value.lines) == 1 and message in caught.value.lines[0]
    assert (edition / "pricing.yaml").read_bytes() == before


def test_an_unknown_model_id_is_named(edition: Path) -> None:
    with pytest.raises(UsageProblem, match="confirm one of: gpt-4o-mini, acme-unheard-of-1"):
        _confirm(edition, "gpt-4")


def test_register_refuses_while_a_price_is_unconfirmed(edition: Path) -> None:
    _confirm(edition, "gpt-4o-mini")
    with pytest.raises(UsageProblem) as caught:
        register_edition(edition)
    assert caught.value.lines == [
        f"{edition}/pricing.yaml: models.acme-unheard-of-1: unconfirmed price; read the "
        f"vendor's page and run `ledgerrate prices confirm {edition} acme-unheard-of-1 "
        "--source-url URL --retrieved-at TIME`"
    ]
    assert not (edition / "registration.json").exists()


def test_a_hand_edit_confirms_as_well(edition: Path) -> None:
    """The schema is the contract: set the price and retrieved_at, drop `unconfirmed`."""
    path = edition / "pricing.yaml"
    raw = yaml.safe_load(path.read_text())
    for entry in raw["models"].values():
        entry.pop("unconfirmed")
        entry["retrieved_at"] = READ.isoformat()
        entry["input_per_mtok"] = entry["input_per_mtok"] or "1"
        entry["output_per_mtok"] = entry["output_per_mtok"] or "5"
    path.write_text(yaml.safe_dump(raw))
    assert all(p.unconfirmed is None for p in load_edition(edition).pricing.models.values())


def test_confirming_a_registered_edition_is_refused(edition: Path) -> None:
    (edition / "registration.json").write_text("{}")
    with pytest.raises(UsageProblem, match="prices are sealed"):
        _confirm(edition, "gpt-4o-mini")


@pytest.mark.parametrize("edition_id", ["2026-11", "2026-11-b", "2026-12"])
def test_bundled_tables_still_hash_to_their_sealed_values(edition_id: str) -> None:
    sealed = load_edition(REPO / "editions" / edition_id)
    assert sealed.registration is not None
    assert (
        pricing_hash(sealed.pricing, sealed.registration.hash_scheme)
        == sealed.registration.pricing_hash
    )
    dumped = sealed.pricing.model_dump(mode="json")
    for entry in dumped["models"].values():
        assert not {"unconfirmed", "database", "retrieved_by"} & set(entry)


def test_cli_confirm(edition: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "prices",
            "confirm",
            str(edition),
            "gpt-4o-mini",
            "--source-url",
            "https://openai.com/api/pricing/",
            "--retrieved-at",
            READ.isoformat(),
            "--by",
            "A. Operator",
            "--cached-input-per-mtok",
            "0.08",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "confirmed gpt-4o-mini" in result.output
    price = load_edition(edition).pricing.models["gpt-4o-mini"]
    assert price.cached_input_per_mtok == Decimal("0.08")
    bad = CliRunner().invoke(
        app,
        ["prices", "confirm", str(edition), "gpt-4o-mini", "--source-url", "https://x.org/",
         "--retrieved-at", "yesterday"],
    )  # fmt: skip
    assert bad.exit_code == 2 and "not an ISO time" in bad.output


# ------------------------------------------------------------------ every refusal of register

# A command, or a field: `file.yaml: field.path: …` as the schema's errors name it.
FIX = re.compile(r"`ledgerrate [a-z -]+|errata\.yaml|--seeds-kept-elsewhere|`[a-z_]+:?`|"
                 r"\.yaml: [\w.-]+: |seed-recipients|LEDGERRATE_")  # fmt: skip


def _refusals(root: Path) -> dict[str, list[str]]:
    """Every refusal `register` can give, each provoked on its own edition."""
    found: dict[str, list[str]] = {}

    def attempt(name: str, edit: object, **kw: object) -> None:
        target = root.parent / name
        target.mkdir()
        for f in ("edition.yaml", "pricing.yaml"):
            (target / f).write_text((root / f).read_text())
        files = ("edition.yaml", "pricing.yaml")
        doc = {f: yaml.safe_load((target / f).read_text()) for f in files}
        doc["edition.yaml"]["id"] = name
        edit(doc)  # type: ignore[operator]
        for f, value in doc.items():
            (target / f).write_text(yaml.safe_dump(value))
        try:
            register_edition(target, **kw)  # type: ignore[arg-type]
        except (UsageProblem, FileProblem) as problem:
            found[name] = problem.lines
        else:
            found[name] = []

    def unconfirmed(doc: dict) -> None:
        pass

    def no_price(doc: dict) -> None:
        del doc["pricing.yaml"]["models"]["gpt-4o-mini"]

    def late_price(doc: dict) -> None:
        _confirmed(doc)
        doc["pricing.yaml"]["models"]["gpt-4o-mini"]["retrieved_at"] = NOW.isoformat()

    def no_temperature(doc: dict) -> None:
        _confirmed(doc)
        doc["edition.yaml"]["models"][0]["sampling"] = {}

    def odd_n(doc: dict) -> None:
        _confirmed(doc)
        doc["edition.yaml"]["workloads"][0]["n"] = 3

    def unknown_workload(doc: dict) -> None:
        _confirmed(doc)
        doc["edition.yaml"]["workloads"][0]["id"] = "extract.invoice.v9"

    def baseline_without_compute(doc: dict) -> None:
        _confirmed(doc)
        doc["edition.yaml"]["models"].append(
            {"id": "ref", "name": "ref", "provider": "baseline", "family": "reference"}
        )

    def bad_field(doc: dict) -> None:
        doc["edition.yaml"]["window"]["closes"] = "2099-01-01T00:00:00Z"

    for edit in (unconfirmed, no_price, late_price, no_temperature, odd_n, unknown_workload,
                 baseline_without_compute, bad_field):  # fmt: skip
        attempt(edit.__name__.replace("_", "-"), edit)
    return found


def _confirmed(doc: dict) -> None:
    for entry in doc["pricing.yaml"]["models"].values():
        entry.pop("unconfirmed", None)
        entry["retrieved_at"] = READ.isoformat()
        entry["input_per_mtok"] = entry["input_per_mtok"] or "1"
        entry["output_per_mtok"] = entry["output_per_mtok"] or "5"


def test_each_refusal_of_register_names_its_fix(
    edition: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusals = _refusals(edition)
    assert set(refusals) == {
        "unconfirmed", "no-price", "late-price", "no-temperature", "odd-n",
        "unknown-workload", "baseline-without-compute", "bad-field",
    }  # fmt: skip
    for name, lines in refusals.items():
        assert lines, f"{name}: register accepted it"
        for line in lines:
            assert FIX.search(line), f"{name}: names no command or field: {line}"
    assert "`ledgerrate prices confirm" in refusals["unconfirmed"][0]
    assert "`n_reason`" in refusals["odd-n"][0]
    assert "sampling_notes" in refusals["no-temperature"][0]
    assert "`compute:`" in refusals["baseline-without-compute"][0]
    # Escrow: none configured, or configured and --seeds-kept-elsewhere given as well.
    target = edition.parent / "escrow"
    target.mkdir()
    for f in ("edition.yaml", "pricing.yaml"):
        (target / f).write_text((edition / f).read_text())
    doc = yaml.safe_load((target / "pricing.yaml").read_text())
    _confirmed({"pricing.yaml": doc})
    (target / "pricing.yaml").write_text(yaml.safe_dump(doc))
    manifest = yaml.safe_load((target / "edition.yaml").read_text())
    manifest["id"] = "escrow"
    (target / "edition.yaml").write_text(yaml.safe_dump(manifest))
    with pytest.raises(UsageProblem, match="--seeds-kept-elsewhere"):
        register_edition(target, seeds_kept_elsewhere="in a safe")
    monkeypatch.delenv("LEDGERRATE_ESCROW_RECIPIENTS")
    with pytest.raises(UsageProblem, match=r"seed-recipients\.txt or LEDGERRATE_ESCROW_RECIPIENTS"):
        register_edition(target)
    # Already registered: the fix is an erratum or a new edition.
    register_edition(target, seeds_kept_elsewhere="in a safe", lookup=_toy_lookup)
    with pytest.raises(UsageProblem, match=r"errata\.yaml.*`ledgerrate new`"):
        register_edition(target, seeds_kept_elsewhere="in a safe", lookup=_toy_lookup)
