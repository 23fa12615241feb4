"""Shared wire helpers: Retry-After, argument parsing, error classification."""

from __future__ import annotations

import datetime as dt

import pytest

from ledgerrate.providers.base import InfraError, RateLimited
from ledgerrate.providers.wire import (
    ConfigError,
    ErrorDetail,
    MalformedToolCall,
    classify,
    merge_sampling,
    parse_arguments,
    parse_duration,
    parse_retry_after,
)

NOW = dt.datetime(2026, 7, 1, 12, 0, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "5"}, 5.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"retry-after": "Wed, 01 Jul 2026 12:00:30 GMT"}, 30.0),
        ({"retry-after": "Wed, 01 Jul 2026 11:00:00 GMT"}, 0.0),  # past: no wait, not negative
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the precise one wins
        ({"retry-after": "-3"}, None),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == seconds


@pytest.mark.parametrize(
    ("text", "seconds"), [("46s", 46.0), ("0.5s", 0.5), ("46", None), (46, None), ("xs", None)]
)
def test_parse_duration(text: object, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [({"a": 1}, {"a": 1}), ('{"a": 1}', {"a": 1}), ("", {}), ("  ", {}), (None, {})],
)
def test_parse_arguments(raw: object, parsed: dict[str, object]) -> None:
    assert parse_arguments("t", raw) == parsed


@pytest.mark.parametrize("raw", ['{"a": ', "[1, 2]", '"text"', 7])
def test_malformed_arguments(raw: object) -> None:
    with pytest.raises(MalformedToolCall):
        parse_arguments("t", raw)


@pytest.mark.parametrize(
    ("status", "detail", "cls"),
    [
        (429, ErrorDetail("slow down"), RateLimited),
        (429, ErrorDetail("billing", quota_exhausted=True), ConfigError),
        (408, ErrorDetail("timeout"), InfraError),
        (500, ErrorDetail("boom"), InfraError),
        (502, ErrorDetail("bad gateway"), InfraError),
        (529, ErrorDetail("overloaded"), InfraError),
        (400, ErrorDetail("bad request"), ConfigError),
        (401, ErrorDetail("bad key"), ConfigError),
        (403, ErrorDetail("forbidden"), ConfigError),
        (404, ErrorDetail("no model"), ConfigError),
    ],
)
def test_classify(status: int, detail: ErrorDetail, cls: type[Exception]) -> None:
    err = classify("openai", status, detail, {}, raw={"x": 1})
    assert type(err) is cls
    assert err.status == status
    assert err.raw == {"x": 1}
    assert detail.message in str(err)


def test_classify_prefers_header_over_body_hint() -> None:
    hinted = ErrorDetail("slow", retry_after=40.0)
    with_header = classify("gemini", 429, hinted, {"retry-after": "2"}, raw=None)
    without = classify("gemini", 429, hinted, {}, raw=None)
    assert isinstance(with_header, RateLimited) and with_header.retry_after == 2.0
    assert isinstance(without, RateLimited) and without.retry_after == 40.0


def test_merge_sampling() -> None:
    base = {"model": "m", "temperature": 1}
    assert merge_sampling(base, {"temperature": 0}, frozenset({"model"})) == {
        "model": "m",
        "temperature": 0,
    }
    with pytest.raises(ConfigError, match="model"):
        merge_sampling(base, {"model": "other"}, frozenset({"model"}))
