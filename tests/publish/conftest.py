"""The small published edition of tests/verify, for the tests of what publishing writes."""

from tests.verify.conftest import edition_copy, published_edition  # noqa: F401 (fixtures)
