"""Blinding: formatting tells and names are stripped; ids are stable and meaningless."""

from __future__ import annotations

from pathlib import Path

from ledgerrate.core.layout import EditionPaths
from ledgerrate.grade.anonymise import (
    REDACTED,
    anon_id,
    edition_secret,
    identity_terms,
    redact_terms,
    strip_tells,
)


def test_reasoning_blocks_preambles_and_fences_go() -> None:
    text = (
        "<thinking>\nLet me plan the answer.\n</thinking>\n"
        "Sure! Here is the commentary:\n"
        "```markdown\nFreight rose by $12,000.\n\n\n\nCash fell.\n```"
    )
    assert strip_tells(text) == "Freight rose by $12,000.\n\nCash fell."


def test_dangling_reasoning_close_and_ai_preamble() -> None:
    text = "planning notes…</think>As an AI language model, I cannot be sure. Revenue fell."
    assert strip_tells(text) == "Revenue fell."


def test_inner_code_is_kept() -> None:
    text = "Summary first.\n```\ncode\n```\nThen more."
    assert strip_tells(text) == text


def test_names_are_redacted_whole() -> None:
    terms = ["gpt", "acme-large-2", "single-shot"]
    out = redact_terms("Written by GPT-4o-mini and acme-large-2 in single-shot mode.", terms)
    assert out == f"Written by {REDACTED} and {REDACTED} in {REDACTED} mode."
    # Ordinary words that merely contain a term are left alone.
    assert redact_terms("The agentic workflow", ["gent"]) == "The agentic workflow"


def test_anon_ids_are_stable_and_secret_dependent(tmp_path: Path, private_dir: Path) -> None:
    paths = EditionPaths(tmp_path / "2026-07")
    secret = edition_secret(paths)
    assert secret == edition_secret(paths)  # persisted, not redrawn
    assert (private_dir / "2026-07" / "anon-secret.txt").exists()
    assert not any(p.name == "anon-secret.txt" for p in paths.root.rglob("*"))
    a = anon_id(secret, "r-0123456789abcdef")
    assert a == anon_id(secret, "r-0123456789abcdef") and a.startswith("a-")
    assert a != anon_id(b"other", "r-0123456789abcdef")
    assert "0123456789abcdef" not in a


def test_identity_terms_cover_models_families_and_modes() -> None:
    from ledgerrate.schema import EditionManifest
    from tests.grade.gradekit import EVALUATED

    manifest = EditionManifest.model_validate(
        {
            "id": "2026-07",
            "date": "2026-07-01",
            "methodology_version": "1.0",
            "window": {"opens": "2026-07-01T00:00:00Z", "closes": "2026-07-02T00:00:00Z"},
            "workloads": [{"id": "generate.variance-commentary.v1"}],
            "models": [
                {
                    "id": mid,
                    "name": f"{mid} name",
                    "base_url": "http://x.invalid",
                    "api_key_env": "K",
                    **spec,
                }
                for mid, spec in EVALUATED.items()
            ],
        }
    )
    terms = identity_terms(manifest)
    for word in ("alpha", "acme-large-2", "zenithlabs", "anthropic", "agentic", "single shot"):
        assert word in terms
    assert terms == sorted(terms, key=lambda t: (-len(t), t))


def test_longer_words_survive_redaction() -> None:
    assert redact_terms("alphabetical order, alpha-7 and alpha2", ["alpha"]) == (
        f"alphabetical order, {REDACTED} and {REDACTED}"
    )


def test_the_vendor_words_are_the_families_own_and_unchanged() -> None:
    """The words now come from each family's module; the judge of a sealed edition was shown
    answers blinded with exactly these (verify re-derives its inputs), so none may move."""
    from ledgerrate.grade.anonymise import vendor_words

    assert vendor_words() == {
        *("openai", "chatgpt", "gpt", "anthropic", "claude", "gemini", "google", "deepmind"),
        *("llama", "meta ai", "mistral", "qwen", "deepseek", "grok"),
    }
