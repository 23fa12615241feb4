"""The guides in `docs/` cannot rot: their shell blocks marked `sh doctest` run, in order, in one
shell session per guide, against a scratch edition served by the fake provider; every other
shell block says on its first line why it is not run (`# not run: …`).

The operator's guide runs in a scratch folder holding the edition its own step 1 describes
(window moved to hold the test's clock, each `base_url` pointed at the fake provider) and a
throwaway age key pair in `../shared/operator/`; the auditor's guide runs in a scratch folder
holding a copy of the repository's `editions/`.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyrage
import pytest
import yaml

from ledgerrate.schema import EditionManifest, ModelSpec, PricingTable
from ledgerrate.testing.fake_provider import FakeProviderServer

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
OPERATOR = DOCS / "operator-guide.md"
AUDITOR = DOCS / "auditor-guide.md"
BIN = Path(sys.executable).parent

# Languages of blocks that hold commands, and of blocks that hold data a command reads; a block
# in any other language must be classified here first, so no command hides under a new name.
COMMAND_LANGUAGES = frozenset({"", "sh", "bash", "shell", "console", "zsh"})
DATA_LANGUAGES = frozenset({"yaml", "json", "text"})
_FENCE = re.compile(
    r"^(?P<indent> *)```(?P<info>[^`\n]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
_EXCUSE = re.compile(r"^\s*# not run: (?P<reason>\S.{9,})$")


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    language: str
    doctest: bool
    body: str

    @property
    def excuse(self) -> str | None:
        first = self.body.splitlines()[0] if self.body.strip() else ""
        match = _EXCUSE.match(first)
        return match.group("reason") if match else None


def blocks(text: str) -> list[Block]:
    found = []
    for match in _FENCE.finditer(text):
        words = match.group("info").split()
        indent = len(match.group("indent"))
        body = "\n".join(line[indent:] for line in match.group("body").splitlines())
        found.append(
            Block(
                line=text.count("\n", 0, match.start()) + 1,
                language=words[0] if words else "",
                doctest="doctest" in words[1:],
                body=body,
            )
        )
    return found


def unaccounted(name: str, text: str) -> list[str]:
    """One line per shell block that is neither run nor excused with a reason, and per block in
    a language nobody classified."""
    problems = []
    for block in blocks(text):
        where = f"{name}:{block.line}"
        if block.language in DATA_LANGUAGES:
            if block.doctest:
                problems.append(f"{where}: a {block.language} block cannot be run; drop `doctest`")
            continue
        if block.language not in COMMAND_LANGUAGES:
            problems.append(
                f"{where}: unknown block language {block.language!r}; classify it in "
                "tests/core/test_docs_commands.py"
            )
        elif block.doctest and block.excuse:
            problems.append(f"{where}: marked `doctest` and `# not run:`; choose one")
        elif not block.doctest and not block.excuse:
            problems.append(
                f"{where}: shell block neither run nor excused; fence it as ```sh doctest, or "
                "begin it with `# not run: <why>`"
            )
    return problems


def script(run: list[Block], marks: Path) -> str:
    """One bash session for a guide's blocks, so variables, exports and `cd` carry over; before
    each block its index goes to `marks`, so a failure names the block it stopped in."""
    parts = ["set -eo pipefail"]
    for index, block in enumerate(run):
        parts.append(f"echo {index} > '{marks}'")
        parts.append(block.body)
    parts.append(f"echo done > '{marks}'")
    return "\n".join(parts) + "\n"


def run_guide(path: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    run = [block for block in blocks(path.read_text(encoding="utf-8")) if block.doctest]
    assert run, f"{path.name}: no block is marked `sh doctest`"
    marks = cwd.parent / f".{path.stem}.block"
    done = subprocess.run(
        ["bash", "-c", script(run, marks)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    reached = marks.read_text().strip() if marks.is_file() else ""
    if done.returncode != 0 or reached != "done":
        block = run[int(reached)] if reached.isdigit() else None
        where = f"{path.name}:{block.line}" if block else path.name
        pytest.fail(
            f"{where}: exit {done.returncode} in\n{block.body if block else ''}\n"
            f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
        )
    return done


def _environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra)
    # The guides set these themselves: a block that forgets to must fail here, as for a reader.
    for name in ("LEDGERRATE_ESCROW_RECIPIENTS", "LEDGERRATE_OPERATOR_IDENTITY"):
        env.pop(name, None)
    env.pop("LEDGERRATE_PRIVATE_DIR", None)
    return env


def _yaml_block(text: str, first_line: str) -> dict[str, Any]:
    for block in blocks(text):
        if block.language == "yaml" and block.body.startswith(first_line):
            return yaml.safe_load(block.body)
    raise AssertionError(f"no yaml block starting {first_line!r}")


def _scratch_edition(text: str, work: Path, fake: FakeProviderServer) -> None:
    """The guide's own edition.yaml and pricing.yaml, moved to now and onto the fake provider."""
    manifest = _yaml_block(text, "# editions/2027-01/edition.yaml")
    pricing = _yaml_block(text, "# editions/2027-01/pricing.yaml")
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    opens = now - dt.timedelta(hours=1)
    manifest["window"] = {"opens": opens, "closes": opens + dt.timedelta(hours=72)}
    for model in manifest["models"]:
        model["base_url"] = fake.base_url(model["provider"])
    pricing["frozen_at"] = opens - dt.timedelta(hours=1)
    for price in pricing["models"].values():
        price["retrieved_at"] = opens - dt.timedelta(hours=2)
    folder = work / "editions" / str(manifest["id"])
    folder.mkdir(parents=True)
    (folder / "edition.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    (folder / "pricing.yaml").write_text(yaml.safe_dump(pricing, sort_keys=False))


def _operator_key(folder: Path) -> None:
    """A throwaway key pair where the guide says the operator's lives."""
    folder.mkdir(parents=True)
    identity = pyrage.x25519.Identity.generate()
    (folder / "age-recipient.txt").write_text(f"{identity.to_public()}\n")
    (folder / "age-identity.txt").write_text(f"# throwaway test identity\n{identity}\n")


# --- every block is accounted for --------------------------------------------------------------


@pytest.mark.parametrize("guide", [OPERATOR, AUDITOR], ids=lambda p: p.name)
def test_every_shell_block_is_run_or_excused(guide: Path) -> None:
    assert unaccounted(guide.name, guide.read_text(encoding="utf-8")) == []


def test_every_guide_in_docs_is_tested() -> None:
    assert sorted(DOCS.glob("*.md")) == sorted([OPERATOR, AUDITOR])


def test_an_unmarked_or_unclassified_block_is_reported() -> None:
    text = (
        "intro\n\n```sh\nledgerrate build\n```\n\n"
        "```sh\n# not run: needs a real provider key\nexport KEY=x\n```\n\n"
        "```sh doctest\n# not run: both at once\nls\n```\n\n"
        "```powershell\nledgerrate build\n```\n\n"
        "```sh\n# not run: why\nls\n```\n\n"
        "```yaml\na: 1\n```\n"
    )
    assert unaccounted("g.md", text) == [
        "g.md:3: shell block neither run nor excused; fence it as ```sh doctest, or begin it "
        "with `# not run: <why>`",
        "g.md:12: marked `doctest` and `# not run:`; choose one",
        "g.md:17: unknown block language 'powershell'; classify it in "
        "tests/core/test_docs_commands.py",
        # A reason must say something: "why" is no reason.
        "g.md:21: shell block neither run nor excused; fence it as ```sh doctest, or begin it "
        "with `# not run: <why>`",
    ]


def test_a_failing_block_fails_and_names_its_line(tmp_path: Path) -> None:
    guide = tmp_path / "docs" / "g.md"
    guide.parent.mkdir()
    guide.write_text("```sh doctest\nx=1\n```\n\ntext\n\n```sh doctest\ntest $x = 2\n```\n")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(pytest.fail.Exception, match=r"g\.md:7: exit 1 in\ntest \$x = 2"):
        run_guide(guide, work, _environment())


def test_the_data_blocks_parse_as_what_they_show() -> None:
    text = OPERATOR.read_text(encoding="utf-8")
    EditionManifest.model_validate(_yaml_block(text, "# editions/2027-01/edition.yaml"))
    PricingTable.model_validate(_yaml_block(text, "# editions/2027-01/pricing.yaml"))
    local = _yaml_block(text, "  - id: smollm2")
    assert isinstance(local, list)
    ModelSpec.model_validate(local[0])


def test_the_readme_set_up_commands_are_make_targets() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = next(b for b in blocks(readme) if b.language == "sh")
    targets = [line.split("#")[0].split() for line in setup.body.splitlines() if line.strip()]
    assert [t[:1] for t in targets] == [["make"], ["make"]]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for _, target in targets:
        assert re.search(rf"^{target}:", makefile, re.M), f"Makefile has no target {target}"
    assert len(readme.encode()) < 6 * 1024


# --- the guides' commands run ------------------------------------------------------------------


@pytest.mark.slow
def test_the_operator_guide_runs(tmp_path: Path) -> None:
    text = OPERATOR.read_text(encoding="utf-8")
    work = tmp_path / "work"
    _operator_key(tmp_path / "shared" / "operator")
    key = "sk-test-" + "0" * 40  # the fake checks a key is sent, not which
    with FakeProviderServer() as fake:
        _scratch_edition(text, work, fake)
        done = run_guide(
            OPERATOR,
            work,
            _environment(OPENAI_API_KEY=key, ANTHROPIC_API_KEY=key, GEMINI_API_KEY=key),
        )
        assert fake.requests, "the edition's run never reached the fake provider"
    assert "VERIFIED" in done.stdout
    assert (work / "build" / "site" / "index.html").is_file()


@pytest.mark.slow
def test_the_auditor_guide_runs(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(REPO / "editions", work / "editions")
    done = run_guide(AUDITOR, work, _environment())
    assert done.stdout.count("VERIFIED") == 3
