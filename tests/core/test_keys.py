"""One redaction rule for API keys: whole tokens in text that can quote a key, nothing else."""

from __future__ import annotations

import pytest

from ledgerrate.core.keys import MARKER, MIN_KEY_LENGTH, holds, is_loopback, key_problem, redact

KEY = "sk-live-0123456789abcdefABCD"


def test_redact_replaces_a_key_standing_as_a_token_in_text_and_urls() -> None:
    text = f"Incorrect API key provided: {KEY}. See https://x.test/?key={KEY}&v=1"
    assert redact(text, [KEY]) == (
        f"Incorrect API key provided: {MARKER}. See https://x.test/?key={MARKER}&v=1"
    )
    assert holds(text, [KEY])


def test_redact_changes_string_values_never_field_names() -> None:
    data = {KEY: [f"echo {KEY}", {"n": 3, "k": KEY}], "none": None}
    assert redact(data, [KEY]) == {KEY: [f"echo {MARKER}", {"n": 3, "k": MARKER}], "none": None}


def test_a_short_key_never_eats_letters_of_words() -> None:
    # The dummy key `x` of issue 18: before, every "x" of every string went.
    message = "invalid_request_error context_length_exceeded: 9 x 9 tokens"
    assert (
        redact(message, ["x"])
        == f"invalid_request_error context_length_exceeded: 9 {MARKER} 9 tokens"
    )
    assert redact({"text": "exact tax"}, ["x"]) == {"text": "exact tax"}
    assert not holds("exact tax", ["x"])


def test_a_key_inside_a_longer_token_is_not_that_key() -> None:
    assert redact(f"{KEY}XYZ and a{KEY}", [KEY]) == f"{KEY}XYZ and a{KEY}"
    assert redact("anything", []) == "anything"


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8000/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://127.0.0.2/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://127.0.0.1.evil.test/v1", False),
        (None, False),
    ],
)
def test_is_loopback(url: str | None, loopback: bool) -> None:
    assert is_loopback(url) is loopback


def test_key_rules_remote_needs_a_real_key_loopback_needs_none() -> None:
    remote = "https://api.example.test/v1"
    short = key_problem("m", "M_KEY", "x", remote)
    assert short is not None and "\n" not in short
    assert "$M_KEY" in short and str(MIN_KEY_LENGTH) in short
    assert "not set" in (key_problem("m", "M_KEY", "", remote) or "")
    assert key_problem("m", "M_KEY", "k" * MIN_KEY_LENGTH, remote) is None
    assert key_problem("m", "M_KEY", "x", "http://127.0.0.1:8000/v1") is None
    assert key_problem("m", None, "", "http://127.0.0.1:8000/v1") is None
