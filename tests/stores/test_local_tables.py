"""The managed-table suite (tests/stores/table_suite.py) on local disk, at `file:` URIs.

`make test` runs it without the slow tests (processes of their own racing and killed, which
tests/table/test_crash_safety.py covers on local disk too); SKIPSTONE_SLOW_STORE_TESTS=1 runs them.
"""
from __future__ import annotations

import os
import uuid

import pytest

from stores import table_suite
from stores.table_suite import *  # noqa: F401,F403 - the suite's tests and fixtures

if os.environ.get("SKIPSTONE_SLOW_STORE_TESTS") != "1":
    table_suite.without_slow_tests(globals(), "slow on local disk: SKIPSTONE_SLOW_STORE_TESTS=1 runs it")


@pytest.fixture(scope="module")
def store_root(tmp_path_factory):
    base = tmp_path_factory.mktemp("local_store")
    return lambda name: f"file:{base / uuid.uuid4().hex / name}"
