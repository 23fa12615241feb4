"""Every stored request was sent with its model's sampling settings and output cap.

`ingest` refuses a run made with other settings; this re-checks it from the stored request
bodies, so a record whose settings were edited afterwards (or came in before the rule) fails.
A body kept in `bodies/` moves only its long strings there: the settings stay in the record.
"""

from __future__ import annotations

from ledgerrate.core.sampling import differences
from ledgerrate.schema import EditionManifest
from ledgerrate.verify.parsed import EditionLogs
from ledgerrate.verify.report import Report

CHECK = "requests sent with the edition's sampling settings"


def check_sampling(manifest: EditionManifest, report: Report, logs: EditionLogs) -> None:
    specs = {s.id: s for s in manifest.models if not s.is_reference}
    for log in logs.runs:
        for record in log.records:
            spec = specs.get(record.model)
            if record.request is not None:
                body = record.request
            elif record.request_stored is not None:
                body = record.request_stored.body
            else:
                continue
            # An unknown model is the log rules' mismatch; the baseline sends no model request.
            if spec is None:
                continue
            found = differences(spec, body)
            report.expect(
                CHECK,
                not found,
                file=log.rel,
                record=record.run_id,
                field=", ".join(f"request.{d.setting}" for d in found),
                expected=", ".join(f"{d.edition!r}" for d in found),
                found=", ".join(f"{d.sent!r}" for d in found),
            )
