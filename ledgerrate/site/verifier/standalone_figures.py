"""Recompute every published figure of one LedgerRate edition from its downloads.

The figures half of the standalone verifier (verify_standalone.py calls `check_figures`). It is
written from the methodology pages (methodology/1.0/figures.md), not from the LedgerRate
package, and needs only Python's standard library and PyYAML. Where the package uses numpy (the
seeded bootstrap of the CPO interval and the percentiles), this file carries a port of the few
numpy routines involved, so that a reader without numpy reproduces the published bounds bit for
bit: SeedSequence, the PCG64 generator, `Generator.integers` for a range under 2**32, numpy's
pairwise float summation and its default ('linear') percentile.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path
from typing import Any

import yaml

# --------------------------------------------------------------------------------------------
# numpy's random stream, in pure Python (numpy/random/bit_generator.pyx, _pcg64.pyx,
# src/pcg64/pcg64.h and src/distributions/distributions.c, numpy 1.17 to 2.x)
# --------------------------------------------------------------------------------------------

MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1
MASK128 = (1 << 128) - 1

# SeedSequence's hashing constants (Melissa O'Neill's seed_seq_fe).
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = 0xCA01F9DD
_MIX_MULT_R = 0x4973F715
_XSHIFT = 16
_POOL_SIZE = 4

# PCG64: the 128-bit LCG multiplier (PCG_DEFAULT_MULTIPLIER_128).
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341


def _uint32_words(value: int) -> list[int]:
    """An entropy integer as numpy splits it: 32-bit words, least significant first (0 → [0])."""
    if value < 0:
        raise ValueError("seed entropy must be non-negative")
    if value == 0:
        return [0]
    words = []
    while value:
        words.append(value & MASK32)
        value >>= 32
    return words


def seed_sequence_state(entropy: Sequence[int], n_words: int) -> list[int]:
    """`np.random.SeedSequence(entropy).generate_state(n_words, np.uint32)`."""
    entropy_words = [w for value in entropy for w in _uint32_words(value)]
    hash_const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value = (value ^ hash_const) & MASK32
        hash_const = (hash_const * _MULT_A) & MASK32
        value = (value * hash_const) & MASK32
        return value ^ (value >> _XSHIFT)

    def mix(x: int, y: int) -> int:
        result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & MASK32
        return result ^ (result >> _XSHIFT)

    pool = [hashmix(entropy_words[i] if i < len(entropy_words) else 0) for i in range(_POOL_SIZE)]
    for src in range(_POOL_SIZE):
        for dst in range(_POOL_SIZE):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL_SIZE, len(entropy_words)):
        for dst in range(_POOL_SIZE):
            pool[dst] = mix(pool[dst], hashmix(entropy_words[src]))

    out = []
    hash_const = _INIT_B
    for i in range(n_words):
        value = pool[i % _POOL_SIZE] ^ hash_const
        hash_const = (hash_const * _MULT_B) & MASK32
        value = (value * hash_const) & MASK32
        out.append(value ^ (value >> _XSHIFT))
    return out


class Pcg64:
    """numpy's PCG64 bit generator (XSL-RR 128/64), seeded as `np.random.default_rng` seeds it."""

    def __init__(self, entropy: Sequence[int]) -> None:
        words = seed_sequence_state(entropy, 8)
        # generate_state(4, uint64): each 64-bit word is two 32-bit words, low word first.
        w64 = [words[2 * i] | (words[2 * i + 1] << 32) for i in range(4)]
        initstate = (w64[0] << 64) | w64[1]
        initseq = (w64[2] << 64) | w64[3]
        self.inc = ((initseq << 1) | 1) & MASK128
        state = (0 * _PCG_MULT + self.inc) & MASK128
        state = (state + initstate) & MASK128
        self.state = (state * _PCG_MULT + self.inc) & MASK128
        self._half: int | None = None  # the upper 32 bits kept from the last 64-bit draw

    def next64(self) -> int:
        self.state = state = (self.state * _PCG_MULT + self.inc) & MASK128
        x = ((state >> 64) ^ state) & MASK64
        rot = state >> 122
        return ((x >> rot) | (x << (64 - rot))) & MASK64

    def next32(self) -> int:
        if self._half is not None:
            value, self._half = self._half, None
            return value
        value = self.next64()
        self._half = value >> 32
        return value & MASK32

    def integers(self, high: int, count: int) -> list[int]:
        """`Generator.integers(0, high, size=count)` for 2 <= high <= 2**32 (int64 result).

        numpy draws a range that fits 32 bits with Lemire's multiply-and-reject method on
        32-bit draws (the low half of each 64-bit output first, then its high half)."""
        if high == 1:
            return [0] * count
        if not 2 <= high <= 1 << 32:
            raise ValueError("range must be 1..2**32")
        if high == 1 << 32:
            return [self.next32() for _ in range(count)]
        threshold = ((1 << 32) - high) % high
        out: list[int] = []
        append = out.append
        mult, inc, state, half = _PCG_MULT, self.inc, self.state, self._half
        for _ in range(count):
            if half is not None:
                draw, half = half, None
            else:
                state = (state * mult + inc) & MASK128
                x = ((state >> 64) ^ state) & MASK64
                rot = state >> 122
                x = ((x >> rot) | (x << (64 - rot))) & MASK64
                draw, half = x & MASK32, x >> 32
            m = draw * high
            if (m & MASK32) < high:
                while (m & MASK32) < threshold:
                    self.state, self._half = state, half
                    m = self.next32() * high
                    state, half = self.state, self._half
            append(m >> 32)
        self.state, self._half = state, half
        return out


