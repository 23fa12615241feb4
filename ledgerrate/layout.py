"""Where an edition's files live (ARCHITECTURE.md §4). Paths only: no I/O here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PRIVATE_ROOT_ENV = "LEDGERRATE_PRIVATE_DIR"


@dataclass(frozen=True)
class EditionPaths:
    root: Path

    @property
    def id(self) -> str:
        return self.root.name

    @property
    def manifest(self) -> Path:
        return self.root / "edition.yaml"

    @property
    def pricing(self) -> Path:
        return self.root / "pricing.yaml"

    @property
    def registration(self) -> Path:
        return self.root / "registration.json"

    @property
    def seeds(self) -> Path:
        """Released seeds (published); absent while withheld."""
        return self.root / "seeds.json"

    @property
    def seed_escrow(self) -> Path:
        """The private seeds encrypted to the operators' keys at registration (committed)."""
        return self.root / "seeds.escrow.age"

    @property
    def seeds_lost(self) -> Path:
        """The sealed statement that the seeds can no longer be opened; absent unless lost."""
        return self.root / "seeds-lost.json"

    @property
    def seed_recipients(self) -> Path:
        """Optional age recipients file (public keys) the edition's seeds are escrowed to."""
        return self.root / "seed-recipients.txt"

    @property
    def errata(self) -> Path:
        return self.root / "errata.yaml"

    @property
    def published(self) -> Path:
        return self.root / "published.json"

    def card(self, workload: str) -> Path:
        return self.root / "datasets" / workload / "card.json"

    def runs(self, workload: str, model: str, mode: str) -> Path:
        return self.root / "runs" / workload / model / f"{mode}.jsonl"

    def grades(self, workload: str, model: str, mode: str) -> Path:
        return self.root / "grades" / workload / model / f"{mode}.jsonl"

    def spotcheck(self, workload: str) -> Path:
        return self.root / "spotchecks" / f"{workload}.csv"

    def spotcheck_sample(self, workload: str) -> Path:
        return self.root / "spotchecks" / f"{workload}.sample.json"

    def probes(self, model: str) -> Path:
        """Tool probes of a model (infrastructure spend, outside every cell)."""
        return self.root / "probes" / f"{model}.jsonl"

    def reproductions(self, workload: str, model: str, mode: str) -> Path:
        return self.root / "reproductions" / workload / model / f"{mode}.jsonl"

    @property
    def private_seeds(self) -> Path:
        """Seeds of an unreleased edition: outside the published tree, gitignored."""
        import os

        base = os.environ.get(PRIVATE_ROOT_ENV)
        root = Path(base) if base else self.root.parent.parent / "private"
        return root / self.id / "seeds.json"
