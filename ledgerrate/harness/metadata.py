"""What a harness sample carries so `ledgerrate ingest` can bring its run back.

Plain names and data only (no harness import): the tasks write it, the ingester reads it.
"""

from __future__ import annotations

# Key of the sample metadata block; its fields are those of `SampleKey` below.
METADATA_KEY = "ledgerrate"
# Keys of the sample store the agentic solver fills in.
TOOL_STATE_KEY = "ledgerrate:tool_state"
STEP_CAP_KEY = "ledgerrate:step_cap"
# Key of the metadata block a LedgerRate export adds: the run record's own status and failure
# text (and its run id, attempt, costs), beside what Inspect's fields show of them.
RUN_KEY = "ledgerrate_run"
# The fields of the metadata block, each a string.
FIELDS = ("edition", "workload", "item_id", "prompt_hash", "mode", "model")


def task_name(workload_id: str) -> str:
    """`extract.invoice.v1` → `extract_invoice_v1`: Inspect reads a dot as a file path."""
    return workload_id.replace(".", "_").replace("-", "_")
