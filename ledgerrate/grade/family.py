"""Which judge an edition names and which models share its vendor family (standard §5.4).

Pure functions of the manifest, apart from the judge's calls (grade/judge.py), so that `results`
reads the overlap without importing the providers and their HTTP client.
"""

from __future__ import annotations

from ledgerrate.schema import EditionManifest, ModelSpec


def judge_spec(manifest: EditionManifest, *, second: bool = False) -> ModelSpec | None:
    if manifest.judge is None:
        return None
    name = manifest.judge.second_model if second else manifest.judge.model
    return manifest.model(name) if name else None


def judge_family_overlap(manifest: EditionManifest) -> list[str]:
    """Models under evaluation from the judge's vendor family: disclosed on the pages."""
    spec = judge_spec(manifest)
    if spec is None:
        return []
    return [m.id for m in manifest.models if m.family.casefold() == spec.family.casefold()]
