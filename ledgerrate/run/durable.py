"""Durable appends with group commit: every line is fsynced before its writer is told it is.

A record is acknowledged (its `append` returns) only after its bytes are on disk, as before;
what changes is the cost. Lines waiting while a batch is being written go out together in the
next one: one write and one fsync per file per batch, and one hop to the writer thread per
batch instead of one per record. A crash loses only lines never acknowledged, which is what a
per-record fsync guaranteed too.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path


class GroupCommit:
    """Appends lines to files from the event loop; one writer thread, batches per file."""

    def __init__(self) -> None:
        self._pending: dict[Path, list[tuple[bytes, asyncio.Future[None]]]] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._fds: dict[Path, int] = {}

    async def append(self, path: Path, line: bytes) -> None:
        """Append `line` (ending in a newline) to `path`; return once it is fsynced."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(path, []).append((line, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await future

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, {}
            # Shielded: a cancelled run must still finish writing what it handed over.
            done = asyncio.ensure_future(asyncio.to_thread(self._write, batch))
            try:
                await asyncio.shield(done)
            except asyncio.CancelledError:
                await asyncio.wait([done])
                raise

    def _write(self, batch: dict[Path, list[tuple[bytes, asyncio.Future[None]]]]) -> None:
        loop_calls: list[tuple[asyncio.Future[None], OSError | None]] = []
        for path, entries in batch.items():
            try:
                fd = self._fd(path)
                os.write(fd, b"".join(line for line, _ in entries))
                os.fsync(fd)
            except OSError as failure:
                loop_calls += [(f, failure) for _, f in entries]
            else:
                loop_calls += [(f, None) for _, f in entries]
        for future, exc in loop_calls:
            future.get_loop().call_soon_threadsafe(_settle, future, exc)

    def _fd(self, path: Path) -> int:
        fd = self._fds.get(path)
        if fd is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = self._fds[path] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return fd

    def close(self) -> None:
        """Write whatever is still pending (a run ending on Ctrl-C), then close the files."""
        pending, self._pending = self._pending, {}
        for path, entries in pending.items():
            fd = self._fd(path)
            os.write(fd, b"".join(line for line, _ in entries))
            os.fsync(fd)
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


def _settle(future: asyncio.Future[None], exc: OSError | None) -> None:
    if future.done():
        return
    if exc is None:
        future.set_result(None)
    else:
        future.set_exception(exc)