def pairwise_sum(values: Sequence[float]) -> float:
    """numpy's float64 `sum` along a contiguous axis (pairwise summation, blocks of 8)."""
    n = len(values)
    if n < 8:
        total = 0.0
        for v in values:
            total += v
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        stop = n - n % 8
        while i < stop:
            for j in range(8):
                r[j] += values[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            total += values[i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return pairwise_sum(values[:half]) + pairwise_sum(values[half:])


def percentile_linear(sorted_values: Sequence[float], q: float) -> float:
    """numpy's `percentile(a, q)` with its default method ('linear') on sorted data."""
    n = len(sorted_values)
    index = (n - 1) * (q / 100)
    below = math.floor(index)
    gamma = index - below
    lo = sorted_values[min(max(below, 0), n - 1)]
    hi = sorted_values[min(max(below + 1, 0), n - 1)]
    diff = hi - lo
    # numpy's _lerp: from the lower value for gamma < 0.5, from the upper one otherwise.
    return hi - diff * (1 - gamma) if gamma >= 0.5 else lo + diff * gamma


# --------------------------------------------------------------------------------------------
# The figure rules of methodology/1.0/figures.md
# --------------------------------------------------------------------------------------------

QUALITY_BAR = 0.80
STANDARD_N = 15
# The two-sided 95% normal quantile as the figures use it: scipy's norm.ppf(0.975). Python's
# statistics.NormalDist().inv_cdf(0.975) is 1.9599639845400536, one bit lower.
Z95 = 1.959963984540054
MONEY_QUANTUM = Decimal("0.000000000001")  # 1e-12 USD
RATE_QUANTUM = Decimal("0.01")
BOOTSTRAP_REPS = 10_000
INFRA = "infra-excluded"
# Older records spell some values in snake case; both spellings mean the same value
# (methodology/1.0/versioning.md).
OLD_SPELLINGS = {
    "model_failure": "model-failure",
    "infra_excluded": "infra-excluded",
    "pending_judge": "pending-judge",
    "provider_reported": "provider-reported",
    "not_applicable": "not-applicable",
    "estimate": "estimated",
}
_SPELLED_FIELDS = ("status", "outcome", "usage_basis", "cost_basis")


def spelled(value: Any) -> Any:
    return OLD_SPELLINGS.get(value, value) if isinstance(value, str) else value


def _respelled(record: dict[str, Any]) -> dict[str, Any]:
    for name in _SPELLED_FIELDS:
        if name in record:
            record[name] = spelled(record[name])
    return record


TOKEN_FIELDS = ("input", "cached_input", "cache_write", "output", "reasoning")
_USAGE_FIELDS = {
    "input": "input_tokens",
    "cached_input": "cached_input_tokens",
    "cache_write": "cache_write_tokens",
    "output": "output_tokens",
    "reasoning": "reasoning_tokens",
}

Record = Callable[..., None]


def quantize(value: Decimal) -> Decimal:
    return value.quantize(MONEY_QUANTUM, rounding=ROUND_HALF_EVEN)


def money(value: object) -> Decimal:
    return Decimal(str(value))


def cost_total(cost: dict[str, Any] | None) -> Decimal:
    """A cost block's total: model_usd + compute_usd, exactly."""
    if not cost:
        return Decimal(0)
    return money(cost.get("model_usd", "0")) + money(cost.get("compute_usd", "0"))


def digest32(text: str) -> int:
    """The first 32 bits of sha256(text) as an unsigned integer."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)


def edition_seed(edition_id: str) -> int:
    return digest32(f"ledgerrate-bootstrap|{edition_id}")


def wilson(k: int, n: int) -> tuple[float, float]:
    z = Z95
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


@functools.cache
def _bootstrap_cached(
    seed: int, key: tuple[str, ...], costs: tuple[float, ...], passed: tuple[bool, ...], reps: int
) -> tuple[Decimal, Decimal, float] | None:
    return _bootstrap(seed, key, costs, passed, reps)


def bootstrap_cpo(
    seed: int, key: Sequence[str], costs: Sequence[float], passed: Sequence[bool], reps: int
) -> tuple[Decimal, Decimal, float] | None:
    return _bootstrap_cached(seed, tuple(key), tuple(costs), tuple(passed), reps)


def _bootstrap(
    seed: int, key: Sequence[str], costs: Sequence[float], passed: Sequence[bool], reps: int
) -> tuple[Decimal, Decimal, float] | None:
    """The CPO interval (lo, hi) and the dropped share, as figures.md states it."""
    n = len(costs)
    if n == 0 or not any(passed):
        return None
    rng = Pcg64([seed, digest32("|".join(key))])
    draws = rng.integers(n, reps * n)
    wins = [1.0 if p else 0.0 for p in passed]
    ratios = []
    for r in range(reps):
        row = draws[r * n : (r + 1) * n]
        won = pairwise_sum([wins[i] for i in row])
        if won > 0:
            ratios.append(pairwise_sum([costs[i] for i in row]) / won)
    ratios.sort()
    lo = percentile_linear(ratios, 2.5)
    hi = percentile_linear(ratios, 97.5)
    dropped = 1 - len(ratios) / reps
    return quantize(Decimal(repr(lo))), quantize(Decimal(repr(hi))), dropped


def linear_quantile(values: Sequence[float], q: float) -> float | None:
    return None if not values else percentile_linear(sorted(values), q)


# --------------------------------------------------------------------------------------------
# Reading the downloads
# --------------------------------------------------------------------------------------------


class InputProblem(Exception):
    """A download that cannot be read: its message names the file and what is wrong."""


class _TextLoader(yaml.SafeLoader):
    """YAML with timestamps left as text (PyYAML would turn them into datetimes)."""


_TextLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_yaml(path: Path) -> Any:
    if not path.is_file():
        raise InputProblem(f"{path}: missing (the figures are recomputed from it)")
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_TextLoader)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputProblem(f"{path}: not readable YAML ({exc})") from None


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """A log as published: gzip-compressed (`.jsonl.gz`) or plain (`.jsonl`)."""
    raw = path.read_bytes()
    try:
        if path.suffix == ".gz":
            raw = gzip.decompress(raw)
        lines = list(io.StringIO(raw.decode("utf-8")))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InputProblem(f"{path}: not a gzip of UTF-8 JSON lines ({exc})") from None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputProblem(f"{path}: line {number} is not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise InputProblem(f"{path}: line {number} is not a JSON object")
            yield _respelled(record)


def cell_logs(folder: Path) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
    """folder/<workload>/<model>/<mode>.jsonl[.gz] → records, keyed by cell."""
    found: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*/*/*.jsonl*")):
        if not (path.name.endswith(".jsonl") or path.name.endswith(".jsonl.gz")):
            continue
        mode = path.name.split(".jsonl")[0]
        key = (path.parent.parent.name, path.parent.name, mode)
        found.setdefault(key, []).extend(read_jsonl(path))
    return found


# --------------------------------------------------------------------------------------------
# One cell
# --------------------------------------------------------------------------------------------


@dataclass
class Cell:
    key: tuple[str, str, str]
    figures: dict[str, Any] = field(default_factory=dict)
    costs: list[Decimal] = field(default_factory=list)


def _attempt_order(run: dict[str, Any]) -> tuple[Any, ...]:
    return (run["item_id"], run["attempt"], run["finished_at"], run["run_id"])


def counted_attempts(runs: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per item, the last attempt that is not an infrastructure exclusion; by item id."""
    last: dict[str, dict[str, Any]] = {}
    for run in sorted((r for r in runs if r["status"] != INFRA), key=_attempt_order):
        last[run["item_id"]] = run
    return [last[item] for item in sorted(last)]


def choose_sitting(runs: Sequence[dict[str, Any]], n: int) -> tuple[int, int]:
    sittings = sorted({int(r["sitting"]) for r in runs})
    if not sittings:
        return 1, 0
    complete = [
        s for s in sittings if len(counted_attempts(r for r in runs if r["sitting"] == s)) >= n
    ]
    return (complete[-1] if complete else sittings[-1]), len(sittings) - 1


def latest_grades(grades: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per run id, the grade record of the highest revision (then the latest graded_at)."""
    live: dict[str, dict[str, Any]] = {}
    for grade in sorted(grades, key=lambda g: (g["run_id"], g["revision"], g["graded_at"])):
        live[grade["run_id"]] = grade
    return live


def judge_usd(grade: dict[str, Any]) -> Decimal:
    judge = grade.get("judge")
    if not judge:
        return Decimal(0)
    total = cost_total(judge.get("cost"))
    second = judge.get("second_opinion")
    if second:
        total += cost_total(second.get("cost"))
    return total


def grading_cost_by_revision(grades: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every judge call paid for a cell, by grade revision (all of the cell's grade records,
    every sitting and attempt): a judge block identical to one the same run holds in an earlier
    revision was carried forward, not paid again. The first opinion (without its second) and
    the second opinion are calls of their own."""
    usd: dict[int, Decimal] = {}
    calls: dict[int, int] = {}
    seen: set[tuple[str, str]] = set()
    for grade in sorted(grades, key=lambda g: (g["revision"], g["graded_at"], g["run_id"])):
        judge = grade.get("judge")
        if not judge:
            continue
        first = {k: v for k, v in judge.items() if k != "second_opinion"}
        held = [first] + ([judge["second_opinion"]] if judge.get("second_opinion") else [])
        for block in held:
            identity = (grade["run_id"], json.dumps(block, sort_keys=True))
            if identity in seen:
                continue
            seen.add(identity)
            revision = int(grade["revision"])
            usd[revision] = usd.get(revision, Decimal(0)) + cost_total(block.get("cost"))
            calls[revision] = calls.get(revision, 0) + 1
    return [{"revision": r, "judge_calls": calls[r], "usd": usd[r]} for r in sorted(calls)]


def unpriced_call(call: dict[str, Any]) -> bool:
    """An unfinished call written before its server time was bounded: latency 0, no
    `latency_estimate`, estimated usage, cost 0, error starting "unfinished"."""
    return (
        call.get("latency_s") == 0
        and call.get("latency_estimate") is None
        and spelled(call.get("usage_basis")) == "estimated"
        and cost_total(call.get("cost")) == 0
        and str(call.get("error") or "").startswith("unfinished")
    )


def spotcheck_required(judged_runs: int) -> int:
    """20% of the judged runs, rounded up (0.2 × 15 is 3: rounded to 9 places first)."""
    return min(judged_runs, math.ceil(round(judged_runs * 0.20, 9)))


def protocol_figures(
    items: Sequence[dict[str, Any]],
    outcomes: Sequence[str],
    live: dict[str, dict[str, Any]],
    same_family: bool = False,
) -> dict[str, Any]:
    """The judged-task protocol block (judge-protocol.md): its counts, intervals and the
    opening words of each condition it must list as missing."""
    verdicts = []
    for run in items:
        grade = live.get(run["run_id"]) or {}
        judge = grade.get("judge") or {}
        if isinstance(judge.get("passed"), bool):
            verdicts.append((grade, judge))
    human = [
        (g, j) for g, j in verdicts if isinstance((g.get("spotcheck") or {}).get("passed"), bool)
    ]
    sampled = [(g, j) for g, j in human if g["spotcheck"].get("scope") == "sample"]
    checked = len(sampled)
    disagree = sum(j["passed"] != g["spotcheck"]["passed"] for g, j in sampled)
    second = [
        (g, j)
        for g, j in verdicts
        if isinstance((j.get("second_opinion") or {}).get("passed"), bool)
    ]
    required = spotcheck_required(len(verdicts))
    all_human = len(human) == len(verdicts)
    conditions = []
    if any(o in ("pending-judge", "ungraded") for o in outcomes):
        conditions.append("not every run graded")
    if verdicts and checked < required and not all_human:
        conditions.append("no human spot-check" if checked == 0 else "too few human spot-checks")
    regrade = "not_required"
    if checked and disagree / checked > 0.10:
        regrade = "required"
        if not all_human:
            conditions.append("manual regrade required")
        elif all((g.get("outcome") == "pass") == bool(g["spotcheck"]["passed"]) for g, _ in human):
            regrade = "done"
        else:
            conditions.append("manual regrade not applied")
    if same_family and not second and verdicts:
        conditions.append("second-judge check not run")
    agree = checked - disagree
    second_agree = sum(j["passed"] == j["second_opinion"]["passed"] for _, j in second)
    return {
        "judged_runs": len(verdicts),
        "spotchecked": checked,
        "spotcheck_required": required,
        "disagreements": disagree,
        "human_graded": len(human),
        "manual_regrade": regrade,
        "second_judge_required": same_family,
        "second_judge_checked": len(second),
        "agreement_ci": _wilson_block(agree, checked),
        "second_judge_agreement_ci": _wilson_block(second_agree, len(second)),
        "_conditions": conditions,
    }


def _wilson_block(k: int, n: int) -> dict[str, Any] | None:
    if n <= 0:
        return None
    lo, hi = wilson(k, n)
    return {"lo": lo, "hi": hi, "method": "wilson-95"}


def _cost_basis(items: Sequence[dict[str, Any]], is_reference: bool) -> str:
    if not items:
        return "none"
    bases = {"estimated" if r["usage_basis"] == "estimated" else r["cost_basis"] for r in items}
    if bases == {"measured"}:
        return "measured"
    if is_reference or bases == {"compute"}:
        return "compute"
    if "estimated" in bases:
        return "estimated"
    return "mixed"


def _failure_code(run: dict[str, Any], code: str) -> bool:
    failure = run.get("failure")
    return (
        run["status"] == "model-failure"
        and isinstance(failure, str)
        and failure.split(":", 1)[0] == code
    )


def _call_seconds(runs: Sequence[dict[str, Any]]) -> Decimal:
    return sum(
        (_microseconds(float(c.get("latency_s") or 0)) for r in runs for c in r.get("calls") or []),
        Decimal(0),
    )


def _cpu_seconds(runs: Sequence[dict[str, Any]]) -> Decimal:
    return sum(
        (_microseconds(float(r["cpu_seconds"])) for r in runs if r.get("cpu_seconds") is not None),
        Decimal(0),
    )


def time_priced(
    figures: dict[str, Any], model: str, is_reference: bool, pricing: dict[str, Any]
) -> dict[str, Any] | None:
    """A time-priced cell's `time_priced` block (repricing.md): the seconds behind its spend at
    the frozen hourly rate, and what rounding each call to 1e-12 USD added; a manual cell's
    from its sitting (manual_figures)."""
    if "_manual" in figures:
        return figures["_manual"]["time_priced"]
    instance = (pricing.get("self_hosted") or {}).get(model)
    compute = pricing.get("compute")
    if instance is not None:
        basis, hour = "self-hosted", money(instance["hour_usd"])
    elif is_reference and compute is not None:
        basis, hour = "compute", money(compute["vcpu_hour_usd"])
    else:
        return None
    seconds, infra_seconds = figures["_seconds"][basis]
    return {
        "basis": basis,
        "hour_usd": hour,
        "seconds": seconds,
        "rounding_usd": figures["spend_usd"] - quantize(seconds * hour / Decimal(3600)),
        "infra_excluded_seconds": infra_seconds,
        "infra_excluded_rounding_usd": figures["infra_excluded_usd"]
        - quantize(infra_seconds * hour / Decimal(3600)),
    }


def repriced_at_frozen(
    cell: dict[str, Any], price: dict[str, Any] | None
) -> tuple[Decimal, Decimal] | None:
    """(spend, infra-excluded spend) re-derived from a published cell's own totals at the
    frozen prices (repricing.md, "The recipe"); None for a cell priced by neither."""
    timed = cell.get("time_priced")
    if timed is not None:
        hour = money(timed["hour_usd"])

        def at(seconds: Any, rounding: Any) -> Decimal:
            if timed["basis"] == "manual":
                return exact_time_cost(money(seconds), hour) + money(rounding)
            return quantize(money(seconds) * hour / Decimal(3600)) + money(rounding)

        # A manual cell's tool lines do not scale with the rate (its rounding is 0).
        fixed = money(timed.get("fixed_usd") or 0)
        return (
            at(timed["seconds"], timed["rounding_usd"]) + fixed,
            at(timed["infra_excluded_seconds"], timed["infra_excluded_rounding_usd"]),
        )
    if price is None:
        return None

    def usage(totals: dict[str, Any]) -> dict[str, Any]:
        return {_USAGE_FIELDS[f]: int(totals.get(f) or 0) for f in TOKEN_FIELDS}

    return (
        token_cost(usage(cell["tokens"]), price),
        token_cost(usage(cell.get("infra_excluded_tokens") or {}), price),
    )


# Reconciliation with the bill (billed-cost.md): the tolerance is a nano-dollar per billed call.
BILLED_TOLERANCE_PER_CALL = Decimal("0.000000001")


def billed_figures(items: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """A cell's computed model spend reconciled with the costs its calls stated they were billed
    (methodology/1.0/billed-cost.md); None when no counted call stated one."""
    calls = [c for r in items for c in r.get("calls") or []]
    stated = [c for c in calls if c.get("billed_usd") is not None]
    if not stated:
        return None
    billed = sum((money(c["billed_usd"]) for c in stated), Decimal(0))
    computed = sum((money((c.get("cost") or {}).get("model_usd", "0")) for c in stated), Decimal(0))
    difference = billed - computed
    return {
        "calls": len(calls),
        "calls_billed": len(stated),
        "billed_usd": billed,
        "computed_usd": computed,
        "difference_usd": difference,
        "basis": "reconciled" if len(stated) == len(calls) else "partly-reconciled",
        "agrees": abs(difference) <= BILLED_TOLERANCE_PER_CALL * len(stated),
    }


def cell_figures(
    key: tuple[str, str, str],
    runs: Sequence[dict[str, Any]],
    grades: Sequence[dict[str, Any]],
    *,
    n_expected: int,
    is_reference: bool,
    seed: int,
    reps: int,
    protocol_met: bool,
    judged_cell: bool = False,
    same_family: bool = False,
) -> dict[str, Any]:
    """Every recomputable figure of one cell (figures.md, "One cell")."""
    sitting, others = choose_sitting(runs, n_expected)
    in_sitting = [r for r in runs if r["sitting"] == sitting]
    items = counted_attempts(in_sitting)
    counted_ids = {r["run_id"] for r in items}
    live = latest_grades(g for g in grades if g["run_id"] in counted_ids)
    outcomes = []
    for run in items:
        grade = live.get(run["run_id"])
        if run["status"] == "model-failure":
            outcomes.append("fail")
        else:
            outcomes.append("ungraded" if grade is None else grade["outcome"])
    n = len(items)
    passed = [o == "pass" for o in outcomes]
    passes = sum(passed)
    graded = sum(o in ("pass", "fail") for o in outcomes)
    spends = [cost_total(r.get("cost")) for r in items]
    spend = sum(spends, Decimal(0))
    settled_grades = n > 0 and graded == n
    missing = max(n_expected - n, 0)
    pass_rate = passes / n if settled_grades else None
    boot = (
        bootstrap_cpo(seed, ("cpo", *key), [float(s) for s in spends], passed, reps)
        if settled_grades
        else None
    )
    infra = [r for r in in_sitting if r["status"] == INFRA]
    diagnostics: dict[str, list[float]] = {}
    for run in items:
        grade = live.get(run["run_id"])
        for name, value in ((grade or {}).get("diagnostics") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                diagnostics.setdefault(name, []).append(float(value))
    latencies = [float(r["latency_s"]) for r in items]
    ci = wilson(passes, n) if pass_rate is not None else None
    return {
        "sitting": sitting,
        "other_sittings": others,
        "n": n,
        "completed": sum(r["status"] == "completed" for r in items),
        "model_failures": sum(r["status"] == "model-failure" for r in items),
        "truncated": sum(_failure_code(r, "truncated") for r in items),
        "context_exceeded": sum(_failure_code(r, "context_exceeded") for r in items),
        "missing": missing,
        "passes": passes,
        "pending_judge": sum(o == "pending-judge" for o in outcomes),
        "pass_rate": pass_rate,
        "pass_rate_ci": None if ci is None else {"lo": ci[0], "hi": ci[1], "method": "wilson-95"},
        "spend_usd": spend,
        "cpo_usd": quantize(spend / passes) if settled_grades and passes else None,
        "cpo_ci": None
        if boot is None
        else {"lo": boot[0], "hi": boot[1], "method": "bootstrap-percentile-95"},
        "cpo_ci_dropped_share": None if boot is None else boot[2],
        "cost_per_attempt_usd": quantize(spend / n) if n else None,
        "tokens": {
            f: sum(int((r.get("usage") or {}).get(_USAGE_FIELDS[f], 0)) for r in items)
            for f in TOKEN_FIELDS
        },
        "latency_median_s": linear_quantile(latencies, 50),
        "latency_p90_s": linear_quantile(latencies, 90),
        "infra_excluded_attempts": len(infra),
        "infra_excluded_usd": sum((cost_total(r.get("cost")) for r in infra), Decimal(0)),
        "infra_excluded_tokens": {
            f: sum(int((r.get("usage") or {}).get(_USAGE_FIELDS[f], 0)) for r in infra)
            for f in TOKEN_FIELDS
        },
        # The seconds a time-priced spend is computed from (repricing.md), counted and
        # infra-excluded: a self-hosted model's calls' server time, a baseline's CPU time.
        "_seconds": {
            "self-hosted": (_call_seconds(items), _call_seconds(infra)),
            "compute": (_cpu_seconds(items), _cpu_seconds(infra)),
        },
        "infra_excluded_unpriced_calls": sum(
            unpriced_call(c) for r in infra for c in r.get("calls") or []
        ),
        "grading_cost_by_revision": grading_cost_by_revision(grades),
        "grading_cost_usd": sum(
            (judge_usd(live[i]) for i in (r["run_id"] for r in items) if i in live), Decimal(0)
        ),
        "cost_basis": _cost_basis(items, is_reference),
        "billed": billed_figures(items),
        "diagnostics": {
            name: pairwise_sum(values) / len(values) for name, values in sorted(diagnostics.items())
        },
        "_simulated": sum(bool(r.get("simulated")) for r in runs),
        "_datasets": sorted({str(r.get("dataset_hash")) for r in items}),
        "_rubrics": sorted(
            {
                str(live[r["run_id"]]["judge"]["rubric_hash"])
                for r in items
                if r["run_id"] in live
                and (live[r["run_id"]].get("judge") or {}).get("rubric_hash") is not None
            }
        ),
        "_graders": sorted(
            {
                str(live[r["run_id"]]["grader_hash"])
                for r in items
                if r["run_id"] in live and live[r["run_id"]].get("grader_hash")
            }
        ),
        # For the routing verdict: (item, outcome, spend as a double), in item order.
        "_items": [
            (r["item_id"], o, float(c)) for r, o, c in zip(items, outcomes, spends, strict=True)
        ],
        "_protocol": protocol_figures(items, outcomes, live, same_family),
        "qualifying": bool(
            n > 0
            and missing == 0
            and graded == n
            and n >= STANDARD_N
            and pass_rate is not None
            and pass_rate >= QUALITY_BAR
            and protocol_met
            and not (
                judged_cell and protocol_figures(items, outcomes, live, same_family)["_conditions"]
            )
        ),
    }


# --------------------------------------------------------------------------------------------
# The manual arm (manual-arm.md): an analyst's cell, priced from its recorded sitting
# --------------------------------------------------------------------------------------------

MANUAL = ("manual", "by-hand")
SECONDS_PER_HOUR = Decimal(3600)


def manual_sittings(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Every `manual/<workload>/sitting-<n>.json`, by workload, in sitting order."""
    found: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for path in sorted(folder.glob("manual/*/sitting-*.json")):
        number = path.stem[len("sitting-") :]
        if number.isdigit():
            doc = json.loads(path.read_text(encoding="utf-8"))
            found.setdefault(path.parent.name, []).append((int(number), doc))
    return {w: [doc for _n, doc in sorted(found[w], key=lambda p: p[0])] for w in found}


def _exact_seconds(value: Any) -> Decimal:
    return Decimal(repr(float(value)))


def manual_figures(
    key: tuple[str, str, str],
    runs: Sequence[dict[str, Any]],
    grades: Sequence[dict[str, Any]],
    sittings: Sequence[dict[str, Any]],
    **options: Any,
) -> dict[str, Any]:
    """A manual cell: the latest recorded sitting's records figured like any cell, then its
    itemised cost: human time = counted seconds × hourly rate ÷ 3600 (1e-12, half-even), one
    line per tool, total unknown when any line is; CPO = total ÷ passes; the bootstrap's item
    cost = its seconds × rate ÷ 3600 + an equal share of the tool lines."""
    sitting = sittings[-1]
    latest = int(sitting["sitting"])
    own = [r for r in runs if r["sitting"] == latest]
    figures = cell_figures(key, own, grades, **options)
    figures["sitting"], figures["other_sittings"] = latest, len(sittings) - 1
    void = bool(sitting.get("void_reasons"))
    items = counted_attempts(own)
    n = len(items)
    counted = sum((_exact_seconds(r["latency_s"]) for r in items), Decimal(0))
    known = n > 0 and not void
    rate = sitting.get("hourly_rate_usd")
    rate = None if rate is None else money(rate)
    human = exact_time_cost(counted, rate) if known and rate is not None else None
    tools = sitting.get("tool_costs") or []
    lines = [human] + [None if t["usd"] == "unknown" else money(t["usd"]) for t in tools]
    known_lines = [v for v in lines if v is not None]
    total = None if len(known_lines) < len(lines) else sum(known_lines, Decimal(0))
    passes = figures["passes"]
    settled = figures["pass_rate"] is not None
    figures["spend_usd"] = sum(known_lines, Decimal(0))
    figures["cpo_usd"] = (
        quantize(total / passes) if total is not None and settled and passes else None
    )
    figures["cost_per_attempt_usd"] = quantize(total / n) if total is not None and n else None
    boot = None
    if total is not None and settled and n:
        share = (total - (human or Decimal(0))) / Decimal(n)
        costs = [
            float(_exact_seconds(r["latency_s"]) * (rate or Decimal(0)) / SECONDS_PER_HOUR + share)
            for r in items
        ]
        passed = [o == "pass" for _i, o, _c in figures["_items"]]
        boot = bootstrap_cpo(options["seed"], ("cpo", *key), costs, passed, options["reps"])
    figures["cpo_ci"] = (
        None
        if boot is None
        else {"lo": boot[0], "hi": boot[1], "method": "bootstrap-percentile-95"}
    )
    figures["cpo_ci_dropped_share"] = None if boot is None else boot[2]
    figures["cost_basis"] = "manual"
    figures["qualifying"] = figures["qualifying"] and not void
    figures["_manual"] = {
        "hours": None if not known else counted / SECONDS_PER_HOUR,
        "total_usd": total,
        "human_usd": human,
        "void_reasons": list(sitting.get("void_reasons") or []),
        # What re-pricing needs (repricing.md, "The manual arm"): present when the human-time
        # line is known; the tool lines, which do not scale with the hourly rate.
        "time_priced": None
        if human is None
        else {
            "basis": "manual",
            "hour_usd": rate,
            "seconds": counted,
            "rounding_usd": Decimal(0),
            "infra_excluded_seconds": Decimal(0),
            "infra_excluded_rounding_usd": Decimal(0),
            "fixed_usd": sum((v for v in lines[1:] if v is not None), Decimal(0)),
            **(
                {"unknown_lines": [f"tool: {t['tool']}" for t in tools if t["usd"] == "unknown"]}
                if any(t["usd"] == "unknown" for t in tools)
                else {}
            ),
        },
    }
    return figures


def exact_time_cost(seconds: Decimal, hour: Decimal) -> Decimal:
    """Seconds × an hourly rate ÷ 3600, rounded half-even to 1e-12 USD once, with digits enough
    (80) that nothing is rounded before (the manual arm's human-time line, re-pricing)."""
    with localcontext() as ctx:
        ctx.prec = 80
        return quantize(seconds * hour / SECONDS_PER_HOUR)


# --------------------------------------------------------------------------------------------
# Call costs: usage × the frozen prices
# --------------------------------------------------------------------------------------------

MILLION = Decimal(1_000_000)


def _microseconds(seconds: float) -> Decimal:
    """A float time rounded to the microsecond, half-even on its exact binary value (as
    Python's round(x, 6) does)."""
    return Decimal(seconds).quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)


def per_hour(seconds: float, hour_usd: Decimal) -> Decimal:
    return quantize(_microseconds(seconds) * hour_usd / Decimal(3600))


def token_cost(usage: dict[str, Any], price: dict[str, Any]) -> Decimal:
    def p(name: str) -> Decimal | None:
        value = price.get(name)
        return None if value is None else money(value)

    base = p("input_per_mtok")
    cached, write, reasoning = (
        p("cached_input_per_mtok"),
        p("cache_write_per_mtok"),
        p("reasoning_per_mtok"),
    )
    assert base is not None
    out_price = p("output_per_mtok")
    assert out_price is not None
    u = {k: int(usage.get(k, 0) or 0) for k in _USAGE_FIELDS.values()}
    visible = u["output_tokens"] - (u["reasoning_tokens"] if reasoning is not None else 0)
    total = (
        u["input_tokens"] * base
        + u["cached_input_tokens"] * (cached if cached is not None else base)
        + u["cache_write_tokens"] * (write if write is not None else base)
        + visible * out_price
        + (u["reasoning_tokens"] * reasoning if reasoning is not None else 0)
    )
    return Decimal(total) / MILLION


def expected_call_cost(
    model: str, usage: dict[str, Any], latency_s: float | None, pricing: dict[str, Any]
) -> tuple[Decimal, Decimal] | str:
    """(model_usd, compute_usd) of one call, or why it cannot be priced."""
    hosted = (pricing.get("self_hosted") or {}).get(model)
    if hosted is not None:
        if latency_s is None:
            return "a recorded latency_s"
        return Decimal(0), per_hour(float(latency_s), money(hosted["hour_usd"]))
    price = (pricing.get("models") or {}).get(model)
    if price is None:
        return f"a price for {model} in pricing.yaml"
    return token_cost(usage or {}, price), Decimal(0)


def _same_cost(found: dict[str, Any] | None, expected: tuple[Decimal, Decimal]) -> bool:
    found = found or {}
    return (
        money(found.get("model_usd", "0")) == expected[0]
        and money(found.get("compute_usd", "0")) == expected[1]
    )


def check_costs(
    rel: str,
    runs: Sequence[dict[str, Any]],
    grades: Sequence[dict[str, Any]],
    pricing: dict[str, Any],
    record: Record,
) -> None:
    """Every call's cost from its usage (or server time) and the frozen prices; every run's
    cost the sum of its calls (a reference baseline's: its CPU time × the compute price)."""
    wrong: list[str] = []
    checked = 0
    for run in runs:
        calls = run.get("calls") or []
        if run.get("cost_basis") == "compute" and run["model"] not in (
            pricing.get("self_hosted") or {}
        ):
            compute = pricing.get("compute") or {}
            checked += 1
            if run.get("cpu_seconds") is None or "vcpu_hour_usd" not in compute:
                wrong.append(f"{run['run_id']}: no cpu_seconds or compute price")
                continue
            want = (
                Decimal(0),
                per_hour(float(run["cpu_seconds"]), money(compute["vcpu_hour_usd"])),
            )
            if not _same_cost(run.get("cost"), want):
                wrong.append(f"{run['run_id']}: cost {run.get('cost')} expected {want[1]} compute")
            continue
        total = [Decimal(0), Decimal(0)]
        for call in calls:
            checked += 1
            priced = expected_call_cost(
                run["model"], call.get("usage"), call.get("latency_s"), pricing
            )
            if isinstance(priced, str):
                wrong.append(f"{run['run_id']} call {call.get('step')}: needs {priced}")
                continue
            if not _same_cost(call.get("cost"), priced):
                wrong.append(
                    f"{run['run_id']} call {call.get('step')}: cost {call.get('cost')}, "
                    f"expected model_usd {priced[0]} compute_usd {priced[1]}"
                )
            total[0] += money((call.get("cost") or {}).get("model_usd", "0"))
            total[1] += money((call.get("cost") or {}).get("compute_usd", "0"))
        checked += 1
        if not _same_cost(run.get("cost"), (total[0], total[1])):
            wrong.append(
                f"{run['run_id']}: cost {run.get('cost')} is not the sum of its calls {total}"
            )
    for grade in grades:
        judge = grade.get("judge")
        while judge:
            checked += 1
            judged = expected_call_cost(
                judge["judge_model"], judge.get("usage"), judge.get("latency_s"), pricing
            )
            if isinstance(judged, str) or not _same_cost(judge.get("cost"), judged):
                wrong.append(
                    f"grade of {grade['run_id']} rev {grade['revision']} judge "
                    f"{judge['judge_model']}: cost {judge.get('cost')}, expected {judged}"
                )
            judge = judge.get("second_opinion")
    if wrong:
        record(
            "mismatched", "call costs", f"{rel}: {len(wrong)} of {checked}: " + "; ".join(wrong[:5])
        )
    elif checked:
        record("matched", "call costs", f"{rel}: {checked} costs recomputed from usage and prices")


def probe_logs(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """folder/<model>.jsonl[.gz] → the model's probe records (the gzip when both are there)."""
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.jsonl*")) if folder.is_dir() else []:
        if path.name.endswith(".jsonl.gz") or path.name.endswith(".jsonl"):
            model = path.name.split(".jsonl")[0]
            if model not in found or path.name.endswith(".gz"):
                found[model] = path
    return {model: list(read_jsonl(path)) for model, path in sorted(found.items())}


def probe_spend(folder: Path, pricing: dict[str, Any]) -> list[dict[str, Any]]:
    """Each model's tools probe spend (figures.md, "Tools probe spend"): every call of every
    probe priced afresh at the frozen prices, summed exactly; the costs the records state are
    not read."""
    spent = []
    for model, probes in probe_logs(folder / "probes").items():
        calls = [call for probe in probes for call in probe.get("calls") or []]
        total = Decimal(0)
        for call in calls:
            priced = expected_call_cost(model, call.get("usage"), call.get("latency_s"), pricing)
            if isinstance(priced, str):
                raise InputProblem(f"{folder}/probes/{model}: a probe call needs {priced}")
            total += priced[0] + priced[1]
        spent.append({"model": model, "probes": len(probes), "calls": len(calls), "usd": total})
    return spent


def compare_probe_spend(
    name: str, published: dict[str, Any], fresh: list[dict[str, Any]], record: Record
) -> None:
    """The file's `probe_spend` against the recomputed one, model by model (money as decimals;
    a file without the field publishes none, which is right only for an edition without
    probes)."""
    found = {p.get("model"): p for p in published.get("probe_spend") or []}
    wanted = {p["model"]: p for p in fresh}
    for model in sorted(set(found) | set(wanted), key=str):
        have, want = found.get(model), wanted.get(model)
        ok = (
            have is not None
            and want is not None
            and have.get("probes") == want["probes"]
            and have.get("calls") == want["calls"]
            and money(have.get("usd")) == want["usd"]
        )
        record(
            "matched" if ok else "mismatched",
            "tools probe spend",
            f"{name}: probe_spend of {model}: expected {_spent_text(want)}, found "
            f"{_spent_text(have)}",
        )


def _spent_text(spent: dict[str, Any] | None) -> str:
    if spent is None:
        return "none"
    return f"${spent.get('usd')} ({spent.get('probes')} probes, {spent.get('calls')} calls)"


# --------------------------------------------------------------------------------------------
# Comparing with the published files
# --------------------------------------------------------------------------------------------

# A withdrawn figure takes the figures derived from it along (figures.md, "Withdrawn figures").
WITHDRAWN_WITH = {
    "pass_rate": ("pass_rate_ci",),
    "cpo_usd": ("cpo_ci",),
    "spend_usd": ("cpo_usd", "cpo_ci", "cost_per_attempt_usd"),
}

# The checks, each a group of a cell's fields (one line per cell and group).
CELL_CHECKS = {
    "cell attempts": (
        "sitting",
        "other_sittings",
        "n",
        "completed",
        "model_failures",
        "missing",
        "truncated",
        "context_exceeded",
        "pending_judge",
    ),
    "cell pass rate": ("passes", "pass_rate", "pass_rate_ci"),
    "cell spend": ("spend_usd", "cost_per_attempt_usd"),
    "cell CPO": ("cpo_usd",),
    "cell CPO interval": ("cpo_ci", "cpo_ci_dropped_share"),
    "cell tokens": ("tokens",),
    "cell latency": ("latency_median_s", "latency_p90_s"),
    "cell infra exclusions": (
        "infra_excluded_attempts",
        "infra_excluded_usd",
        "infra_excluded_unpriced_calls",
    ),
    "cell re-pricing totals": ("infra_excluded_tokens", "time_priced"),
    "cell grading cost": ("grading_cost_usd", "grading_cost_by_revision"),
    "cell cost basis": ("cost_basis",),
    "cell qualifying": ("qualifying",),
    "cell diagnostics": ("diagnostics",),
}


# Fields today's results omit when empty (older files never had them): in a file written by
# today's toolchain (not the sealed results.json), an absent one reads as this default.
OMITTED_WHEN_EMPTY: dict[str, Any] = {
    "infra_excluded_unpriced_calls": 0,
    "grading_cost_by_revision": [],
}


def _plain(value: Any) -> Any:
    """A recomputed value in the form results.json writes it (money as a decimal string)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def same(found: Any, expected: Any) -> bool:
    """Equal as published: money compared as decimal numbers, floats exactly."""
    if isinstance(expected, Decimal):
        try:
            return found is not None and Decimal(str(found)) == expected
        except ArithmeticError:
            return False
    if isinstance(expected, dict):
        return (
            isinstance(found, dict)
            and set(found) == set(expected)
            and all(same(found[k], v) for k, v in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(found, list)
            and len(found) == len(expected)
            and all(same(f, e) for f, e in zip(found, expected, strict=True))
        )
    if isinstance(expected, str):
        return spelled(found) == expected
    if isinstance(expected, bool) or expected is None:
        return found is expected or found == expected
    if isinstance(expected, float):
        return isinstance(found, (int, float)) and float(found) == expected
    return found == expected


@dataclass
class Withdrawal:
    erratum: str
    fields: set[str]


def withdrawals(errata: dict[str, Any] | None) -> dict[tuple[str, str, str], Withdrawal]:
    """Cells an erratum withdraws figures of (a figure whose `new` is null), with the fields
    withdrawn and those derived from them."""
    found: dict[tuple[str, str, str], Withdrawal] = {}
    for entry in (errata or {}).get("entries") or []:
        for fig in entry.get("figures") or []:
            if fig.get("new") is not None:
                continue
            key = (fig.get("workload"), fig.get("model"), fig.get("mode"))
            held = found.setdefault(key, Withdrawal(str(entry["id"]), set()))
            held.fields.add(fig["field"])
            held.fields.update(WITHDRAWN_WITH.get(fig["field"], ()))
    return found


def corrections_by_figure(errata: dict[str, Any] | None) -> dict[tuple[Any, ...], str]:
    """(workload, model, mode, field) → the id of the erratum that names that figure."""
    named: dict[tuple[Any, ...], str] = {}
    for entry in (errata or {}).get("entries") or []:
        for fig in entry.get("figures") or []:
            key = (fig.get("workload"), fig.get("model"), fig.get("mode"))
            for name in (fig["field"], *WITHDRAWN_WITH.get(fig["field"], ())):
                named[(*key, name)] = str(entry["id"])
    return named


def _withdrawn_match(key: tuple[str, str, str], table: dict[tuple[Any, ...], Any]) -> Any:
    workload, model, mode = key
    for candidate in (
        (workload, model, mode),
        (workload, model, None),
        (workload, None, None),
        (None, model, mode),
        (None, model, None),
        (None, None, None),
    ):
        if candidate in table:
            return table[candidate]
    return None


def rate_line(cell: dict[str, Any] | None, volume: int) -> dict[str, Any] | None:
    if cell is None or cell.get("cpo_usd") is None or cell.get("pass_rate") is None:
        return None
    cpo = Decimal(str(cell["cpo_usd"]))
    return {
        "model": cell["model"],
        "mode": cell["mode"],
        "cpo_usd": cpo,
        "rate_usd": (cpo * volume).quantize(RATE_QUANTUM, rounding=ROUND_HALF_EVEN),
        "pass_rate": cell["pass_rate"],
        "pass_rate_ci": cell["pass_rate_ci"],
        "cost_basis": cell["cost_basis"],
    }


def _rank(cell: dict[str, Any]) -> tuple[Any, ...]:
    priced = cell.get("cpo_usd") is not None
    return (
        0 if priced else 1,
        Decimal(str(cell["cpo_usd"])) if priced else Decimal(0),
        -(cell.get("pass_rate") or 0.0),
        cell["model"],
        cell["mode"],
    )


def workload_lines(
    cells: Sequence[dict[str, Any]], flagships: set[str], volume: int, modes: set[str]
) -> dict[str, Any]:
    """Cheapest qualifying, the headline flagship, the reference line, the frontier premium
    and the agentic multipliers of one workload (figures.md, "Rate lines")."""
    usable = [c for c in cells if not c.get("void") and c["n"] > 0]
    ranked = sorted((c for c in usable if c["qualifying"] and not c["is_reference"]), key=_rank)
    cheapest = ranked[0] if ranked and ranked[0].get("cpo_usd") is not None else None
    best: dict[str, dict[str, Any]] = {}
    for c in sorted(usable, key=lambda c: (0 if c["qualifying"] else 1, _rank(c))):
        if c["model"] in flagships and not c["is_reference"]:
            best.setdefault(c["model"], c)
    own = sorted(best.values(), key=lambda c: (0 if c["qualifying"] else 1, _rank(c)))
    flagship = own[0] if own else None
    refs = sorted((c for c in usable if c["is_reference"]), key=_rank)
    reference = refs[0] if refs and refs[0].get("cpo_usd") is not None else None
    premium = None
    if flagship is not None and cheapest is not None:
        a, b = flagship.get("cpo_usd"), cheapest.get("cpo_usd")
        if a is not None and b is not None and Decimal(str(b)) != 0:
            premium = float(Decimal(str(a)) / Decimal(str(b)))
    multipliers: dict[str, float | None] = {}
    if {"single-shot", "agentic"} <= modes:
        arms: dict[str, dict[str, dict[str, Any]]] = {}
        for c in cells:
            if not c["is_reference"]:
                arms.setdefault(c["model"], {})[c["mode"]] = c
        for model, pair in sorted(arms.items()):
            ag, ss = pair.get("agentic"), pair.get("single-shot")
            value = None
            if ag is not None and ss is not None and not ag.get("void") and not ss.get("void"):
                a, b = ag.get("cpo_usd"), ss.get("cpo_usd")
                if a is not None and b is not None and Decimal(str(b)) != 0:
                    value = float(Decimal(str(a)) / Decimal(str(b)))
            multipliers[model] = value
    return {
        "_cheapest": cheapest,
        "_flagship": flagship,
        "_reference": reference,
        "cheapest_qualifying": rate_line(cheapest, volume),
        "flagship": rate_line(flagship, volume),
        "reference": rate_line(reference, volume),
        "frontier_premium": premium,
        "agentic_multiplier": multipliers,
    }


def _line_same(found: dict[str, Any] | None, expected: dict[str, Any] | None) -> bool:
    if expected is None or found is None:
        return found is None and expected is None
    return all(same(found.get(k), v) for k, v in expected.items())


ROUTING_MARGIN = 0.10


def paired_bootstrap(
    seed: int, workload: str, pairs: Sequence[tuple[float, float, float, float]], reps: int
) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """(quality difference interval, relative saving interval) of the routing verdict, from
    (challenger passed, incumbent passed, challenger cost, incumbent cost) per paired item."""
    m = len(pairs)
    draws = Pcg64([seed, digest32(f"routing|{workload}")]).integers(m, reps * m)
    diffs, savings = [], []
    for r in range(reps):
        row = [pairs[i] for i in draws[r * m : (r + 1) * m]]
        diffs.append(pairwise_sum([p[0] for p in row]) / m - pairwise_sum([p[1] for p in row]) / m)
        spent_i = pairwise_sum([p[3] for p in row])
        if spent_i > 0:
            savings.append(1 - pairwise_sum([p[2] for p in row]) / spent_i)
    diffs.sort()
    savings.sort()
    quality = (percentile_linear(diffs, 2.5), percentile_linear(diffs, 97.5))
    if not savings:
        return quality, None
    return quality, (percentile_linear(savings, 2.5), percentile_linear(savings, 97.5))


def routing_figures(
    seed: int,
    workload: str,
    cheapest: dict[str, Any] | None,
    flagship: dict[str, Any] | None,
    has_flagship: bool,
    reps: int,
) -> dict[str, Any]:
    """The routing verdict's recomputable part: verdict, arms, margin and both intervals (its
    reason and remedy are prose and are not compared)."""
    arms = {
        "challenger": cheapest["model"] if cheapest else None,
        "challenger_mode": cheapest["mode"] if cheapest else None,
        "incumbent": flagship["model"] if flagship else None,
        "incumbent_mode": flagship["mode"] if flagship else None,
    }
    out = {"verdict": "not-applicable", **arms, "quality_diff_ci": None, "saving_ci": None}
    if not has_flagship:
        out.update(challenger=arms["challenger"], incumbent=None, incumbent_mode=None)
        return out
    if flagship is None:
        out.update(incumbent=None, incumbent_mode=None)
        return out
    if cheapest is None:
        out.update(challenger=None, challenger_mode=None)
        return out
    protocol = flagship.get("judge_protocol")
    if (protocol and protocol.get("missing")) or cheapest["model"] == flagship["model"]:
        return out
    settled = ("pass", "fail")
    incumbent = {i: (o, c) for i, o, c in flagship["_items"] if o in settled}
    pairs = [
        (float(o == "pass"), float(incumbent[i][0] == "pass"), c, incumbent[i][1])
        for i, o, c in cheapest["_items"]
        if o in settled and i in incumbent
    ]
    if not pairs:
        out["verdict"] = "inconclusive"
        return out
    quality, saving = paired_bootstrap(seed, workload, pairs, reps)
    out["quality_diff_ci"] = {
        "lo": quality[0],
        "hi": quality[1],
        "method": "paired-bootstrap-percentile-95",
    }
    if saving is not None:
        out["saving_ci"] = {
            "lo": saving[0],
            "hi": saving[1],
            "method": "paired-bootstrap-percentile-95",
        }
    margin = ROUTING_MARGIN
    if quality[1] < -margin or (saving is not None and saving[1] < 0):
        out["verdict"] = "fail"
    elif quality[0] > -margin and saving is not None and saving[0] > 0:
        out["verdict"] = "pass"
    else:
        out["verdict"] = "inconclusive"
    return out


def flagship_premiums(
    cells: Sequence[dict[str, Any]],
    families: dict[str, str],
    cheapest: dict[str, Any] | None,
    volume: int,
) -> list[dict[str, Any]]:
    """One premium per flagship: its own best cell's CPO ÷ the cheapest-qualifying CPO."""
    usable = [c for c in cells if not c.get("void") and c["n"] > 0]
    best: dict[str, dict[str, Any]] = {}
    for c in sorted(usable, key=lambda c: (0 if c["qualifying"] else 1, _rank(c))):
        if c["model"] in families and not c["is_reference"]:
            best.setdefault(c["model"], c)
    own = sorted(best.values(), key=lambda c: (0 if c["qualifying"] else 1, _rank(c)))
    order = [c["model"] for c in own] + sorted(set(families) - set(best))
    found = []
    for model in order:
        cell = best.get(model)
        premium = None
        if cell is not None and cheapest is not None:
            premium = _ratio(cell.get("cpo_usd"), cheapest.get("cpo_usd"))
        found.append(
            {
                "model": model,
                "vendor": families[model],
                "line": rate_line(cell, volume),
                "qualifying": bool(cell is not None and cell["qualifying"]),
                "premium": premium,
            }
        )
    return found


def _ratio(a: Any, b: Any) -> float | None:
    if a is None or b is None or Decimal(str(b)) == 0:
        return None
    return float(Decimal(str(a)) / Decimal(str(b)))


def _is_reference(model: dict[str, Any]) -> bool:
    """The reference solver: `solver: reference`, or its old spelling `provider: baseline`."""
    return model.get("solver") == "reference" or model.get("provider") == "baseline"


@dataclass
class Edition:
    folder: Path
    manifest: dict[str, Any]
    pricing: dict[str, Any]
    errata: dict[str, Any] | None
    runs: dict[tuple[str, str, str], list[dict[str, Any]]]
    grades: dict[tuple[str, str, str], list[dict[str, Any]]]
    manual: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path) -> Edition:
        errata_path = folder / "errata.yaml"
        runs = {
            key: [r for r in records if r.get("kind", "registered") == "registered"]
            for key, records in cell_logs(folder / "runs").items()
        }
        return cls(
            folder=folder,
            manifest=read_yaml(folder / "edition.yaml"),
            pricing=read_yaml(folder / "pricing.yaml"),
            errata=read_yaml(errata_path) if errata_path.exists() else None,
            runs=runs,
            grades=cell_logs(folder / "grades"),
            manual=manual_sittings(folder),
        )

    @property
    def id(self) -> str:
        return str(self.manifest["id"])

    def n_of(self, workload: str) -> int:
        for entry in self.manifest.get("workloads") or []:
            if entry["id"] == workload:
                return int(entry.get("n") or STANDARD_N)
        return STANDARD_N

    def references(self) -> set[str]:
        return {m["id"] for m in self.manifest.get("models") or [] if _is_reference(m)}

    def judge_family_models(self) -> set[str]:
        """Models from the judge's vendor family (edition.yaml `judge.model`'s `family`)."""
        judge = (self.manifest.get("judge") or {}).get("model")
        models = self.manifest.get("models") or []
        family = next((str(m.get("family")) for m in models if m["id"] == judge), None)
        if family is None:
            return set()
        return {m["id"] for m in models if str(m.get("family")).casefold() == family.casefold()}

    def families(self, models: Iterable[str]) -> dict[str, str]:
        family = {m["id"]: str(m.get("family")) for m in self.manifest.get("models") or []}
        return {model: family[model] for model in models}

    def flagships(self) -> set[str]:
        refs = self.references()
        return {
            m["id"]
            for m in self.manifest.get("models") or []
            if m.get("flagship") and m["id"] not in refs
        }


def recompute(
    edition: Edition, published: dict[str, Any], reps: int
) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
    """Every listed cell's figures, by workload then (model, mode), from the logs."""
    seed = edition_seed(edition.id)
    refs = edition.references()
    out: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for workload in published.get("workloads") or []:
        wid = workload["workload"]
        cells: dict[tuple[str, str], dict[str, Any]] = {}
        for cell in workload.get("cells") or []:
            key = (wid, cell["model"], cell["mode"])
            protocol = cell.get("judge_protocol")
            options: dict[str, Any] = dict(
                n_expected=edition.n_of(wid),
                is_reference=cell["model"] in refs,
                seed=seed,
                reps=reps,
                protocol_met=not (protocol and protocol.get("missing")),
                judged_cell=protocol is not None,
                same_family=cell["model"] in edition.judge_family_models(),
            )
            runs, grades = edition.runs.get(key, []), edition.grades.get(key, [])
            if (cell["model"], cell["mode"]) == MANUAL and edition.manual.get(wid):
                figures = manual_figures(key, runs, grades, edition.manual[wid], **options)
            else:
                figures = cell_figures(key, runs, grades, **options)
            figures.update(
                model=cell["model"], mode=cell["mode"], is_reference=cell["model"] in refs
            )
            figures["time_priced"] = time_priced(
                figures, cell["model"], cell["model"] in refs, edition.pricing or {}
            )
            figures["_price"] = ((edition.pricing or {}).get("models") or {}).get(cell["model"])
            cells[(cell["model"], cell["mode"])] = figures
        out[wid] = cells
    return out


def _published_cells(doc: dict[str, Any]) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
    return {
        w["workload"]: {(c["model"], c["mode"]): c for c in w.get("cells") or []}
        for w in doc.get("workloads") or []
    }


def _apply_withdrawals(
    fresh: dict[str, dict[tuple[str, str], dict[str, Any]]],
    held: dict[tuple[str, str, str], Withdrawal],
) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
    """The figures as the corrected file shows them: withdrawn ones null, never qualifying."""
    shown: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for wid, cells in fresh.items():
        shown[wid] = {}
        for (model, mode), figures in cells.items():
            figures = dict(figures)
            gone = _withdrawn_match((wid, model, mode), held)
            if gone is not None:
                for name in gone.fields:
                    if name in figures:
                        figures[name] = None
                figures["qualifying"] = False
                figures["withdrawn_by"] = gone.erratum
            shown[wid][(model, mode)] = figures
    return shown


def compare_cells(
    name: str,
    published: dict[str, Any],
    fresh: dict[str, dict[tuple[str, str], dict[str, Any]]],
    record: Record,
    explained: Callable[[tuple[str, str, str], str], str | None] = lambda key, field: None,
    *,
    today: bool = True,
) -> None:
    """One line per cell and check group: the published figures against the recomputed ones."""
    listed = _published_cells(published)
    # An omitted-when-empty field is in this file's schema when any cell of the file has it.
    has = {
        k for cells in listed.values() for c in cells.values() for k in OMITTED_WHEN_EMPTY if k in c
    }
    for wid, cells in fresh.items():
        for (model, mode), expected in cells.items():
            found = listed.get(wid, {}).get((model, mode))
            where = f"{name} {wid}/{model}/{mode}"
            if found is None:
                record("mismatched", "cell listed", f"{where}: cell missing from the file")
                continue
            if today:
                found = {**{k: v for k, v in OMITTED_WHEN_EMPTY.items() if k in has}, **found}
            if "infra_excluded_tokens" in found:
                # A file with the re-pricing totals omits `time_priced` only for a cell priced
                # by tokens; re-priced at the frozen prices, the totals give back its spend.
                found = {"time_priced": None, **found}
                again = repriced_at_frozen(found, expected.get("_price"))
                if again is not None and found.get("spend_usd") is not None:
                    ok = same(found.get("spend_usd"), again[0]) and same(
                        found.get("infra_excluded_usd"), again[1]
                    )
                    record(
                        "matched" if ok else "mismatched",
                        "cell re-priced at frozen prices",
                        f"{where}: spend {_plain(again[0])!r}, infra-excluded "
                        f"{_plain(again[1])!r} from the cell's totals"
                        + ("" if ok else f"; published {found.get('spend_usd')!r}"),
                    )
            arm, want_arm = found.get("manual"), expected.get("_manual")
            if arm is not None or want_arm is not None:
                _compare_manual(where, arm, want_arm, record)
            block = found.get("judge_protocol")
            if block:
                want = expected["_protocol"]
                wrong = [
                    f"{k}: published {block.get(k)!r}, recomputed {v!r}"
                    for k, v in want.items()
                    if not k.startswith("_") and k in block and not same(block.get(k), v)
                ]
                stated = [str(m).split(":", 1)[0] for m in block.get("missing") or []]
                if "missing" in block and stated != want["_conditions"]:
                    wrong.append(
                        f"missing states {stated!r}, the records give {want['_conditions']!r}"
                    )
                record(
                    "mismatched" if wrong else "matched",
                    "cell judge protocol",
                    f"{where}: "
                    + ("; ".join(wrong) if wrong else f"{want['judged_runs']} judged runs"),
                )
            _compare_billed(where, found.get("billed"), expected.get("billed"), record)
            for check, fields in CELL_CHECKS.items():
                wrong, notes = [], []
                for f in fields:
                    if f not in found:
                        continue  # a field this file's schema version does not have
                    if same(found[f], expected[f]):
                        continue
                    erratum = explained((wid, model, mode), f)
                    if erratum:
                        notes.append(
                            f"{f}: published {found[f]!r}, recomputed "
                            f"{_plain(expected[f])!r}: {erratum}"
                        )
                    else:
                        wrong.append(
                            f"{f}: published {found[f]!r}, recomputed {_plain(expected[f])!r}"
                        )
                if wrong:
                    record("mismatched", check, f"{where}: " + "; ".join(wrong))
                elif any(f in found for f in fields):
                    shown = ", ".join(f"{f}={_plain(expected[f])!r}" for f in fields if f in found)
                    tail = f" ({'; '.join(notes)})" if notes else ""
                    record("matched", check, f"{where}: {shown}{tail}")


def _compare_billed(
    where: str, found: dict[str, Any] | None, expected: dict[str, Any] | None, record: Record
) -> None:
    """The cell's reconciliation with the bill, when either the file or the logs have one: a
    file that leaves out what the logs hold, or states one the logs do not, is a mismatch."""
    if found is None and expected is None:
        return
    if found is None or expected is None:
        said = "states none" if found is None else "states one"
        whole = "" if expected is None else f" ({_plain(expected)!r})"
        record(
            "mismatched",
            "cell billed cost",
            f"{where}: the file {said}, the logs give {'none' if expected is None else 'one'}"
            + whole,
        )
        return
    wrong = [
        f"{k}: published {found.get(k)!r}, recomputed {_plain(v)!r}"
        for k, v in expected.items()
        if not same(found.get(k), v)
    ]
    record(
        "mismatched" if wrong else "matched",
        "cell billed cost",
        f"{where}: "
        + (
            "; ".join(wrong)
            if wrong
            else f"billed {expected['billed_usd']} against {expected['computed_usd']} computed "
            f"over {expected['calls_billed']} of {expected['calls']} calls ({expected['basis']})"
        ),
    )


def _compare_manual(
    where: str, arm: dict[str, Any] | None, want: dict[str, Any] | None, record: Record
) -> None:
    """A manual cell's block: hours, the human-time line and the total from its sitting."""
    if arm is None or want is None:
        record("mismatched", "cell manual arm", f"{where}: manual block or sitting file missing")
        return
    lines = arm.get("cost_lines") or [{}]
    pairs = (
        ("hours", arm.get("hours"), want["hours"]),
        ("human time", lines[0].get("usd"), want["human_usd"]),
        ("total_usd", arm.get("total_usd"), want["total_usd"]),
    )
    wrong = [
        f"{name}: published {found!r}, recomputed {_plain(expected)!r}"
        for name, found, expected in pairs
        if not (found is None and expected is None)
        and (found is None or expected is None or Decimal(str(found)) != expected)
    ]
    record(
        "mismatched" if wrong else "matched",
        "cell manual arm",
        f"{where}: " + ("; ".join(wrong) if wrong else f"total {_plain(want['total_usd'])!r}"),
    )


def compare_lines(
    name: str,
    published: dict[str, Any],
    fresh: dict[str, dict[tuple[str, str], dict[str, Any]]],
    edition: Edition,
    record: Record,
    held: dict[tuple[str, str, str], Withdrawal] | None = None,
    reps: int = BOOTSTRAP_REPS,
) -> dict[str, dict[str, Any]]:
    """Rate lines, premiums and multipliers of each workload, from the recomputed cells (void
    as the file states it; a line that rests on a withdrawn cell is removed, not replaced)."""
    flagships = edition.flagships()
    found_lines: dict[str, dict[str, Any]] = {}
    for workload in published.get("workloads") or []:
        wid = workload["workload"]
        listed = {(c["model"], c["mode"]): c for c in workload.get("cells") or []}
        cells = []
        for key, figures in fresh.get(wid, {}).items():
            if key == MANUAL:  # the manual arm is shown beside the models, never ranked
                continue
            cell = dict(figures)
            cell["void"] = bool(listed.get(key, {}).get("void"))
            cells.append(cell)
        modes = {c["mode"] for c in cells}
        volume = int(workload.get("volume") or 0)
        lines = workload_lines(cells, flagships, volume, modes)
        lines["routing"] = routing_figures(
            edition_seed(edition.id),
            wid,
            lines["_cheapest"],
            lines["_flagship"],
            bool(flagships),
            reps,
        )
        lines["flagship_premiums"] = flagship_premiums(
            cells, edition.families(flagships), lines["_cheapest"], volume
        )

        def gone(cell: dict[str, Any] | None, wid: str = wid) -> bool:
            return bool(
                cell is not None
                and held
                and _withdrawn_match((wid, cell["model"], cell["mode"]), held)
            )

        # A line that names a withdrawn cell is removed (not replaced by the next cell), and an
        # index that rests on a withdrawn cell's figures goes with it.
        for line, named in (
            ("cheapest_qualifying", lines["_cheapest"]),
            ("flagship", lines["_flagship"]),
            ("reference", lines.get("_reference")),
        ):
            if gone(named):
                lines[line] = None
        if gone(lines["_cheapest"]) or gone(lines["_flagship"]):
            lines["frontier_premium"] = None
        for entry in lines["flagship_premiums"]:
            line_of = entry["line"]
            if line_of is not None and gone({"model": line_of["model"], "mode": line_of["mode"]}):
                entry.update(line=None, qualifying=False)
            if gone(lines["_cheapest"]) or entry["line"] is None:
                entry["premium"] = None
        for model in list(lines["agentic_multiplier"]):
            if any(gone({"model": model, "mode": m}) for m in ("agentic", "single-shot")):
                lines["agentic_multiplier"][model] = None
        found_lines[wid] = lines
        where = f"{name} {wid}"
        for line in ("cheapest_qualifying", "flagship", "reference"):
            if line not in workload:
                continue
            ok = _line_same(workload[line], lines[line])
            record(
                "matched" if ok else "mismatched",
                f"workload {line.replace('_', ' ')}",
                f"{where}: published {_brief(workload[line])}, recomputed {_brief(lines[line])}",
            )
        routing = workload.get("routing")
        if routing is not None:
            want = lines["routing"]
            wrong = [
                f"{k}: published {routing.get(k)!r}, recomputed {v!r}"
                for k, v in want.items()
                if not same(routing.get(k), v)
            ]
            record(
                "mismatched" if wrong else "matched",
                "workload routing verdict",
                f"{where}: " + ("; ".join(wrong) if wrong else f"{want['verdict']}"),
            )
        if workload.get("flagship_premiums") is not None:
            published_premiums = workload["flagship_premiums"]
            want_premiums = lines["flagship_premiums"]
            ok = len(published_premiums) == len(want_premiums) and all(
                p.get("model") == w["model"]
                and p.get("vendor") == w["vendor"]
                and bool(p.get("qualifying")) == w["qualifying"]
                and same(p.get("premium"), w["premium"])
                and _line_same(p.get("line"), w["line"])
                for p, w in zip(published_premiums, want_premiums, strict=False)
            )
            record(
                "matched" if ok else "mismatched",
                "workload flagship premiums",
                f"{where}: published {len(published_premiums)} premiums, recomputed "
                + (", ".join(f"{w['model']}: {w['premium']!r}" for w in want_premiums) or "none"),
            )
        for index in ("frontier_premium", "agentic_multiplier"):
            if index in workload:
                ok = same(workload[index], lines[index])
                record(
                    "matched" if ok else "mismatched",
                    f"workload {index.replace('_', ' ')}",
                    f"{where}: published {workload[index]!r}, recomputed {lines[index]!r}",
                )
        for cell in workload.get("cells") or []:
            withdrawn = _withdrawn_match((wid, cell["model"], cell["mode"]), held or {})
            if withdrawn is not None and cell.get("qualifying"):
                record(
                    "mismatched",
                    "withdrawn cell qualifying",
                    f"{where}/{cell['model']}/{cell['mode']}: withdrawn by erratum "
                    f"{withdrawn.erratum} but marked qualifying",
                )
    return found_lines


def check_ratecard_csv(
    path: Path,
    lines: dict[str, dict[str, Any]],
    shown: dict[str, dict[tuple[str, str], dict[str, Any]]],
    record: Record,
    json_rows: list[dict[str, Any]] | None = None,
) -> None:
    """The rate card's CSV: per workload its cheapest-qualifying and flagship lines and a row
    per reference baseline, each with the exact CPO and the rate at the card's volume
    (CPO × volume, unrounded); a line without a rate has a reason and no figure. The card's
    JSON `lines` are the same rows."""
    import csv

    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if json_rows is not None:
        spelled = [{k: "" if v is None else str(v) for k, v in r.items()} for r in json_rows]
        same = spelled == rows
        record(
            "matched" if same else "mismatched",
            "rate card json lines",
            f"{path.with_suffix('.json').name} lines {'equal' if same else 'differ from'} the "
            f"{len(rows)} rows of {path.name}",
        )
    for row in rows:
        wid, label = row["workload"], row["line"]
        where = f"{path.name} {wid} {label}"
        if label == "by_hand":
            ok = _by_hand_row_ok(row, shown.get(wid, {}).get(MANUAL), lines.get(wid) or {})
            detail = (
                f"{where}: published CPO {row['cpo_usd'] or 'none'} ({row['reason'] or 'priced'})"
            )
            record("matched" if ok else "mismatched", "rate card csv line", detail)
            continue
        if label == "reference":
            cell = shown.get(wid, {}).get((row["model"], row["mode"]))
            cpo = None if cell is None or row["reason"] else cell.get("cpo_usd")
            if cpo is None:
                ok = cell is not None and not row["cpo_usd"] and not row["rate_usd"]
            else:
                ok = Decimal(row["cpo_usd"]) == Decimal(str(cpo)) and Decimal(
                    row["rate_usd"]
                ) == Decimal(str(cpo)) * int(row["volume"])
            detail = (
                f"{where} {row['model']}/{row['mode']}: published CPO {row['cpo_usd'] or 'none'}"
            )
            record("matched" if ok else "mismatched", "rate card csv line", detail)
            continue
        want = lines.get(wid, {}).get(label)
        if want is None:
            ok = not row["model"] and not row["cpo_usd"] and bool(row.get("reason"))
            detail = f"{where}: published {row['model'] or 'none'}, recomputed none"
        else:
            # The card states the premium on its flagship row only (publish/tables.py).
            premium = lines[wid]["frontier_premium"] if label == "flagship" else None
            ok = (
                row["model"] == want["model"]
                and row["mode"] == want["mode"]
                and Decimal(row["cpo_usd"]) == want["cpo_usd"]
                and Decimal(row["rate_usd"]) == want["cpo_usd"] * int(row["volume"])
                and float(row["pass_rate"]) == want["pass_rate"]
                and (row["premium"] == "" if premium is None else float(row["premium"]) == premium)
            )
            detail = (
                f"{where}: published {row['model']}/{row['mode']} CPO {row['cpo_usd']}, "
                f"recomputed {want['model']}/{want['mode']} CPO {want['cpo_usd']}"
            )
        record("matched" if ok else "mismatched", "rate card csv line", detail)


def _by_hand_row_ok(
    row: dict[str, str], cell: dict[str, Any] | None, lines: dict[str, Any]
) -> bool:
    """The card's by-hand row: the manual cell's CPO and rate, or a reason and no figure
    ("no manual arm recorded" when the edition has none), and `manual_ratio` = manual CPO ÷
    cheapest qualifying CPO when both qualify (manual-arm.md)."""
    if cell is None:
        return not row["model"] and not row["cpo_usd"] and row["reason"] == "no manual arm recorded"
    cpo = None if row["reason"] else cell.get("cpo_usd")
    if cpo is None:
        return not row["cpo_usd"] and not row["rate_usd"] and bool(row["reason"])
    exact = Decimal(str(cpo))
    cheapest = lines.get("cheapest_qualifying")
    ratio = (
        float(exact / Decimal(str(cheapest["cpo_usd"])))
        if cell["qualifying"] and cheapest is not None and Decimal(str(cheapest["cpo_usd"])) != 0
        else None
    )
    return (
        row["model"] == MANUAL[0]
        and row["mode"] == MANUAL[1]
        and Decimal(row["cpo_usd"]) == exact
        and Decimal(row["rate_usd"]) == exact * int(row["volume"])
        and (
            row["manual_ratio"] == ""
            if ratio is None
            else row["manual_ratio"] != "" and float(row["manual_ratio"]) == ratio
        )
    )


def _brief(line: dict[str, Any] | None) -> str:
    if line is None:
        return "none"
    return f"{line['model']}/{line['mode']} CPO {line['cpo_usd']} rate {line['rate_usd']}"


def check_void(
    name: str,
    published: dict[str, Any],
    fresh: dict[str, dict[tuple[str, str], dict[str, Any]]],
    registration: dict[str, Any] | None,
    record: Record,
) -> None:
    """A cell is void when any of its runs was simulated, when its counted runs answered a
    dataset other than the registered one, when its judge used a rubric other than the
    registered one, or when its model's two modes answered different datasets. A grade by a
    grader other than the registered one voids it too unless that grader is a published
    correction of the registered one; which corrections are accepted is not recomputed here."""
    listed = _published_cells(published)
    for wid, cells in fresh.items():
        sealed = ((registration or {}).get("workloads") or {}).get(wid)
        by_model: dict[str, set[tuple[str, ...]]] = {}
        for (model, _mode), figures in cells.items():
            if figures["_datasets"]:
                by_model.setdefault(model, set()).add(tuple(figures["_datasets"]))
        for (model, mode), figures in cells.items():
            found = listed.get(wid, {}).get((model, mode))
            if found is None or "void" not in found:
                continue
            reasons = []
            if figures["_simulated"]:
                reasons.append(f"{figures['_simulated']} simulated attempts")
            if registration is None:
                reasons.append("no registration.json")
            elif sealed is None:
                reasons.append("workload not registered")
            elif figures["n"]:
                if set(figures["_datasets"]) - {sealed.get("dataset_hash")}:
                    reasons.append("a dataset other than the registered one")
                if set(figures["_rubrics"]) - {sealed.get("rubric_hash")}:
                    reasons.append("a rubric other than the registered one")
            if len(by_model.get(model, set())) > 1:
                reasons.append("its modes answered different datasets")
            if (figures.get("_manual") or {}).get("void_reasons"):
                reasons.append("a manual sitting without its timing statement or elapsed times")
            other_grader = bool(
                sealed and figures["n"] and set(figures["_graders"]) - {sealed.get("grader_hash")}
            )
            where = f"{name} {wid}/{model}/{mode}"
            if reasons:
                ok = bool(found["void"])
                detail = f"void expected ({'; '.join(reasons)}), published void={found['void']}"
            elif found["void"]:
                # Only a grader outside the accepted revisions is left to explain it.
                ok = other_grader and all(
                    "graded by grader" in r for r in found.get("void_reasons") or []
                )
                detail = f"published void for {found.get('void_reasons')}"
            else:
                ok = True
                detail = "not void" + (
                    " (graded by a later grader revision, accepted as a published correction)"
                    if other_grader
                    else ""
                )
            record("matched" if ok else "mismatched", "cell void", f"{where}: {detail}")


# results.csv: one row per cell of the figures as shown, each column read as its type.
CSV_COLUMNS = {
    "sitting": int, "other_sittings": int, "n": int, "completed": int, "model_failures": int,
    "missing": int, "passes": int, "pending_judge": int, "pass_rate": float,
    "spend_usd": Decimal, "cpo_usd": Decimal, "cpo_ci_dropped_share": float,
    "cost_per_attempt_usd": Decimal, "latency_median_s": float, "latency_p90_s": float,
    "infra_excluded_attempts": int, "infra_excluded_usd": Decimal, "grading_cost_usd": Decimal,
    "cost_basis": str, "qualifying": bool,
}  # fmt: skip


def check_results_csv(
    path: Path, shown: dict[str, dict[tuple[str, str], dict[str, Any]]], record: Record
) -> None:
    """results.csv (pandas' CSV of the figures as shown: empty for none, True/False, floats in
    their shortest round-trip form): each row against the recomputed cell."""
    import csv

    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        expected = shown.get(row["workload"], {}).get((row["model"], row["mode"]))
        where = f"{path.name} {row['workload']}/{row['model']}/{row['mode']}"
        if expected is None:
            record("mismatched", "results csv row", f"{where}: no such cell recomputed")
            continue
        flat = dict(expected)
        for name in ("pass_rate_ci", "cpo_ci"):
            for end in ("lo", "hi"):
                flat[f"{name}_{end}"] = (expected[name] or {}).get(end)
        wrong = []
        for column, kind in {
            **CSV_COLUMNS,
            "pass_rate_ci_lo": float,
            "pass_rate_ci_hi": float,
            "cpo_ci_lo": Decimal,
            "cpo_ci_hi": Decimal,
        }.items():
            if column not in row:
                continue
            text, want = row[column], flat[column]
            if want is None:
                ok = text == ""
            elif kind is bool:
                ok = text == str(bool(want))
            elif kind is str:
                ok = spelled(text) == want
            else:
                ok = text != "" and kind(text) == kind(want)
            if not ok:
                wrong.append(f"{column}: published {text!r}, recomputed {_plain(want)!r}")
        record(
            "mismatched" if wrong else "matched",
            "results csv row",
            f"{where}: " + ("; ".join(wrong) if wrong else f"{len(CSV_COLUMNS) + 4} columns"),
        )


def _load_json(path: Path) -> Any:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputProblem(f"{path}: not JSON ({exc})") from None


def first_sealed_at(edition_data: Path, edition_id: str) -> str | None:
    """When the edition was first published: `published_at` of its published.json (on the
    site beside the data, or in the evidence bundle), else the first entry of the site's
    publication chain (publications.jsonl at the site root) for this edition."""
    published = edition_data / "published.json"
    if published.exists():
        return str(json.loads(published.read_text(encoding="utf-8"))["published_at"])
    for bundle in sorted((edition_data / "bundle").glob("*.tar.gz")):
        import tarfile

        with tarfile.open(bundle, "r:gz") as archive:
            for member in archive:
                if member.name == f"{edition_id}/published.json":
                    handle = archive.extractfile(member)
                    if handle is not None:
                        return str(json.loads(handle.read().decode("utf-8"))["published_at"])
    chain = edition_data.parent.parent / "publications.jsonl"
    if not chain.exists():
        return None
    for line in chain.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            if entry.get("edition") == edition_id:
                return str(entry.get("recorded_at"))
    return None


def _before(stamp: str, limit: str) -> bool:
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")) <= datetime.fromisoformat(
        limit.replace("Z", "+00:00")
    )


def check_corrections(
    corrected: dict[str, Any], sealed: dict[str, Any] | None, record: Record
) -> None:
    """Each correction entry of results-corrected.json states the sealed value it replaces."""
    cells = _published_cells(sealed) if sealed else {}
    for entry in corrected.get("corrections") or []:
        where = (
            f"results-corrected.json correction {entry.get('erratum')} "
            f"{entry.get('workload')}/{entry.get('model')}/{entry.get('mode')} {entry.get('field')}"
        )
        found = cells.get(entry.get("workload"), {}).get((entry.get("model"), entry.get("mode")))
        if sealed is None or found is None or entry.get("field") not in found:
            continue
        ok = found[entry["field"]] == entry.get("as_published")
        record(
            "matched" if ok else "mismatched",
            "correction as published",
            f"{where}: as_published {entry.get('as_published')!r}, sealed file "
            f"{found[entry['field']]!r}",
        )


# --------------------------------------------------------------------------- price database


def _tiered(rate: dict[str, Any] | None, total_input: int) -> Decimal | None:
    """A database rate for a call of `total_input` input tokens (methodology price-check.md)."""
    if rate is None:
        return None
    chosen = Decimal(str(rate["per_mtok"]))
    for tier in sorted(rate.get("tiers") or [], key=lambda t: int(t["above_input_tokens"])):
        if total_input > int(tier["above_input_tokens"]):
            chosen = Decimal(str(tier["per_mtok"]))
    return chosen


def database_call_cost(usage: dict[str, Any] | None, model: dict[str, Any]) -> Decimal:
    """One call's cost at the price database's published rates (methodology price-check.md)."""
    usage = usage or {}
    uncached = int(usage.get("input_tokens", 0))
    cached = int(usage.get("cached_input_tokens", 0))
    written = int(usage.get("cache_write_tokens", 0))
    output = int(usage.get("output_tokens", 0))
    reasoning = int(usage.get("reasoning_tokens", 0))
    total_input = uncached + cached + written
    rates = {
        cls: value
        for cls, rate in (model.get("database") or {}).items()
        if (value := _tiered(rate, total_input)) is not None
    }
    tokens = Decimal(0)
    plain_input = uncached
    if "cached_input" in rates:
        tokens += cached * rates["cached_input"]
    else:
        plain_input += cached
    if "cache_write" in rates:
        tokens += written * rates["cache_write"]
    else:
        plain_input += written
    tokens += plain_input * rates.get("input", Decimal(0))
    visible = output
    if "reasoning" in rates:
        tokens += reasoning * rates["reasoning"]
        visible -= reasoning
    tokens += visible * rates.get("output", Decimal(0))
    fee = model.get("per_request_usd")
    return tokens / Decimal(1_000_000) + (Decimal(str(fee)) if fee is not None else Decimal(0))


def check_price_check(edition: Edition, edition_data: Path, record: Record) -> None:
    """Re-derive each cell's costs beside the price database from the raw logs and the
    published price-database.json (methodology/1.0/price-check.md)."""
    doc = _load_json(edition_data / "price-database.json")
    if doc is None:
        record("not checked", "price database", "no price-database.json in the edition's data")
        return
    models = doc.get("models") or {}
    published = {(c["workload"], c["model"], c["mode"]): c for c in doc.get("cells") or []}
    expected_keys = set()
    for key, runs in sorted(edition.runs.items()):
        workload, model, _ = key
        if not (models.get(model) or {}).get("known"):
            continue
        expected_keys.add(key)
        sitting, _ = choose_sitting(runs, edition.n_of(workload))
        counted = counted_attempts(r for r in runs if int(r["sitting"]) == sitting)
        calls = [call for run in counted for call in run.get("calls") or []]
        spent = (money((call.get("cost") or {}).get("model_usd", 0)) for call in calls)
        ours = sum(spent, Decimal(0))
        theirs = sum(
            (database_call_cost(call.get("usage"), models[model]) for call in calls), Decimal(0)
        )
        found = published.get(key)
        name = "/".join(key)
        if found is None:
            record("mismatched", "price database", f"{name}: no cell in price-database.json")
            continue
        same_totals = (
            int(found["calls"]) == len(calls)
            and Decimal(str(found["ledgerrate_usd"])) == ours
            and Decimal(str(found["database_usd"])) == theirs
            and Decimal(str(found["difference_usd"])) == theirs - ours
        )
        record(
            "matched" if same_totals else "mismatched",
            "price database",
            f"{name}: {len(calls)} calls, LedgerRate ${ours}, database ${theirs}"
            + ("" if same_totals else f"; price-database.json says {found}"),
        )
    for key in sorted(set(published) - expected_keys):
        record("mismatched", "price database", f"{'/'.join(key)}: in price-database.json, no runs")


def check_figures(edition_data: Path, record: Record, *, reps: int = BOOTSTRAP_REPS) -> None:
    """Recompute every figure of the site's data/<edition>/ folder and compare (see the module
    docstring and methodology/1.0/figures.md). A download that cannot be read is one
    mismatch naming the file; a record lacking a field the figures need is one naming it."""
    try:
        _check_figures(Path(edition_data), record, reps)
    except InputProblem as exc:
        record("mismatched", "figures inputs", str(exc))
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        record(
            "mismatched",
            "figures inputs",
            f"{edition_data}: a record or results file lacks or misspells a field the figures "
            f"need ({type(exc).__name__}: {exc})",
        )


def _check_figures(edition_data: Path, record: Record, reps: int) -> None:
    edition = Edition.read(edition_data)
    for key in sorted(set(edition.runs) | set(edition.grades)):
        check_costs(
            "/".join(key),
            edition.runs.get(key, []),
            edition.grades.get(key, []),
            edition.pricing,
            record,
        )
    check_price_check(edition, edition_data, record)

    sealed = _load_json(edition_data / "results.json")
    corrected_doc = _load_json(edition_data / "results-corrected.json")
    current = corrected_doc["results"] if corrected_doc else sealed
    if current is None:
        record("mismatched", "results file", f"{edition_data}: no results.json to check")
        return
    fresh = recompute(edition, current, reps)
    listed = {(w, m, mode) for w, cells in fresh.items() for (m, mode) in cells}
    for key, runs in sorted(edition.runs.items()):
        if runs and key not in listed:
            record(
                "mismatched",
                "cell listed",
                f"{'/'.join(key)}: has run records but no cell in the results",
            )
    held = withdrawals(edition.errata)
    if corrected_doc is not None:
        shown = _apply_withdrawals(fresh, held)
        compare_cells("results-corrected.json", current, shown, record)
        check_void(
            "results-corrected.json",
            current,
            fresh,
            _load_json(edition_data / "registration.json"),
            record,
        )
        compare_lines("results-corrected.json", current, fresh, edition, record, held, reps)
        check_corrections(corrected_doc, sealed, record)
        if (edition_data / "results.csv").exists():
            check_results_csv(edition_data / "results.csv", shown, record)
        site = edition_data.parent.parent
        card = site / f"ratecard-{edition.id}.json"
        if card.exists():
            doc = _load_json(card)
            if isinstance(doc, list):  # cards built before 2026-12-05: the bare workloads list
                doc = {"workloads": doc}
            compare_cells(card.name, doc, shown, record)
            lines = compare_lines(card.name, doc, fresh, edition, record, held, reps)
            if card.with_suffix(".csv").exists():
                check_ratecard_csv(card.with_suffix(".csv"), lines, shown, record, doc.get("lines"))
    spent = probe_spend(edition_data, edition.pricing)
    if corrected_doc is not None:
        compare_probe_spend("results-corrected.json", current, spent, record)
    current_doc = _load_json(edition_data / "results-current.json")
    if current_doc is not None:
        compare_probe_spend("results-current.json", current_doc, spent, record)
        # The figures as recomputed today, nothing withdrawn: the file an erratum's correction
        # writes beside the sealed results.json.
        compare_cells(
            "results-current.json", current_doc, recompute(edition, current_doc, reps), record
        )
        compare_lines(
            "results-current.json",
            current_doc,
            recompute(edition, current_doc, reps),
            edition,
            record,
            reps=reps,
        )
    if sealed is None:
        return
    if "probe_spend" in sealed or (corrected_doc is None and current_doc is None):
        # A file sealed before the field existed is checked only if it carries it; the
        # corrected and current files, written by today's build, always.
        compare_probe_spend("results.json", sealed, spent, record)
    named = corrections_by_figure(edition.errata)

    def explained(key: tuple[str, str, str], field_name: str) -> str | None:
        found = _withdrawn_match(key, {k[:3]: v for k, v in named.items() if k[3] == field_name})
        return None if found is None else f"changed by erratum {found}"

    at = first_sealed_at(edition_data, edition.id)
    if at is not None:
        # The grade records the sealed file rested on: those written by its first publication.
        as_sealed = Edition(
            edition.folder,
            edition.manifest,
            edition.pricing,
            edition.errata,
            edition.runs,
            {k: [g for g in v if _before(g["graded_at"], at)] for k, v in edition.grades.items()},
            # And the manual sittings recorded by then (a later one is published later).
            {w: [s for s in v if _before(s["imported_at"], at)] for w, v in edition.manual.items()},
        )
        then = recompute(as_sealed, sealed, reps)
        compare_cells("results.json", sealed, then, record, explained, today=False)
        compare_lines("results.json", sealed, then, edition, record, reps=reps)
    else:
        now = recompute(edition, sealed, reps)
        compare_cells("results.json", sealed, now, record, explained, today=False)
        compare_lines("results.json", sealed, now, edition, record, reps=reps)
