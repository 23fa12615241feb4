"""Recognising a gateway's own error replies, apart from the provider's behind it.

A gateway (LiteLLM's proxy) answers some failures itself, in the envelope of the route that was
called. What each means for a run is decided here, from the observed shapes:

- LiteLLM, HTTP 429, every deployment of the model in cooldown after failures: "No deployments
  available for selected model, Try again in 5 seconds. All deployments for selected model are
  in cooldown. …" (type `all_deployments_in_cooldown` on its OpenAI and Gemini routes,
  `rate_limit_error` on its Anthropic route), with no `Retry-After` header. That is the
  infrastructure's state, not the model's and not a spend cap: a rate limit, waited out for the
  seconds the message names.
- LiteLLM, HTTP 400 `ContextWindowExceededError`: see `context.py` (the model's failure).
"""

from __future__ import annotations

import re

_COOLDOWN = re.compile(r"no deployments available", re.I)
_TRY_AGAIN = re.compile(r"try again in ([0-9]+(?:\.[0-9]+)?) seconds?", re.I)


def cooldown_wait(status: int, message: str) -> float | None:
    """Seconds a gateway's "all deployments in cooldown" reply asks to wait, else None."""
    if status != 429 or not _COOLDOWN.search(message) or "cooldown" not in message.lower():
        return None
    found = _TRY_AGAIN.search(message)
    return float(found.group(1)) if found else 0.0
