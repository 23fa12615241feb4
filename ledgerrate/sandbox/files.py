"""File reading confined to an item's sandbox folder.

Paths come from models and are hostile until proven otherwise: absolute paths, `..`, and
symlinks that resolve outside the folder are refused with a message the model sees.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ledgerrate.core.tools import ToolError, ToolSpec

MAX_READ_BYTES = 200_000


def materialise(root: Path, files: Mapping[str, bytes | str]) -> None:
    """Write an item's documents into its sandbox folder (names are ours, not a model's)."""
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def confined(root: Path, requested: str) -> Path:
    """Resolve `requested` inside `root` or raise ToolError."""
    if not isinstance(requested, str) or not requested.strip():
        raise ToolError("path must be a non-empty relative path")
    if "\x00" in requested:
        raise ToolError("path contains a NUL byte")
    candidate = Path(requested)
    if candidate.is_absolute():
        raise ToolError("absolute paths are not allowed; use a path relative to the sandbox")
    if ".." in candidate.parts:
        raise ToolError("'..' is not allowed in paths")
    base = root.resolve()
    resolved = (base / candidate).resolve()
    if resolved != base and base not in resolved.parents:
        raise ToolError("that path leads outside the sandbox")
    return resolved


def read_file(root: Path, path: str) -> str:
    target = confined(root, path)
    if not target.exists():
        raise ToolError(f"no such file: {path}")
    if target.is_dir():
        raise ToolError(f"{path} is a folder; call list_files")
    data = target.read_bytes()[:MAX_READ_BYTES]
    if target.suffix.lower() == ".pdf":
        raise ToolError(f"{path} is a PDF; read its text file instead (see list_files)")
    return data.decode("utf-8", errors="replace")


def list_files(root: Path) -> str:
    base = root.resolve()
    names = []
    for dirpath, _dirs, files in os.walk(base, followlinks=False):
        for name in files:
            full = Path(dirpath) / name
            if full.is_symlink():
                continue
            names.append(full.relative_to(base).as_posix())
    return "\n".join(sorted(names)) or "(empty)"


def file_tools(root: Path) -> list[ToolSpec]:
    def _read(args: dict[str, Any]) -> str:
        return read_file(root, args.get("path", ""))

    def _list(_args: dict[str, Any]) -> str:
        return list_files(root)

    return [
        ToolSpec(
            name="list_files",
            description="List the files in your sandbox folder (paths relative to it).",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
            run=_list,
        ),
        ToolSpec(
            name="read_file",
            description="Read a text file from your sandbox folder by its relative path.",
            parameters={
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Relative path."}},
                "required": ["path"],
                "additionalProperties": False,
            },
            run=_read,
        ),
    ]


class FileToolset:
    """The default agentic toolset: the item's documents as files, readable, nothing else."""

    def __init__(self, root: Path, files: Mapping[str, bytes | str]) -> None:
        self.root = root
        materialise(root, files)
        self.tools = file_tools(root)

    def state(self) -> dict[str, Any] | None:
        return None

    def close(self) -> None:
        return None
