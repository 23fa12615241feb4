"""The fake provider's replies carry a fixed creation time: the same script gives the same bytes
whatever second the clock shows (a test comparing two clients' replies failed whenever its two
reads straddled a second)."""

from __future__ import annotations

import time

import pytest

from ledgerrate.providers.families import registered
from ledgerrate.providers.family import WireReply


@pytest.mark.parametrize("family", [f.name for f in registered()])
def test_a_fake_reply_does_not_depend_on_the_clock(
    family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire = next(f for f in registered() if f.name == family).fake
    reply = WireReply(n=1, model="m", text="hello", calls=[], usage=None, finish_reason=None)
    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.0)
    first = wire.success_body(reply)
    monkeypatch.setattr(time, "time", lambda: 1_900_000_001.0)
    assert wire.success_body(reply) == first
