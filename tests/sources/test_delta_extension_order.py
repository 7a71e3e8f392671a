"""The order of ``spark.sql.extensions`` does not matter: with Skipstone listed before Delta,
Delta's planning (deletion vectors) and statements (OPTIMIZE, DESCRIBE DETAIL) are intact and
Skipstone still skips. The test sessions list Delta first; this runs the other order in a
process of its own (delta_other_order.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from delta_tables import require_delta

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "delta_other_order.py")


def test_skipstone_listed_before_delta_skips_and_keeps_deltas_behaviour(spark, tmp_path):
    require_delta(spark)
    run = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "t")], capture_output=True, text=True,
                         env=dict(os.environ, PYSPARK_PYTHON=sys.executable), timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])

    assert result["extensions"].index("io.skipstone") < result["extensions"].index("io.delta")
    assert result["off"] == result["on"] == [45]
    assert (result["total"], result["skipped"]) == (4, 3)
    assert result["files_after_optimize"] == 1
