"""Stage 6: re-derive every published figure offline, from the published files alone."""
