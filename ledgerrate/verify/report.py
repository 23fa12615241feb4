"""What `verify` found: every mismatch with file, record, field, expected and found, and counts
of what was checked, so that a clean verdict says how much it rests on."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Mismatch:
    file: str
    record: str
    field: str
    expected: str
    found: str

    def line(self) -> str:
        where = f"{self.file} [{self.record}]" if self.record else self.file
        return f"MISMATCH {where} {self.field}: expected {self.expected}, found {self.found}"


@dataclass
class Report:
    mismatches: list[Mismatch] = field(default_factory=list)
    checked: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    void_cells: list[str] = field(default_factory=list)
    # What the edition itself discloses it cannot prove (e.g. lost seeds): not a mismatch, and
    # never counted as a passed check.
    limitations: list[str] = field(default_factory=list)
    # Defects of the sealed files that an erratum discloses (it cannot repair sealed bytes):
    # each named with its erratum; not a mismatch, and never counted as a passed check.
    exceptions: list[str] = field(default_factory=list)

    def expect(
        self,
        category: str,
        ok: bool,
        *,
        file: str,
        record: str = "",
        field: str = "",
        expected: object = "",
        found: object = "",
    ) -> bool:
        """Count one check; record a mismatch when it fails."""
        self.checked[category] += 1
        if not ok:
            self.mismatches.append(Mismatch(file, record, field, _short(expected), _short(found)))
        return ok

    def fail(
        self,
        category: str,
        *,
        file: str,
        record: str = "",
        field: str = "",
        expected: object = "",
        found: object = "",
    ) -> None:
        self.expect(
            category, False, file=file, record=record, field=field, expected=expected, found=found
        )

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def lines(self) -> list[str]:
        out = [m.line() for m in self.mismatches]
        out += [f"note: {n}" for n in self.notes]
        out += [f"void cell: {v}" for v in self.void_cells]
        out += [f"disclosed limitation: {v}" for v in self.limitations]
        out += [f"disclosed exception: {v}" for v in self.exceptions]
        counts = ", ".join(f"{n} {name}" for name, n in sorted(self.checked.items()))
        verdict = "VERIFIED" if self.ok else f"FAILED with {len(self.mismatches)} mismatch(es)"
        tail = f"; {len(self.limitations)} disclosed limitation(s)" if self.limitations else ""
        if self.exceptions:
            tail += f"; {len(self.exceptions)} disclosed exception(s)"
        out.append(
            f"{verdict}: checked {counts or 'nothing'}; {len(self.void_cells)} void cell(s){tail}"
        )
        return out


def _short(value: object, limit: int = 160) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
