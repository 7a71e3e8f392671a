"""Read contexts for queries: the same files read otherwise than the build read them.

Metadata is valid only for reads equal in effect to the build's (docs/skipping.md, "Metadata
means what the reader means"). Between build and queries the fuzzer therefore changes, at
random, session settings that change parsed values or function results, reader options
(parse modes, formats of timestamps, null markers, partition discovery), and the read schema
(columns reordered, or one spelled in another case). Half the datasets keep the build's read,
so skipping itself is still exercised.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

# setting -> values a query may run under (the build runs under Spark's defaults)
SETTINGS: dict[str, tuple[str, ...]] = {
    "spark.sql.ansi.enabled": ("false",),
    "spark.sql.legacy.timeParserPolicy": ("LEGACY", "CORRECTED"),
    "spark.sql.legacy.sizeOfNull": ("true",),
    "spark.sql.parquet.int96TimestampConversion": ("true",),
    "spark.sql.legacy.charVarcharAsString": ("true",),
    "spark.sql.parquet.fieldId.read.enabled": ("true",),
    "spark.sql.csv.parser.columnPruning.enabled": ("false",),
    "spark.sql.json.enablePartialResults": ("false", "true"),
    "spark.sql.shuffle.partitions": ("3",),           # value-neutral: skipping must go on
    "spark.sql.adaptive.enabled": ("false",),         # value-neutral
}


@dataclass
class QueryContext:
    settings: dict[str, str] = field(default_factory=dict)
    options: dict[str, str] = field(default_factory=dict)
    schema: str | None = None     # None, "reordered" or "recased"
    flip_case_sensitivity: bool = False

    def describe(self) -> dict[str, Any]:
        return {"settings": self.settings, "options": self.options, "schema": self.schema,
                "flip_case_sensitivity": self.flip_case_sensitivity}


def choose(rng: random.Random, fmt: str, options: dict[str, str], partitioned: bool) -> QueryContext:
    """The read the queries of one dataset run under (the build's for about half of them)."""
    ctx = QueryContext(options=dict(options))
    if rng.random() < 0.5:
        return ctx
    for key in rng.sample(sorted(SETTINGS), k=rng.randint(0, 2)):
        ctx.settings[key] = rng.choice(SETTINGS[key])
    text = fmt in ("csv", "json")
    if text and rng.random() < 0.3:
        ctx.options["mode"] = rng.choice(["DROPMALFORMED", "PERMISSIVE"])
    if text and rng.random() < 0.2:
        ctx.options["timestampFormat"] = "yyyy-MM-dd HH:mm"
    if fmt == "csv" and rng.random() < 0.2:
        ctx.options["nullValue"] = "0" if ctx.options.get("nullValue") != "0" else "NA"
    if fmt == "csv" and rng.random() < 0.15:
        ctx.options["header"] = "false"
    if partitioned and rng.random() < 0.3:
        ctx.options["recursiveFileLookup"] = "true"
    if rng.random() < 0.3:
        ctx.schema = rng.choice(["reordered", "recased"])
    ctx.flip_case_sensitivity = fmt == "parquet" and rng.random() < 0.1
    return ctx


def reset(spark: Any) -> None:
    """Back to the build's settings (Spark's defaults for every setting a context changes)."""
    for key in SETTINGS:
        spark.conf.unset(key)


def apply(spark: Any, ctx: QueryContext, case_sensitive: bool) -> None:
    for key, value in ctx.settings.items():
        spark.conf.set(key, value)
    if ctx.flip_case_sensitivity:
        spark.conf.set("spark.sql.caseSensitive", "false" if case_sensitive else "true")


def read(spark: Any, fmt: str, root: str, ctx: QueryContext, build_read: Any, rng_seed: str) -> Any:
    """The DataFrame queries run on: the files read under ``ctx``."""
    from pyspark.sql.types import StructType

    reader = spark.read.format(fmt).options(**ctx.options)
    if ctx.schema is not None:
        fields = list(build_read.schema.fields)
        rng = random.Random(rng_seed)
        if ctx.schema == "reordered":
            rng.shuffle(fields)
        else:
            n = rng.randrange(len(fields))
            fields[n] = type(fields[n])(fields[n].name.swapcase(), fields[n].dataType, fields[n].nullable,
                                        fields[n].metadata)
        reader = reader.schema(StructType(fields))
    return reader.load(root)
