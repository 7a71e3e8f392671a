"""A Skipstone session whose ``spark.sql.extensions`` lists Skipstone before Delta (the test
sessions list Delta first): run by test_delta_extension_order.py in a process of its own, since
extensions are fixed when a SparkContext's first session starts.

    SKIPSTONE_TEST_CONF='{...}' python tests/sources/delta_other_order.py TABLE_DIR

Prints one JSON object: the rows of a point lookup with skipping off and on, what was skipped,
and the number of files after Delta's OPTIMIZE.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python"))

import skipstone  # noqa: E402
from skipstone import BloomFilter, Skipstone  # noqa: E402


def main(path: str) -> None:
    from pyspark.sql import SparkSession

    conf = json.loads(os.environ["SKIPSTONE_TEST_CONF"])
    delta = [e for e in conf.pop("spark.sql.extensions").split(",") if e]
    builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
    for key, value in conf.items():
        builder = builder.config(key, value)
    builder = builder.config("spark.sql.extensions", ",".join([skipstone.EXTENSION_CLASS, *delta]))
    spark = skipstone.configure(builder).getOrCreate()
    spark.conf.set("spark.databricks.delta.properties.defaults.enableDeletionVectors", "true")
    for i in range(4):
        (spark.createDataFrame([(k,) for k in range(400) if k % 4 == i], "k int").repartition(1)
         .write.format("delta").mode("append").save(path))
    Skipstone.for_path(spark, path, format="delta").build(BloomFilter("k"))
    spark.sql(f"DELETE FROM delta.`{path}` WHERE k = 41")
    query = f"SELECT k FROM delta.`{path}` WHERE k IN (41, 45) ORDER BY k"
    spark.conf.set("spark.skipstone.enabled", "false")
    off = [r.k for r in spark.sql(query).collect()]
    spark.conf.set("spark.skipstone.enabled", "true")
    on = [r.k for r in spark.sql(query).collect()]
    (stats,) = skipstone.last_query_stats(spark).per_dataset
    spark.sql(f"OPTIMIZE delta.`{path}`").collect()
    files = spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0].numFiles
    print(json.dumps({"extensions": spark.conf.get("spark.sql.extensions"), "off": off, "on": on,
                      "skipped": stats.files_skipped, "total": stats.files_total, "files_after_optimize": files}))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
