"""Blinding: what the judge (and a human spot-checker) sees of a run, and under which name.

The judge must not be able to tell which model, provider or mode wrote an answer (standard §5).
Two things give a model away: identifiers (its name in the text, a run id that sorts by model)
and formatting tells (reasoning blocks, "As an AI…" preambles, a code fence around the whole
answer). Ids are HMACs of the run id under an edition secret kept with the private seeds, so
they are stable across re-grades yet meaningless to anyone without the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata
from collections.abc import Iterable

from ledgerrate.core.io import atomic_write_text
from ledgerrate.core.layout import EditionPaths
from ledgerrate.providers import families
from ledgerrate.schema import OLD_REFERENCE_PROVIDER, EditionManifest, Mode

SECRET_FILE = "anon-secret.txt"

_REASONING = re.compile(
    r"<(thinking|think|reasoning|scratchpad|reflection|analysis)\b[^>]*>.*?</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
_DANGLING_CLOSE = re.compile(
    r"^.*?</(?:thinking|think|reasoning|scratchpad|reflection|analysis)\s*>", re.I | re.S
)
_WHOLE_FENCE = re.compile(r"^```[\w-]*[ \t]*\n(.*?)\n?```$", re.DOTALL)
_PREAMBLE = re.compile(
    r"^(?:(?:as an? (?:ai|large language model|language model|assistant)\b[^.!\n]*[.!]?\s*)"
    r"|(?:i(?:'| a)m an? (?:ai|assistant|language model)\b[^.!\n]*[.!]?\s*)"
    r"|(?:(?:sure|certainly|of course|absolutely)\b[^\n]*?(?:[:.!]\s*\n|:\s*))"
    r"|(?:here(?:'s| is) (?:the|my|your|an?)\b[^\n]*:\s*\n))+",
    re.IGNORECASE,
)
# Vendor and product words a model uses to name itself, whatever the edition lists: each
# registered provider family's `vendor_words`, and these, of vendors whose models are served
# through another family's API (an OpenAI-compatible server, most often).
_OTHER_VENDOR_WORDS = ("llama", "meta ai", "mistral", "qwen", "deepseek", "grok")


def vendor_words() -> set[str]:
    return {
        *(word for family in families.registered() for word in family.vendor_words),
        *_OTHER_VENDOR_WORDS,
    }


REDACTED = "[redacted]"


def edition_secret(paths: EditionPaths) -> bytes:
    """The edition's anonymisation secret, created on first use beside the private seeds."""
    where = paths.private_seeds.parent / SECRET_FILE
    if not where.exists():
        atomic_write_text(where, secrets.token_hex(32) + "\n")
    return bytes.fromhex(where.read_text(encoding="utf-8").strip())


def anon_id(secret: bytes, run_id: str) -> str:
    return "a-" + hmac.new(secret, run_id.encode("utf-8"), hashlib.sha256).hexdigest()[:16]


def identity_terms(manifest: EditionManifest) -> list[str]:
    """Every string that would name a model, its provider, family or mode."""
    terms: set[str] = vendor_words()
    for spec in [*manifest.models, *manifest.judges]:
        # The reference solver names no provider; the word it was spelled with still names it.
        provider = OLD_REFERENCE_PROVIDER if spec.is_reference else spec.provider
        for value in (spec.id, spec.name, spec.api_model, spec.family, provider):
            if value and len(value) >= 3:
                terms.add(value.lower())
    for mode in Mode:
        terms.add(mode.value)
        terms.add(mode.value.replace("-", " "))
    # Longest first so "gpt-4o-mini" is removed before "gpt" could leave "-4o-mini" behind.
    return sorted(terms, key=lambda t: (-len(t), t))


def redact_terms(text: str, terms: Iterable[str]) -> str:
    for term in terms:
        # A version tail ("-4o-mini", "2") belongs to the name; other letters make a new word.
        pattern = re.compile(
            rf"(?<![\w-]){re.escape(term)}(?:(?:-|\d)[\w.-]*\w|\d)?(?![\w-])", re.IGNORECASE
        )
        text = pattern.sub(REDACTED, text)
    return text


def strip_tells(text: str, terms: Iterable[str] = ()) -> str:
    """The answer with formatting tells removed and identifying names redacted."""
    out = unicodedata.normalize("NFC", text or "")
    out = _REASONING.sub("", out)
    out = _DANGLING_CLOSE.sub("", out, count=1)
    # A preamble can sit outside a fence or inside it: peel both layers in either order.
    for _ in range(2):
        out = _PREAMBLE.sub("", out.strip(), count=1).strip()
        fenced = _WHOLE_FENCE.match(out)
        if fenced:
            out = fenced.group(1).strip()
    out = redact_terms(out, terms)
    out = "\n".join(line.rstrip() for line in out.splitlines())
    out = re.sub(r"\n{3,}", "\n\n", out)
    return out.strip()
