"""Per-cell drill-down pages: every run of a cell, down to the item and the check.

One page per cell (`runs/<edition>/<workload>/<model>/<mode>/`), rendered from one template
with the cell's run and grade records, one section per attempt: a link to the item on the
workload's items page, what the model was sent after its first turn (agentic runs), the
model's answer, every check with its detail, the judge's verdict, tokens, cost, latency and, for
agentic runs, every step with its tool calls and the tools' answers.

One items page per edition and workload (`runs/<edition>/<workload>/`): each item's input the
model saw (each distinct prompt once, whatever number of models and modes were sent it), the
dataset file it was given and the expected answer (only where the dataset is published, i.e. its
seed was released and opened its commitment). Before it, every cell page repeated those texts,
most of a large edition's drill-down markdown. Every string from a record goes through the same
escaping as the rest of the site.

A cell page is a function of the cell's two logs, the edition's manifest, the published dataset
and the toolchain; the items page of all its cells' logs: both come from the build cache
(`publish/cache.py`) while those are unchanged, so they cost nothing on a rebuild that changes
no record.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from jinja2 import Environment, Template
from markupsafe import Markup

from ledgerrate.io import FileProblem, iter_jsonl
from ledgerrate.publish.cache import BuildCache, key_of, write_plain
from ledgerrate.publish.load import Edition
from ledgerrate.publish.safe import pre_block, segment
from ledgerrate.run.bodies import restore
from ledgerrate.schema import CellResult, GradeRecord, RunRecord, RunStatus

TEMPLATE = "run_cell.md.j2"
ITEMS_TEMPLATE = "run_items.md.j2"
# Long texts are cut on the page (the raw log download has them whole, and the dataset file
# is linked): a cell's page stays small enough that an edition of 10^4 runs builds quickly.
INPUT_LIMIT = 3000
ANSWER_LIMIT = 4000
TOOL_LIMIT = 2000
# Escaped texts kept per build for what many cells show alike (a baseline's request, which is
# not a chat body and so stays on its cell page): a bound, not a need.
SHARED_TEXTS = 1024


def page_dir(edition_id: str, workload: str, model: str, mode: str) -> str:
    return "/".join(["runs", segment(edition_id), segment(workload), segment(model), segment(mode)])


def items_dir(edition_id: str, workload: str) -> str:
    """The workload's items page: each item's input and expected answer, once for all cells
    (a cell page sits two folders below it, so a model id can never collide with it)."""
    return "/".join(["runs", segment(edition_id), segment(workload)])


def item_anchor(item_id: str) -> Markup:
    return segment(f"item-{item_id}")


def _root_of(rel: str) -> str:
    """The docs root, relative to the page in folder `rel` (a page is `rel/index.md`)."""
    return "../" * rel.count("/") + "../"


def _seed_released(edition: Edition, workload: str) -> bool:
    return edition.seeds is not None and workload in edition.seeds.seeds


def link(cell: CellResult, edition_id: str, root: str, text: str = "runs") -> Markup:
    """A markdown link to the cell's drill-down page (checked by mkdocs --strict)."""
    target = f"{root}{page_dir(edition_id, cell.workload, cell.model, str(cell.mode))}/index.md"
    return Markup(f"[{text}]({target})")


def anchor(record: RunRecord) -> Markup:
    """The run's anchor on its cell page (run ids are schema-checked hex, safe as is)."""
    return segment(f"run-{record.run_id}")


@dataclass
class Attempt:
    run: RunRecord
    grade: GradeRecord | None
    prompt: list[dict[str, str]]  # role, text: the messages before the model's first turn
    prompt_id: Markup | None  # the prompt's anchor on the items page (a digest of its text)
    messages: list[dict[str, str]]  # what the model was sent after its first turn (agentic)
    request_json: str | None  # the request when it is not a chat body (e.g. a baseline's)


