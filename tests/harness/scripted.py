"""Scripted answers and usage for the Inspect round trip: the same replies whichever harness asks.

The fake OpenAI-compatible server (`ledgerrate.testing`) answers both `ledgerrate run` and
`inspect eval --model openai-api/fake/...` through `responder`: it finds the item by the prompt
it was sent and answers with the workload's reference solution (a wrong answer for every third
item), after one tool call in agentic mode. Usage differs per step and per item, so a cost that
matched by accident is unlikely.
"""

from __future__ import annotations

from typing import Any

from ledgerrate.schema import Usage
from ledgerrate.testing.fake_shapes import FakeReply, FakeToolCall
from ledgerrate.workloads.base import Dataset, Workload


def usage_for(index: int, step: int) -> Usage:
    return Usage(
        input_tokens=1000 + 37 * index + 500 * step,
        cached_input_tokens=100 * step,
        output_tokens=60 + 11 * index,
    )


class Script:
    """Prompt text → (item index, reference answer), for the datasets of one edition."""

    def __init__(self, pairs: list[tuple[Workload, Dataset]]) -> None:
        self.answers: dict[str, tuple[int, str]] = {}
        for workload, dataset in pairs:
            assert workload.baseline is not None
            for index, item in enumerate(dataset.items):
                user = workload.prompt(item).user
                # Every third item gets a wrong answer, so a cell is neither all pass nor all fail.
                text = workload.baseline(item, dataset).text if index % 3 != 1 else "no idea"
                self.answers[user] = (index, text)

    def responder(self, family: str, body: dict[str, Any]) -> FakeReply | None:
        messages = body.get("messages") or []
        users = [m.get("content") for m in messages if m.get("role") == "user"]
        text = users[0] if users else None
        if isinstance(text, list):  # content parts
            text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
        if text not in self.answers:
            return None  # the tools probe and anything else: the fake's own default
        index, answer = self.answers[text]
        tools = body.get("tools") or []
        answered = any(m.get("role") == "tool" for m in messages)
        if tools and not answered:
            name = tools[0]["function"]["name"]
            return FakeReply(
                text="",
                tool_calls=[FakeToolCall(name=name, arguments={})],
                usage=usage_for(index, 0),
            )
        return FakeReply(text=answer, usage=usage_for(index, 1 if tools else 0))
