"""The products cache is the machine's, not the build folder's: a fresh `out` reuses it, charts
are among its products, and where it lives follows --cache-dir, $LEDGERRATE_CACHE_DIR, XDG."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from ledgerrate.publish import charts
from ledgerrate.publish import load as load_mod
from ledgerrate.publish.cache import CACHE_ENV, BuildCache, machine_cache_dir
from tests.publish.factory import tree_bytes


@pytest.fixture(autouse=True)
def _no_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Never read or fill the developer's own ~/.cache/ledgerrate.
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "env-cache"))


def test_cache_dir_is_the_option_then_the_variable_then_xdg_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "named"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert machine_cache_dir(tmp_path / "given") == tmp_path / "given"
    assert machine_cache_dir() == tmp_path / "named"
    monkeypatch.delenv(CACHE_ENV)
    assert machine_cache_dir() == tmp_path / "xdg" / "ledgerrate"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # invalid under XDG: ignored
    assert machine_cache_dir() == tmp_path / "home" / ".cache" / "ledgerrate"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert machine_cache_dir() == tmp_path / "home" / ".cache" / "ledgerrate"


def test_a_fresh_build_folder_reuses_the_machine_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledgerrate.publish import build as build_mod
    from tests.publish.factory import write_edition

    root = tmp_path / "editions"
    fixtures = {"2026-07": write_edition(root, "2026-07", "2026-07-01")}
    figures: list[str] = []
    drawn: list[str] = []

    def results(path: Path):
        figures.append(Path(path).name)
        return fixtures[Path(path).name]

    real_svg = charts._to_svg

    def to_svg(fig, title: str, desc: str) -> str:
        drawn.append(title)
        return real_svg(fig, title, desc)

    monkeypatch.setattr(load_mod, "edition_results", results)
    monkeypatch.setattr(charts, "_to_svg", to_svg)
    cache = tmp_path / "machine-cache"
    first = build_mod.build_site(root, tmp_path / "out-1", cache_dir=cache)
    assert figures == ["2026-07"] and drawn, "the first build computes and draws"
    assert (cache / "products" / "chart").is_dir() and (cache / "products" / "results").is_dir()
    assert not (tmp_path / "out-1" / "cache").exists()  # nothing cached inside the build folder
    assert not (tmp_path / "env-cache").exists()  # the option wins over the variable
    charts_drawn = len(drawn)
    second = build_mod.build_site(root, tmp_path / "out-2", cache_dir=cache)
    # A new build folder: figures and every chart come from the machine's cache.
    assert figures == ["2026-07"] and len(drawn) == charts_drawn
    assert tree_bytes(second) == tree_bytes(first)


def test_a_chart_is_drawn_again_only_when_an_input_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.publish.factory import results

    drawn: list[str] = []
    real_svg = charts._to_svg
    monkeypatch.setattr(
        charts,
        "_to_svg",
        lambda fig, title, desc: (drawn.append(title), real_svg(fig, title, desc))[1],
    )
    workload = results("2026-07", "2026-07-01", hostile=False).workloads[0]
    cache = BuildCache.open(tmp_path / "cache")
    uncached = charts.cost_vs_pass_svg(workload, "footer")
    with charts.cached_in(cache):
        first = charts.cost_vs_pass_svg(workload, "footer")
        again = charts.cost_vs_pass_svg(workload, "footer")
        other_footer = charts.cost_vs_pass_svg(workload, "another footer")
        cell = next(c for c in workload.cells if c.cpo_usd is not None)
        dearer = cell.model_copy(update={"cpo_usd": cell.cpo_usd * 2})
        moved = workload.model_copy(
            update={"cells": [dearer if c is cell else c for c in workload.cells]}
        )
        other_cell = charts.cost_vs_pass_svg(moved, "footer")
    assert first == again == uncached  # the cached chart is the drawn one, byte for byte
    assert len(drawn) == 4  # uncached, first, another footer, a dearer cell; `again` was read
    assert other_footer != first and other_cell != first
    assert cache.hits == {"chart": 1} and cache.misses == {"chart": 3}


def test_compiled_templates_are_reused_until_a_template_changes(tmp_path: Path) -> None:
    import shutil

    from ledgerrate.publish.pages import make_env
    from ledgerrate.publish.render import TEMPLATES

    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    names = make_env(templates).list_templates()
    first = BuildCache.open(tmp_path / "cache")
    compiled = [make_env(templates, first).get_template(n) for n in names]
    assert first.misses == {"jinja": len(names)} and first.hits == {}
    again = BuildCache.open(tmp_path / "cache")
    env = make_env(templates, again)
    assert [env.get_template(n) for n in names] and again.hits == {"jinja": len(names)}
    assert again.misses == {}
    # Read back, each template is the code compiled from its source.
    for name, made in zip(names, compiled, strict=True):
        code = env.get_template(name).root_render_func.__code__
        assert code.co_code == made.root_render_func.__code__.co_code, name
    edited = templates / names[0]
    edited.write_text(edited.read_text("utf-8") + "\nedited\n", "utf-8")
    third = BuildCache.open(tmp_path / "cache")
    make_env(templates, third).get_template(names[0])
    assert third.misses == {"jinja": 1} and third.hits == {}


def test_the_theme_templates_are_compiled_once_per_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mkdocs makes a new jinja environment for every build; with the build cache, the second
    build compiles none of the theme's page templates, and its site is byte for byte the
    first's."""
    import jinja2

    from ledgerrate.publish.engine.run import run_mkdocs
    from tests.publish.factory import rendered_two_editions

    docs = rendered_two_editions(tmp_path, monkeypatch)
    compiled: list[str | None] = []
    real = jinja2.Environment.compile

    def counting(self: jinja2.Environment, source: Any, name: str | None = None, *a: Any, **k: Any):
        compiled.append(name)
        return real(self, source, name, *a, **k)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    monkeypatch.setenv("LEDGERRATE_WORKERS", "1")  # every page written (and counted) here
    run_mkdocs(docs, tmp_path / "first", cache=BuildCache.open(tmp_path / "cache"))
    assert {"main.html", "base.html", "partials/nav.html"} <= set(compiled)
    compiled.clear()
    again = BuildCache.open(tmp_path / "cache")
    run_mkdocs(docs, tmp_path / "second", cache=again)
    # Only the search plugin's translations: it makes environments of its own, outside
    # mkdocs' `on_env`, for two small templates.
    assert set(compiled) <= {"partials/language.html", "partials/languages/en.html"}
    assert again.hits.get("jinja", 0) >= 3
    assert tree_bytes(tmp_path / "second") == tree_bytes(tmp_path / "first")


