"""Which errata changed a figure and which only disclose something.

An erratum may list a figure to say it was re-derived and came out the same (a regrade whose
outcome did not move); a page that called that "figures changed after publication" would say
something untrue. A figure changed only when its value now differs from the value first
published, or when it was withdrawn.
"""

from __future__ import annotations

from ledgerrate.schema import Erratum


def changes_a_figure(entry: Erratum) -> bool:
    return any(fig.new is None or fig.new != fig.old for fig in entry.figures)
