"""The seed escrow: an edition's private seeds, encrypted to the operators' age keys.

`register` encrypts the seeds (age v1, X25519, through `pyrage`: no home-made cryptography) and
commits the ciphertext with the edition, so the seeds outlive the machine that drew them. Only
a holder of an operator identity can open it, so publishing it reveals nothing before release.
Its sha256 is sealed in the registration: age is not signed (anyone with a public key can
encrypt), so a swapped ciphertext is caught by that hash, and a decrypted seed still has to
open its registered commitment before anything uses it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ledgerrate.core.errors import UsageProblem
from ledgerrate.core.hashing import sha256_bytes
from ledgerrate.core.io import FileProblem, atomic_write_bytes, parse_model, to_json
from ledgerrate.core.layout import EditionPaths
from ledgerrate.schema import SeedEscrow, SeedFile

# pyrage is imported where a key is read or an escrow sealed or opened, not here: every build
# imports this module (through the seeds), and most never touch an escrow.
if TYPE_CHECKING:
    import pyrage

RECIPIENTS_ENV = "LEDGERRATE_ESCROW_RECIPIENTS"
IDENTITY_ENV = "LEDGERRATE_OPERATOR_IDENTITY"


class EscrowUnopened(Exception):
    """Why the escrow could not be opened: `public` is safe to publish (no local path, never
    any secret); `detail` adds what only the operator's terminal needs (e.g. which file)."""

    def __init__(self, public: str, detail: str = "") -> None:
        self.public = public
        self.detail = detail
        super().__init__(f"{public} ({detail})" if detail else public)


def parse_recipients(text: str, source: str) -> list[str]:
    """Public keys from age's recipients-file format: one per line, `#` comments, blanks."""
    import pyrage

    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            pyrage.x25519.Recipient.from_str(line)
        except pyrage.RecipientError:
            raise UsageProblem(
                f"{source}: line {number} is not an age X25519 public key (age1…); "
                "give one public key per line"
            ) from None
        found.append(line)
    return found


def _env_recipients(value: str) -> list[str]:
    """The variable holds public keys (`age1…`) and/or paths of recipients files."""
    found: list[str] = []
    for token in value.replace(",", " ").split():
        if token.startswith("age1"):
            found += parse_recipients(token, RECIPIENTS_ENV)
            continue
        path = Path(token).expanduser()
        if not path.is_file():
            raise UsageProblem(
                f"{RECIPIENTS_ENV}: {token} is neither an age public key (age1…) nor a "
                "recipients file"
            )
        found += parse_recipients(path.read_text(encoding="utf-8"), f"{RECIPIENTS_ENV}: {path}")
    return found


def escrow_recipients(paths: EditionPaths, environ: Mapping[str, str] | None = None) -> list[str]:
    """The edition's `seed-recipients.txt` and the environment's recipients, each key once."""
    env = os.environ if environ is None else environ
    found: list[str] = []
    if paths.seed_recipients.is_file():
        found += parse_recipients(
            paths.seed_recipients.read_text(encoding="utf-8"), str(paths.seed_recipients)
        )
    found += _env_recipients(env.get(RECIPIENTS_ENV, ""))
    return list(dict.fromkeys(found))


def seal_escrow(paths: EditionPaths, seeds: SeedFile, recipients: list[str]) -> SeedEscrow:
    """Encrypt the seeds to every recipient, write the ciphertext, return what to seal."""
    import pyrage

    keys = [pyrage.x25519.Recipient.from_str(r) for r in recipients]
    ciphertext = pyrage.encrypt(to_json(seeds).encode("utf-8"), keys, armored=True)
    atomic_write_bytes(paths.seed_escrow, ciphertext)
    return SeedEscrow(recipients=recipients, sha256=sha256_bytes(ciphertext))


def identity_path(environ: Mapping[str, str] | None = None) -> Path | None:
    """The operator identity file named by the environment; never a default inside the repo."""
    value = (os.environ if environ is None else environ).get(IDENTITY_ENV, "").strip()
    return Path(value).expanduser() if value else None


def _identities(path: Path) -> list[pyrage.x25519.Identity]:
    import pyrage

    # The file's content is secret: no message below may quote it.
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EscrowUnopened(
            "the operator identity file cannot be read", f"{path}: {exc.strerror}"
        ) from None
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            found.append(pyrage.x25519.Identity.from_str(line))
        except pyrage.IdentityError:
            raise EscrowUnopened(
                "the operator identity file holds something that is not an age X25519 identity",
                f"{path}, line {number}",
            ) from None
    if not found:
        raise EscrowUnopened("the operator identity file holds no age identity", str(path))
    return found


def open_escrow(
    paths: EditionPaths, escrow: SeedEscrow, environ: Mapping[str, str] | None = None
) -> SeedFile:
    """Decrypt the sealed escrow with the operator identity; raises EscrowUnopened saying why.

    The caller still checks every seed against its registered commitment.
    """
    import pyrage

    file = paths.root / escrow.file
    if not file.is_file():
        raise EscrowUnopened(f"the escrow {escrow.file} sealed at registration is missing")
    ciphertext = file.read_bytes()
    if sha256_bytes(ciphertext) != escrow.sha256:
        raise EscrowUnopened(
            f"{escrow.file} is not the ciphertext sealed at registration (sha256 differs)"
        )
    identity = identity_path(environ)
    if identity is None:
        raise EscrowUnopened(
            f"{IDENTITY_ENV} is not set (point it at an operator identity file to open "
            f"{escrow.file})"
        )
    try:
        plaintext = pyrage.decrypt(ciphertext, _identities(identity))
    except pyrage.DecryptError:
        raise EscrowUnopened(
            f"the operator identity given is not one of the escrow's {len(escrow.recipients)} "
            "recipient(s)",
            str(identity),
        ) from None
    try:
        return parse_model(SeedFile, json.loads(plaintext), f"{escrow.file} (decrypted)")
    except (ValueError, FileProblem):
        # Not quoted: the parse error could echo a seed.
        raise EscrowUnopened(f"{escrow.file} decrypts to no valid seed file") from None
