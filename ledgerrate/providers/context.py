"""Recognising "the request does not fit the model's context" in each server's error reply.

Under the standard a model that cannot take the job has failed it, so these replies are model
failures (never a configuration error that stops the run, never an infrastructure error re-run
forever). Each server words them its own way; the shapes recognised here are the documented or
observed ones, each with its source:

- OpenAI: HTTP 400 `{"error": {"code": "context_length_exceeded", "message": "This model's
  maximum context length is 8192 tokens. However, your messages resulted in 24752 tokens…"}}`.
- llama-cpp-python's server (`llama_cpp/server/errors.py`): HTTP 400, the same code and type,
  message "This model's maximum context length is 8192 tokens. However, you requested 25264
  tokens (24752 in the messages, 512 in the completion)…".
- llama.cpp's `llama-server`: HTTP 400 `{"error": {"type": "exceed_context_size_error",
  "n_prompt_tokens": 4476, "n_ctx": 4096, "message": "request (4476 tokens) exceeds the
  available context size (4096 tokens), try increasing it"}}`.
- vLLM: HTTP 400 `{"object": "error", "type": "BadRequestError", "code": 400, "message":
  "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (100
  in the messages, 2000 in the completion)…"}` (newer versions nest it under `"error"`, or say
  "your request has 2100 input tokens").
- OpenAI's Responses API: HTTP 400, the same code, message "Your input exceeds the context
  window of this model. Please adjust your input and try again." (no sizes).
- Anthropic: HTTP 400 `invalid_request_error` "prompt is too long: 208310 tokens > 200000
  maximum", or "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000…";
  HTTP 413 `request_too_large` when the body itself is over the size limit.
- Gemini: HTTP 400 `INVALID_ARGUMENT` "The input token count (1048577) exceeds the maximum
  number of tokens allowed (1048576)."
- LiteLLM's proxy (1.110.2, observed on all four of its routes in front of llama-cpp-python):
  HTTP 400 in the route's own error envelope, message "litellm.ContextWindowExceededError:
  litellm.BadRequestError: ContextWindowExceededError: OpenAIException - <the upstream
  message>…". The exception's name is the gateway's own verdict, so it is recognised whatever
  the upstream server's words (the sizes are read from them when they are a known shape).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Statuses a context error comes with: a bad request (400), too large (413), or unprocessable
# (422, some gateways). Any other status is classified as before.
STATUSES = frozenset({400, 413, 422})


@dataclass(frozen=True)
class ContextOverflow:
    """What a server said about the overflow: the request's size and the context, when given."""

    requested_tokens: int | None = None
    context_tokens: int | None = None


def _int(text: str) -> int:
    return int(text.replace(",", ""))


_N = r"([0-9][0-9,]*)"
# (pattern, group of the requested size, group of the context size); the first match wins.
_PATTERNS: tuple[tuple[re.Pattern[str], int | None, int | None], ...] = (
    # OpenAI, vLLM, llama-cpp-python: "maximum context length is C tokens. However, you
    # requested R tokens" / "your messages resulted in R tokens" / "your request has R input
    # tokens".
    (
        re.compile(
            rf"maximum context length is {_N} tokens[.,]?\s*however,? "
            rf"(?:you requested|your messages resulted in|your request has) {_N}",
            re.I,
        ),
        2,
        1,
    ),
    (re.compile(rf"maximum context length is {_N} tokens", re.I), None, 1),
    # llama.cpp llama-server.
    (re.compile(rf"request \({_N} tokens\) exceeds the available context size \({_N}", re.I), 1, 2),
    # Anthropic.
    (re.compile(rf"prompt is too long: {_N} tokens > {_N}", re.I), 1, 2),
    # Gemini.
    (
        re.compile(
            rf"input token count \(?{_N}\)? exceeds the maximum number of tokens allowed \(?{_N}",
            re.I,
        ),
        1,
        2,
    ),
)
_ANTHROPIC_SUM = re.compile(rf"exceed context limit: {_N} \+ {_N} > {_N}", re.I)
# Words that say "context" without numbers, from the same servers.
_PHRASES = (
    "contextwindowexceedederror",
    "context_length_exceeded",
    "exceed_context_size_error",
    "exceeds the available context size",
    "maximum context length",
    "prompt is too long",
    "exceed context limit",
    "exceeds the context window",
    "exceeds the maximum number of tokens allowed",
)


def _strings(body: Any) -> list[str]:
    """The error's own strings (message, code, type), at the top level or under `error`."""
    found: list[str] = []
    for block in (body, body.get("error") if isinstance(body, dict) else None):
        if isinstance(block, dict):
            found += [str(block[k]) for k in ("message", "code", "type") if block.get(k)]
        elif isinstance(block, str):
            found.append(block)
    return found


def overflow(status: int, body: Any, text: str = "") -> ContextOverflow | None:
    """The overflow this error reply reports, or None when it is some other error."""
    if status not in STATUSES:
        return None
    strings = _strings(body) or [text]
    joined = " ".join(strings)
    lowered = joined.lower()
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
        # llama-server says the sizes as fields too.
        prompt, ctx = error.get("n_prompt_tokens"), error.get("n_ctx")
        if isinstance(prompt, int) and isinstance(ctx, int):
            return ContextOverflow(prompt, ctx)
    if status == 413 and "request_too_large" in lowered:
        return ContextOverflow()
    if not any(p in lowered for p in _PHRASES):
        return None
    summed = _ANTHROPIC_SUM.search(joined)
    if summed:
        return ContextOverflow(_int(summed.group(1)) + _int(summed.group(2)), _int(summed.group(3)))
    for pattern, requested, context in _PATTERNS:
        match = pattern.search(joined)
        if match:
            return ContextOverflow(
                _int(match.group(requested)) if requested else None,
                _int(match.group(context)) if context else None,
            )
    return ContextOverflow()
