"""`ledgerrate new`: write a complete, valid edition folder for the models named.

Every current v1 workload at n = 15, the 72-hour window from the given opening, each model's
family, base URL, key variable and sampling (`generate/vendors.py`), the seed escrow's
recipients from LEDGERRATE_ESCROW_RECIPIENTS, and `pricing.yaml` pre-filled from the price
database (`generate/price_database.py`) with every entry marked unconfirmed: a database's
figure is a discovery input, and `register` refuses the edition until someone has read each
vendor's page (`ledgerrate prices confirm`). What is written is loaded back through the schema
before the command reports success, so `new` never leaves a folder `register` cannot read.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ledgerrate.core.edition import load_edition
from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.io import atomic_write_text, write_yaml
from ledgerrate.core.layout import EditionPaths
from ledgerrate.generate import price_database as db
from ledgerrate.generate.escrow import RECIPIENTS_ENV, _env_recipients
from ledgerrate.generate.vendors import VENDORS, sampling_for
from ledgerrate.schema import STANDARD_N, ModelPrice, PricingTable

WINDOW = dt.timedelta(hours=72)
METHODOLOGY = "1.0"
SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


@dataclass(frozen=True)
class Wanted:
    """One `--model`/`--flagship`/`--judge` argument: `<family>/<api model>`."""

    family: str
    api_model: str
    flagship: bool = False

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9._-]+", "-", self.api_model.lower()).strip("-._")
        return slug[:80] or "model"


def parse_model(text: str, option: str) -> Wanted:
    family, _, api_model = text.partition("/")
    if not api_model.strip() or family not in VENDORS:
        known = ", ".join(VENDORS)
        raise UsageProblem(
            f"{option} {text!r}: give <family>/<api model>, e.g. openai/gpt-4o-mini; the "
            f"families are {known}"
        )
    return Wanted(family, api_model.strip())


def current_workloads() -> list[str]:
    """The newest version of each workload of methodology 1 (the catalogue's ids)."""
    from ledgerrate import workloads

    newest: dict[str, tuple[int, str]] = {}
    for workload in workloads.registry().values():
        name = workload.id.rsplit(".v", 1)[0]
        if workload.version > newest.get(name, (0, ""))[0]:
            newest[name] = (workload.version, workload.id)
    return [workload_id for _, workload_id in newest.values()]


@dataclass
class Plan:
    """What `new` decided, for the summary it prints."""

    root: Path
    model_ids: list[str] = field(default_factory=list)
    judge_ids: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    key_envs: list[str] = field(default_factory=list)
    recipients: int = 0


def _spec(wanted: Wanted, base_urls: Mapping[str, str]) -> dict[str, Any]:
    vendor = VENDORS[wanted.family]
    sampling, note = sampling_for(wanted.family, wanted.api_model)
    spec: dict[str, Any] = {
        "id": wanted.id,
        "name": wanted.api_model,
        "provider": wanted.family,
        "family": vendor.family,
        "api_model": wanted.api_model,
        "base_url": base_urls.get(wanted.family, vendor.base_url),
        "api_key_env": vendor.key_env,
        "sampling": sampling,
    }
    if note:
        spec["sampling_notes"] = note
    if wanted.flagship:
        spec["flagship"] = True
    return spec


def _price(wanted: Wanted, opens: dt.datetime) -> tuple[ModelPrice, bool]:
    """A draft entry from the database; (entry, whether the database knows the model)."""
    provider = VENDORS[wanted.family].price_provider
    found = db.lookup(provider, wanted.api_model, opens)
    source = db.entry(found, opens)
    known_as = f"{db.NAME} {source.version}"
    confirm = (
        "read the vendor's page and run `ledgerrate prices confirm` (or set retrieved_at and "
        "remove this line)"
    )
    if found.model is None:
        return ModelPrice(
            source_url=found.cites or "",
            unconfirmed=f"{known_as} does not know {wanted.api_model!r} (provider "
            f"{provider!r}): no price is pre-filled. Read the vendor's page and run "
            "`ledgerrate prices confirm` with --input-per-mtok and --output-per-mtok (and any "
            "other class the vendor prices).",
            database=source,
        ), False
    rates = {cls: rate.per_mtok for cls, rate in found.rates.items()}
    tiers = [
        f"{cls} costs ${t.per_mtok.normalize():f} above {t.above_input_tokens:,} input tokens"
        for cls, rate in found.rates.items()
        for t in rate.tiers
    ]
    caveat = (
        f" The database also lists tiers ({'; '.join(tiers)}); LedgerRate freezes one rate per "
        "class, the base rate here."
        if tiers
        else ""
    )
    return ModelPrice(
        input_per_mtok=rates.get("input"),
        cached_input_per_mtok=rates.get("cached_input"),
        cache_write_per_mtok=rates.get("cache_write"),
        output_per_mtok=rates.get("output"),
        reasoning_per_mtok=rates.get("reasoning"),
        source_url=found.cites or "",
        unconfirmed=f"Pre-filled from {known_as} for {source.for_date} (its model "
        f"{found.model!r}); nobody has checked it against the vendor's page yet: {confirm}."
        f"{caveat}",
        database=source,
    ), True


def _check_target(root: Path) -> None:
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UsageProblem(
            f"{root}: not an empty folder; `ledgerrate new` writes a new edition only into a "
            "new or empty folder (choose another path)"
        )
    if not SLUG.match(root.name):
        raise UsageProblem(
            f"{root}: the folder name is the edition id and must be a slug (letters, digits, "
            "`.`, `_`, `-`), e.g. editions/2027-01"
        )


def _everyone(
    models: Sequence[Wanted], flagships: Sequence[Wanted], judges: Sequence[Wanted]
) -> tuple[list[Wanted], list[Wanted], list[str]]:
    """Evaluated models (flagships marked), judges not evaluated, and the judges' ids."""
    evaluated: dict[tuple[str, str], Wanted] = {}
    for wanted in [*models, *(Wanted(f.family, f.api_model, True) for f in flagships)]:
        key = (wanted.family, wanted.api_model)
        previous = evaluated.get(key)
        evaluated[key] = Wanted(
            wanted.family, wanted.api_model, wanted.flagship or bool(previous and previous.flagship)
        )
    others = [j for j in judges if (j.family, j.api_model) not in evaluated]
    everyone = [*evaluated.values(), *others]
    ids = [w.id for w in everyone]
    clashes = sorted({i for i in ids if ids.count(i) > 1})
    if clashes:
        raise UsageProblem(
            f"--model: two models would share the id {clashes[0]!r}; an edition names each "
            "model once (drop the duplicate)"
        )
    return list(evaluated.values()), others, [j.id for j in judges]


def new_edition(
    root: Path,
    *,
    models: Sequence[Wanted],
    opens: dt.datetime,
    flagships: Sequence[Wanted] = (),
    judges: Sequence[Wanted] = (),
    base_urls: Mapping[str, str] | None = None,
    n: int = STANDARD_N,
    n_reason: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Plan:
    """Write edition.yaml, pricing.yaml and seed-recipients.txt into an empty `root`."""
    _check_target(root)
    if not models and not flagships:
        raise UsageProblem("--model: name at least one model to evaluate, e.g. openai/gpt-4o-mini")
    if opens.tzinfo is None:
        raise UsageProblem("--opens-at: give a time with its zone, e.g. 2027-01-05T09:00:00Z")
    if n != STANDARD_N and not (n_reason or "").strip():
        raise UsageProblem(
            f"--n {n}: differs from the standard's {STANDARD_N}; say why with --n-reason"
        )
    if len(judges) > 2:
        raise UsageProblem("--judge: give one judge, and at most one second judge")
    unknown_families = sorted(set(base_urls or {}) - set(VENDORS))
    if unknown_families:
        raise UsageProblem(
            f"--base-url {unknown_families[0]}=…: not a family; use one of {', '.join(VENDORS)}"
        )
    from ledgerrate import workloads

    workload_ids = current_workloads()
    judged = [w for w in workload_ids if workloads.get(w).judged]
    if judged and not judges:
        raise UsageProblem(
            f"--judge: the v1 workloads include judged ones ({', '.join(judged)}); name the "
            "judge with --judge <family>/<api model> (it may be one of the --model models)"
        )
    env = os.environ if environ is None else environ
    recipients = _env_recipients(env.get(RECIPIENTS_ENV, ""))
    evaluated, judge_only, judge_ids = _everyone(models, flagships, judges)
    urls = dict(base_urls or {})
    opens = opens.astimezone(dt.UTC)

    manifest: dict[str, Any] = {
        "schema_version": 1,
        "id": root.name,
        "date": opens.date().isoformat(),
        "title": f"Edition {root.name}",
        "methodology_version": METHODOLOGY,
        "brand": "LedgerRate",
        "window": {"opens": _stamp(opens), "closes": _stamp(opens + WINDOW)},
        "workloads": [
            {"id": w, "n": n, **({"n_reason": n_reason} if n != STANDARD_N else {})}
            for w in workload_ids
        ],
        "models": [_spec(w, urls) for w in evaluated],
        "judges": [_spec(w, urls) for w in judge_only],
        "judge": {
            "model": judge_ids[0],
            **({"second_model": judge_ids[1]} if len(judge_ids) > 1 else {}),
        },
        "notes": [],
    }
    plan = Plan(root=root, model_ids=[w.id for w in evaluated], judge_ids=judge_ids)
    prices: dict[str, ModelPrice] = {}
    for wanted in [*evaluated, *judge_only]:
        prices[wanted.id], known = _price(wanted, opens)
        if not known:
            plan.unknown.append(wanted.id)
        env_name = VENDORS[wanted.family].key_env
        if env_name not in plan.key_envs:
            plan.key_envs.append(env_name)
    pricing = PricingTable(frozen_at=opens, models=prices)

    paths = EditionPaths(root)
    root.mkdir(parents=True, exist_ok=True)
    write_yaml(paths.manifest, manifest)
    write_yaml(paths.pricing, pricing)
    if recipients:
        atomic_write_text(
            paths.seed_recipients,
            f"# Operators' age public keys the private seeds are escrowed to (from "
            f"{RECIPIENTS_ENV} when `ledgerrate new` ran).\n" + "\n".join(recipients) + "\n",
        )
    plan.recipients = len(recipients)
    load_edition(root)  # what was written must be what `register` reads
    return plan


def _stamp(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def next_steps(plan: Plan, opens: dt.datetime) -> list[str]:
    """What the operator does next, in order."""
    root = plan.root
    closes = opens + WINDOW
    steps = [
        f"Read {root}/edition.yaml: check each model's name, base_url, api_key_env and "
        "sampling, and give the edition a title.",
    ]
    for model_id in [*plan.model_ids, *(j for j in plan.judge_ids if j not in plan.model_ids)]:
        extra = " --input-per-mtok … --output-per-mtok …" if model_id in plan.unknown else ""
        steps.append(
            f"Read {model_id}'s price on the vendor's page, then: ledgerrate prices confirm "
            f"{root} {model_id} --source-url URL --retrieved-at TIME{extra} (before "
            f"{_stamp(opens)}; pass any class the page shows differently)."
        )
    if plan.recipients:
        steps.append(
            f"Keep the age identity of the {plan.recipients} recipient(s) in "
            f"{root}/seed-recipients.txt safe: it opens the escrowed seeds."
        )
    else:
        steps.append(
            f"Add an operator's age public key to {root}/seed-recipients.txt (or set "
            f'{RECIPIENTS_ENV}), or register with --seeds-kept-elsewhere "…".'
        )
    steps += [
        f"Export the keys: {', '.join(plan.key_envs)}.",
        f"ledgerrate register {root}",
        f"ledgerrate run {root}   (inside the window: {_stamp(opens)} to {_stamp(closes)})",
        f"ledgerrate grade {root}",
        f"ledgerrate build --editions {root.parent} --out build",
        f"ledgerrate verify {root}",
    ]
    return [f"{i}. {step}" for i, step in enumerate(steps, start=1)]
