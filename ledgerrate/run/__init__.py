"""Stage 2: run cells against providers and write append-only raw logs. Never grades."""
