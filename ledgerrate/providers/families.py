"""The registry of provider families (ARCHITECTURE.md §3, §10): one `Family` per module.

`FAMILIES` lists the family modules' units explicitly, as `workloads/catalogue.py` lists the
workloads; adding a family is one module and one line here. `register` adds a family at run
time (a test's throwaway family, a plug-in) without touching this file. Every registered name
is also made a valid `provider:` of an edition (`schema.register_provider_family`).

The reference solver is not a family: it calls no API, and each workload carries its own
(`workloads/reference.py` runs it). `schema.register_provider_family` refuses its old spelling
`baseline` as a family name.
"""

from __future__ import annotations

from ledgerrate.providers import anthropic, gemini, openai, openai_responses
from ledgerrate.providers.family import Family
from ledgerrate.schema import register_provider_family, unregister_provider_family

FAMILIES: tuple[Family, ...] = (
    openai.FAMILY,
    anthropic.FAMILY,
    gemini.FAMILY,
    openai_responses.FAMILY,
)

_registry: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add `family`; registering the same unit again is a no-op, another of one name an error."""
    known = _registry.get(family.name)
    if known is not None and known is not family:
        raise ValueError(f"provider family {family.name!r} is already registered")
    register_provider_family(family.name)
    _registry[family.name] = family
    return family


def unregister(name: str) -> None:
    """Forget a family registered at run time (a test's, when it ends); built-in ones stay."""
    if any(f.name == name for f in FAMILIES):
        raise ValueError(f"provider family {name!r} is built in")
    if _registry.pop(name, None) is not None:
        unregister_provider_family(name)


def get(name: str | None) -> Family:
    """The family an edition's `provider:` names; a one-line error names the known ones. The
    reference solver names none (`None`): it has no adapter, and the runner never asks."""
    if name is None:
        raise ValueError("the reference solver calls no API: it has no provider family")
    family = _registry.get(str(name))
    if family is None:
        known = ", ".join(_registry)
        raise ValueError(f"no API adapter for provider family {name!r}; known families: {known}")
    return family


def registered() -> tuple[Family, ...]:
    """Every registered family, the built-in ones first."""
    return tuple(_registry.values())


for _family in FAMILIES:
    register(_family)
