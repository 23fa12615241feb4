"""Statistics every stage may use: intervals and power plans (core layer, no stage imports)."""
