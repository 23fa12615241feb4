"""The escaping is spelled out character by character: each active character becomes its
numeric character reference and nothing else changes, so a faster way of computing it cannot
alter a page (the browser tests read the drill-down pages as escaped today)."""

from __future__ import annotations

import random

from ledgerrate.publish.safe import md_text, pre_block

ACTIVE = "\\`*_{}[]()<>#+-!|&\"'~=:^$%@;/"
OTHERS = "abcXYZ019 .,?é€😀\x00\u2028\x0b"


def _inline(text: str) -> str:
    return "".join(f"&#{ord(c)};" if c in ACTIVE else " " if c in "\r\n\t" else c for c in text)


def _block(text: str) -> str:
    return "".join(f"&#{ord(c)};" if c in ACTIVE + "\r\n\t" else c for c in text)


def test_every_ascii_character_escapes_as_specified() -> None:
    for code in range(128):
        c = chr(code)
        assert md_text(c) == _inline(c), repr(c)
        assert pre_block(c) == f'<pre class="lr-verbatim"><code>{_block(c)}</code></pre>'


def test_mixed_text_escapes_as_specified() -> None:
    rng = random.Random(20)
    alphabet = ACTIVE + "\r\n\t" + OTHERS
    for _ in range(500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        assert md_text(text) == _inline(text)
        assert pre_block(text) == f'<pre class="lr-verbatim"><code>{_block(text)}</code></pre>'
