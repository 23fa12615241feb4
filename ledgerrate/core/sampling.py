"""Whether a request was sent with the edition's sampling settings and output cap.

`run` builds every request from the model's `edition.yaml` entry, so its settings cannot drift;
a run made by another harness (`inspect eval … --temperature 0.9`) can. `ingest` holds each call
of such a run to the edition's settings and `verify` holds every stored request body to them, so
a record whose settings differ is refused, and one edited afterwards fails verification.

Settings are compared in one vocabulary, whichever family's body or harness config they come
from: the OpenAI body's names, with the other spellings mapped onto them (`max_completion_tokens`
and Gemini's `maxOutputTokens` are the output cap `max_tokens`; Inspect's `stop_seqs` is `stop`).
A setting absent and one set to null are the same, and a tool choice of `auto` is the APIs'
default whenever tools are sent, so it equals no tool choice at all. A record `run` stored in its
family-neutral form (`sampling`, `max_output_tokens`) is read in that form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ledgerrate.schema import ModelSpec

# The settings that change what a model is asked to do, compared whatever the edition sets.
SETTINGS = (
    "temperature",
    "top_p",
    "top_k",
    "seed",
    "max_tokens",
    "presence_penalty",
    "frequency_penalty",
    "stop",
    "reasoning_effort",
    "reasoning_tokens",
    "reasoning_summary",
    "reasoning",
    "thinking",
    "tool_choice",
)
ALIASES = {
    "max_completion_tokens": "max_tokens",
    "maxOutputTokens": "max_tokens",
    "stop_seqs": "stop",
    "stopSequences": "stop",
    "topP": "top_p",
    "topK": "top_k",
    "presencePenalty": "presence_penalty",
    "frequencyPenalty": "frequency_penalty",
    "thinkingConfig": "thinking",
    "toolConfig": "tool_choice",
}
# Gemini nests its settings one level down.
NESTED = "generationConfig"
# Each family's documented default, which the adapters send whenever they send tools (OpenAI's
# and the Responses API's, Anthropic's, Gemini's): not a setting of the edition's.
DEFAULT_TOOL_CHOICES = ("auto", {"type": "auto"}, {"functionCallingConfig": {"mode": "AUTO"}})


@dataclass(frozen=True)
class Difference:
    setting: str
    sent: Any  # None: not sent
    edition: Any  # None: the edition leaves it unset


def settings(body: Mapping[str, Any]) -> dict[str, Any]:
    """The sampling settings a request body (or a harness's generate config) carries."""
    if isinstance(body.get("sampling"), Mapping) and "max_output_tokens" in body:
        # `run`'s family-neutral form, kept when no wire body was built (an unfinished call).
        body = {"max_tokens": body["max_output_tokens"], **body["sampling"]}
    elif body.get("provider") == "inspect_ai" and isinstance(body.get("config"), Mapping):
        # An Inspect sample whose log kept no provider body: its generate config.
        body = body["config"]
    flat: dict[str, Any] = {}
    nested = body.get(NESTED)
    for source in (body, nested if isinstance(nested, Mapping) else {}):
        for key, value in source.items():
            name = ALIASES.get(key, key)
            if value is None or key == NESTED:
                continue
            if name == "tool_choice" and value in DEFAULT_TOOL_CHOICES:
                continue
            flat[name] = value
    return flat


def edition_settings(spec: ModelSpec) -> dict[str, Any]:
    """What `run` sends for `spec`: its output cap, then its sampling settings on top."""
    return settings({"max_tokens": spec.max_output_tokens, **spec.sampling})


def differences(spec: ModelSpec, body: Mapping[str, Any]) -> list[Difference]:
    """Every setting in which `body` departs from the edition's, in a stable order."""
    expected = edition_settings(spec)
    sent = settings(body)
    names = [*SETTINGS, *sorted(set(expected) - set(SETTINGS))]
    return [
        Difference(name, sent.get(name), expected.get(name))
        for name in names
        if not _same(sent.get(name), expected.get(name))
    ]


def _same(sent: Any, expected: Any) -> bool:
    # 0 and 0.0 are the same temperature; True is not the same as 1.
    if isinstance(sent, bool) or isinstance(expected, bool):
        return sent is expected
    return bool(sent == expected)
