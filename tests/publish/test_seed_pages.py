"""A lost seed is said on every page that lists the edition's seeds and in its bundle; an
escrow is shown with its recipients and sealed hash."""

from __future__ import annotations

import html
import io
import json
import tarfile
from pathlib import Path

import pytest

from ledgerrate.core.io import load_model, write_json
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.escrow import seal_escrow
from ledgerrate.generate.seed_loss import declare_seeds_lost
from ledgerrate.publish.render import render_into
from ledgerrate.schema import Registration, SeedFile
from tests.publish.factory import PAYLOADS, SALT, SEED, WL, write_edition

REASON = f"the operator's laptop died {PAYLOADS[0]}"


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory, operator_key_module) -> Path:
    root = tmp_path_factory.mktemp("editions")
    fixtures = {
        "2026-04": write_edition(root, "2026-04", "2026-04-01", reference_only=True),
        "2026-07": write_edition(root, "2026-07", "2026-07-01", reference_only=True),
    }
    # 2026-04: no private seeds anywhere and no escrow: the loss is recorded with the command.
    declare_seeds_lost(root / "2026-04", REASON)
    # 2026-07: escrowed to the throwaway operator key.
    paths = EditionPaths(root / "2026-07")
    registration = load_model(Registration, paths.registration)
    seeds = SeedFile(
        edition="2026-07",
        seeds={
            WL: {
                "seed": SEED,
                "salt": SALT,
                "commitment": registration.workloads[WL].seed_commitment,
            }
        },
    )
    escrow = seal_escrow(paths, seeds, [operator_key_module])
    write_json(paths.registration, registration.model_copy(update={"seed_escrow": escrow}))
    out = tmp_path_factory.mktemp("docs") / "docs"
    render_into(root, out, results_fn=lambda p: fixtures[Path(p).name])
    return out


@pytest.fixture(scope="module")
def operator_key_module(operator_key) -> str:
    return operator_key.recipient


def _text(path: Path) -> str:
    return html.unescape(path.read_text("utf-8"))


def _statement(docs: Path) -> str:
    return json.loads((docs / "data" / "2026-04" / "seeds-lost.json").read_text())["statement"]


def test_the_statement_is_on_every_page_that_lists_the_seeds(docs: Path) -> None:
    statement = _statement(docs)
    assert statement.startswith("seeds not released: lost on ")
    assert statement.endswith("the commitments stand but can no longer be opened")
    for page in (
        "editions/2026-04/index.md",
        "data/2026-04/index.md",
        "methodology/1.0/changelog.md",
    ):
        assert statement in _text(docs / page), page
    assert "lost: can no longer be opened" in _text(docs / "data/2026-04/index.md")
    # The other edition is not said to be lost.
    assert "lost on" not in _text(docs / "editions/2026-07/index.md")


def test_the_reason_stays_inert_text(docs: Path) -> None:
    for page in (
        "editions/2026-04/index.md",
        "data/2026-04/index.md",
        "methodology/1.0/changelog.md",
    ):
        assert "<script>" not in (docs / page).read_text("utf-8")


def test_the_bundle_carries_the_statement(docs: Path) -> None:
    (bundle,) = (docs / "data" / "2026-04" / "bundle").glob("*.tar.gz")
    with tarfile.open(fileobj=io.BytesIO(bundle.read_bytes()), mode="r:gz") as tar:
        member = tar.extractfile("2026-04/seeds-lost.json")
        assert member is not None
        assert json.loads(member.read())["statement"] == _statement(docs)


def test_an_escrow_is_shown_with_its_recipients_and_sealed_hash(
    docs: Path, operator_key_module: str
) -> None:
    page = _text(docs / "editions/2026-07/index.md")
    registration = json.loads((docs / "data/2026-07/registration.json").read_text())
    assert operator_key_module in page
    assert registration["seed_escrow"]["sha256"] in page
    assert (docs / "data/2026-07/seeds.escrow.age").read_bytes().startswith(b"-----BEGIN AGE")
    assert "No escrow" in _text(docs / "editions/2026-04/index.md")
