"""One Spark application on a Hive metastore (embedded Derby in a directory), for
tests/test_catalog_store_hive.py: `build` indexes a dataset into a catalog table and races
publishers; `query` (another application, later) finds that metadata through the metastore.
Prints one JSON line of what it saw."""
from __future__ import annotations

import json
import sys
import threading

from pyspark.sql import SparkSession

import skipstone
from skipstone import MinMax, Skipstone
from skipstone.session import jvm_entry


def session(base: str) -> SparkSession:
    builder = (SparkSession.builder.master("local[2]").appName("skipstone-hive-store")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.warehouse.dir", f"{base}/warehouse")
               .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                       f"jdbc:derby:;databaseName={base}/metastore_db;create=true")
               .config("spark.skipstone.metadataCacheTtlSeconds", "0")
               .enableHiveSupport())
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def build(spark: SparkSession, root: str) -> dict:
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"), metadata_store="catalog:default.hive_events")
    entry, jsession = jvm_entry(spark), spark._jsparkSession
    _, _, definition = ds._current()
    published: list[int] = []

    def publisher() -> None:
        staging = entry.newStagingDir(jsession, ds.root)
        spark.table("default.hive_events__v1").coalesce(1).write.parquet(staging + "/table")
        published.append(int(entry.publish(jsession, ds.root, staging, json.dumps(definition))))

    threads = [threading.Thread(target=publisher) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"published": sorted(published), "catalog": spark.conf.get("spark.sql.catalogImplementation"),
            "tables": sorted(t.name for t in spark.catalog.listTables("default"))}


def query(spark: SparkSession, root: str) -> dict:
    rows = spark.sql(f"SELECT k FROM parquet.`{root}` WHERE k BETWEEN 250 AND 260").collect()
    stats = skipstone.last_query_stats(spark)
    (described,) = Skipstone.for_path(spark, root).describe().collect()
    return {"rows": len(rows), "skipped": stats.files_skipped, "version": described.version,
            "store": described.metadata_dir}


if __name__ == "__main__":
    command, base, root = sys.argv[1:4]
    spark = session(base)
    try:
        print("RESULT " + json.dumps((build if command == "build" else query)(spark, root)))
    finally:
        spark.stop()
