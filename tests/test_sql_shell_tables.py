"""A managed table's whole life from a `spark-sql` shell with only the jar (no Python driver):
created with CREATE TABLE ... USING skipstone LAYOUT ... AS SELECT, appended to with INSERT INTO,
rewritten by OPTIMIZE under another layout, read by name and by version, vacuumed."""
from __future__ import annotations

import os
import subprocess

import pytest

from skipstone import EXTENSION_CLASS, jar_path
from tests.test_sql_shell import spark_sql

# over 15 s: make test-long runs it (CI after make test), not make test
pytestmark = pytest.mark.long


@pytest.mark.skipif(spark_sql() is None, reason="pyspark's spark-sql script is not installed")
def test_a_managed_table_from_create_to_vacuum_with_only_the_jar(tmp_path):
    location = tmp_path / "events"
    script = f"""
CREATE TABLE events USING skipstone LAYOUT KD BY (k, cat) OPTIONS (blockRows 250) LOCATION '{location}'
  AS SELECT id AS k, concat('c', id % 5) AS cat, id * 2 AS v FROM range(2000);
INSERT INTO events SELECT id + 2000, 'c9', 0 FROM range(100);
OPTIMIZE events ZORDER BY (k, v);
SELECT 'rows', count(*), sum(k) FROM events;
SELECT 'match', count(*) FROM events WHERE k BETWEEN 100 AND 149 AND cat = 'c1';
SELECT 'v1', count(*) FROM events VERSION AS OF 1;
ALTER TABLE events SET TBLPROPERTIES ('vacuum.retentionCheck' = 'false', 'vacuum.retentionHours' = '0');
SELECT 'ops', concat_ws(',', collect_list(operation)) FROM (SELECT operation FROM skipstone_versions('{location}') ORDER BY version);
VACUUM events;
SELECT 'files', count(*) FROM skipstone_files('{location}');
"""
    (tmp_path / "life.sql").write_text(script)
    import pyspark

    env = dict(os.environ, SPARK_HOME=os.path.dirname(pyspark.__file__))  # the pip install's Spark, no Python driver
    done = subprocess.run(
        [spark_sql(), "--master", "local[1]", "--jars", jar_path(), "--conf", f"spark.sql.extensions={EXTENSION_CLASS}",
         "--conf", "spark.ui.enabled=false", "--conf", f"spark.sql.warehouse.dir={tmp_path / 'warehouse'}",
         "-f", str(tmp_path / "life.sql")],
        capture_output=True, text=True, timeout=600, cwd=str(tmp_path), env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    lines = {line.split("\t")[0]: line.split("\t")[1:] for line in done.stdout.splitlines() if "\t" in line}
    assert lines["rows"] == ["2100", str(sum(range(2000)) + sum(range(2000, 2100)))]
    assert lines["match"] == ["10"]
    assert lines["v1"] == ["2000"]
    assert lines["ops"] == ["CREATE,APPEND,OPTIMIZE,SET PROPERTIES"]  # the operation as the log names it
    # the vacuum deleted the files OPTIMIZE replaced: the root holds the newest version's files only
    on_disk = [p for p in os.listdir(location) if p.endswith(".parquet")]
    assert len(on_disk) == int(lines["files"][0])
    assert any("\tdata\t" in line for line in done.stdout.splitlines())  # VACUUM's rows: path, kind, size
