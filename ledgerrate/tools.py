"""`ledgerrate.tools` is `ledgerrate.core.tools` (ARCHITECTURE.md §2).

The old name stays only because frozen files import it, and their bytes are hashed into
sealed registrations, so their imports cannot change:

- ledgerrate/workloads/execute_month_end/v2.py
- ledgerrate/workloads/query_nl2sql/v2.py
"""

# core-move shim: re-exports only; new code imports ledgerrate.core.tools.
from ledgerrate.core.tools import ToolSpec

__all__ = ["ToolSpec"]
