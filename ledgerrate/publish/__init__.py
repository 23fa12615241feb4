"""The published site (DESIGN.md §7): pages, downloads, errata feed, then `mkdocs build`."""
