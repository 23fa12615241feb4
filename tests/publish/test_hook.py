"""The mkdocs hook renders the editions on plain `mkdocs build`, and stands aside for ours."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ledgerrate.publish import load as load_mod
from ledgerrate.publish.render import CONFIG
from tests.publish.factory import write_edition

REPO = Path(__file__).resolve().parents[2]


def _hook():
    spec = importlib.util.spec_from_file_location(
        "lr_hook", REPO / "ledgerrate/publish/mkdocs_hook.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mkdocs_yml_declares_the_hook() -> None:
    import yaml

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))
    assert config["hooks"] == ["ledgerrate/publish/mkdocs_hook.py"]
    assert (REPO / config["hooks"][0]).is_file()
    # docs_dir must exist in a fresh clone (mkdocs checks it before the hook runs): a committed
    # folder; the hook builds from the rendered build/docs instead.
    assert (REPO / config["docs_dir"]).is_dir() and config["site_dir"] == "build/site"
    assert (REPO / config["INHERIT"]).resolve() == CONFIG
    packaged = yaml.safe_load(CONFIG.read_text("utf-8"))
    assert "hooks" not in packaged and "docs_dir" not in packaged
    assert "pymdownx.snippets" not in str(packaged.get("markdown_extensions"))


@pytest.mark.slow
def test_hook_renders_then_skips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fixtures = {"2026-07": write_edition(tmp_path / "editions", "2026-07", "2026-07-01")}
    monkeypatch.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
    from mkdocs.config import load_config

    docs = tmp_path / "build" / "docs"
    docs.mkdir(parents=True)
    config = load_config(
        config_file=str(CONFIG), docs_dir=str(docs), site_dir=str(tmp_path / "site")
    )
    config.config_file_path = str(tmp_path / "mkdocs.yml")
    hook = _hook()
    monkeypatch.delenv(hook.SKIP_RENDER_ENV, raising=False)
    assert hook.on_config(config) is config
    home = docs / "index.md"
    assert "Rate card" in home.read_text("utf-8")
    # Titles come from each page's heading, not from URL segments such as `2026-07`.
    sections = {next(iter(entry)): entry[next(iter(entry))] for entry in config.nav}
    assert sections["Rate card"] == "index.md"
    assert "Editions" in sections and "Workloads" in sections
    home.unlink()
    monkeypatch.setenv(hook.SKIP_RENDER_ENV, "1")
    hook.on_config(config)
    assert not home.exists()
