"""The standalone verifier (ledgerrate/site/verifier/): it imports nothing of ours, it passes
the bundled site, and it reports each kind of tampering as a mismatch."""

from __future__ import annotations

import ast
import contextlib
import functools
import gzip
import hashlib
import html
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.verify import standalone_kit

REPO = Path(__file__).resolve().parents[2]
VERIFIER = standalone_kit.VERIFIER
ALLOWED_THIRD_PARTY = {"rfc8785", "yaml"}


def _module() -> ModuleType:
    return standalone_kit.load("verify_standalone.py", "verify_standalone_under_test")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            names.add(node.module or "")
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            names.add(ast.unparse(node.args[0]) if node.args else "?")
    return names


@pytest.mark.parametrize("name", ["verify_standalone.py", "standalone_figures.py"])
def test_imports_only_the_standard_library_rfc8785_and_yaml(name: str) -> None:
    path = VERIFIER / name
    if not path.is_file():
        pytest.skip(f"{name} is not in this checkout yet")
    imported = {module.split(".")[0] for module in _imports(path)}
    assert not any(m == "ledgerrate" for m in imported), f"{name} imports ledgerrate"
    outside = imported - set(sys.stdlib_module_names) - ALLOWED_THIRD_PARTY - {"__future__"}
    assert not outside, f"{name} imports {sorted(outside)}: only stdlib, rfc8785 and yaml"


