"""The core (ARCHITECTURE.md §2): what every stage shares and no stage owns — files on
disk and their names, canonical JSON and sha256, seals, prices and money, keys, an
edition's loading, tools, workers and progress. It imports no stage, no workload, no
provider and not the test doubles (the `core` import contract)."""
