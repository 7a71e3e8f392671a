"""A Skipstone application as a user submits it: ``spark-submit --jars skipstone.jar --conf
spark.sql.extensions=io.skipstone.SkipstoneExtension --py-files skipstone.zip cluster_app.py OUT``.

Everything Spark-side comes from spark-submit (master, jar, extension, Python files). It builds
indexes whose roles run Python on the executors and indexes from SQL, compares queries with
skipping on and off,
creates and optimizes a managed table, and writes what it saw to OUT/report.json for the test.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import skipstone
from skipstone import Formatted, MinMax, Role, Rule, RuleIndex, Skipstone
from skipstone.layout import Amoeba, AmoebaAdaptive

AGENTS = ["Firefox", "Chrome", "Safari", "Edge", "Opera", "Brave"]


def agent(user_agent: str | None) -> str | None:
    """A Python UDF queries call; Formatted indexes its values per file (computed on executors)."""
    return None if user_agent is None else user_agent.split("/")[0]


def initials(rows: Any) -> list[str]:
    """A per-file role: a Python function over each file's rows, run by a pandas UDF on executors."""
    return sorted({w[:1] for w in rows.iloc[:, 0].dropna()})


@dataclass(frozen=True)
class Initials(RuleIndex):
    column: str
    kind: ClassVar[str] = "initials"
    metadata: ClassVar = (Role("letters", "array<string>", per_file=initials),)
    rules: ClassVar = (Rule("substr({col}, 1, 1) = {v}", "array_contains({letters}, {v})"),)


def rows(spark: SparkSession, sql: str) -> list[list[Any]]:
    return sorted([list(r) for r in spark.sql(sql).collect()], key=repr)


def both_ways(spark: SparkSession, sql: str) -> dict[str, Any]:
    """The query's rows with skipping off, then on, and what was skipped."""
    spark.conf.set("spark.skipstone.enabled", "false")
    plain = rows(spark, sql)
    spark.conf.set("spark.skipstone.enabled", "true")
    skipped = rows(spark, sql)
    stats = skipstone.last_query_stats(spark)
    return {"sql": sql, "plain": plain, "skipping": skipped, "files_skipped": stats.files_skipped,
            "files_total": stats.files_total}


def write_logs(spark: SparkSession, data: str) -> str:
    for block in range(6):  # one file per 1,000 ids, so each file holds one agent and one initial
        (spark.range(block * 1_000, (block + 1) * 1_000, numPartitions=1)
         .select(F.concat(F.lit(AGENTS[block]), F.lit("/"), (F.col("id") % 97).cast("string")).alias("ua"),
                 F.concat(F.lit("abcdef"[block]), F.lit("-"), (F.col("id") % 13).cast("string")).alias("word"),
                 ((F.col("id") * 7919) % 6_000).alias("n"), F.col("id"))
         .write.mode("append").parquet(data))
    return data


def main(out: str) -> None:
    spark = SparkSession.builder.appName("skipstone-cluster-test").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    # Workers register a little after the application starts (later on a busy machine): wait for
    # both executors, or the first tasks all land on one of them.
    deadline = time.monotonic() + 120
    while len(sc.statusTracker().getExecutorInfos()) < 3 and time.monotonic() < deadline:
        time.sleep(0.5)
    report: dict[str, Any] = {
        "master": sc.master,
        "jars": sc.getConf().get("spark.jars", ""),
        "extensions": sc.getConf().get("spark.sql.extensions", ""),
        "skipstone_module": skipstone.__file__,
        # one entry per executor plus the driver
        "executors": len(sc.statusTracker().getExecutorInfos()),
        "python_worker_pids": sorted(set(sc.parallelize(range(8), 8).map(lambda _: os.getppid()).collect())),
    }
    data = write_logs(spark, f"{out}/logs")
    spark.udf.register("agent", agent)
    Skipstone.for_path(spark, data).build(Formatted("ua", agent, "agent"), Initials("word"), MinMax("id"))
    report["queries"] = [both_ways(spark, sql) for sql in (
        f"SELECT ua, count(*) FROM parquet.`{data}` WHERE agent(ua) = 'Safari' GROUP BY ua",
        f"SELECT word, n FROM parquet.`{data}` WHERE substr(word, 1, 1) = 'c' AND n < 3000",
        f"SELECT count(*), sum(n) FROM parquet.`{data}` WHERE id BETWEEN 1500 AND 2400",
    )]

    # The same files indexed from SQL alone: the build runs in the driver's JVM and the executors.
    sql_data = write_logs(spark, f"{out}/sql_logs")
    spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{sql_data}` (MINMAX(id), VALUELIST(word))").collect()
    report["sql_indexes"] = [r["index"] for r in spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{sql_data}`").collect()]
    report["sql_queries"] = [both_ways(spark, sql) for sql in (
        f"SELECT word, n FROM parquet.`{sql_data}` WHERE word = 'c-5'",
        f"SELECT count(*), sum(n) FROM parquet.`{sql_data}` WHERE id BETWEEN 1500 AND 2400",
    )]

    table = f"{out}/table"
    t = Skipstone.create(spark, table, spark.read.parquet(data).select("id", "n"),
                         layout=Amoeba(block_rows=750, columns=["id", "n"]), indexes=[MinMax("n")])
    report["created_files"] = len(t.current().files)
    for limit in (200, 300, 400, 500):
        spark.sql(f"SELECT count(*) FROM parquet.`{table}` WHERE n < {limit}").collect()
    result = t.optimize(AmoebaAdaptive(window=100, write_multiplier=0.01))
    report["optimized_version"] = None if result is None else result.version
    report["table_rows"] = rows(spark, f"SELECT id, n FROM parquet.`{table}`")
    report["source_rows"] = rows(spark, f"SELECT id, n FROM parquet.`{data}`")
    report["table_query"] = both_ways(spark, f"SELECT id FROM parquet.`{table}` WHERE n < 300")
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(report, f)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
