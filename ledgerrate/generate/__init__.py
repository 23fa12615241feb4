"""Stage 1: generate seeded datasets and their content-addressed cards."""