def test_requirements_pin_exactly_the_two_packages_at_the_lock_versions() -> None:
    pins = [
        line.strip()
        for line in (VERIFIER / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    lock = (REPO / "requirements.lock").read_text().splitlines()
    assert sorted(p.split("==")[0] for p in pins) == ["pyyaml", "rfc8785"]
    for pin in pins:
        assert pin in lock, f"{pin} differs from requirements.lock"


# --------------------------------------------------------------------------- the bundled site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ledgerrate.publish.build import build_site

    # A copy: a build records publications into the edition folders, never into the repo's.
    editions = tmp_path_factory.mktemp("editions") / "editions"
    shutil.copytree(REPO / "editions", editions)
    return build_site(editions=editions, out=tmp_path_factory.mktemp("build"))


def _run(source: Path | str, *extra: str) -> tuple[int, str]:
    module = _module()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = module.main([str(source), *extra])
    return code, out.getvalue()


def _mismatches(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("MISMATCHED")]


def test_the_site_publishes_the_verifier_with_its_hashes(site: Path) -> None:
    page = (site / "data" / "index.html").read_text(encoding="utf-8")
    for name in ("verify_standalone.py", "requirements.txt"):
        data = (site / "data" / "verifier" / name).read_bytes()
        assert data == (VERIFIER / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() in page
    # The install commands are a verbatim block, whose characters the page holds as entities.
    assert "pip install -r requirements.txt" in html.unescape(page)


def test_every_source_hash_is_recomputed_from_published_bytes(site: Path) -> None:
    _, text = _run(site)
    for field in ("workload_hash", "grader_hash", "generator_hash", "prompt_hash", "rubric_hash"):
        lines = [line for line in text.splitlines() if f" {field}: " in line]
        # Seven workloads in each of the three bundled editions.
        assert len(lines) == 21, field
        assert all(line.startswith("MATCHED") for line in lines), lines
    for check in ("edition_hash", "pricing_hash", "erratum hash", "publication digest"):
        lines = [line for line in text.splitlines() if f": {check}: " in line]
        assert lines and all(line.startswith("MATCHED") for line in lines), (check, lines)
    assert "unknown recipe" not in text


def test_the_bundled_site_has_no_mismatch(site: Path) -> None:
    code, text = _run(site)
    assert _mismatches(text) == []
    assert code == 0
    # Everything not matched names what it waits for.
    for line in text.splitlines():
        if line.startswith("WITHHELD"):
            assert "(withheld until " in line


def test_withheld_seeds_name_their_release(site: Path) -> None:
    _, text = _run(site, "--edition", "2026-12")
    withheld = [line for line in text.splitlines() if line.startswith("WITHHELD")]
    assert len(withheld) == 7
    assert all("(withheld until the next edition" in line for line in withheld), withheld


# --------------------------------------------------------------------------- it can fail


@pytest.fixture
def tampered(site: Path, tmp_path: Path) -> Path:
    """A copy of the site (hard links, so a tamper must replace a file, not write through)."""
    copy = tmp_path / "site"
    shutil.copytree(site, copy, copy_function=os.link)
    return copy


def _replace(site: Path, edition: str, rel: str, data: bytes) -> None:
    """Rewrite a download and its SHA256SUMS line, as someone hiding the change would."""
    folder = site / "data" / edition
    path = folder / rel
    path.unlink()
    path.write_bytes(data)
    sums = folder / "SHA256SUMS"
    lines = sums.read_text().splitlines()
    digest = hashlib.sha256(data).hexdigest()
    fixed = [f"{digest}  {rel}" if line.endswith(f"  {rel}") else line for line in lines]
    sums.unlink()
    sums.write_text("\n".join(fixed) + "\n")


def _new_mismatches(before: str, after: str) -> list[str]:
    return sorted(set(_mismatches(after)) - set(_mismatches(before)))


def test_a_rewritten_sealed_file_is_a_mismatch(site: Path, tampered: Path) -> None:
    rel = "edition.yaml"
    data = (tampered / "data" / "2026-11-b" / rel).read_bytes() + b"# edited after sealing\n"
    _replace(tampered, "2026-11-b", rel, data)
    _, before = _run(site, "--edition", "2026-11-b")
    code, after = _run(tampered, "--edition", "2026-11-b")
    new = _new_mismatches(before, after)
    assert any("sealed file: edition.yaml" in line for line in new), new
    assert code == 1


def test_an_edited_superseded_grade_record_is_a_mismatch(site: Path, tampered: Path) -> None:
    rel = "grades/query.nl2sql.v1/reference/single-shot.jsonl.gz"
    lines = gzip.decompress((tampered / "data" / "2026-11" / rel).read_bytes()).splitlines()
    flipped = False
    for index, line in enumerate(lines):
        record = json.loads(line)
        if record["revision"] == 1 and not flipped:
            record["outcome"] = "fail" if record["outcome"] == "pass" else "pass"
            lines[index] = json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
            flipped = True
    assert flipped
    _replace(tampered, "2026-11", rel, gzip.compress(b"\n".join(lines) + b"\n", mtime=0))
    _, before = _run(site, "--edition", "2026-11")
    code, after = _run(tampered, "--edition", "2026-11")
    new = _new_mismatches(before, after)
    assert any("raw log: grades/query.nl2sql.v1/reference/single-shot.jsonl" in x for x in new)
    assert code == 1


def test_prices_retrieved_after_registration_are_a_mismatch(site: Path, tampered: Path) -> None:
    rel = "pricing.yaml"
    text = (tampered / "data" / "2026-11" / rel).read_text()
    late = text.replace("retrieved_at: 2026-11-29T17:00:00Z", "retrieved_at: 2026-11-30T09:00:00Z")
    assert late != text
    _replace(tampered, "2026-11", rel, late.encode())
    code, after = _run(tampered, "--edition", "2026-11")
    assert any("price times: pricing.compute.retrieved_at" in x for x in _mismatches(after))
    assert code == 1


@pytest.mark.parametrize("discloses", [True, False])
def test_late_prices_an_erratum_discloses_are_reported_as_disclosed(
    tmp_path: Path, discloses: bool
) -> None:
    module = _module()
    folder = tmp_path / "e1"
    folder.mkdir()
    (folder / "registration.json").write_text(
        json.dumps({"registered_at": "2026-12-01T21:38:24Z", "hash_scheme": 2})
    )
    (folder / "edition.yaml").write_text("window:\n  opens: 2026-12-01T21:50:00Z\n")
    (folder / "pricing.yaml").write_text(
        "frozen_at: 2026-12-01T21:30:00Z\ncompute:\n  retrieved_at: 2026-12-01T21:40:00Z\n"
    )
    entry = "  - id: '2026-12-05'\n    title: Late prices\n"
    entry += "    discloses: [price-times]\n" if discloses else ""
    (folder / "errata.yaml").write_text(f"entries:\n{entry}")
    report = module.Report(quiet=True)
    with contextlib.redirect_stdout(io.StringIO()):
        module.Checker(module.EditionView(folder, "site", None), report, []).prices()
    statuses = [row[0] for row in report.rows]
    details = [row[3] for row in report.rows]
    # Read after the table was frozen, and after the registration.
    assert statuses == ["disclosed" if discloses else "mismatched"] * 2
    assert "pricing.compute.retrieved_at 2026-12-01T21:40:00Z is later than frozen_at" in details[0]
    assert (
        "pricing.compute.retrieved_at 2026-12-01T21:40:00Z is later than registered_at"
        in (details[1])
    )
    if discloses:
        assert all("disclosed by erratum 2026-12-05" in detail for detail in details)


def test_a_changed_hash_recipe_is_a_mismatch(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = _module()
    real = module.canonical

    def ascii_escaped(value: object, scheme: int) -> bytes:
        # A plausible wrong canonical form: non-ASCII escaped, as json.dumps does by default.
        if scheme == 1:
            return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
        return real(value, scheme)

    monkeypatch.setattr(module, "canonical", ascii_escaped)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = module.main([str(site), "--edition", "2026-11"])
    wrong = _mismatches(out.getvalue())
    # Errata text has "×", "‖" and curly quotes: their hashes move, and so does the chain.
    assert any(": erratum hash: " in line for line in wrong), wrong
    assert code == 1


def test_the_canonical_forms_follow_hashes_md() -> None:
    module = _module()
    value = {"b": 1.0, "a": "é", "n": 2**60}
    assert module.canonical(value, 1) == '{"a":"é","b":1.0,"n":1152921504606846976}'.encode()
    assert module.canonical(value, 2) == '{"a":"é","b":1,"n":"1152921504606846976"}'.encode()
    assert module.seed_commitment(7, "ab") == hashlib.sha256("7\u2016ab".encode()).hexdigest()


def test_yaml_timestamps_are_spelled_as_the_toolchain_writes_them() -> None:
    module = _module()
    loaded = module.load_yaml(
        b"a: 2026-12-01T21:40:00Z\nb: 2026-12-01 21:40:00.5+00:00\nc: 2026-12-01\nd: '2026-12-01'\n"
    )
    assert loaded == {
        "a": "2026-12-01T21:40:00Z",
        "b": "2026-12-01T21:40:00.500000Z",
        "c": "2026-12-01",
        "d": "2026-12-01",
    }


def test_a_missing_figures_file_is_a_clear_failure(site: Path, tmp_path: Path) -> None:
    alone = tmp_path / "verify_standalone.py"
    shutil.copyfile(VERIFIER / "verify_standalone.py", alone)
    run = subprocess.run(
        [sys.executable, str(alone), str(site), "--edition", "2026-11-b", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert "standalone_figures.py is missing" in run.stdout


def test_an_evidence_bundle_is_checked_on_its_own(site: Path) -> None:
    bundle = next((site / "data" / "2026-11-b" / "bundle").glob("*.tar.gz"))
    _, text = _run(bundle)
    assert "MATCHED      2026-11-b: evidence bundle name" in text
    assert "MATCHED      2026-11-b: publication digest: state 4 of 4" in text
    # What a bundle does not carry is named, never silently skipped.
    assert "NOT CHECKED  2026-11-b: edition_hash: needs hashed/edition.json" in text


# --------------------------------------------------------------------------- a fresh venv


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_in_a_new_venv_with_only_its_requirements_over_http(site: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    uv = REPO / ".venv" / "bin" / "uv"
    install = [str(uv), "pip", "install", "-q", "--python", str(python), "-r"]
    requirements = str(site / "data" / "verifier" / "requirements.txt")
    offline = subprocess.run([*install, requirements, "--offline"], check=False)
    if offline.returncode != 0:
        subprocess.run([*install, requirements], check=True)
    listed = subprocess.run(
        [str(uv), "pip", "list", "--python", str(python), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert sorted(p["name"].lower() for p in json.loads(listed.stdout)) == ["pyyaml", "rfc8785"]
    with _served(site) as url:
        run = subprocess.run(
            [str(python), str(site / "data" / "verifier" / "verify_standalone.py"), url],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
            env={"PATH": os.environ.get("PATH", ""), "NO_PROXY": "127.0.0.1"},
            timeout=300,
        )
    assert "summary:" in run.stdout, run.stderr
    assert "unknown recipe" not in run.stdout
    # The same checks as on the folder: fetching over http changes nothing.
    _, local = _run(site)
    assert _summary_counts(run.stdout) == _summary_counts(local)


def _summary_counts(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("summary:"))


def test_an_erratum_missing_from_the_feed_is_a_mismatch(site: Path, tampered: Path) -> None:
    feed = tampered / "errata.xml"
    text = feed.read_text(encoding="utf-8")
    start = text.index("<entry>")
    end = text.index("</entry>", start) + len("</entry>")
    feed.unlink()
    feed.write_text(text[:start] + text[end:], encoding="utf-8")
    # An edition's data folder is checked with the site around it, feed included.
    _, before = _run(site / "data" / "2026-11-b")
    code, after = _run(tampered / "data" / "2026-11-b")
    new = _new_mismatches(before, after)
    assert any("errata.xml: Atom feed: missing" in line for line in new), new
    assert code == 1


def test_a_hashed_field_edition_yaml_leaves_out_must_be_the_schema_default(site: Path) -> None:
    module = _module()
    folder = site / "data" / "2026-11"
    schema = json.loads((folder / "schemas" / "edition-yaml.schema.json").read_bytes())
    hashed = json.loads((folder / "hashed" / "edition.json").read_bytes())
    stated = module.load_yaml((folder / "edition.yaml").read_bytes())
    assert list(module._defaults(stated, hashed, schema, schema, "edition.yaml")) == []
    hashed["models"][0]["concurrency"] = 9  # not stated in edition.yaml; the default is 4
    hashed["notes"] = hashed["notes"] + ["a note nobody wrote"]
    del stated["notes"]
    found = list(module._defaults(stated, hashed, schema, schema, "edition.yaml"))
    assert any("models[0].concurrency: hashed 9, the schema's default is 4" in p for p in found)
    assert any("edition.yaml.notes: hashed" in p for p in found)


def test_a_run_whose_prompt_hash_is_not_its_request_is_a_mismatch(
    site: Path, tampered: Path
) -> None:
    rel = "runs/query.nl2sql.v1/smollm2/single-shot.jsonl.gz"
    lines = gzip.decompress((tampered / "data" / "2026-12" / rel).read_bytes()).splitlines()
    record = json.loads(lines[0])
    record["prompt_hash"] = "0" * 64
    lines[0] = json.dumps(record, sort_keys=True, separators=(",", ":")).encode()
    _replace(tampered, "2026-12", rel, gzip.compress(b"\n".join(lines) + b"\n", mtime=0))
    code, after = _run(tampered, "--edition", "2026-12")
    wrong = _mismatches(after)
    expected = f"{rel} {record['item_id']}: prompt_hash is not that of its request"
    assert any(expected in line for line in wrong), wrong
    assert code == 1


TRICKY = [
    {"b": 1e-07, "a": 120.0, "c": 0.1 + 0.2, "d": -0.0, "e": 1e21, "f": 5e-324},
    {"\U0001f600": 1, "\uffff": 2, "é": 3, "Z": 4, "a": [True, False, None]},
    {"big": 2**53, "safe": 2**53 - 1, "neg": -(2**63), "nested": [{"x": 2**60}]},
    {"text": 'quote " backslash \\ tab \t nl \n ‖ × “curly”', "ctl": "\u0001\u001f"},
]


@pytest.mark.parametrize("scheme", [1, 2])
@pytest.mark.parametrize("value", TRICKY)
def test_the_verifiers_canonical_json_is_the_toolchains(value: dict, scheme: int) -> None:
    from ledgerrate.core.hashing import canonical_json

    assert _module().canonical(value, scheme) == canonical_json(value, scheme).encode("utf-8")
