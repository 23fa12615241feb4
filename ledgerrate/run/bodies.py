"""Request bodies stored once per edition: long strings content-addressed in `bodies/`.

An item's prompt is identical for every model that runs it, yet every record carried it whole
(~95% of a record). A record now keeps its body with each long string (the prompt, a document,
a long tool result) set to null and a JSON pointer to `bodies/<sha256>.txt`: the string's UTF-8
bytes, named by their hash, written once and fsynced before any record points at it.

Logs are read in either form. A log the bundled editions sealed holds whole bodies and is never
rewritten. A log is published as written (the sealed bytes, gzipped) with `bodies/` beside it;
`whole_log_bytes` rebuilds its self-contained form for a reader who wants one, and the
data page gives the same mapping as a recipe.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ledgerrate.core.hashing import canonical_json, sha256_bytes
from ledgerrate.core.io import FileProblem, atomic_write_bytes
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import RunRecord, StoredRequest

# Strings shorter than this stay inline: a pointer and a hash cost ~110 bytes.
MIN_MOVED_CHARS = 512


def body_path(root: Path, digest: str) -> Path:
    return EditionPaths(root).body(digest)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def split(body: dict[str, Any]) -> tuple[StoredRequest, dict[str, bytes]]:
    """The stored form of `body` and the strings it moved out (sha256 → UTF-8 bytes)."""
    moved: dict[str, str] = {}
    texts: dict[str, bytes] = {}

    # The path to the value being walked, as raw keys and indices: its pointer is spelt out
    # only for a string that moves (most of a body's keys lead to nothing that does).
    path: list[str | int] = []

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            if len(value) < MIN_MOVED_CHARS:
                return value
            data = value.encode("utf-8")
            digest = sha256_bytes(data)
            texts[digest] = data
            moved["".join(f"/{_escape(str(t))}" for t in path)] = digest
            return None
        if isinstance(value, dict):
            kept: dict[str, Any] = {}
            for k, v in value.items():
                path.append(k)
                kept[k] = walk(v)
                path.pop()
            return kept
        if isinstance(value, list):
            items = []
            for i, v in enumerate(value):
                path.append(i)
                items.append(walk(v))
                path.pop()
            return items
        return value

    kept = walk(body)
    return StoredRequest.model_construct(body=kept, moved=moved), texts


def restore(
    stored: StoredRequest,
    root: Path,
    where: Path | str = "",
    read: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The exact body that was sent; FileProblem when a stored string is missing or altered.

    `read`: strings already read and checked, by digest, kept across calls by a caller that
    restores many records of one edition (every model of an item was sent the same prompt)."""
    body = json.loads(canonical_json(stored.body))  # a copy: the record stays as read
    for pointer, digest in stored.moved.items():
        text = read.get(digest) if read is not None else None
        if text is None:
            text = _read_string(root, digest, pointer, where)
            if read is not None:
                read[digest] = text
        _put(body, pointer, text)
    return body


def _read_string(root: Path, digest: str, pointer: str, where: Path | str) -> str:
    path = body_path(root, digest)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileProblem(
            where or path, [f"{where or path}: request string {pointer} needs {path}, missing"]
        ) from None
    if sha256_bytes(data) != digest:
        raise FileProblem(path, [f"{path}: content does not match its name (sha256)"])
    return data.decode("utf-8")


def _put(body: Any, pointer: str, text: str) -> None:
    tokens = [_unescape(t) for t in pointer.split("/")[1:]]
    target = body
    for token in tokens[:-1]:
        target = target[int(token)] if isinstance(target, list) else target[token]
    last = tokens[-1]
    if isinstance(target, list):
        target[int(last)] = text
    else:
        target[last] = text


class BodyStore:
    """Writes each distinct long string of an edition once (atomic, fsynced)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._known: set[str] = set()

    def store(self, body: dict[str, Any]) -> StoredRequest:
        stored, texts = split(body)
        for digest, data in texts.items():
            if digest in self._known:
                continue
            path = body_path(self.root, digest)
            if not path.exists() or sha256_bytes(path.read_bytes()) != digest:
                atomic_write_bytes(path, data)
            self._known.add(digest)
        return stored


def whole(record: RunRecord, root: Path, where: Path | str = "") -> RunRecord:
    """`record` with its request whole (the form every reader outside the edition gets)."""
    if record.request_stored is None:
        return record
    body = restore(record.request_stored, root, where)
    return record.model_copy(update={"request": body, "request_stored": None})


def whole_lines(path: Path, root: Path) -> Iterator[bytes]:
    """The lines of a cell's log with every request whole, each ending in a newline.

    A line already whole is given back byte for byte (a sealed log stays exactly as sealed); a
    stored one is restored and written in the same canonical form, without `request_stored`.
    """
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if b'"request_stored"' not in line:
                yield line if line.endswith(b"\n") else line + b"\n"
                continue
            data = json.loads(line)
            stored = data.pop("request_stored", None)
            if stored is None:
                yield line if line.endswith(b"\n") else line + b"\n"
                continue
            where = f"{path}: line {number}"
            data["request"] = restore(StoredRequest.model_validate(stored), root, where)
            yield (canonical_json(data) + "\n").encode("utf-8")


def whole_log_bytes(path: Path, root: Path) -> bytes:
    """A cell's log, self-contained (see `whole_lines`): never published as the raw log."""
    return b"".join(whole_lines(path, root))