def _latest_grades(path: Path) -> dict[str, GradeRecord]:
    found: dict[str, GradeRecord] = {}
    if not path.exists():
        return found
    for grade in iter_jsonl(path, GradeRecord):
        held = found.get(grade.run_id)
        if held is None or (grade.revision, grade.graded_at) >= (held.revision, held.graded_at):
            found[grade.run_id] = grade
    return found


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: text parts as text, others as JSON
        return "\n".join(
            p.get("text", "") if isinstance(p, dict) and "text" in p else json.dumps(p)
            for p in content
        )
    return json.dumps(content, indent=2, sort_keys=True, default=str)


def _input(
    run: RunRecord, root: Path, read: dict[str, str] | None = None
) -> tuple[list[dict[str, str]], str | None]:
    body = run.request if run.request is not None else None
    if body is None and run.request_stored is not None:
        try:
            body = restore(run.request_stored, root, read=read)
        except FileProblem:  # a missing body file: the page says so, verify reports it
            return [], "(the request's stored strings are missing from bodies/)"
    body = body or {}
    messages = body.get("messages") if isinstance(body, dict) else None
    if isinstance(messages, list) and messages:
        shown = [
            {"role": str(m.get("role", "?")), "text": _text_of(m.get("content", ""))}
            for m in messages
            if isinstance(m, dict)
        ]
        system = body.get("system")  # Anthropic's system prompt sits beside the messages
        if system:
            shown.insert(0, {"role": "system", "text": _text_of(system)})
        return shown, None
    return [], json.dumps(body, indent=2, sort_keys=True, default=str)


def split_prompt(
    messages: list[dict[str, str]],
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The item's prompt (every message before the model's first turn, the same for each model
    sent it) and the rest, which carries the model's own turns and stays on its cell page."""
    for i, m in enumerate(messages):
        if m["role"] not in {"system", "developer", "user"}:
            return messages[:i], messages[i:]
    return messages, []


def prompt_id(item_id: str, prompt: list[dict[str, str]]) -> Markup | None:
    """An anchor named by the prompt's content, so a cell page links to the right prompt
    without knowing any other cell (and stays a product of its own logs in the cache)."""
    if not prompt:
        return None
    return _prompt_anchor(item_id, tuple(tuple(sorted(m.items())) for m in prompt))


@functools.lru_cache(maxsize=4096)
def _prompt_anchor(item_id: str, prompt: tuple[tuple[tuple[str, str], ...], ...]) -> Markup:
    # Every model of an edition is sent the same prompt for an item: its anchor is worked out
    # once (a JSON dump and sha256 of the whole prompt per run was 10% of the drill-downs).
    shown = [dict(message) for message in prompt]
    digest = hashlib.sha256(json.dumps(shown, sort_keys=True).encode("utf-8")).hexdigest()
    return segment(f"item-{item_id}-prompt-{digest[:12]}")


@dataclass
class Published:
    """The item's published dataset: truth per item id (and as indented JSON), and file names
    per item. Read once per workload: every cell of the workload shows the same items."""

    truth: dict[str, Any]
    truth_json: dict[str, str]
    files: dict[str, list[str]]


def published_dataset(docs: Path, edition_id: str, workload: str) -> Published | None:
    """The dataset as the data page publishes it (written by the downloads stage only when
    the workload's seed was released and regenerated the registered dataset)."""
    folder = docs / "data" / edition_id / "datasets" / workload
    raw_path = folder / "dataset.json"
    if not raw_path.is_file():
        return None
    raw = raw_path.read_bytes()
    content = json.loads(raw)
    truth = {item["id"]: item.get("truth") for item in content.get("items", [])}
    files = {
        item["id"]: sorted(
            f"datasets/{workload}/{item['id']}/{name}"
            for name in item.get("files", {})
            if (folder / item["id"] / name).is_file()
        )
        for item in content.get("items", [])
    }
    # As the site's `tojson_text` filter writes it (pages.make_env).
    truth_json = {
        item_id: json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
        for item_id, value in truth.items()
        if value is not None
    }
    return Published(truth, truth_json, files)


