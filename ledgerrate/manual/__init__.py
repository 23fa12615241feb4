"""The manual arm (ARCHITECTURE.md §12): work packets for an analyst, and the import of what
they return as run records the normal `grade` stage grades blind. Like `ingest`, this stage
writes records and never grades or prices them."""
