"""Group commit: a line is acknowledged only once fsynced, lines waiting together share one
fsync, and a slow fsync of one file never holds back another file's acknowledgements."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from ledgerrate.run import durable
from ledgerrate.run.durable import GroupCommit


class FsyncLog:
    """Wraps os.fsync: which file's bytes were on disk at each fsync."""

    def __init__(self, real=os.fsync) -> None:
        self.real = real
        self.synced: list[tuple[int, int]] = []  # (fd, file size at the fsync)
        self.lock = threading.Lock()

    def __call__(self, fd: int) -> None:
        self.real(fd)
        with self.lock:
            self.synced.append((fd, os.fstat(fd).st_size))


def test_an_acknowledged_line_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = FsyncLog()
    monkeypatch.setattr(durable.os, "fsync", log)
    path = tmp_path / "cell.jsonl"

    async def main() -> list[int]:
        writer = GroupCommit()
        sizes = []
        for n in range(3):
            await writer.append(path, f'{{"n":{n}}}\n'.encode())
            size = path.stat().st_size
            # An fsync covered every byte of the file before append returned.
            assert any(synced >= size for _, synced in log.synced)
            sizes.append(size)
        writer.close()
        return sizes

    sizes = asyncio.run(main())
    assert sizes == sorted(sizes) and len(set(sizes)) == 3
    assert path.read_text().splitlines() == ['{"n":0}', '{"n":1}', '{"n":2}']


def test_lines_waiting_together_share_one_fsync_and_keep_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = FsyncLog()
    monkeypatch.setattr(durable.os, "fsync", log)
    path = tmp_path / "cell.jsonl"

    async def main() -> None:
        writer = GroupCommit()
        await asyncio.gather(*(writer.append(path, f"{n}\n".encode()) for n in range(50)))
        writer.close()

    asyncio.run(main())
    assert path.read_text().splitlines() == [str(n) for n in range(50)]
    assert 1 <= len(log.synced) < 50


def test_a_slow_fsync_of_one_file_does_not_hold_back_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records' log stuck in fsync: a request's start is still journaled and acknowledged
    (the request may leave), while the record waits for its own fsync."""
    slow = tmp_path / "cell.jsonl"
    journal = tmp_path / "cell.started"
    release = threading.Event()
    real = os.fsync

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}") == str(slow):
            release.wait(timeout=30)
        real(fd)

    monkeypatch.setattr(durable.os, "fsync", fsync)

    async def main() -> None:
        writer = GroupCommit()
        record = asyncio.create_task(writer.append(slow, b"record\n"))
        await asyncio.sleep(0)  # the record's batch is handed to its writer first
        await asyncio.wait_for(writer.append(journal, b"start\n"), timeout=10)
        assert not record.done()  # not acknowledged before its fsync
        release.set()
        await asyncio.wait_for(record, timeout=10)
        writer.close()

    try:
        asyncio.run(main())
    finally:
        release.set()
    assert slow.read_bytes() == b"record\n" and journal.read_bytes() == b"start\n"


def test_a_failed_write_fails_its_writers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fsync(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(durable.os, "fsync", fsync)

    async def main() -> None:
        writer = GroupCommit()
        with pytest.raises(OSError, match="No space"):
            await writer.append(tmp_path / "cell.jsonl", b"x\n")

    asyncio.run(main())
