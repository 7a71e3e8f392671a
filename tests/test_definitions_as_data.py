"""Data, not callbacks: a session with no Skipstone Python at all skips with a user-defined
index type and with a UDF mapping, from what index.json stores.

The indexes are built here; a subprocess then starts plain pyspark with only the jar and the
extension configured (it never imports skipstone nor this module), runs SQL, and reports the
JVM's skipping statistics.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import udfs  # noqa: F401  (Python workers use this interpreter)
from datasets import write_file
from geo_data import write_grid
from skipstone import MinMax, Skipstone, geo_minmax_mapping, jar_path
from user_types import LengthRange, words_table

PLAIN_SESSION = textwrap.dedent('''
    import json, sys
    from pyspark.sql import SparkSession

    jar, words, grid = sys.argv[1:4]
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.jars", jar).config("spark.sql.extensions", "io.skipstone.SkipstoneExtension")
             .getOrCreate())

    def st_contains(wkt, lat, lon):  # the user's own UDF; Skipstone's mapping is in index.json
        from shapely import wkt as w
        from shapely.geometry import Point
        return bool(w.loads(wkt).contains(Point(lon, lat)))

    spark.udf.register("st_contains", st_contains, "boolean")
    out = {"skipstone_imported": any(m.startswith("skipstone") for m in sys.modules)}
    queries = {
        "length": f"SELECT count(*) FROM parquet.`{words}` WHERE length(word) = 5",
        "contains": f"SELECT count(*) FROM parquet.`{grid}` WHERE st_contains('POLYGON((25 25, 35 25, 35 35, 25 25))', lat, lon)",
    }
    for name, sql in queries.items():
        count = spark.sql(sql).collect()[0][0]
        stats = json.loads(spark._jvm.io.skipstone.Skipstone.lastQueryStats(spark._jsparkSession))
        out[name] = {"count": count, "skipped": stats["per_dataset"][0]["files_skipped"]}
    print("RESULT " + json.dumps(out))
''')


@pytest.fixture(scope="module")
def built(spark, tmp_path_factory) -> tuple[str, str]:
    base = tmp_path_factory.mktemp("as_data")
    words = str(base / "words")
    os.makedirs(words)
    for i in range(7):
        write_file(words, i, words_table(i))
    Skipstone.for_path(spark, words).build(LengthRange("word"))
    grid = write_grid(str(base / "grid"))
    Skipstone.for_path(spark, grid).build(MinMax("lat"), MinMax("lon"), geo_minmax_mapping())
    return words, grid


@pytest.mark.files_store  # another process: it shares no in-memory catalog with this one
@pytest.mark.long  # over 9 s: make test-long runs it (CI after make test)
def test_plain_sql_session_skips_with_stored_rules(built, tmp_path):
    words, grid = built
    script = tmp_path / "plain_session.py"
    script.write_text(PLAIN_SESSION)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # no Skipstone sources
    env["PYSPARK_PYTHON"] = sys.executable
    done = subprocess.run([sys.executable, str(script), jar_path(), words, grid], env=env,
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, done.stderr[-3000:]
    result = json.loads(lines[0][len("RESULT "):])
    assert result["skipstone_imported"] is False
    assert result["length"] == {"count": 10, "skipped": 6}
    assert result["contains"] == {"count": 1, "skipped": 5}
