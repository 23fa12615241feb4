"""What a drill-down page shows, read from a cell's logs and the published dataset: each
attempt with its grade and the prompt it was sent, and each item with its input and expected
answer (publish/drilldown.py renders them)."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ledgerrate.core.io import FileProblem, iter_jsonl
from ledgerrate.publish.load import Edition
from ledgerrate.publish.safe import segment
from ledgerrate.run.bodies import restore
from ledgerrate.schema import CellResult, GradeRecord, RunRecord


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


# A prompt's anchor on the items page: "p-" and the first PROMPT_DIGITS hex digits of the
# sha256 of the JSON of [item id, prompt]. Short, as every run's row on a cell page links one
# (15 rows to a page that must fit one 4 KB block); "p-" never begins an item's anchor
# ("item-…"), and items_of refuses two prompts that would share one.
PROMPT_DIGITS = 10


def prompt_id(item_id: str, prompt: list[dict[str, str]]) -> Markup | None:
    """An anchor named by the item and the prompt's content, so a cell page links to the right
    prompt without knowing any other cell (and stays a product of its own logs in the cache)."""
    if not prompt:
        return None
    return _prompt_anchor(item_id, tuple(tuple(sorted(m.items())) for m in prompt))


@functools.lru_cache(maxsize=4096)
def _prompt_anchor(item_id: str, prompt: tuple[tuple[tuple[str, str], ...], ...]) -> Markup:
    # Every model of an edition is sent the same prompt for an item: its anchor is worked out
    # once (a JSON dump and sha256 of the whole prompt per run was 10% of the drill-downs).
    shown = [item_id, [dict(message) for message in prompt]]
    digest = hashlib.sha256(json.dumps(shown, sort_keys=True).encode("utf-8")).hexdigest()
    return segment(f"p-{digest[:PROMPT_DIGITS]}")


def former_prompt_id(item_id: str, prompt: list[dict[str, str]]) -> Markup:
    """The anchor a prompt had on the items page before the cell pages had to fit one block
    ("item-<id>-prompt-" and 12 hex digits of the sha256 of the messages' JSON). The items page
    carries it beside the short one, so a link published with an earlier build still lands."""
    digest = hashlib.sha256(json.dumps(prompt, sort_keys=True).encode("utf-8")).hexdigest()
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


@dataclass
class Item:
    """One item as the items page shows it: its dataset files, its expected answer, and each
    distinct prompt the cells' runs were sent for it (with how many runs were sent it)."""

    item_id: str
    files: list[str]
    truth_json: str | None
    prompts: list[tuple[Markup, Markup, list[dict[str, str]], int]]  # anchor, former, …


def items_of(found: list[list[Attempt]], dataset: Published | None) -> list[Item]:
    prompts: dict[str, dict[Markup, tuple[list[dict[str, str]], int]]] = {}
    owners: dict[Markup, tuple[str, list[dict[str, str]]]] = {}  # each anchor's item and prompt
    for cell_attempts in found:
        for a in cell_attempts:
            held = prompts.setdefault(a.run.item_id, {})
            if a.prompt_id is not None:
                owner = owners.setdefault(a.prompt_id, (a.run.item_id, a.prompt))
                if owner != (a.run.item_id, a.prompt):  # a digest prefix shared: never silent
                    raise ValueError(f"two prompts share the anchor {a.prompt_id}")
                seen = held.get(a.prompt_id)
                held[a.prompt_id] = (a.prompt, (seen[1] if seen else 0) + 1)
    return [
        Item(
            item_id=item_id,
            files=dataset.files.get(item_id, []) if dataset else [],
            truth_json=dataset.truth_json.get(item_id) if dataset else None,
            prompts=[
                (pid, former_prompt_id(item_id, msgs), msgs, n)
                for pid, (msgs, n) in sorted(held.items())
            ],
        )
        for item_id, held in sorted(prompts.items())
    ]
