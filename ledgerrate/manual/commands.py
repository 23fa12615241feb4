"""The `ledgerrate manual …` commands, registered on the app by `cli.py` (kept here so the
manual arm's commands live with the stage and cli.py only names them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

EditionDir = Annotated[Path, typer.Argument(help="An edition folder, e.g. editions/2026-12.")]


def register(app: typer.Typer, friendly: Callable[[Any], Any]) -> None:
    manual_app = typer.Typer(
        help="The manual (by-hand) arm: work packets for an analyst, and their import.",
        no_args_is_help=True,
    )
    app.add_typer(manual_app, name="manual")

    @manual_app.command("packet")
    @friendly
    def packet(
        edition: EditionDir,
        workload: Annotated[str, typer.Argument(help="A workload id of the edition.")],
        out: Annotated[Path, typer.Option("--out", help="A new or empty folder.")],
    ) -> None:
        """Write what a model is shown for each item, blank answers and timing.yaml."""
        from ledgerrate.manual.packet import write_packet

        made = write_packet(edition, workload, out)
        typer.echo(
            f"{made.workload}: packet of {made.items} items in {made.out} "
            f"(packet.json sha256 {made.digest[:12]}…); hand it to the analyst"
        )

    @manual_app.command("import")
    @friendly
    def import_(
        edition: EditionDir,
        folder: Annotated[Path, typer.Argument(help="The packet folder the analyst returned.")],
    ) -> None:
        """Check and record an analyst's returned packet as a new sitting (ungraded)."""
        from ledgerrate.manual.importer import import_manual

        for line in import_manual(edition, folder).lines():
            typer.echo(line)