def attempts(
    edition: Edition, cell: CellResult, read: dict[str, str] | None = None
) -> list[Attempt]:
    """Every attempt of the cell's published sitting, item order, with its latest grade
    (`read`: the edition's stored request strings already read, see `run.bodies.restore`)."""
    paths = edition.paths
    mode = str(cell.mode)
    grades = _latest_grades(paths.grades(cell.workload, cell.model, mode))
    log = paths.runs(cell.workload, cell.model, mode)
    runs = [
        r
        for r in (iter_jsonl(log, RunRecord) if log.exists() else [])
        if r.sitting == cell.sitting and r.kind == "registered"
    ]
    runs.sort(key=lambda r: (r.item_id, r.attempt))
    found = []
    for run in runs:
        messages, request_json = _input(run, paths.root, read)
        prompt, rest = split_prompt(messages)
        found.append(
            Attempt(
                run=run,
                grade=grades.get(run.run_id),
                prompt=prompt,
                prompt_id=prompt_id(run.item_id, prompt),
                messages=rest,
                request_json=request_json,
            )
        )
    return found


def _render(
    template: Template,
    shared_pre: Callable[..., Markup],
    edition: Edition,
    cell: CellResult,
    found: list[Attempt],
    dataset: Published | None,
    name: str,
    root: str,
) -> bytes:
    released = _seed_released(edition, cell.workload)
    ctx = {
        "root": root,
        "edition": edition,
        "cell": cell,
        "name": name,
        "attempts": found,
        "items_page": Markup("../../index.md"),
        # The same page as a URL, for links inside the raw HTML blocks (directory URLs).
        "items_url": Markup("../../"),
        "item_anchor": item_anchor,
        "released": released and dataset is not None,
        "seed_released": released,
        "data_root": f"{root}data/{segment(edition.id)}/",
        # Linked only when the edition has the log (the data page publishes every one it has).
        "log": f"runs/{cell.workload}/{cell.model}/{cell.mode}.jsonl.gz"
        if edition.paths.runs(cell.workload, cell.model, str(cell.mode)).exists()
        else None,
        "grade_log": f"grades/{cell.workload}/{cell.model}/{cell.mode}.jsonl.gz"
        if edition.paths.grades(cell.workload, cell.model, str(cell.mode)).exists()
        else None,
        "anchor": anchor,
        "limits": {"input": INPUT_LIMIT, "answer": ANSWER_LIMIT, "tool": TOOL_LIMIT},
        "infra": RunStatus.infra_excluded,
        "pre_shared": shared_pre,
    }
    text = template.render(ctx)
    return (text.rstrip("\n") + "\n").encode("utf-8")


@dataclass
class Item:
    """One item as the items page shows it: its dataset files, its expected answer, and each
    distinct prompt the cells' runs were sent for it (with how many runs were sent it)."""

    item_id: str
    files: list[str]
    truth_json: str | None
    prompts: list[tuple[Markup, list[dict[str, str]], int]]


def items_of(found: list[list[Attempt]], dataset: Published | None) -> list[Item]:
    prompts: dict[str, dict[Markup, tuple[list[dict[str, str]], int]]] = {}
    for cell_attempts in found:
        for a in cell_attempts:
            held = prompts.setdefault(a.run.item_id, {})
            if a.prompt_id is not None:
                seen = held.get(a.prompt_id)
                held[a.prompt_id] = (a.prompt, (seen[1] if seen else 0) + 1)
    return [
        Item(
            item_id=item_id,
            files=dataset.files.get(item_id, []) if dataset else [],
            truth_json=dataset.truth_json.get(item_id) if dataset else None,
            prompts=[(pid, msgs, n) for pid, (msgs, n) in sorted(held.items())],
        )
        for item_id, held in sorted(prompts.items())
    ]


def _render_items(
    template: Template,
    edition: Edition,
    workload: str,
    items: list[Item],
    dataset: Published | None,
    root: str,
) -> bytes:
    released = _seed_released(edition, workload)
    ctx = {
        "root": root,
        "edition": edition,
        "workload": workload,
        "items": items,
        "released": released and dataset is not None,
        "seed_released": released,
        "data_root": f"{root}data/{segment(edition.id)}/",
        "item_anchor": item_anchor,
        "limits": {"input": INPUT_LIMIT, "answer": ANSWER_LIMIT},
    }
    text = template.render(ctx)
    return (text.rstrip("\n") + "\n").encode("utf-8")


