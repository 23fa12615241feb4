"""A throwaway workload for runner tests: add two numbers, with an `add` tool for agentic mode.

It lives in the tests so the runner is tested against the Workload interface alone, not against
any real workload's details.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ledgerrate.workloads.base import (
    Answer,
    Dataset,
    Grade,
    Item,
    Prompt,
    ToolError,
    ToolSpec,
    Workload,
    check,
)

TEMPLATE = "Add {a} and {b}. Reply with the number only."


def generate(rng: random.Random, n: int) -> Dataset:
    items = tuple(
        Item(
            id=f"item-{i:02d}",
            input={"a": rng.randint(1, 999), "b": rng.randint(1, 999)},
            truth={},
            strata=("odd",) if i % 2 else ("even",),
        )
        for i in range(n)
    )
    return Dataset(workload="toy.add.v1", items=items)


def prompt(item: Item) -> Prompt:
    return Prompt(system="You add numbers.", user=TEMPLATE.format(**item.input))


def grade(item: Item, answer: Answer) -> Grade:  # required by Workload; the runner never calls it
    return Grade(checks=(check("sum", answer.text.strip() == str(sum(item.input.values()))),))


class AddTools:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.used: list[str] = []
        self.closed = False

        def add(args: dict[str, Any]) -> str:
            self.used.append("add")
            return str(int(args["a"]) + int(args["b"]))

        def refuse(_args: dict[str, Any]) -> str:
            raise ToolError("refused: not allowed")

        def boom(_args: dict[str, Any]) -> str:
            raise RuntimeError("tool exploded")

        obj: dict[str, Any] = {"type": "object", "properties": {}}
        self.tools = [
            ToolSpec("add", "Add a and b.", obj, add),
            ToolSpec("refuse", "Always refuses.", obj, refuse),
            ToolSpec("boom", "Always crashes.", obj, boom),
        ]

    def state(self) -> dict[str, Any] | None:
        return {"used": list(self.used), "workdir_existed": self.workdir.is_dir()}

    def close(self) -> None:
        self.closed = True


def tools(item: Item, dataset: Dataset, workdir: Any) -> AddTools:
    return AddTools(Path(workdir))


def baseline(item: Item, dataset: Dataset) -> Answer:
    total = 0
    for _ in range(20_000):  # some real CPU work, so the measured time is not zero
        total = item.input["a"] + item.input["b"]
    return Answer(text=str(total))


def make(
    workload_id: str = "toy.add.v1",
    modes: tuple[str, ...] = ("single-shot", "agentic"),
    with_baseline: bool = True,
) -> Workload:
    def gen(rng: random.Random, n: int) -> Dataset:
        data = generate(rng, n)
        return Dataset(workload=workload_id, items=data.items)

    return Workload(
        id=workload_id,
        primitive="execute",
        function="finance-ops",
        version=1,
        title="Toy add",
        summary="Adds two numbers.",
        modes=modes,
        unit="Add 1,000 pairs",
        volume=1000,
        prompt_template=TEMPLATE,
        output_schema={"type": "string"},
        generate=gen,
        prompt=prompt,
        grade=grade,
        tools=tools,
        baseline=baseline if with_baseline else None,
        generator_sources=(generate,),
    )


TOY = make()
TOY_SINGLE = make("toy.mul.v1", modes=("single-shot",), with_baseline=False)
TOY_SUB = make("toy.sub.v1")
REGISTRY = {w.id: w for w in (TOY, TOY_SINGLE, TOY_SUB)}


def lookup(workload_id: str) -> Workload:
    if workload_id not in REGISTRY:
        raise KeyError(f"unknown workload {workload_id!r}")
    return REGISTRY[workload_id]
