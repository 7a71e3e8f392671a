"""Running one query under several settings side by side, in one Spark session.

Runs are interleaved (setting A, B, C, A, B, C, ...) so JIT warm-up and OS caches favour no
setting; medians are reported, results must be identical across settings.
"""
from __future__ import annotations

import glob
import importlib.util
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import skipstone
from skipstone.session import jvm_entry


@dataclass(frozen=True)
class Setting:
    name: str
    skipstone: bool
    pushdown: bool = True
    cold: bool = False
    """Forget cached metadata before each run: measures loading it too."""
    view: tuple[str, Any] | None = None
    """(name, DataFrame) registered as that temp view before each run: settings can then read
    different files under the same SQL (the oracle reads only the files holding matching rows)."""
    trust_listing: bool = False
    """Skip files on the listing's word, with no check on disk (`verifySkippedFiles=listing`)."""


PLAIN = Setting("Spark (pushdown on)", skipstone=False)
PLAIN_NO_PUSHDOWN = Setting("Spark (pushdown off)", skipstone=False, pushdown=False)
WARM = Setting("Skipstone (warm)", skipstone=True)
COLD = Setting("Skipstone (cold)", skipstone=True, cold=True)
TRUSTED = Setting("Skipstone (warm, listing trusted)", skipstone=True, trust_listing=True)
STANDARD = (PLAIN, PLAIN_NO_PUSHDOWN, WARM, COLD)


@dataclass
class Measurement:
    query: str
    sql: str
    seconds: dict[str, float]
    identical: bool
    files_total: int = 0
    files_skipped: int = 0
    bytes_total: int = 0
    bytes_skipped: int = 0
    rows_skipped: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, list[float]] = field(default_factory=dict)
    """Every run's seconds per setting, in order: the medians' spread."""

    def ratio(self, baseline: str, other: str) -> float:
        return self.seconds[baseline] / self.seconds[other]


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench_jar() -> str:
    """The benchmarks' own jar (PlanningBenchmark, ScaleBenchmark), rebuilt when a benchmark
    source or the product jar is newer: it is compiled against the product jar, which ships
    without it. ``SKIPSTONE_BENCH_JAR`` puts it elsewhere: a run on another Spark (the Delta
    and Iceberg peers', benchmarks/layout_spark/peer_runtime.py) keeps its own."""
    spec = importlib.util.spec_from_file_location("build_jar", os.path.join(_ROOT, "jvm", "build_jar.py"))
    build_jar = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(build_jar)  # type: ignore[union-attr]
    jar = os.environ.get("SKIPSTONE_BENCH_JAR", build_jar.BENCH_JAR)
    inputs = [skipstone.jar_path(), *glob.glob(os.path.join(build_jar.BENCH_SOURCES, "**", "*.scala"), recursive=True)]
    if not os.path.exists(jar) or os.path.getmtime(jar) < max(os.path.getmtime(f) for f in inputs):
        print(f"building {jar}", flush=True)
        build_jar.build_bench(jar, skipstone.jar_path())
    return jar


def session(app: str = "skipstone-bench", configs: dict[str, str] | None = None):
    """A local[2] session with Skipstone; ``configs`` adds settings (other connectors' jars and
    extensions: their ``spark.jars`` join the bench jar, their extensions Skipstone's)."""
    from pyspark.sql import SparkSession

    # Python UDFs (shapely) run in Spark's Python workers: same interpreter, same sources.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (_ROOT, os.path.join(_ROOT, "python"), os.environ.get("PYTHONPATH")) if p)

    # configure() adds the product jar to the spark.jars given here.
    configs = dict(configs or {})
    jars = ",".join(j for j in (bench_jar(), configs.pop("spark.jars", "")) if j)
    builder = (SparkSession.builder.master("local[2]").appName(app).config("spark.jars", jars)
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "6g").config("spark.sql.session.timeZone", "UTC"))
    for key, value in configs.items():
        builder = builder.config(key, value)
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _apply(spark: Any, s: Setting) -> None:
    spark.conf.set("spark.skipstone.enabled", str(s.skipstone).lower())
    spark.conf.set("spark.sql.parquet.filterPushdown", str(s.pushdown).lower())
    spark.conf.set("spark.skipstone.verifySkippedFiles", "listing" if s.trust_listing else "auto")
    if s.view is not None:
        s.view[1].createOrReplaceTempView(s.view[0])
    if s.cold:
        jvm_entry(spark).clearCache()


def _canonical(rows: list[Any]) -> list[tuple[Any, ...]]:
    def cell(v: Any) -> Any:
        if isinstance(v, float):
            return "NaN" if math.isnan(v) else round(v, 6)
        return v
    return sorted((tuple(cell(v) for v in r) for r in rows), key=repr)


def measure(spark: Any, name: str, sql: str, settings: tuple[Setting, ...] = STANDARD,
            repeats: int = 3) -> Measurement:
    times: dict[str, list[float]] = {s.name: [] for s in settings}
    results: dict[str, list[tuple[Any, ...]]] = {}
    stats = None
    for _ in range(repeats):
        for s in settings:
            _apply(spark, s)
            start = time.perf_counter()
            rows = spark.sql(sql).collect()
            times[s.name].append(time.perf_counter() - start)
            results[s.name] = _canonical(rows)
            if s.skipstone:
                stats = skipstone.last_query_stats(spark)
    _apply(spark, PLAIN)
    spark.conf.set("spark.skipstone.enabled", "true")
    reference = next(iter(results.values()))
    m = Measurement(name, sql, {k: statistics.median(v) for k, v in times.items()},
                    identical=all(r == reference for r in results.values()), runs=times)
    if stats is not None:
        m.files_total, m.files_skipped = stats.files_total, stats.files_skipped
        m.bytes_total, m.bytes_skipped = stats.bytes_total, stats.bytes_skipped
        m.rows_skipped = sum(d.rows_skipped for d in stats.per_dataset)
    return m
