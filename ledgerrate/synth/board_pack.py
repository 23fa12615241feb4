"""Seeded board packs: five documents (about 40 pages in all) with 20 planted key facts.

The documents are board minutes, management accounts, a risk register, a strategy paper and a
treasury report. Most of each document is routine reporting (plenty of figures, as in a real
pack); twenty sentences carry the facts a director must not miss. The checklist of those facts
is hidden truth: the judge matches a brief against it.

PDFs of the pack are rendered on demand (`render_pdfs`), not at generation: a pack is ~40
pages and weasyprint needs seconds per pack, while graders, runners and tests only need the
text. The PDFs are a pure function of the text, which the dataset hash already covers.
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass

from ledgerrate.synth.common import person

WORDS_PER_PAGE = 420
PAGES_PER_DOC = 8  # five documents: about 40 pages

DOCS: tuple[tuple[str, str], ...] = (
    ("01-board-minutes.md", "Minutes of the Board of Directors"),
    ("02-management-accounts.md", "Management Accounts"),
    ("03-risk-register.md", "Risk Register"),
    ("04-strategy-paper.md", "Strategy Paper"),
    ("05-treasury-report.md", "Treasury Report"),
)

_MARKETS = ("Poland", "Mexico", "Vietnam", "Portugal", "Chile", "Morocco")
_SITES = ("Leeds", "Tilburg", "Dayton", "Lyon", "Graz", "Porto")
_AUDITORS = ("Harlow & Pike", "Marston Reid", "Calder Lowe", "Ashby Quinn")
_TARGETS = ("Fenwick Analytics", "Orchard Data Systems", "Lattice Metrics", "Pellham Software")


@dataclass(frozen=True)
class Fact:
    id: str
    doc: int  # index into DOCS
    sentence: str  # as planted in the document
    fact: str  # what the checklist asks the brief to convey


def _m(rng: random.Random, low: float, high: float) -> str:
    """An amount in millions with one decimal, e.g. `$4.7m`."""
    return f"${rng.uniform(low, high):.1f}m"


def plant_facts(rng: random.Random, company: str, period: str) -> list[Fact]:
    cfo, chair = person(rng), person(rng)
    revenue, budget = _m(rng, 40, 60), _m(rng, 61, 70)
    market, site, auditor, target = (
        rng.choice(_MARKETS),
        rng.choice(_SITES),
        rng.choice(_AUDITORS),
        rng.choice(_TARGETS),
    )
    margin = f"{rng.uniform(8, 14):.1f}%"
    cash = _m(rng, 12, 30)
    lev, cov = f"{rng.uniform(2.1, 2.7):.1f}", f"{rng.choice((3.0, 3.25, 3.5))}"
    price = _m(rng, 18, 45)
    dividend = rng.randint(11, 19)
    share = rng.randint(21, 34)
    churn = f"{rng.uniform(6, 11):.1f}%"
    capex = _m(rng, 8, 20)
    jobs = rng.randint(120, 340)
    rcf = _m(rng, 60, 120)
    headcount = f"{rng.randint(1100, 2900):,}"
    claim = _m(rng, 2, 9)
    erp = _m(rng, 1.1, 3.9)
    deficit = _m(rng, 14, 40)
    savings = _m(rng, 4, 12)
    specs = [
        (
            0,
            f"The Board approved the acquisition of {target} for {price}, subject to "
            "regulatory clearance.",
            f"Board approved acquiring {target} for {price}.",
        ),
        (
            0,
            f"{cfo}, Chief Financial Officer, informed the Board of their resignation; they "
            "will leave at the end of the next quarter.",
            f"CFO {cfo} is resigning.",
        ),
        (
            0,
            f"The Board declared an interim dividend of {dividend} cents per share.",
            f"Interim dividend of {dividend} cents per share declared.",
        ),
        (
            0,
            f"The Board resolved to appoint {auditor} as external auditor from next year.",
            f"{auditor} to be appointed external auditor.",
        ),
        (
            1,
            f"Revenue for {period} was {revenue} against a budget of {budget}.",
            f"Revenue {revenue} versus budget {budget} (below budget).",
        ),
        (1, f"Adjusted EBITDA margin fell to {margin}.", f"EBITDA margin fell to {margin}."),
        (
            1,
            f"The ERP replacement project is {erp} over its approved budget.",
            f"ERP project {erp} over budget.",
        ),
        (1, f"Period-end headcount was {headcount}.", f"Headcount {headcount}."),
        (
            2,
            "Cyber security is rated critical after a ransomware incident at a key supplier.",
            "Cyber risk rated critical after a supplier ransomware incident.",
        ),
        (
            2,
            f"A new risk was added: the largest customer now accounts for {share}% of revenue.",
            f"Customer concentration: largest customer is {share}% of revenue.",
        ),
        (
            2,
            f"A former distributor has filed a claim of {claim} against the company.",
            f"Litigation: {claim} claim by a former distributor.",
        ),
        (
            2,
            f"Customer churn rose to {churn}, above the risk appetite.",
            f"Customer churn rose to {churn}.",
        ),
        (
            3,
            f"Management proposes entering {market} next year with capital expenditure of {capex}.",
            f"Proposed entry into {market} with {capex} capex.",
        ),
        (
            3,
            f"The paper recommends closing the {site} plant, affecting {jobs} jobs.",
            f"Recommended closure of the {site} plant, {jobs} jobs affected.",
        ),
        (
            3,
            f"The cost-saving programme targets {savings} of savings by year end.",
            f"Cost-saving programme target {savings} by year end.",
        ),
        (
            3,
            f"{chair}, the Chair, asked that the strategy be brought back for a decision next "
            "meeting.",
            "Strategy decision deferred to the next board meeting.",
        ),
        (4, f"Cash at period end was {cash}.", f"Period-end cash {cash}."),
        (
            4,
            f"Net debt to EBITDA stands at {lev} times against a covenant of {cov} times.",
            f"Leverage {lev} times versus covenant {cov} times.",
        ),
        (
            4,
            f"The {rcf} revolving credit facility matures in eleven months and must be refinanced.",
            f"{rcf} revolving facility needs refinancing within a year.",
        ),
        (
            4,
            f"The defined-benefit pension deficit widened to {deficit}.",
            f"Pension deficit widened to {deficit}.",
        ),
    ]
    return [
        Fact(id=f"F{i + 1:02d}", doc=doc, sentence=sentence, fact=fact)
        for i, (doc, sentence, fact) in enumerate(specs)
    ]


# Routine reporting: sentence templates filled with seeded figures.
_FILLER = (
    "The {unit} team reported spend of ${a:,} for the month, broadly in line with plan.",
    "Receivables past due more than {d} days stood at ${a:,}, a movement of {p}% on the "
    "prior month.",
    "The {unit} function closed {d} open actions from the previous review.",
    "Operating expenses in {unit} were ${a:,}, compared with ${b:,} in the prior period.",
    "Management noted that the {unit} forecast remains within the tolerance set by the committee.",
    "A review of {unit} controls found {d} minor observations, none rated significant.",
    "Utilisation in {unit} averaged {p}% across the period.",
    "The {unit} budget for the coming quarter is ${a:,}.",
    "Supplier payments in {unit} averaged {d} days from invoice.",
    "No matters arising were reported by the {unit} working group.",
    "Work continues on documentation of the {unit} process, with completion expected later "
    "in the year.",
    "The committee received the {unit} update and had no further questions.",
    # Routine sentences that share the vocabulary of real decisions and risks: a summary has
    # to tell the material from the procedural, not just spot keywords.
    "The Board approved the minutes of the previous {unit} review without amendment.",
    "The committee resolved to keep the {unit} reporting format unchanged.",
    "The {unit} stationery supply risk remains rated low; no action is proposed.",
    "A claim of ${a:,} raised by a {unit} supplier was settled within delegated authority.",
    "Management proposes to refresh the {unit} intranet pages next quarter.",
    "The {unit} lead recommends no change to the current approval thresholds.",
    "Directors declared no new conflicts of interest relating to {unit}.",
    "Headcount in {unit} was unchanged at {d}.",
)
_UNITS = (
    "procurement",
    "facilities",
    "customer service",
    "internal audit",
    "payroll",
    "IT operations",
    "sales operations",
    "logistics",
    "legal",
    "marketing",
)


def _filler_paragraph(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(4, 6)):
        template = rng.choice(_FILLER)
        sentences.append(
            template.format(
                unit=rng.choice(_UNITS),
                a=rng.randint(12, 900) * 1000,
                b=rng.randint(12, 900) * 1000,
                d=rng.randint(12, 90),
                p=rng.randint(12, 95),
            )
        )
    return " ".join(sentences)


def build_documents(
    rng: random.Random, company: str, period: str, facts: list[Fact]
) -> list[dict[str, str]]:
    """The five documents as markdown text, each fact sentence inside a routine section."""
    documents = []
    target_words = WORDS_PER_PAGE * PAGES_PER_DOC
    for index, (name, title) in enumerate(DOCS):
        mine = [f for f in facts if f.doc == index]
        paragraphs: list[str] = []
        words = 0
        while words < target_words:
            paragraph = _filler_paragraph(rng)
            paragraphs.append(paragraph)
            words += len(paragraph.split())
        # Spread the facts through the document so none sits conveniently at the top.
        slots = sorted(rng.sample(range(1, len(paragraphs)), len(mine)))
        for fact, slot in zip(mine, slots, strict=True):
            paragraphs[slot] = f"{paragraphs[slot]} {fact.sentence}"
        sections = []
        per_section = max(1, len(paragraphs) // 8)
        for s in range(0, len(paragraphs), per_section):
            heading = f"## Section {s // per_section + 1}"
            sections.append(heading + "\n\n" + "\n\n".join(paragraphs[s : s + per_section]))
        text = f"# {company} — {title}, {period}\n\n" + "\n\n".join(sections) + "\n"
        documents.append({"name": name, "title": title, "text": text})
    return documents


def render_pdfs(documents: list[dict[str, str]]) -> dict[str, bytes]:
    """Each document as a PDF for publication. Deterministic; fetches nothing from anywhere."""
    from weasyprint import HTML

    def refuse(url: str, *args: object, **kwargs: object) -> dict[str, object]:
        raise ValueError(f"board-pack PDFs load no external resources ({url[:40]})")

    out: dict[str, bytes] = {}
    for doc in documents:
        blocks = []
        for block in doc["text"].split("\n\n"):
            block = block.strip()
            if block.startswith("# "):
                blocks.append(f"<h1>{html.escape(block[2:])}</h1>")
            elif block.startswith("## "):
                blocks.append(f"<h2>{html.escape(block[3:])}</h2>")
            elif block:
                blocks.append(f"<p>{html.escape(block)}</p>")
        page = (
            "<html><head><meta charset='utf-8'><style>@page{size:A4;margin:2cm}"
            "body{font-family:serif;font-size:11pt;line-height:1.4}</style></head><body>"
            + "".join(blocks)
            + "</body></html>"
        )
        pdf = HTML(string=page, url_fetcher=refuse).write_pdf()
        out[doc["name"].replace(".md", ".pdf")] = pdf
    return out
