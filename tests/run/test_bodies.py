"""Request strings stored once in bodies/: exact round trip, sealed lines kept, tampering caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledgerrate.core.hashing import canonical_json
from ledgerrate.core.io import FileProblem
from ledgerrate.run import bodies

PROMPT = "Extract the total of this invoice.\n" * 40  # long: moved out
BODY = {
    "model": "m",
    "messages": [{"role": "system", "content": "short"}, {"role": "user", "content": PROMPT}],
    "odd/key~": PROMPT,
}


def test_stored_body_restores_to_the_exact_body_and_is_shared(tmp_path: Path) -> None:
    store = bodies.BodyStore(tmp_path)
    stored = store.store(BODY)
    assert stored.body["messages"][1]["content"] is None
    assert set(stored.moved) == {"/messages/1/content", "/odd~1key~0"}
    assert len(list((tmp_path / "bodies").iterdir())) == 1  # one string, stored once
    assert canonical_json(bodies.restore(stored, tmp_path)) == canonical_json(BODY)
    other = bodies.BodyStore(tmp_path).store({**BODY, "model": "another"})
    assert other.moved == stored.moved  # every model shares the prompt's file


def test_whole_lines_keep_sealed_lines_byte_for_byte_and_restore_stored_ones(
    tmp_path: Path,
) -> None:
    stored = bodies.BodyStore(tmp_path).store(BODY)
    sealed = b'{"request": {"a": 1}, "x": "keep   spacing"}\n'
    compact = (
        canonical_json({"request": None, "request_stored": stored.model_dump(), "x": 1}) + "\n"
    )
    log = tmp_path / "cell.jsonl"
    log.write_bytes(sealed + compact.encode())
    first, second = list(bodies.whole_lines(log, tmp_path))
    assert first == sealed
    assert second == (canonical_json({"request": BODY, "x": 1}) + "\n").encode()


def test_an_altered_or_missing_body_file_is_refused(tmp_path: Path) -> None:
    stored = bodies.BodyStore(tmp_path).store(BODY)
    (path,) = (tmp_path / "bodies").iterdir()
    path.write_text("tampered")
    with pytest.raises(FileProblem, match="does not match its name"):
        bodies.restore(stored, tmp_path)
    path.unlink()
    with pytest.raises(FileProblem, match="missing"):
        bodies.restore(stored, tmp_path)
