"""Seed escrow at registration, release from it in a fresh clone, and a lost seed said plainly.

Every key pair here is a throwaway made in a temporary folder (tests/conftest.py's
`operator_key`, or made in the test); no private key is ever committed.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from pathlib import Path

import pyrage
import pytest
from typer.testing import CliRunner

from ledgerrate.cli import app
from ledgerrate.core.edition import load_edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import seed_commitment, sha256_file
from ledgerrate.core.io import load_model, write_json
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate.escrow import IDENTITY_ENV, RECIPIENTS_ENV, seal_escrow
from ledgerrate.generate.register import register_edition
from ledgerrate.generate.seed_loss import declare_seeds_lost
from ledgerrate.generate.seeds import dataset_for, load_seeds, release
from ledgerrate.schema import SeedFile, SeedLoss
from ledgerrate.verify.report import Report
from ledgerrate.verify.seed_custody import check_seed_custody
from tests.run.runkit import model, write_edition

AFTER_WINDOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)


def _identity_file(folder: Path) -> tuple[str, Path]:
    identity = pyrage.x25519.Identity.generate()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "age-identity.txt"
    path.write_text(f"# throwaway\n{identity}\n")
    return str(identity.to_public()), path


def _registered(edition_factory, lookup):
    root = edition_factory(
        models=[model("ref", "baseline")], workloads=["toy.add.v1", "toy.mul.v1"]
    )
    return root, register_edition(root, lookup=lookup)


def test_register_escrows_the_seeds_to_the_recipient_and_seals_it(
    edition_factory, lookup, operator_key, private_dir
) -> None:
    root, reg = _registered(edition_factory, lookup)
    escrow = reg.seed_escrow
    assert escrow is not None and escrow.recipients == [operator_key.recipient]
    ciphertext = (root / "seeds.escrow.age").read_bytes()
    assert escrow.sha256 == sha256_file(root / "seeds.escrow.age")
    assert ciphertext.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----")
    # Nothing in the committed ciphertext gives a seed or a salt away.
    private = load_model(SeedFile, private_dir / root.name / "seeds.json")
    for entry in private.seeds.values():
        assert str(entry.seed).encode() not in ciphertext
        assert entry.salt.encode() not in ciphertext
    sealed = json.loads((root / "registration.json").read_text())["seed_escrow"]
    assert sealed["sha256"] == escrow.sha256 and sealed["recipients"] == escrow.recipients
    # The operator identity opens it to exactly the private seeds.
    plain = pyrage.decrypt(
        ciphertext,
        [pyrage.x25519.Identity.from_str(operator_key.identity_file.read_text().split()[-1])],
    )
    assert SeedFile.model_validate_json(plain) == private


def test_register_refuses_without_a_recipient_and_writes_nothing(
    edition_factory, lookup, private_dir, monkeypatch
) -> None:
    monkeypatch.delenv(RECIPIENTS_ENV)
    root = edition_factory(models=[model("ref", "baseline")])
    with pytest.raises(UsageProblem) as info:
        register_edition(root, lookup=lookup)
    (line,) = info.value.lines
    assert "'2026-07'" in line and "--seeds-kept-elsewhere" in line and RECIPIENTS_ENV in line
    assert not (root / "registration.json").exists()
    assert not (root / "seeds.escrow.age").exists()
    assert not private_dir.exists()


def test_seeds_kept_elsewhere_is_sealed_instead_of_an_escrow(
    edition_factory, lookup, monkeypatch
) -> None:
    root = edition_factory(models=[model("ref", "baseline")])
    with pytest.raises(UsageProblem, match="escrow recipients are configured"):
        register_edition(root, lookup=lookup, seeds_kept_elsewhere="a bank vault")
    monkeypatch.delenv(RECIPIENTS_ENV)
    reg = register_edition(root, lookup=lookup, seeds_kept_elsewhere="  a  bank vault ")
    assert reg.seed_escrow is None and reg.seeds_kept_elsewhere == "a bank vault"
    assert not (root / "seeds.escrow.age").exists()
    assert json.loads((root / "registration.json").read_text())["seeds_kept_elsewhere"] == (
        "a bank vault"
    )


def test_recipients_come_from_the_edition_and_the_environment(
    edition_factory, lookup, operator_key, tmp_path, monkeypatch
) -> None:
    second, _ = _identity_file(tmp_path / "second")
    third, _ = _identity_file(tmp_path / "third")
    listed = tmp_path / "recipients.txt"
    listed.write_text(f"# team key\n{third}\n")
    monkeypatch.setenv(RECIPIENTS_ENV, f"{operator_key.recipient},{listed}")
    root = edition_factory(models=[model("ref", "baseline")])
    (root / "seed-recipients.txt").write_text(f"# edition key\n\n{second}\n{third}\n")
    reg = register_edition(root, lookup=lookup)
    assert reg.seed_escrow is not None
    assert reg.seed_escrow.recipients == [second, third, operator_key.recipient]


def test_a_bad_recipient_line_is_one_line_naming_file_and_line(
    edition_factory, lookup, monkeypatch
) -> None:
    root = edition_factory(models=[model("ref", "baseline")])
    (root / "seed-recipients.txt").write_text("# ok\nage1notakey\n")
    with pytest.raises(UsageProblem) as info:
        register_edition(root, lookup=lookup)
    (line,) = info.value.lines
    assert "seed-recipients.txt: line 2" in line
    assert not (root / "registration.json").exists()
    monkeypatch.setenv(RECIPIENTS_ENV, "/no/such/recipients.txt")
    (root / "seed-recipients.txt").unlink()
    with pytest.raises(UsageProblem, match="neither an age public key"):
        register_edition(root, lookup=lookup)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _fresh_clone(tmp_path: Path, repo_root: Path) -> Path:
    """Commit the repository (its .gitignore keeps private/ out) and clone it elsewhere."""
    _git(repo_root, "init", "-q")
    _git(repo_root, "add", "-A")
    _git(repo_root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "edition")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(repo_root), str(clone))
    return clone


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_fresh_clone_releases_from_the_escrow_with_only_an_identity_file(
    tmp_path, lookup, operator_key, monkeypatch, repo_root
) -> None:
    # The private seeds go where a real operator's do: ./private, which .gitignore keeps out.
    monkeypatch.delenv("LEDGERRATE_PRIVATE_DIR")
    repo = tmp_path / "repo"

    # An edition whose window has closed: its seeds are due for release.
    opens = dt.datetime.now(dt.UTC) - dt.timedelta(hours=80)
    edition = write_edition(
        repo / "editions" / "2026-07", models=[model("ref", "baseline")], opens=opens
    )
    shutil.copy(repo_root / ".gitignore", repo / ".gitignore")
    reg = register_edition(edition, lookup=lookup)
    assert (repo / "private" / "2026-07" / "seeds.json").exists()
    clone = _fresh_clone(tmp_path, repo)
    cloned = clone / "editions" / "2026-07"
    assert not (clone / "private").exists() and (cloned / "seeds.escrow.age").exists()

    runner = CliRunner()
    without = runner.invoke(app, ["seeds", "release", str(cloned)])
    assert without.exit_code == 2
    lines = without.output.strip().splitlines()
    assert len(lines) == 1, lines
    assert "edition '2026-07'" in lines[0] and IDENTITY_ENV in lines[0]
    assert not (cloned / "seeds.json").exists()

    monkeypatch.setenv(IDENTITY_ENV, str(operator_key.identity_file))
    with_identity = runner.invoke(app, ["seeds", "release", str(cloned)])
    assert with_identity.exit_code == 0, with_identity.output
    assert "from the escrow" in with_identity.output
    released = load_model(SeedFile, cloned / "seeds.json")
    for workload_id, sealed in reg.workloads.items():
        entry = released.seeds[workload_id]
        assert seed_commitment(entry.seed, entry.salt) == sealed.seed_commitment
    assert released.released_at is not None
    # The identity's secret never reaches the repository.
    secret = operator_key.identity_file.read_text().split()[-1]
    for path in clone.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert secret.encode() not in path.read_bytes()


def test_the_cli_release_says_where_the_seeds_came_from(
    edition_factory, lookup, operator_key, private_dir, monkeypatch
) -> None:
    root, _ = _registered(edition_factory, lookup)
    closes = load_edition(root).manifest.window.closes
    shutil.rmtree(private_dir)
    monkeypatch.setenv(IDENTITY_ENV, str(operator_key.identity_file))
    # A fresh machine can also go on running the edition before release: the escrow opens.
    assert dataset_for(root, "toy.add.v1", lookup=lookup).hash
    assert load_seeds(root).edition == root.name
    assert release(root, now=closes).source == "the escrow"


def test_a_wrong_identity_or_a_swapped_ciphertext_is_refused_in_one_line(
    edition_factory, lookup, private_dir, tmp_path, monkeypatch
) -> None:
    root, reg = _registered(edition_factory, lookup)
    shutil.rmtree(private_dir)
    _, stranger = _identity_file(tmp_path / "stranger")
    monkeypatch.setenv(IDENTITY_ENV, str(stranger))
    with pytest.raises(UsageProblem) as info:
        release(root, now=AFTER_WINDOW)
    (line,) = info.value.lines
    assert "edition '2026-07'" in line and "not one of the escrow's 1 recipient(s)" in line
    assert "seeds lost" in line
    # A ciphertext anyone could make with the public key, holding other seeds, is not the
    # sealed one: refused before decryption.
    sealed = (root / "seeds.escrow.age").read_bytes()
    forged = SeedFile(edition=root.name, seeds={})
    seal_escrow(EditionPaths(root), forged, reg.seed_escrow.recipients)
    with pytest.raises(UsageProblem, match="not the ciphertext sealed at registration"):
        release(root, now=AFTER_WINDOW)
    # A broken identity file is reported without quoting its (secret) content.
    (root / "seeds.escrow.age").write_bytes(sealed)
    stranger.write_text("AGE-SECRET-KEY-1NOTAKEYATALL\n")
    with pytest.raises(UsageProblem) as info:
        release(root, now=AFTER_WINDOW)
    (line,) = info.value.lines
    assert "NOTAKEY" not in line and "line 1" in line and "not an age X25519 identity" in line
    assert not (root / "seeds.json").exists()


def test_a_lost_seed_is_sealed_once_and_disclosed_by_verify_then_recovered(
    edition_factory, lookup, private_dir, tmp_path, operator_key, monkeypatch
) -> None:
    root, reg = _registered(edition_factory, lookup)
    paths = EditionPaths(root)
    with pytest.raises(UsageProblem, match="can still be opened from the private folder"):
        declare_seeds_lost(root, "the laptop died")
    kept = tmp_path / "kept-seeds.json"
    shutil.move(private_dir / root.name / "seeds.json", kept)
    monkeypatch.setenv(IDENTITY_ENV, str(operator_key.identity_file))
    with pytest.raises(UsageProblem, match="can still be opened from the escrow"):
        declare_seeds_lost(root, "the laptop died")
    monkeypatch.delenv(IDENTITY_ENV)
    with pytest.raises(UsageProblem, match="--reason"):
        declare_seeds_lost(root, "   ")

    moment = dt.datetime(2026, 8, 3, 9, 30, tzinfo=dt.UTC)
    loss = declare_seeds_lost(root, "the laptop died and the operator key was lost", now=moment)
    assert loss.statement == (
        "seeds not released: lost on 2026-08-03 (the laptop died and the operator key was lost); "
        "the commitments stand but can no longer be opened"
    )
    assert loss.registration_sha256 == sha256_file(paths.registration)
    assert loss.commitments == {w: s.seed_commitment for w, s in reg.workloads.items()}
    assert "escrow not opened: LEDGERRATE_OPERATOR_IDENTITY is not set" in " ".join(loss.tried)
    assert str(tmp_path) not in paths.seeds_lost.read_text()  # no local path is published
    with pytest.raises(UsageProblem, match="already recorded on 2026-08-03"):
        declare_seeds_lost(root, "again")

    report = Report()
    check_seed_custody(paths, reg, report)
    assert report.ok and report.checked["seed escrow as sealed"] == 1
    (limitation,) = report.limitations
    assert loss.statement in limitation
    assert "VERIFIED" in report.lines()[-1] and "1 disclosed limitation(s)" in report.lines()[-1]

    # The seeds turn up: released normally, the statement stays beside the release.
    shutil.move(kept, private_dir / root.name / "seeds.json")
    assert release(root, now=AFTER_WINDOW).source.startswith("the private folder")
    assert load_model(SeedLoss, paths.seeds_lost) == loss
    report = Report()
    check_seed_custody(paths, reg, report)
    assert report.ok and not report.limitations
    assert any("later recovered" in note for note in report.notes)


def test_verify_catches_a_statement_that_is_not_this_registrations(
    edition_factory, lookup, private_dir
) -> None:
    root, reg = _registered(edition_factory, lookup)
    paths = EditionPaths(root)
    shutil.rmtree(private_dir)
    declare_seeds_lost(root, "gone")
    data = json.loads(paths.seeds_lost.read_text())
    data["commitments"]["toy.add.v1"] = "0" * 64
    data["statement"] = "seeds released"
    write_json(paths.seeds_lost, data)
    (root / "seeds.escrow.age").write_bytes(b"tampered")
    report = Report()
    check_seed_custody(paths, reg, report)
    fields = {m.field for m in report.mismatches}
    assert {"commitments", "statement", "sha256 (registration.json seed_escrow)"} <= fields


def test_the_seeds_lost_command_is_one_line_and_exit_2_when_refused(
    edition_factory, lookup
) -> None:
    root, _ = _registered(edition_factory, lookup)
    result = CliRunner().invoke(app, ["seeds", "lost", str(root), "--reason", "gone"])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert "not lost" in result.output
    assert not (root / "seeds-lost.json").exists()
