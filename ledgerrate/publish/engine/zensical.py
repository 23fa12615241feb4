"""`ledgerrate build --engine zensical`: the rendered pages built by Zensical.

Zensical reads `mkdocs.yml` (its `nav`, `theme`, `extra*`, extensions and plugins) but not its
`hooks:`, so without help it would render nothing and title sections after folder names. The
pages are rendered first (as for mkdocs), then Zensical gets a config beside them: the site's
own `mkdocs.yml` without its hook and with the nav written out, the same nav the hook hands
mkdocs (`engine.nav.site_nav`), so both engines publish the same pages under the same titles.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from ledgerrate.core.errors import UsageProblem
from ledgerrate.publish.engine.nav import site_nav
from ledgerrate.publish.render import CONFIG


def zensical_config(docs: Path, site: Path, config: Path = CONFIG) -> dict[str, Any]:
    """The site's mkdocs.yml for Zensical: explicit nav, explicit folders, no hooks."""
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings.pop("hooks", None)
    # Relative to the config file, which is written beside both folders (Zensical refuses
    # absolute ones).
    settings["docs_dir"] = docs.name
    settings["site_dir"] = site.name
    settings["nav"], omitted = site_nav(docs)
    settings["not_in_nav"] = "\n".join([*settings.get("not_in_nav", "").splitlines(), *omitted])
    return settings


def run_zensical(docs: Path, site: Path, config: Path = CONFIG) -> None:
    """`zensical build --strict` of an already rendered docs folder, in a child process
    (Zensical is a native program with a Python front end; its output is ours to show)."""
    if docs.parent != site.parent:
        raise ValueError("docs and site must be sibling folders")
    target = docs.parent / "zensical.yml"
    text = yaml.safe_dump(zensical_config(docs, site, config), sort_keys=False)
    target.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "zensical", "build", "--strict", "--clean", "-f", str(target)],
        cwd=docs.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not (site / "index.html").is_file():
        lines = (done.stderr or done.stdout).strip().splitlines()[-20:]
        raise UsageProblem(
            "the site did not build with Zensical; nothing was published",
            *(f"zensical: {line}" for line in lines or ["no output"]),
        )
