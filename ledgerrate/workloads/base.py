"""What a workload version is (ARCHITECTURE.md §3): the interface every workload module exports.

A workload version is frozen once registered: its prompt template, rubric, grader and
generator are hashed, and any edit without a version bump is reported by `build` and `verify`.
Graders are pure functions of (item, answer); baselines see only what a model would see
(`item.input` and the item's files), never the ground truth.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ledgerrate.core.hashing import (
    LEGACY_SCHEME,
    HashScheme,
    sha256_bytes,
    sha256_json,
    sha256_text,
    source_hash,
)

# Re-exported: `sandbox/sql.py` is hashed into registered workload versions and imports them from
# here; new code imports them from `ledgerrate.core.tools`.
from ledgerrate.core.tools import ToolError, Toolset, ToolSpec
from ledgerrate.schema import Check

__all__ = ["ToolError", "ToolSpec", "Toolset"]


@dataclass(frozen=True)
class Item:
    """One dataset item. `input` is what the prompt is built from; `truth` is never shown."""

    id: str
    input: dict[str, Any]
    truth: dict[str, Any]
    strata: tuple[str, ...] = ()
    # Binary artefacts published with the dataset and placed in the agent's sandbox folder
    # (e.g. the invoice PDF). Keys are relative POSIX paths.
    files: Mapping[str, bytes] = field(default_factory=dict)

    def content(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "input": self.input,
            "truth": self.truth,
            "strata": list(self.strata),
            "files": {name: sha256_bytes(data) for name, data in sorted(self.files.items())},
        }


@dataclass(frozen=True)
class Dataset:
    """A generated dataset. `shared` holds JSON data every item uses (e.g. a database's rows)."""

    workload: str
    items: tuple[Item, ...]
    shared: Mapping[str, Any] = field(default_factory=dict)

    @property
    def hash(self) -> str:
        """The hash under scheme 1, the scheme of the editions sealed before scheme 2."""
        return self.hash_for(LEGACY_SCHEME)

    def content(self) -> dict[str, Any]:
        """What the dataset hash covers, published as `dataset.json` once seeds are released."""
        return {
            "workload": self.workload,
            "items": [item.content() for item in self.items],
            "shared": self.shared,
        }

    def hash_for(self, scheme: HashScheme) -> str:
        """Depends only on content: same items and shared data, same hash, on any machine."""
        return sha256_json(self.content(), scheme)

    def item(self, item_id: str) -> Item:
        for item in self.items:
            if item.id == item_id:
                return item
        raise KeyError(item_id)


@dataclass(frozen=True)
class Prompt:
    """The rendered prompt: identical for every model; only the tool-schema format differs."""

    system: str
    user: str

    @property
    def hash(self) -> str:
        return sha256_json({"system": self.system, "user": self.user})


@dataclass(frozen=True)
class Answer:
    """What a run produced: the final text and, for agentic runs, the tools' end state."""

    text: str
    tool_state: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Grade:
    """Deterministic verdict of a grader. `needs_judge` marks the judged part still owed."""

    checks: tuple[Check, ...]
    diagnostics: Mapping[str, float | int | str | bool] = field(default_factory=dict)
    needs_judge: bool = False
    # Text the judge grades (already stripped of anything identifying); None if not judged.
    judge_input: str | None = None

    @property
    def deterministic_pass(self) -> bool:
        return all(check.passed for check in self.checks)


def check(name: str, passed: bool, detail: str = "") -> Check:
    return Check(name=name, passed=bool(passed), detail=detail)


class ToolFactory(Protocol):
    def __call__(self, item: Item, dataset: Dataset, workdir: Any) -> Toolset: ...


@dataclass(frozen=True)
class JudgeHooks:
    """The judged part of a workload's grade (standard §5), called by `grade/judge.py`.

    `material(item, answer_text)` is what the judge reads after the rubric; `outcome(item,
    verdict)` applies the workload's pass rule to the judge's JSON and returns (passed, the
    criteria's scores, the score). Both decide grades, so their code belongs in the grader hash
    (`grader_sources`) of every revision that carries them.
    """

    material: Callable[[Item, str], str]
    outcome: Callable[[Item, dict[str, Any]], tuple[bool, dict[str, float], float]]


# The frozen primitive taxonomy of the standard (§1, §1.1): closed for every 1.x methodology.
PRIMITIVES = ("extract", "classify", "reconcile", "generate", "synthesize", "query", "execute")


@dataclass(frozen=True)
class Workload:
    """A workload version, exported by its module as `WORKLOAD`."""

    id: str
    primitive: str
    function: str
    version: int
    title: str
    summary: str
    modes: tuple[str, ...]
    unit: str
    volume: int
    prompt_template: str  # published verbatim; `prompt` renders it
    output_schema: Mapping[str, Any]  # JSON Schema of the expected answer (published)
    generate: Callable[[random.Random, int], Dataset]
    prompt: Callable[[Item], Prompt]
    grade: Callable[[Item, Answer], Grade]
    tools: ToolFactory | None = None
    baseline: Callable[[Item, Dataset], Answer] | None = None
    rubric: str | None = None  # judged workloads only; published verbatim
    judged: bool = False
    pass_rule: str = ""  # one sentence, published, e.g. "all required fields match"
    # Extra source objects whose code decides grades or data (helpers the grader calls).
    grader_sources: tuple[Any, ...] = ()
    generator_sources: tuple[Any, ...] = ()
    # Code that renders the prompt beyond the template (e.g. how pages are joined): hashed too,
    # because a rendering change changes what models see just as a template edit does.
    prompt_sources: tuple[Any, ...] = ()
    changelog: str = "First version."
    # Earlier grader revisions of this same version, oldest first: the workload exactly as it was
    # registered before its grader was corrected to do what the standard says. Their code stays
    # verbatim, so an edition sealed under one still verifies, and `grade --regrade` writes the
    # corrected grades as a new revision. A change to what a model is asked is never a grader
    # revision: it is a new version.
    superseded: tuple[Workload, ...] = ()
    # The judged part, for `judged` workloads. Not a key of the workload hash (the hooks' code is
    # hashed through `grader_sources`), so a frozen version gets it outside its hashed module
    # with `with_judge`, and a new one passes it to the constructor.
    judge: JudgeHooks | None = None

    def __post_init__(self) -> None:
        if self.primitive not in PRIMITIVES:
            raise ValueError(
                f"workload {self.id}: primitive {self.primitive!r} is not one of the standard's "
                f"seven ({', '.join(PRIMITIVES)}); the taxonomy is frozen for methodology 1.x"
            )
        if self.judge is not None and not self.judged:
            raise ValueError(
                f"workload {self.id}: judge hooks given but judged=False; set judged=True or "
                "drop the hooks"
            )

    @property
    def grader_revision(self) -> int:
        """1 for a grader as first registered; +1 per published correction."""
        return len(self.superseded) + 1

    def registered_revision(
        self, workload_hash: str, scheme: HashScheme = LEGACY_SCHEME
    ) -> Workload | None:
        """This workload or the superseded revision whose workload hash a registration sealed."""
        for revision in (self, *self.superseded):
            if revision.workload_hash_for(scheme) == workload_hash:
                return revision
        return None

    def graders_since(
        self, workload_hash: str, scheme: HashScheme = LEGACY_SCHEME
    ) -> frozenset[str]:
        """Grader hashes that may grade an edition registered under `workload_hash`: the sealed
        revision's and every correction after it; empty when no revision has that hash."""
        revisions = (*self.superseded, self)
        for index, revision in enumerate(revisions):
            if revision.workload_hash_for(scheme) == workload_hash:
                return frozenset(r.grader_hash for r in revisions[index:])
        return frozenset()

    @property
    def prompt_hash(self) -> str:
        return sha256_text(self.prompt_template)

    @property
    def rubric_hash(self) -> str | None:
        return sha256_text(self.rubric) if self.rubric is not None else None

    @property
    def grader_hash(self) -> str:
        return source_hash(self.grade, *self.grader_sources)

    @property
    def generator_hash(self) -> str:
        return source_hash(self.generate, *self.generator_sources)

    @property
    def workload_hash(self) -> str:
        return self.workload_hash_for(LEGACY_SCHEME)

    def workload_hash_for(self, scheme: HashScheme) -> str:
        return sha256_json(
            {
                "id": self.id,
                "prompt": self.prompt_hash,
                "rubric": self.rubric_hash,
                "grader": self.grader_hash,
                "generator": self.generator_hash,
                "prompt_code": source_hash(self.prompt, *self.prompt_sources),
                "output_schema": dict(self.output_schema),
            },
            scheme,
        )


def with_judge(workload: Workload, hooks: JudgeHooks) -> Workload:
    """`workload` and each of its superseded revisions with `hooks` as their judged part.

    For a judged version whose revisions share one judged part and whose modules are hashed
    whole, so cannot name the hooks in the `Workload(...)` they build; every hashed key stays as
    it was."""
    return replace(
        workload,
        judge=hooks,
        superseded=tuple(replace(revision, judge=hooks) for revision in workload.superseded),
    )
