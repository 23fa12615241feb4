"""API keys: when one is required, how short it may be, and removing it from text that can hold it.

A key travels only in a request header, so it comes back only where a server or a transport
quotes what it was sent: error texts, error bodies and URLs, and, from a debugging proxy or a
misconfigured gateway, a successful reply. Errors are redacted of any key; the whole of a record
only of a key of real length (`run/rawlog.seal`). Rewriting every occurrence of a short key
everywhere corrupts data: with the dummy key `x` (local servers take any key), the field
`"text"` became `"te[redacted]t"` and a model's answer lost its letters. So an occurrence counts
only as a whole token (never inside a longer run of key characters), field names are never
touched, model output only for a key of at least `MIN_KEY_LENGTH` characters, and a key too
short to be a real credential is refused for remote endpoints.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TypeVar

from ledgerrate.schema import is_loopback

MARKER = "[redacted]"

# The shortest key a hosted provider issues today is Gemini's 39 characters; 20 leaves room for
# gateways with shorter keys while refusing dummies (`x`, `EMPTY`, `test`) that would make any
# text match.
MIN_KEY_LENGTH = 20

# Characters that make up keys (base64url, hex, `sk-…` prefixes): a match must not sit inside a
# longer run of them, so a key is only ever replaced where it stands as a token of its own.
_KEY_CHAR = r"A-Za-z0-9_\-"

T = TypeVar("T")


def key_problem(model_id: str, env: str | None, value: str, base_url: str | None) -> str | None:
    """Why this key cannot be used, in one line, or None when it can.

    A loopback endpoint may run with no key, or any key; a remote one needs a real key. Either
    way a key goes into a header, so one holding a character a header cannot carry (a line
    break from a file exported whole) is refused before any request is made; the line names
    the variable and never quotes the value.
    """
    bad = header_problem(value.strip())
    if bad:
        return (
            f"model {model_id!r}: the key in ${env} holds {bad}, which an HTTP header cannot "
            f"carry; set ${env} to the key alone, on one line"
        )
    if is_loopback(base_url):
        return None
    if not value.strip():
        return (
            f"model {model_id!r}: environment variable {env} is not set (it must hold the API key)"
        )
    if len(value) < MIN_KEY_LENGTH:
        return (
            f"model {model_id!r}: the key in ${env} is {len(value)} characters, shorter than any "
            f"real API key (minimum {MIN_KEY_LENGTH}); set the real key, or point base_url at a "
            "loopback server, which needs none"
        )
    return None


def header_problem(value: str) -> str | None:
    """What in `value` an HTTP header cannot carry, described without quoting it, or None.

    Keys are sent as header values, which RFC 9110 limits to visible ASCII, spaces and tabs;
    anything else (a line break, a control character, a non-ASCII letter) makes the HTTP
    client refuse the request with a traceback that quotes the header.
    """
    for char in value:
        if char in "\r\n":
            return "a line break"
        if not (char in " \t" or "!" <= char <= "~"):
            return f"the character U+{ord(char):04X}"
    return None


@functools.lru_cache(maxsize=64)
def _pattern(secrets: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True))
    return re.compile(f"(?<![{_KEY_CHAR}])(?:{alternatives})(?![{_KEY_CHAR}])")


def redact(value: T, secrets: Sequence[str]) -> T:
    """`value` (a string, or JSON data) with each secret that stands as a token replaced.

    Apply it only to what can quote a key back: error texts, error bodies, URLs, headers. In
    JSON data only string values change, never keys (field names are ours, not the server's).
    """
    live = tuple(s for s in secrets if s)
    if not live:
        return value
    pattern = _pattern(live)
    return _redact(value, pattern, live)  # type: ignore[return-value]


def _redact(value: object, pattern: re.Pattern[str], secrets: tuple[str, ...]) -> object:
    if isinstance(value, str):
        if not any(s in value for s in secrets):
            return value
        return pattern.sub(MARKER, value)
    if isinstance(value, dict):
        return {k: _redact(v, pattern, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v, pattern, secrets) for v in value]
    return value


def holds(text: str, secrets: Sequence[str]) -> bool:
    """Whether any secret stands as a token in `text` (what `redact` would replace)."""
    live = tuple(s for s in secrets if s)
    return bool(live) and any(s in text for s in live) and bool(_pattern(live).search(text))
