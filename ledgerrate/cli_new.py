"""The commands that start an edition: `ledgerrate new` and `ledgerrate prices confirm`.

Plain functions with typer annotations; `cli.py` registers them (and wraps them so that a
user-fixable problem prints as one line), keeping this file the only one these commands touch.
"""

from __future__ import annotations

import datetime as dt
import getpass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated

import typer

from ledgerrate.core.errors import UsageProblem


def _when(text: str, option: str) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageProblem(
            f"{option} {text!r}: not an ISO time; give e.g. 2027-01-05T09:00:00Z"
        ) from None
    if moment.tzinfo is None:
        raise UsageProblem(f"{option} {text!r}: give the time with its zone, e.g. …T09:00:00Z")
    return moment


def _usd(text: str | None, option: str) -> Decimal | None:
    if text is None:
        return None
    try:
        value = Decimal(text.strip().lstrip("$"))
    except InvalidOperation:
        value = Decimal(-1)
    if not value.is_finite() or value < 0:
        raise UsageProblem(f"{option} {text!r}: give dollars per 1M tokens, e.g. 2.50")
    return value


def new(
    edition: Annotated[
        Path, typer.Argument(help="A new, empty edition folder, e.g. editions/2027-01.")
    ],
    model: Annotated[
        list[str],
        typer.Option("--model", help="<family>/<api model> to evaluate (repeat for each)."),
    ],
    opens_at: Annotated[
        str, typer.Option(help="When the 72-hour window opens (ISO time with zone).")
    ],
    flagship: Annotated[
        list[str] | None,
        typer.Option("--flagship", help="<family>/<api model>: a vendor's flagship (evaluated)."),
    ] = None,
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="<family>/<api model> judging the judged workloads; a second --judge is the "
            "second judge of the sensitivity sample.",
        ),
    ] = None,
    base_url: Annotated[
        list[str] | None,
        typer.Option(
            "--base-url",
            help="FAMILY=URL: reach a family somewhere else than its vendor (a gateway).",
        ),
    ] = None,
    # No default here: it is the schema's STANDARD_N, and importing the schema at start-up was
    # half of every command's start (a no-change `build` among them).
    n: Annotated[
        int | None, typer.Option(help="Items per cell (default: the standard's 15).")
    ] = None,
    n_reason: Annotated[
        str | None, typer.Option(help="Why n differs from 15 (required when it does).")
    ] = None,
) -> None:
    """Write a complete edition (edition.yaml, pricing.yaml from the price database, seed
    recipients) and print what to do next."""
    from ledgerrate.generate.new_edition import new_edition, next_steps, parse_model
    from ledgerrate.schema import STANDARD_N

    urls: dict[str, str] = {}
    for item in base_url or []:
        family, sep, url = item.partition("=")
        if not sep or not url.startswith(("http://", "https://")):
            raise UsageProblem(f"--base-url {item!r}: give FAMILY=URL, e.g. openai=http://…/v1")
        urls[family] = url
    opens = _when(opens_at, "--opens-at")
    plan = new_edition(
        edition,
        models=[parse_model(m, "--model") for m in model],
        flagships=[parse_model(m, "--flagship") for m in flagship or []],
        judges=[parse_model(m, "--judge") for m in judge or []],
        opens=opens,
        base_urls=urls,
        n=STANDARD_N if n is None else n,
        n_reason=n_reason,
    )
    typer.echo(
        f"wrote {edition}: {len(plan.model_ids)} model(s), prices pre-filled from the price "
        "database and marked unconfirmed"
        + (f" ({', '.join(plan.unknown)} unknown to it)" if plan.unknown else "")
    )
    typer.echo("next:")
    for line in next_steps(plan, opens.astimezone(dt.UTC)):
        typer.echo(f"  {line}")


def confirm(
    edition: Annotated[Path, typer.Argument(help="The edition folder.")],
    model: Annotated[str, typer.Argument(help="The model id in pricing.yaml.")],
    source_url: Annotated[str, typer.Option(help="The official price page you read.")],
    retrieved_at: Annotated[str, typer.Option(help="When you read it (ISO time with zone).")],
    by: Annotated[
        str | None, typer.Option(help="Who read it (default: this machine's user name).")
    ] = None,
    input_per_mtok: Annotated[str | None, typer.Option(help="$ per 1M input tokens.")] = None,
    cached_input_per_mtok: Annotated[
        str | None, typer.Option(help="$ per 1M cache-read tokens.")
    ] = None,
    cache_write_per_mtok: Annotated[
        str | None, typer.Option(help="$ per 1M cache-write tokens.")
    ] = None,
    output_per_mtok: Annotated[str | None, typer.Option(help="$ per 1M output tokens.")] = None,
    reasoning_per_mtok: Annotated[
        str | None, typer.Option(help="$ per 1M reasoning tokens, if priced apart.")
    ] = None,
) -> None:
    """Confirm a model's price against its official page (who read it, when, what it says)."""
    from ledgerrate.generate.confirm_prices import confirm_price

    given = {
        "input_per_mtok": input_per_mtok,
        "cached_input_per_mtok": cached_input_per_mtok,
        "cache_write_per_mtok": cache_write_per_mtok,
        "output_per_mtok": output_per_mtok,
        "reasoning_per_mtok": reasoning_per_mtok,
    }
    prices = {k: _usd(v, f"--{k.replace('_', '-')}") for k, v in given.items()}
    confirmed = confirm_price(
        edition,
        model,
        source_url=source_url,
        retrieved_at=_when(retrieved_at, "--retrieved-at"),
        by=by if by is not None else getpass.getuser(),
        prices=prices,
    )
    typer.echo(
        f"confirmed {model}: input ${confirmed.input_per_mtok}, output "
        f"${confirmed.output_per_mtok} per 1M tokens, read by {confirmed.retrieved_by} at "
        f"{confirmed.retrieved_at.isoformat() if confirmed.retrieved_at else '?'}"
    )
