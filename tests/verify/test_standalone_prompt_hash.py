"""The standalone verifier recomputes a run's prompt_hash from the request its log records, in
every wire format a family sends: the recipe reads the system prompt and the first user turn
out of chat completions, Anthropic Messages, Gemini generateContent and Responses bodies alike
(before, only chat completions' `messages` were read, so an Anthropic run was reported as a
mismatch and a Gemini or Responses run as having no request)."""

from __future__ import annotations

import httpx
import pytest

from ledgerrate.providers import make_provider
from ledgerrate.providers.base import CompletionRequest, Message
from ledgerrate.providers.families import registered
from ledgerrate.workloads.base import Prompt
from tests.providers.conftest import spec
from tests.verify import standalone_kit

vs = standalone_kit.load("verify_standalone.py", "verify_standalone_prompt")
PROMPT = Prompt(system="You are an AP clerk.\nAnswer in JSON.", user="Invoice INV-7: total?\n€ 12")


@pytest.mark.parametrize("family", [f.name for f in registered()])
@pytest.mark.parametrize("agentic", [False, True])
def test_prompt_hash_recomputed_from_every_family_request(family: str, agentic: bool) -> None:
    provider = make_provider(spec(family), httpx.AsyncClient(), "test-key-123")
    messages = [Message(role="user", content=PROMPT.user)]
    if agentic:
        # A later step of the loop: the first user turn is still the prompt.
        messages += [
            Message(role="assistant", content="Looking."),
            Message(role="user", content="Continue."),
        ]
    body = provider.request_body(  # type: ignore[attr-defined]
        CompletionRequest(system=PROMPT.system, messages=messages)
    )
    shown = vs.prompt_of(body)
    assert shown == {"system": PROMPT.system, "user": PROMPT.user}
    assert vs.sha256(vs.canonical(shown, 1)) == PROMPT.hash


def test_a_body_without_a_prompt_is_no_request() -> None:
    assert vs.prompt_of({}) is None
    assert vs.prompt_of({"messages": []}) is None