def render_drilldowns(
    env: Environment, editions: list[Edition], docs: Path, cache: BuildCache
) -> int:
    """Write every cell's drill-down page and each workload's items page; returns how many
    cell pages were written.

    One compiled template for each kind of page; each workload's published dataset is read once
    (on the first of its pages not in the cache); each cell's two logs are parsed once (the
    items page reuses what its cells' pages parsed); an item's input and expected answer are
    escaped once, on the items page, and each run links there instead of repeating them."""
    template = env.get_template(TEMPLATE)
    items_template = env.get_template(ITEMS_TEMPLATE)
    shared_pre = lru_cache(maxsize=SHARED_TEXTS)(pre_block)
    datasets: dict[tuple[str, str], Published | None] = {}
    parsed: dict[int, list[Attempt]] = {}  # one workload's cells, by position
    strings: dict[str, str] = {}  # one workload's stored request strings, read once

    def dataset_of(edition_id: str, workload: str) -> Published | None:
        if (edition_id, workload) not in datasets:
            datasets[edition_id, workload] = published_dataset(docs, edition_id, workload)
        return datasets[edition_id, workload]

    def attempts_of(edition: Edition, i: int, cell: CellResult) -> list[Attempt]:
        if i not in parsed:
            parsed[i] = attempts(edition, cell, strings)
        return parsed[i]

    def make(edition: Edition, i: int, cell: CellResult, name: str, root: str) -> bytes:
        dataset = dataset_of(edition.id, cell.workload)
        found = attempts_of(edition, i, cell)
        return _render(template, shared_pre, edition, cell, found, dataset, name, root)

    def make_items(edition: Edition, workload: str, cells: list[CellResult], root: str) -> bytes:
        dataset = dataset_of(edition.id, workload)
        found = [attempts_of(edition, i, c) for i, c in enumerate(cells)]
        items = items_of(found, dataset)
        return _render_items(items_template, edition, workload, items, dataset, root)

    written = 0
    for edition in editions:
        names = {m.id: m.name for m in edition.manifest.models}
        manifest_digest = cache.file_digest(edition.paths.manifest)
        for workload in edition.results.workloads:
            datasets.clear()  # one workload's dataset (and parsed logs) held at a time
            parsed.clear()
            strings.clear()
            dataset = docs / "data" / edition.id / "datasets" / workload.workload / "dataset.json"
            dataset_digest = cache.file_digest(dataset) if dataset.is_file() else None
            released = _seed_released(edition, workload.workload)
            log_digests = []
            for i, cell in enumerate(workload.cells):
                mode = str(cell.mode)
                rel = page_dir(edition.id, cell.workload, cell.model, mode)
                root = _root_of(rel)
                logs = [
                    edition.paths.runs(cell.workload, cell.model, mode),
                    edition.paths.grades(cell.workload, cell.model, mode),
                ]
                digests = [cache.file_digest(p) if p.exists() else None for p in logs]
                log_digests.append(digests)
                key = key_of(
                    "drilldown",
                    cache.toolchain(),
                    edition.id,
                    cell.model_dump(mode="json"),
                    manifest_digest,
                    dataset_digest,
                    released,
                    digests,
                )
                name = names.get(cell.model, cell.model)
                page = cache.product("drilldown", key, partial(make, edition, i, cell, name, root))
                write_plain(docs / rel / "index.md", page)
                written += 1
            if not workload.cells:
                continue
            rel = items_dir(edition.id, workload.workload)
            root = _root_of(rel)
            key = key_of(
                "drilldown-items",
                cache.toolchain(),
                edition.id,
                workload.workload,
                [c.model_dump(mode="json") for c in workload.cells],
                manifest_digest,
                dataset_digest,
                released,
                log_digests,
            )
            make_page = partial(make_items, edition, workload.workload, workload.cells, root)
            write_plain(docs / rel / "index.md", cache.product("drilldown-items", key, make_page))
    return written
