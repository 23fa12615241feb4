"""The one module that reads and writes edition files.

Writes are atomic (temp file, fsync, rename) so a crash never leaves half a file; appends to raw
logs are fsynced per record so a kill loses at most the line being written, which the reader
detects and drops. A malformed file raises `FileProblem` naming the file, the field path and
what was expected, one line a problem: the CLI prints those lines, never a traceback.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ledgerrate.hashing import canonical_json

M = TypeVar("M", bound=BaseModel)


class FileProblem(Exception):
    """A file that cannot be used as it is. `lines` holds one message per problem."""

    def __init__(self, path: Path | str, lines: list[str]) -> None:
        self.path = Path(path)
        self.lines = lines
        super().__init__("\n".join(lines))


class TornLineWarning(UserWarning):
    """The last line of a JSONL log was cut by a crash and has been discarded."""


def _hint(error: dict[str, Any]) -> str:
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        return "remove this field (unknown fields are not allowed; check its spelling)"
    if kind == "missing":
        return "add this required field"
    ctx = error.get("ctx") or {}
    if "expected" in ctx:
        return f"expected {ctx['expected']}"
    if "pattern" in ctx:
        return f"must match {ctx['pattern']}"
    return "fix the value"


def explain(path: Path | str, exc: ValidationError, prefix: str = "") -> FileProblem:
    lines = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ())) or "(top level)"
        given = error.get("input")
        shown = "" if isinstance(given, (dict, list)) else f" (found {given!r})"
        lines.append(f"{path}: {prefix}{where}: {error['msg']}{shown}; {_hint(error)}")
    return FileProblem(path, lines)


def parse_model(model: type[M], data: Any, path: Path | str, prefix: str = "") -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise explain(path, exc, prefix) from None


def read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileProblem(path, [f"{path}: file not found"]) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        reason = getattr(exc, "problem", None) or str(exc)
        raise FileProblem(path, [f"{path}: not valid YAML at {where}: {reason}"]) from None


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileProblem(path, [f"{path}: file not found"]) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            path, [f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"]
        ) from None


def load_model(model: type[M], path: Path) -> M:
    """Read a YAML or JSON file into its schema model, or raise FileProblem."""
    data = read_yaml(path) if path.suffix in {".yaml", ".yml"} else read_json(path)
    if data is None:
        raise FileProblem(path, [f"{path}: file is empty; see the JSON Schema for its fields"])
    return parse_model(model, data, path)


def iter_jsonl(path: Path, model: type[M]) -> Iterator[M]:
    """Records of an append-only log. A torn *last* line (a crash mid-write) is dropped with a
    warning; a bad line anywhere else is corruption and raises."""
    if not path.exists():
        return
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    torn_tail = not raw.endswith(b"\n") and raw != b""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        is_last = number == len(lines)
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            if is_last and torn_tail:
                warnings.warn(
                    f"{path}: line {number} was cut short by an interrupted write and is ignored",
                    TornLineWarning,
                    stacklevel=2,
                )
                return
            raise FileProblem(
                path, [f"{path}: line {number}: not valid JSON ({exc.msg}); the log is corrupt"]
            ) from None
        yield parse_model(model, data, path, prefix=f"line {number}: ")


def read_jsonl(path: Path, model: type[M]) -> list[M]:
    return list(iter_jsonl(path, model))


def repair_torn_tail(path: Path) -> bool:
    """Cut a torn last line so that the next append starts on a clean line."""
    if not path.exists():
        return False
    raw = path.read_bytes()
    if raw == b"" or raw.endswith(b"\n"):
        return False
    keep = raw[: raw.rfind(b"\n") + 1]
    atomic_write_bytes(path, keep)
    return True


def append_jsonl(path: Path, record: BaseModel) -> None:
    """Append one record and make it durable before returning."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (to_json(record) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def to_json(record: BaseModel | Any) -> str:
    """Canonical JSON of a model (or plain data): sorted keys, exact decimals."""
    data = record.model_dump(mode="json") if isinstance(record, BaseModel) else record
    return canonical_json(data)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, value: BaseModel | Any, *, pretty: bool = True) -> None:
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    if pretty:
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    else:
        text = canonical_json(data) + "\n"
    atomic_write_text(path, text)


def write_yaml(path: Path, value: BaseModel | Any) -> None:
    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    atomic_write_text(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
