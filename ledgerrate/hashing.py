"""`ledgerrate.hashing` is `ledgerrate.core.hashing` (ARCHITECTURE.md §2).

The old name stays only because frozen files import it, and their bytes are hashed into
sealed registrations, so their imports cannot change:

- ledgerrate/synth/finance_db.py
- ledgerrate/synth/finance_db_v2.py
"""

# core-move shim: re-exports only; new code imports ledgerrate.core.hashing.
from ledgerrate.core.hashing import NEW_SCHEME, canonical_json, sha256_json

__all__ = ["NEW_SCHEME", "canonical_json", "sha256_json"]
