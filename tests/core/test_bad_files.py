"""Issue #14 point 8: bad files and bad arguments get one line naming the file, the field and
the fix, a non-zero exit, and no file changed."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledgerrate import cli
from ledgerrate.core.io import MAX_YAML_BYTES, FileProblem, load_model, read_json
from ledgerrate.schema import MAX_LINE_CHARS, MAX_TEXT_CHARS, EditionManifest, ErrataFile

REPO = Path(__file__).resolve().parents[2]
EDITION = REPO / "editions" / "2026-11"


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def edition(tmp_path: Path) -> Path:
    target = tmp_path / "editions" / EDITION.name
    shutil.copytree(EDITION, target)
    return target


def _invoke(*args: str):
    return CliRunner().invoke(cli.app, list(args))


def _one_error_line(result) -> str:
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    errors = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, result.output
    return errors[0]


def test_non_utf8_edition_yaml(edition: Path) -> None:
    manifest = edition / "edition.yaml"
    manifest.write_bytes(manifest.read_bytes() + b"notes: caf\xe9\n")
    before = _tree(edition)
    line = _one_error_line(_invoke("results", str(edition)))
    assert (
        str(manifest) in line and "0xe9 is not UTF-8" in line and "save the file as UTF-8" in line
    )
    assert _tree(edition) == before


def test_non_utf8_json_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_bytes(b'{"edition": "caf\xe9"}')
    with pytest.raises(FileProblem) as caught:
        read_json(path)
    assert caught.value.lines == [f"{path}: line 1: byte 0xe9 is not UTF-8; save the file as UTF-8"]


def test_duplicate_yaml_keys_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "errata.yaml"
    path.write_text("edition: '2026-11'\nentries: []\nedition: '2026-12'\n")
    with pytest.raises(FileProblem) as caught:
        load_model(ErrataFile, path)
    [line] = caught.value.lines
    assert str(path) in line and "duplicate key 'edition'" in line and "line 3" in line


def test_ten_megabyte_title_is_refused(edition: Path) -> None:
    manifest = edition / "edition.yaml"
    manifest.write_text(manifest.read_text() + "title: " + "x" * 10_000_000 + "\n")
    before = _tree(edition)
    line = _one_error_line(_invoke("results", str(edition)))
    assert str(manifest) in line and f"{MAX_YAML_BYTES / 1e6:.1f} MB limit" in line
    assert len(line) < 400
    assert _tree(edition) == before


def test_every_text_field_is_bounded(tmp_path: Path) -> None:
    """Past the file limits, no text field holds more than MAX_TEXT_CHARS (a JSON file may be
    large, one title may not), and the error quotes the value clipped, not whole."""
    path = tmp_path / "edition.json"
    data = (EDITION / "edition.yaml").read_text()
    import yaml

    doc = yaml.safe_load(data)
    doc["brand"] = "x" * (MAX_TEXT_CHARS + 1)
    import json

    path.write_text(json.dumps(doc, default=str))
    with pytest.raises(FileProblem) as caught:
        load_model(EditionManifest, path)
    [line] = caught.value.lines
    # An edition file's own fields have tighter bounds still (test_field_limits.py).
    assert "brand" in line and f"at most {MAX_LINE_CHARS}" in line and len(line) < 400


def test_unknown_workload_id_names_edition_yaml(edition: Path) -> None:
    manifest = edition / "edition.yaml"
    manifest.write_text(
        manifest.read_text().replace("id: triage.ap-inbox.v1", "id: triage.ap-inbox.v9")
    )
    before = _tree(edition)
    line = _one_error_line(_invoke("results", str(edition)))
    assert "edition.yaml" in line and "triage.ap-inbox.v9" in line and "use one of" in line
    assert _tree(edition) == before


def test_generate_unknown_workload(tmp_path: Path) -> None:
    out = tmp_path / "out"
    line = _one_error_line(
        _invoke("generate", "extract.invoice.v9", "--seed", "1", "--out", str(out))
    )
    assert "WORKLOAD_ID 'extract.invoice.v9'" in line and "extract.invoice.v1" in line
    assert not out.exists()


def test_build_with_missing_editions_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    line = _one_error_line(
        _invoke("build", "--editions", str(tmp_path / "nonexistent"), "--out", str(out))
    )
    assert "--editions" in line and "no such folder" in line
    assert not out.exists()
    (tmp_path / "empty").mkdir()
    line = _one_error_line(
        _invoke("build", "--editions", str(tmp_path / "empty"), "--out", str(out))
    )
    assert "no edition folder inside" in line
    assert not out.exists()


def test_verify_on_an_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    line = _one_error_line(_invoke("verify", str(tmp_path)))
    assert "not an edition folder" in line and "edition.yaml" in line
    assert list(tmp_path.iterdir()) == []


def test_run_exits_non_zero_when_items_remain_missing(
    edition: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner's own tests show an item left missing after its retries; here the command
    must say so and exit non-zero, so a script driving it sees the cell is incomplete."""
    from ledgerrate.run import scheduler

    class Summary:
        missing = 3
        refused = ()

    monkeypatch.setattr(scheduler, "run_edition", lambda *_a, **_k: Summary())
    line = _one_error_line(_invoke("run", str(edition)))
    assert "3 item(s) still missing" in line and "run the same command again" in line
