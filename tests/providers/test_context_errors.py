"""Context overflows in each server's documented shape, through the real adapters and a real
HTTP server on 127.0.0.1: each is a model failure (`ContextExceeded`) with the sizes it gave,
never a configuration error that stops the run."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from ledgerrate.providers.base import Completion, ContextExceeded, ModelError
from ledgerrate.providers.wire import ConfigError
from ledgerrate.testing.fake_shapes import FakeReply

LLAMA_CPP_PYTHON = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens. However, you requested "
        "25264 tokens (24752 in the messages, 512 in the completion). Please reduce the length "
        "of the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
CASES: list[tuple[str, str, int, Any, int | None, int | None]] = [
    (
        "openai",
        "openai",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 128000 tokens. However, your "
                "messages resulted in 130412 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        130412,
        128000,
    ),
    ("llama-cpp-python", "openai", 400, LLAMA_CPP_PYTHON, 25264, 8192),
    (
        "llama.cpp llama-server",
        "openai",
        400,
        {
            "error": {
                "code": 400,
                "message": "request (4476 tokens) exceeds the available context size (4096 "
                "tokens), try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 4476,
                "n_ctx": 4096,
            }
        },
        4476,
        4096,
    ),
    (
        "vLLM",
        "openai",
        400,
        {
            "object": "error",
            "message": "This model's maximum context length is 2048 tokens. However, you "
            "requested 2100 tokens (100 in the messages, 2000 in the completion). Please reduce "
            "the length of the messages or completion.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
        2100,
        2048,
    ),
    (
        "vLLM, nested",
        "openai",
        400,
        {
            "error": {
                "message": "This model's maximum context length is 4096 tokens. However, your "
                "request has 5000 input tokens. Please reduce the length of the input messages.",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            }
        },
        5000,
        4096,
    ),
    (
        "anthropic, prompt",
        "anthropic",
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: 208310 tokens > 200000 maximum",
            },
        },
        208310,
        200000,
    ),
    (
        "anthropic, prompt and max_tokens",
        "anthropic",
        400,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "input length and `max_tokens` exceed context limit: 197000 + 8192 > "
                "200000, decrease input length or `max_tokens` and try again",
            },
        },
        205192,
        200000,
    ),
    (
        "anthropic, body too large",
        "anthropic",
        413,
        {
            "type": "error",
            "error": {
                "type": "request_too_large",
                "message": "Request exceeds the maximum allowed number of bytes.",
            },
        },
        None,
        None,
    ),
    (
        "openai responses",
        "openai-responses",
        400,
        {
            "error": {
                "message": "Your input exceeds the context window of this model. Please adjust "
                "your input and try again.",
                "type": "invalid_request_error",
                "param": "input",
                "code": "context_length_exceeded",
            }
        },
        None,
        None,
    ),
    (
        "gemini",
        "gemini",
        400,
        {
            "error": {
                "code": 400,
                "message": "The input token count (1048577) exceeds the maximum number of tokens "
                "allowed (1048576).",
                "status": "INVALID_ARGUMENT",
            }
        },
        1048577,
        1048576,
    ),
]


def _call(kit: SimpleNamespace, family: str, status: int, body: Any) -> Any:
    return kit.served(family, FakeReply(status=status, raw=body))


@pytest.mark.parametrize(
    ("server", "family", "status", "body", "requested", "context"),
    CASES,
    ids=[c[0] for c in CASES],
)
def test_context_errors_are_model_failures_with_their_sizes(
    kit: SimpleNamespace,
    server: str,
    family: str,
    status: int,
    body: Any,
    requested: int | None,
    context: int | None,
) -> None:
    err = _call(kit, family, status, body)
    assert isinstance(err, ContextExceeded), (server, err)
    assert isinstance(err, ModelError)  # a model failure: never retried, never a stopped run
    assert (err.requested_tokens, err.context_tokens) == (requested, context)
    assert err.status == status and err.raw == body


@pytest.mark.parametrize(
    ("family", "body"),
    [
        (
            "openai",
            {"error": {"message": "The model `nope` does not exist", "code": "model_not_found"}},
        ),
        (
            "anthropic",
            {"type": "error", "error": {"type": "invalid_request_error", "message": "x"}},
        ),
        ("gemini", {"error": {"code": 400, "message": "API key not valid.", "status": "X"}}),
        (
            "openai-responses",
            {"error": {"message": "Unsupported parameter: 'temperature'", "code": "x"}},
        ),
    ],
)
def test_other_bad_requests_still_stop_the_run(
    kit: SimpleNamespace, family: str, body: Any
) -> None:
    err = _call(kit, family, 400, body)
    assert type(err) is ConfigError


@pytest.mark.parametrize(
    ("family", "finish"),
    [
        ("openai", "length"),
        ("anthropic", "max_tokens"),
        ("gemini", "MAX_TOKENS"),
        ("openai-responses", "max_output_tokens"),
    ],
)
def test_an_answer_cut_at_the_cap_is_flagged_truncated(
    kit: SimpleNamespace, family: str, finish: str
) -> None:
    result = kit.served(family, FakeReply(text="The total is 12", finish_reason=finish))
    assert isinstance(result, Completion)
    assert result.truncated and result.text == "The total is 12"