def _loaded_by_a_build(
    editions: Path, out: Path, cache: Path, modules: tuple[str, ...]
) -> list[str]:
    """Which of `modules` a build in a fresh process loads (this one has loaded them all)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from ledgerrate.publish.build import build_site\n"
        f"build_site(Path({str(editions)!r}), Path({str(out)!r}), cache_dir=Path({str(cache)!r}))\n"
        f"print(sorted(m for m in {modules!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(ast.literal_eval(done.stdout.strip().splitlines()[-1]))


def test_a_no_change_build_does_not_load_the_renderers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledgerrate.publish import build as build_mod
    from tests.publish.factory import write_edition

    root = tmp_path / "editions"
    fixtures = {"2026-07": write_edition(root, "2026-07", "2026-07-01")}
    monkeypatch.setattr(load_mod, "edition_results", lambda path: fixtures[Path(path).name])
    out = tmp_path / "out"
    build_mod.build_site(root, out, cache_dir=tmp_path)
    index = (out / "site" / "index.html").stat().st_mtime_ns
    modules = ("matplotlib", "weasyprint", "jinja2", "mkdocs", "scipy.stats")
    assert _loaded_by_a_build(root, out, tmp_path, modules) == []
    assert (out / "site" / "index.html").stat().st_mtime_ns == index  # nothing rebuilt


def test_a_new_build_folder_on_a_warm_cache_does_not_load_the_renderers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh checkout's first build on a machine whose cache has every product: the pages
    are written again, but no chart is drawn, no PDF rendered, no workload imported and no
    escrow opened, and no interval computed (the figures are cached), so none of matplotlib,
    weasyprint, pdfplumber, the workload catalogue, pyrage or scipy.stats is loaded (together
    about two CPU-seconds, more than the rest of such a build)."""
    from ledgerrate.publish import build as build_mod
    from tests.publish.factory import write_edition

    root = tmp_path / "editions"
    # Seeds withheld: the factory's registered dataset hashes are made up, so a released seed's
    # dataset would fail to regenerate (a note on the data page) and be tried again each build.
    fixtures = {"2026-07": write_edition(root, "2026-07", "2026-07-01")}
    monkeypatch.setattr(load_mod, "edition_results", lambda path: fixtures[Path(path).name])
    cache = tmp_path / "machine-cache"
    build_mod.build_site(root, tmp_path / "out-1", cache_dir=cache)
    modules = (
        "matplotlib",
        "weasyprint",
        "pdfplumber",
        "ledgerrate.workloads.catalogue",
        "ledgerrate.publish.pdf",
        "pyrage",
        "scipy.stats",
    )
    out = tmp_path / "out-2"
    assert _loaded_by_a_build(root, out, cache, modules) == []
    assert (out / "site" / "index.html").is_file()
    published = tmp_path / "out-1" / "site" / "data" / "2026-07"
    assert (published / "ratecard.pdf").read_bytes() == (
        out / "site" / "data" / "2026-07" / "ratecard.pdf"
    ).read_bytes()
