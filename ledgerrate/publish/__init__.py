"""The published site (ARCHITECTURE.md §7): pages, downloads, errata feed, then `mkdocs build`."""
