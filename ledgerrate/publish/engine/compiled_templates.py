"""Compiled jinja templates as products of the build cache, for the pages' templates and for
the mkdocs theme's.

Compiling a template (parsing it and generating its Python code) costs more than rendering it a
hundred times, and mkdocs makes a new environment for every build, so the theme's forty-odd
templates were compiled again by each one: about a fifth of a small site's mkdocs time.
"""

from __future__ import annotations

from typing import Any

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket

from ledgerrate.publish.cache import BuildCache, key_of


class CompiledTemplates(BytecodeCache):
    """Keyed by the template's name and source and by the code that makes the environments
    (and jinja's version), and checked against their digest like every product."""

    def __init__(self, cache: BuildCache) -> None:
        self.cache = cache

    def _key(self, bucket: Bucket) -> str:
        return key_of("jinja", self.cache.code("jinja"), bucket.key, bucket.checksum)

    def load_bytecode(self, bucket: Bucket) -> None:
        found = self.cache.stored("jinja", self._key(bucket))
        if found is not None:
            bucket.bytecode_from_string(found.read_bytes())

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.cache.product_path("jinja", self._key(bucket), bucket.bytecode_to_string)


class CompiledTheme:
    """mkdocs plugin: the theme's environment loads its templates through the build cache."""

    def __init__(self, cache: BuildCache) -> None:
        self.cache = cache

    def on_env(self, env: Any, **_: Any) -> Any:
        env.bytecode_cache = CompiledTemplates(self.cache)
        return env
