"""The mkdocs hook renders the editions on plain `mkdocs build`, and stands aside for ours."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.publish import load as load_mod
from ledgerrate.publish.render import CONFIG
from tests.publish.factory import write_edition

REPO = Path(__file__).resolve().parents[2]


def _hook():
    spec = importlib.util.spec_from_file_location(
        "lr_hook", REPO / "ledgerrate/publish/engine/mkdocs_hook.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """The hook, freshly loaded, and a config over one small edition, the hook set to render."""
    from mkdocs.config import load_config

    fixtures = {"2026-07": write_edition(tmp_path / "editions", "2026-07", "2026-07-01")}
    monkeypatch.setattr(load_mod, "edition_results", lambda d: fixtures[Path(d).name])
    docs = tmp_path / "build" / "docs"
    docs.mkdir(parents=True)
    config = load_config(
        config_file=str(CONFIG), docs_dir=str(docs), site_dir=str(tmp_path / "site")
    )
    config.config_file_path = str(tmp_path / "mkdocs.yml")
    hook = _hook()
    monkeypatch.delenv(hook.SKIP_RENDER_ENV, raising=False)
    return hook, config


def test_mkdocs_yml_declares_the_hook() -> None:
    import yaml

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))
    assert config["hooks"] == ["ledgerrate/publish/engine/mkdocs_hook.py"]
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
    hook, config = _config(tmp_path, monkeypatch)
    assert hook.on_config(config) is config
    home = tmp_path / "build" / "docs" / "index.md"
    assert "Rate card" in home.read_text("utf-8")
    # Titles come from each page's heading, not from URL segments such as `2026-07`.
    sections = {next(iter(entry)): entry[next(iter(entry))] for entry in config.nav}
    assert sections["Rate card"] == "index.md"
    assert "Editions" in sections and "Workloads" in sections
    home.unlink()
    monkeypatch.setenv(hook.SKIP_RENDER_ENV, "1")
    hook.on_config(config)
    assert not home.exists()


@pytest.mark.slow
def test_hook_hands_the_theme_the_cache_it_rendered_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mkdocs serve` builds again on every change, each time in a new jinja environment: under
    the hook, the theme's templates are compiled through the same products cache as the pages,
    and under `ledgerrate build` (which hands the theme its own) the hook leaves them alone."""
    import jinja2
    from mkdocs.structure.files import Files

    from ledgerrate.publish.engine.compiled_templates import CompiledTemplates

    hook, config = _config(tmp_path, monkeypatch)
    hook.on_config(config)
    template = {"t.html": "{% for x in [1, 2] %}{{ x }}{% endfor %}"}

    def new_env() -> jinja2.Environment:
        # What mkdocs hands `on_env` on each build: a new environment over the theme's files.
        env = jinja2.Environment(loader=jinja2.DictLoader(template))
        return hook.on_env(env, config, Files([]))

    env = new_env()
    assert isinstance(env.bytecode_cache, CompiledTemplates)
    assert env.get_template("t.html").render() == "12"
    # The next build's environment loads the compiled template from the cache.
    compiled: list[str | None] = []
    real = jinja2.Environment.compile

    def counting(self: jinja2.Environment, source: Any, name: str | None = None, *a, **k):
        compiled.append(name)
        return real(self, source, name, *a, **k)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    assert new_env().get_template("t.html").render() == "12"
    assert compiled == []

    monkeypatch.setenv(hook.SKIP_RENDER_ENV, "1")
    hook.on_config(config)
    assert new_env().bytecode_cache is None
