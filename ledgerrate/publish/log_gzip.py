"""The gzip of a run, grade or probe log, as published under `data/<edition>/`.

A module of its own so that the gzips, a quarter of a cold build at ten 215-model editions, are
keyed by this code alone (`publish/product_code.py`): a change to the rest of the downloads
does not remake them.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

GZIP_LEVEL = 6


def gzip_bytes(data: bytes, level: int = GZIP_LEVEL) -> bytes:
    """Deterministic gzip: no timestamp, no file name in the header."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=level) as gz:
        gz.write(data)
    return buffer.getvalue()


def gzipped_log(log: Path) -> bytes:
    """The log's bytes as written, gzipped: unzipped, it is the sealed log."""
    return gzip_bytes(log.read_bytes())
