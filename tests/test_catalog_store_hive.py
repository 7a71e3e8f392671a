"""The catalog-table metadata store on a Hive metastore (pyspark ships Hive 2.3's client): two
publishers of one application get versions of their own, and another application, started
later on the same metastore, finds the metadata and skips with it (docs/metadata.md)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from datasets import write_clustered

# over 15 s: make test-long runs it (CI after make test), not make test
pytestmark = pytest.mark.long

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_app(command: str, base: str, root: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), os.path.join(ROOT, "tests")]))
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "catalog_store_hive_app.py"), command, base, root],
                          capture_output=True, text=True, env=env, cwd=base, timeout=600)
    found = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and found, done.stderr[-3000:]
    return json.loads(found[-1].removeprefix("RESULT "))


def test_metadata_in_the_hive_metastore_is_published_once_per_version_and_found_by_another_application(tmp_path):
    root = write_clustered(str(tmp_path / "events"))
    built = run_app("build", str(tmp_path), root)
    assert built["catalog"] == "hive"
    assert built["published"] == [2, 3]  # two racing publishers, a version each
    assert built["tables"] == ["hive_events__v1", "hive_events__v2", "hive_events__v3"]
    queried = run_app("query", str(tmp_path), root)
    assert queried == {"rows": 11, "skipped": 9, "version": 3, "store": "catalog:default.hive_events"}
