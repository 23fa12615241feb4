#!/usr/bin/env bash
# How the bundled demo editions in editions/ were produced: with this toolchain's own commands
# and the deterministic reference baselines only (no language model is called, no key is needed).
# Kept as a record of provenance; re-running it needs fresh edition folders (registration is
# sealed once) and times inside each edition's window. The bundled editions were registered
# before seeds were escrowed; 2026-11-b's private seeds were then lost, which was recorded with
#   ledgerrate seeds lost editions/2026-11-b --reason "…"
set -euo pipefail
cd "$(dirname "$0")/.."
lr=.venv/bin/ledgerrate
export LEDGERRATE_PRIVATE_DIR="${LEDGERRATE_PRIVATE_DIR:-private}"
# Bundled editions escrow their seeds to the operator's key beside the project (docs/operator-guide.md);
# `seeds release` opens the escrow with the identity when the private folder is gone.
export LEDGERRATE_ESCROW_RECIPIENTS="${LEDGERRATE_ESCROW_RECIPIENTS:-../shared/operator/age-recipient.txt}"
export LEDGERRATE_OPERATOR_IDENTITY="${LEDGERRATE_OPERATOR_IDENTITY:-../shared/operator/age-identity.txt}"

first=editions/2026-11
second=editions/2026-11-b

# Edition 2026-11, inside its window: seal, run, grade, publish (build records results.json and
# published.json at first publication).
$lr register "$first"
$lr run "$first"
$lr grade "$first"
$lr build

# After 2026-11's window closed: release its seeds (checked against the registered commitments),
# then edition 2026-11-b, which carries extract.invoice.v2.
$lr seeds release "$first"
$lr register "$second"
$lr run "$second"
$lr grade "$second"
$lr build
$lr verify "$first"
$lr verify "$second"
