"""A cell's rows read as columns: what the per-cell figures read instead of a frame per cell.

A cell holds some 15 rows, and the figures read each of about twenty columns once. On a pandas
frame per cell, cutting the frame cost about 0.5 ms and each column read some 50 µs, most of
the figures' time at 215 models. Here a workload's frame is converted once per column
(`Columns`), and a cell's rows are its positions in it (`Rows`): a column of a cell is the list
`frame[column].tolist()` gives for those rows, in their order, the same values of the same types
(a part of a frame keeps the frame's dtypes, so a cut of the whole column equals the column of
the cut).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import pandas as pd


def is_missing(value: object) -> bool:
    """`pd.isna` of one value of these columns: None, or a float NaN (what a left join leaves,
    and what `.tolist()` gives for a missing string). Money is never a Decimal NaN (the reader
    refuses one), so this is pandas' answer without its dispatch on every value."""
    return value is None or (isinstance(value, float) and value != value)


class Columns:
    """A frame's columns as lists, each converted on first use, once."""

    __slots__ = ("_lists", "frame")

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self._lists: dict[str, list[Any]] = {}

    def __getitem__(self, name: str) -> list[Any]:
        found = self._lists.get(name)
        if found is None:
            found = self._lists[name] = self.frame[name].tolist()
        return found

    def __contains__(self, name: object) -> bool:
        return name in self.frame.columns

    def groups(self, by: Sequence[str]) -> dict[tuple[Hashable, ...], list[int]]:
        """The positions of each value of the columns `by`, in the order of the frame (the rows
        each part of `frame.groupby(by, sort=False)` holds)."""
        found: dict[tuple[Hashable, ...], list[int]] = {}
        for position, key in enumerate(zip(*(self[c] for c in by), strict=True)):
            found.setdefault(key, []).append(position)
        return found


class Rows:
    """Some rows of a frame (all of them, or those at `positions`), read as columns."""

    __slots__ = ("_cut", "columns", "positions")

    def __init__(self, columns: Columns, positions: Sequence[int] | None = None) -> None:
        self.columns = columns
        self.positions = positions
        self._cut: dict[str, list[Any]] = {}

    @classmethod
    def of(cls, frame: pd.DataFrame) -> Rows:
        return cls(Columns(frame))

    def __len__(self) -> int:
        return len(self.columns.frame) if self.positions is None else len(self.positions)

    @property
    def empty(self) -> bool:
        return len(self) == 0

    def __contains__(self, name: object) -> bool:
        return name in self.columns

    def __getitem__(self, name: str) -> list[Any]:
        whole = self.columns[name]
        if self.positions is None:
            return whole
        found = self._cut.get(name)
        if found is None:
            found = self._cut[name] = [whole[i] for i in self.positions]
        return found

    def frame(self) -> pd.DataFrame:
        """These rows as a frame (the routing's paired bootstrap reads one)."""
        whole = self.columns.frame
        return whole if self.positions is None else whole.iloc[list(self.positions)]

    def where(self, keep: Iterable[bool]) -> Rows:
        """The rows for which `keep` is true, in order."""
        mine = range(len(self)) if self.positions is None else self.positions
        return Rows(self.columns, [p for p, k in zip(mine, keep, strict=True) if k])
