"""Two builds sealing at once: each line of the publication index names the sha256 of the line
before it, so a second sealer must wait for the first to append before reading the last line."""

from __future__ import annotations

import datetime as dt
import fcntl
import threading
from pathlib import Path

from ledgerrate.core import layout, seal
from ledgerrate.publish.published import seal_index

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


def _edition(editions: Path, name: str) -> Path:
    root = editions / name
    root.mkdir(parents=True)
    (root / "published.json").write_text(f'{{"edition": "{name}"}}\n')
    return root


def test_a_sealer_waits_for_the_index_and_chains_to_the_line_it_finds(tmp_path: Path) -> None:
    first, second = _edition(tmp_path, "2026-10"), _edition(tmp_path, "2026-11")
    index = tmp_path / layout.INDEX_NAME
    seal_index(first, NOW)

    done = threading.Event()
    worker = threading.Thread(target=lambda: (seal_index(second, NOW), done.set()))
    with index.open("ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        worker.start()
        # While another process holds the index, nothing may be appended to it.
        assert not done.wait(0.5), "sealed while another sealer held the index"
        assert len(seal.read_index(index)) == 1
    worker.join(10)

    lines = seal.read_index(index)
    assert done.is_set()
    assert [line.entry.edition for line in lines] == ["2026-10", "2026-11"]
    assert seal.chain_problems(lines) == []
    assert lines[1].entry.previous == seal.sha256_bytes(lines[0].raw)
