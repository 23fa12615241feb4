"""What a model is given for an item beyond its prompt: the item's files and, for the
workloads that query the finance database, that database as a SQLite file.

The databases are listed by workload version, not found by reaching into a toolset: a new
version that offers `run_sql` must be added here, and `tests/manual/test_packet.py` fails until
it is (a packet without the database would ask the analyst for work the model could query).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from ledgerrate.synth import finance_db
from ledgerrate.workloads.base import Dataset, Item
from ledgerrate.workloads.execute_month_end import v2 as month_end_v2
from ledgerrate.workloads.query_nl2sql import v1_revision1 as nl2sql_v1
from ledgerrate.workloads.query_nl2sql import v2 as nl2sql_v2

DatabaseFor = Callable[[Item, Dataset, Path], Path]


def _month_end_v1(item: Item, dataset: Dataset, scratch: Path) -> Path:
    # v1's toolset builds the shared ledger of the dataset into a fresh SQLite file.
    return finance_db.materialise(dict(dataset.shared), scratch)


DATABASES: dict[str, DatabaseFor] = {
    "query.nl2sql.v1": lambda item, _dataset, _scratch: nl2sql_v1.database_for(item),
    "query.nl2sql.v2": lambda item, _dataset, _scratch: nl2sql_v2.database_for(item),
    "execute.month-end.v1": _month_end_v1,
    "execute.month-end.v2": lambda item, _d, _s: month_end_v2.database_for(item).sqlite_file(),
}


def database_bytes(workload_id: str, item: Item, dataset: Dataset) -> bytes | None:
    """The SQLite file the item's `run_sql` tool queries, or None for a workload without one."""
    make = DATABASES.get(workload_id)
    if make is None:
        return None
    with tempfile.TemporaryDirectory(prefix="ledgerrate-packet-") as scratch:
        return make(item, dataset, Path(scratch)).read_bytes()
