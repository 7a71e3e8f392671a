"""The managed-table suite (tests/stores/table_suite.py) on local disk, at `file:` URIs.

`make test` runs it without the slow tests (processes racing and killed, SQL writes, compaction,
concurrent appends, writers killed at failpoints), which tests/table/ and tests/sql/ prove on local
disk too (test_crash_safety, test_append, test_sql_optimize, test_sql_table_writes);
SKIPSTONE_SLOW_STORE_TESTS=1 runs them.
"""
from __future__ import annotations

import os
import uuid

import pytest

from stores import table_suite
from stores.table_suite import *  # noqa: F401,F403 - the suite's tests and fixtures

if os.environ.get("SKIPSTONE_SLOW_STORE_TESTS") != "1":
    table_suite.without_slow_tests(globals(), "slow; tests/table and tests/sql prove it on local disk (SKIPSTONE_SLOW_STORE_TESTS=1 runs it)")


@pytest.fixture(scope="module")
def store_root(tmp_path_factory):
    base = tmp_path_factory.mktemp("local_store")
    return lambda name: f"file:{base / uuid.uuid4().hex / name}"
