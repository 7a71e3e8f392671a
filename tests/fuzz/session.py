"""The fuzzer's SparkSession and the per-dataset session settings (time zone, case sensitivity)."""
from __future__ import annotations

import logging
import os
import sys
from typing import Any

from fuzz import udfs

_HERE = os.path.dirname(os.path.abspath(__file__))
_TESTS = os.path.dirname(_HERE)
_PYTHON = os.path.join(os.path.dirname(_TESTS), "python")


def worker_environment() -> None:
    """Spark's Python workers run GeoBox's per-file role (skipstone) and our UDFs: same interpreter, same path."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for p in (_PYTHON, _TESTS):
        if p not in parts:
            parts.insert(0, p)
    os.environ["PYTHONPATH"] = os.pathsep.join(parts)


def new_session() -> Any:
    worker_environment()
    if _PYTHON not in sys.path:
        sys.path.insert(0, _PYTHON)
    import skipstone
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]").appName("skipstone-fuzz")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "2g").config("spark.sql.session.timeZone", "UTC"))
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("FATAL")
    return prepare(spark)


def prepare(spark: Any) -> Any:
    """Settings the fuzzer relies on, in a session it may share with tests."""
    # failing predicates are expected (and isolated); their stack traces are noise
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    logging.getLogger("py4j").setLevel(logging.CRITICAL)
    # the metadata cache is cleared after every build instead: planning then never rereads it
    spark.conf.set("spark.skipstone.metadataCacheTtlSeconds", "3600")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    spark.conf.set("spark.sql.orc.filterPushdown", "false")
    # Every query runs on a few dozen rows: compiling generated code costs far more than
    # interpreting. Same semantics either way (Spark tests both paths).
    spark.conf.set("spark.sql.codegen.wholeStage", "false")
    spark.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    udfs.register(spark)
    return spark


def clear_metadata_cache(spark: Any) -> None:
    spark._jvm.io.skipstone.Skipstone.clearCache()


def set_zone(spark: Any, zone: str) -> None:
    spark.conf.set("spark.sql.session.timeZone", zone)


def set_case_sensitive(spark: Any, on: bool) -> None:
    spark.conf.set("spark.sql.caseSensitive", "true" if on else "false")
