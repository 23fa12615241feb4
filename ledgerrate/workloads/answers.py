"""Reading a model's answer: the JSON object it was asked for, wherever the model put it.

Models wrap JSON in prose or code fences; the standard grades the answer, not the wrapping, so
every grader reads answers through this one function.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)


class AnswerFormatError(ValueError):
    """No JSON value of the expected kind could be read from the answer."""


def extract_json(text: str, kind: type = dict) -> Any:
    """The first JSON value of `kind` (dict or list) in `text`: whole text, fenced, or embedded."""
    if text is None:
        raise AnswerFormatError("no answer")
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(value, kind):
            return value
    opener = "{" if kind is dict else "["
    decoder = json.JSONDecoder()
    for match in re.finditer(re.escape(opener), text):
        try:
            value, _end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, kind):
            return value
    raise AnswerFormatError(f"no JSON {kind.__name__} found in the answer")
