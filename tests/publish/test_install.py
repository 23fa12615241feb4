"""The toolchain installs and runs like a package, and the checkout's own mkdocs entry works."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow


def _tracked_copy(dest: Path) -> Path:
    """The files git tracks (as they are in the working tree): what a fresh clone holds."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = REPO / name.decode()
        if source.is_file():
            target = dest / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


def test_a_wheel_install_builds_the_site_outside_any_checkout(tmp_path: Path) -> None:
    checkout = _tracked_copy(tmp_path / "checkout")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "wheel"),
            str(checkout),
        ],
        check=True,
    )
    wheel = next((tmp_path / "wheel").glob("ledgerrate-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "ledgerrate/site/mkdocs.yml",
        "ledgerrate/site/templates/home.md.j2",
        "ledgerrate/site/templates/pdf/ratecard.css",
        "ledgerrate/site/pages/methodology/1.0/index.md",
        "ledgerrate/site/verifier/verify_standalone.py",
        "ledgerrate/site/verifier/requirements.txt",
    ):
        assert needed in names, needed
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(tmp_path / "pkgs"),
            str(wheel),
        ],
        check=True,
    )
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(REPO / "editions", elsewhere / "editions")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "pkgs")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from ledgerrate.cli import app; app()",
            "build",
            "--editions",
            "editions",
            "--out",
            "out",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (elsewhere / "out" / "site" / "index.html").is_file()
    assert (
        "pkgs"
        in subprocess.run(
            [sys.executable, "-S", "-c", "import ledgerrate; print(ledgerrate.__file__)"],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )  # the installed copy ran, not the checkout


def test_plain_mkdocs_build_in_a_fresh_clone(tmp_path: Path) -> None:
    clone = _tracked_copy(tmp_path / "clone")
    assert not (clone / "build").exists()
    done = subprocess.run(
        [str(BIN / "mkdocs"), "build", "-q"],
        cwd=clone,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (clone / "build" / "site" / "index.html").is_file()
    assert (clone / "build" / "site" / "editions" / "2026-11" / "index.html").is_file()
