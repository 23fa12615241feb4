"""The one module that reads and writes edition files.

Writes are atomic (temp file, fsync, rename) so a crash never leaves half a file; appends to raw
logs are fsynced per record so a kill loses at most the line being written, which the reader
detects and drops. A malformed file raises `FileProblem` naming the file, the field path and
what was expected, one line a problem: the CLI prints those lines, never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ledgerrate.core.errors import FileProblem as FileProblem  # where the readers raise it
from ledgerrate.core.hashing import canonical_json

M = TypeVar("M", bound=BaseModel)

# Size limits on what the toolchain reads, so a hostile file costs a bounded amount of memory and
# time before it is refused. YAML files are written by hand (edition, prices, errata) and are a
# few KB; JSON files are written by the toolchain (results, registration, cards); a JSONL line is
# one run record, which holds the raw provider responses of up to 25 agent steps.
MAX_YAML_BYTES = 1_000_000
MAX_JSON_BYTES = 64_000_000
MAX_JSONL_LINE_BYTES = 32_000_000


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


def _clip(text: str, limit: int = 80) -> str:
    # A found value is quoted back to help find it, never echoed whole: it may be 10 MB.
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text):,} characters)"


def explain(path: Path | str, exc: ValidationError, prefix: str = "") -> FileProblem:
    lines = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ())) or "(top level)"
        given = error.get("input")
        shown = "" if isinstance(given, (dict, list)) else f" (found {_clip(repr(given))})"
        lines.append(f"{path}: {prefix}{where}: {error['msg']}{shown}; {_hint(dict(error))}")
    return FileProblem(path, lines)


def parse_model(model: type[M], data: Any, path: Path | str, prefix: str = "") -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise explain(path, exc, prefix) from None


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def read_text(path: Path, limit: int) -> str:
    """The UTF-8 text of a file no larger than `limit` bytes, or FileProblem saying why not."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise FileProblem(path, [f"{path}: not a regular file; pass the file itself"])
        if size > limit:
            raise FileProblem(
                path,
                [
                    f"{path}: {_mb(size)} is over the {_mb(limit)} limit for this file; "
                    "shorten it (no field needs that much text)"
                ],
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileProblem(path, [f"{path}: file not found"]) from None
    except OSError as exc:
        raise FileProblem(path, [f"{path}: cannot be read ({exc.strerror}); check it"]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FileProblem(
            path,
            [
                f"{path}: line {line}: byte 0x{data[exc.start]:02x} is not UTF-8; "
                "save the file as UTF-8"
            ],
        ) from None


class _UniqueKeyLoader(yaml.CSafeLoader):
    """SafeLoader that refuses a mapping with the same key twice (PyYAML keeps the last one).
    libyaml's parser (the same safe constructors): a tenth of the pure-Python one's CPU."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: dict[Any, int] = {}
    for key_node, _value in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, (list, dict)):
            continue  # unhashable keys are refused by the constructor below
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key!r} (first at line {seen[key]}); the later one would "
                "silently win: keep one",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _unique_mapping,
)


def read_yaml(path: Path) -> Any:
    text = read_text(path, MAX_YAML_BYTES)
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        reason = getattr(exc, "problem", None) or str(exc)
        raise FileProblem(path, [f"{path}: not valid YAML at {where}: {reason}"]) from None


def read_json(path: Path) -> Any:
    text = read_text(path, MAX_JSON_BYTES)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            path, [f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"]
        ) from None
    except RecursionError:
        raise FileProblem(path, [f"{path}: JSON nested too deeply; flatten it"]) from None


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
        if len(line) > MAX_JSONL_LINE_BYTES:
            raise FileProblem(
                path,
                [
                    f"{path}: line {number}: {_mb(len(line))} is over the "
                    f"{_mb(MAX_JSONL_LINE_BYTES)} limit for one record; the log is corrupt"
                ],
            )
        # Parsed and checked in one pass (1.4x faster than json.loads and then the schema); a
        # line refused here is read again below, which names the line, the field and the fix.
        try:
            record = model.model_validate_json(line)
        except ValidationError:
            record = None
        if record is not None:
            yield record
            continue
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            if is_last and torn_tail:
                warnings.warn(
                    f"{path}: line {number} was cut short by an interrupted write and is ignored",
                    TornLineWarning,
                    stacklevel=2,
                )
                return
            raise FileProblem(
                path,
                [
                    f"{path}: line {number}: not valid JSON "
                    f"({getattr(exc, 'msg', None) or type(exc).__name__}); the log is corrupt"
                ],
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


class HashingFile:
    """A file written in one stream beside its final place, hashed as it is written, and put
    in place only by `commit` (a name may hold its own digest): for outputs too large to hold
    in memory. Left without a commit, as on any error, it is removed."""

    def __init__(self, folder: Path, prefix: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{prefix[:40]}.", suffix=".tmp", dir=folder)
        self._path = Path(tmp)
        self._handle = os.fdopen(fd, "wb")
        self._digest = hashlib.sha256()
        self._done = False

    @classmethod
    def beside(cls, target: Path) -> HashingFile:
        return cls(target.parent, target.name)

    def write(self, data: bytes, /) -> int:
        self._digest.update(data)
        return self._handle.write(data)

    def flush(self) -> None:
        self._handle.flush()

    def sha256(self) -> str:
        return self._digest.hexdigest()

    def commit(self, target: Path, *, durable: bool = True) -> None:
        """Put the bytes at `target` atomically (`durable`: fsync'd, as atomic_write_bytes)."""
        self._handle.flush()
        if durable:
            os.fsync(self._handle.fileno())
        self._handle.close()
        os.chmod(self._path, 0o644)
        os.replace(self._path, target)
        self._done = True
        if durable:
            dir_fd = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def __enter__(self) -> HashingFile:
        return self

    def __exit__(self, *_: object) -> None:
        if not self._done:
            self._handle.close()
            self._path.unlink(missing_ok=True)


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
