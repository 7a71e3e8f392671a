"""What Skipstone's parser adds to parsing ordinary SQL: every statement passes its keyword
check before Spark's parser gets it.

Times `parsePlan` through the session's parser (Skipstone's in front of Spark's) and through a
bare `SparkSqlParser`, interleaved, called from Python (py4j's per-call cost is in both).

    python -m benchmarks.sql_parser [--calls 500] [--rounds 7]
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

STATEMENTS = {
    "select": ("SELECT cat, count(*), max(s) FROM parquet.`/data/events` "
               "WHERE k BETWEEN 100 AND 199 AND s LIKE 's01%' GROUP BY cat ORDER BY cat"),
    "skipstone": "DESCRIBE SKIPPING INDEX ON parquet.`/data/events`",
}


def per_call_us(parser: Any, sql: str, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        parser.parsePlan(sql)
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--calls", type=int, default=500)
    args.add_argument("--rounds", type=int, default=7)
    opts = args.parse_args()

    import skipstone
    from pyspark.sql import SparkSession

    spark = skipstone.configure(SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")).getOrCreate()
    ours = spark._jsparkSession.sessionState().sqlParser()
    spark_only = spark._jvm.org.apache.spark.sql.execution.SparkSqlParser()
    per_call_us(ours, STATEMENTS["select"], opts.calls)  # warm both up
    per_call_us(spark_only, STATEMENTS["select"], opts.calls)
    with_skipstone, without = [], []
    for _ in range(opts.rounds):
        with_skipstone.append(per_call_us(ours, STATEMENTS["select"], opts.calls))
        without.append(per_call_us(spark_only, STATEMENTS["select"], opts.calls))
    skipstone_statement = [per_call_us(ours, STATEMENTS["skipstone"], opts.calls) for _ in range(opts.rounds)]
    a, b = statistics.median(with_skipstone), statistics.median(without)
    print(f"SELECT through Skipstone's parser: {a:.0f} us per parse (median of {opts.rounds} x {opts.calls})")
    print(f"SELECT through Spark's parser:     {b:.0f} us per parse")
    print(f"ratio: {a / b:.2f}")
    print(f"a Skipstone statement:             {statistics.median(skipstone_statement):.0f} us per parse")
    spark.stop()


if __name__ == "__main__":
    main()
