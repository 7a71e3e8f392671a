"""Random small datasets, written file by file the odd ways users write them.

A dataset is a few files (one row per file, an all-NULL file, an empty file, sorted or
unsorted rows) of columns of many types whose names have dots and mixed case, optionally
Hive-partitioned, in Parquet, ORC, JSON or CSV. Values come from small domains full of edge
cases (NaN, -0.0, infinities, 2**53 + 1, decimals of several scales, DST boundaries), so
predicates built from them hit, miss and straddle file boundaries.
"""
from __future__ import annotations

import csv
import datetime as dt
import decimal
import io
import json
import math
import os
import random
import zlib
from dataclasses import dataclass, field
from typing import Any

D = decimal.Decimal
UTC = dt.timezone.utc

# kind -> pool of values; None is added per column.
POOLS: dict[str, list[Any]] = {
    "int": [-3, -1, 0, 1, 2, 3, 5, 8, 12, 100, 1_000_000],
    "bigint": [-7, 0, 3, 9_007_199_254_740_993, 9_007_199_254_740_992, -9_007_199_254_740_993, 123_456_789_012],
    "dec0": [D("-3"), D("0"), D("1"), D("2"), D("12"), D("1000")],
    "dec2": [D("-1.50"), D("0.00"), D("0.50"), D("1.50"), D("2.25"), D("3.70"), D("99.99")],
    "dec5": [D("-0.00001"), D("0.12345"), D("0.50000"), D("1.00000"), D("3.14159"), D("12345.67891")],
    "double": [-1.5, -0.0, 0.0, 0.5, 2.0, 7.25, 1e300, -1e-300, math.nan, math.inf, -math.inf, 3.0, 0.1],
    "date": [dt.date(2024, 1, 1) + dt.timedelta(days=k) for k in (0, 1, 2, 9, 31, 70, 365)] + [dt.date(1900, 1, 1)],
    # around the US DST switch (2024-03-10 10:00 UTC) and midnight in several zones
    "ts": [dt.datetime(2024, 3, 10, h, m, tzinfo=UTC) for h, m in ((0, 0), (7, 59), (8, 0), (9, 30), (10, 0), (10, 1), (23, 59))]
          + [dt.datetime(2024, 1, 1, 0, 0, 0, 500_000, tzinfo=UTC)],
    "ts_ntz": [dt.datetime(2024, 3, 10, h, m) for h, m in ((0, 0), (2, 30), (8, 0), (10, 0), (23, 59))]
              + [dt.datetime(2024, 1, 1, 0, 0, 0, 1)],
    "string": ["", "a", "ab", "abc", "B", "ba", "a.b", "A%", "x_y", "ñu", "zz", "Ab", " a", "kitten", "sitting"],
    "bool": [True, False],
    "lat": [-10.0, 0.0, 0.1, 1.0, 1.5, 10.0, 10.25, 45.5, 89.999999],
    "lon": [-20.0, 0.0, 0.2, 1.0, 2.5, 20.0, 20.75, 100.123456, 179.999999],
    "dlat": [D("-10.000000"), D("0.100000"), D("1.000001"), D("10.250000"), D("45.123457"), D("0.300000")],
    "dlon": [D("-20.000000"), D("0.200000"), D("1.000001"), D("20.750000"), D("100.123457"), D("0.700000")],
}

FORMATS = ("parquet", "parquet", "orc", "json", "csv")


@dataclass(frozen=True)
class ColumnSpec:
    """One written column. ``path`` has two parts for a struct field (struct ``path[0]``)."""

    path: tuple[str, ...]
    kind: str


@dataclass
class FileSpec:
    rows: list[dict[tuple[str, ...], Any]]
    partition: int | None = None
    row_group_size: int | None = None


@dataclass
class DatasetSpec:
    format: str
    columns: list[ColumnSpec]
    files: list[FileSpec]
    options: dict[str, str] = field(default_factory=dict)
    partitioned: bool = False
    build_tz: str = "UTC"
    query_tz: str = "UTC"
    case_sensitive: bool = False
    query_context: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """JSON-able description, the dataset half of a reproducer."""
        return {
            "format": self.format, "options": self.options, "partitioned": self.partitioned,
            "build_tz": self.build_tz, "query_tz": self.query_tz, "case_sensitive": self.case_sensitive,
            "query_context": self.query_context,
            "columns": [{"path": list(c.path), "kind": c.kind} for c in self.columns],
            "files": [{"partition": f.partition, "rows": [[_show(r.get(c.path)) for c in self.columns] for r in f.rows]}
                      for f in self.files],
        }


def _show(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    if isinstance(v, (dt.date, D)):
        return str(v)
    return v


TIME_ZONES = ("UTC", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Kiritimati")


def generate(rng: random.Random) -> DatasetSpec:
    fmt = rng.choice(FORMATS)
    columns = [ColumnSpec(("i",), "int")]
    optional = [
        ColumnSpec(("l",), "bigint"), ColumnSpec(("d2",), rng.choice(["dec0", "dec2", "dec5"])),
        ColumnSpec(("Dec.5",), "dec5"), ColumnSpec(("x",), "double"), ColumnSpec(("dt",), "date"),
        ColumnSpec(("ts",), "ts"), ColumnSpec(("s",), "string"), ColumnSpec(("Mixed",), "int"),
        ColumnSpec(("S.t",), "string"), ColumnSpec(("flag",), "bool"),
    ]
    if fmt in ("parquet", "orc"):
        optional.append(ColumnSpec(("tn",), "ts_ntz"))
    if fmt != "csv":
        # a struct `a` with field `b`, and sometimes also a top-level column literally named `a.b`
        optional.append(ColumnSpec(("a", "b"), "int"))
        optional.append(ColumnSpec(("a", "c"), "string"))
    columns += [c for c in optional if rng.random() < 0.45]
    if any(c.path == ("a", "b") for c in columns) and rng.random() < 0.6:
        columns.append(ColumnSpec(("a.b",), "int"))
    if rng.random() < 0.3:
        decimal_geo = rng.random() < 0.4
        columns += [ColumnSpec(("lat",), "dlat" if decimal_geo else "lat"),
                    ColumnSpec(("lon",), "dlon" if decimal_geo else "lon")]
    case_sensitive = fmt == "parquet" and rng.random() < 0.15
    if case_sensitive:
        columns.append(ColumnSpec(("mixed",), "int"))   # collides with `Mixed` unless case-sensitive
        if not any(c.path == ("Mixed",) for c in columns):
            columns.append(ColumnSpec(("Mixed",), "int"))

    rows = _rows(rng, columns)
    files = _split(rng, rows, columns)
    partitioned = rng.random() < 0.25
    if partitioned:
        for f in files:
            f.partition = rng.choice([0, 1, 2])
    if fmt == "parquet":
        for f in files:
            f.row_group_size = rng.choice([None, None, 1, 2])
    build_tz = rng.choice(TIME_ZONES)
    query_tz = build_tz if rng.random() < 0.6 else rng.choice(TIME_ZONES)
    return DatasetSpec(fmt, columns, files, _options(rng, fmt), partitioned, build_tz, query_tz, case_sensitive)


def _value(rng: random.Random, kind: str, null_rate: float) -> Any:
    if rng.random() < null_rate:
        return None
    return rng.choice(POOLS[kind])


def _rows(rng: random.Random, columns: list[ColumnSpec]) -> list[dict[tuple[str, ...], Any]]:
    n = rng.randint(3, 24)
    null_rates = {c.path: rng.choice([0.0, 0.1, 0.3, 1.0 if rng.random() < 0.08 else 0.2]) for c in columns}
    # a small per-column domain: equality predicates then hit real values often
    domains = {c.path: rng.sample(POOLS[c.kind], k=min(len(POOLS[c.kind]), rng.randint(2, 7))) for c in columns}
    return [{c.path: (None if rng.random() < null_rates[c.path] else rng.choice(domains[c.path])) for c in columns}
            for _ in range(n)]


def _sort_key(v: Any) -> tuple[int, Any]:
    if v is None:
        return (2, 0)
    if isinstance(v, float) and math.isnan(v):
        return (1, 0)
    return (0, v)


def _split(rng: random.Random, rows: list[dict[tuple[str, ...], Any]], columns: list[ColumnSpec]) -> list[FileSpec]:
    """Cut rows into files: clustered by a column or not, one-row files, all-NULL and empty files."""
    if rng.random() < 0.6:
        by = rng.choice(columns).path
        rows = sorted(rows, key=lambda r: _sort_key(r[by]))
    style = rng.random()
    if style < 0.2:
        chunks = [[r] for r in rows[: rng.randint(2, 8)]]                      # one row per file
    else:
        cuts = sorted(rng.sample(range(1, len(rows)), k=min(len(rows) - 1, rng.randint(1, 5))))
        chunks = [rows[a:b] for a, b in zip([0] + cuts, cuts + [len(rows)])]
    files = [FileSpec(list(c)) for c in chunks]
    if rng.random() < 0.3:
        files.append(FileSpec([{c.path: None for c in columns} for _ in range(rng.randint(1, 3))]))
    if rng.random() < 0.2:
        files.append(FileSpec([]))
    rng.shuffle(files)
    return files


def _options(rng: random.Random, fmt: str) -> dict[str, str]:
    options: dict[str, str] = {}
    if fmt == "csv":
        options.update(header="true", inferSchema="true")
        if rng.random() < 0.3:
            options["sep"] = ";"
        if rng.random() < 0.3:
            options["nullValue"] = "NA"
    if fmt == "json" and rng.random() < 0.5:
        options["inferTimestamp"] = "true"
    if fmt == "json" and rng.random() < 0.3:
        options["prefersDecimal"] = "true"
    if fmt in ("csv", "json") and rng.random() < 0.2:
        options["timeZone"] = rng.choice(TIME_ZONES)
    return options


# -- writing -----------------------------------------------------------------------------------

def write(spec: DatasetSpec, root: str) -> list[str]:
    """Write every file of ``spec`` under ``root``; the data files' paths, in spec order."""
    os.makedirs(root, exist_ok=True)
    paths = []
    for n, f in enumerate(spec.files):
        folder = os.path.join(root, f"p={f.partition}") if spec.partitioned else root
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"part-{n:05d}.{spec.format}")
        WRITERS[spec.format](spec, f, path)
        paths.append(path)
    return paths


def _arrow_type(kind: str) -> Any:
    import pyarrow as pa

    return {
        "int": pa.int32(), "bigint": pa.int64(), "dec0": pa.decimal128(10, 0), "dec2": pa.decimal128(10, 2),
        "dec5": pa.decimal128(18, 5), "double": pa.float64(), "date": pa.date32(),
        "ts": pa.timestamp("us", tz="UTC"), "ts_ntz": pa.timestamp("us"), "string": pa.string(),
        "bool": pa.bool_(), "lat": pa.float64(), "lon": pa.float64(), "dlat": pa.decimal128(9, 6),
        "dlon": pa.decimal128(9, 6),
    }[kind]


def _arrow_table(spec: DatasetSpec, f: FileSpec) -> Any:
    import pyarrow as pa

    arrays: dict[str, Any] = {}
    structs: dict[str, list[ColumnSpec]] = {}
    for c in spec.columns:
        if len(c.path) == 1:
            arrays[c.path[0]] = pa.array([r[c.path] for r in f.rows], _arrow_type(c.kind))
        else:
            structs.setdefault(c.path[0], []).append(c)
    for name, fields in structs.items():
        # the struct itself is NULL when all its fields are
        values = [None if all(r[c.path] is None for c in fields) else {c.path[1]: r[c.path] for c in fields}
                  for r in f.rows]
        arrays[name] = pa.array(values, pa.struct([(c.path[1], _arrow_type(c.kind)) for c in fields]))
    return pa.table(arrays)


def _write_parquet(spec: DatasetSpec, f: FileSpec, path: str) -> None:
    import pyarrow.parquet as pq

    pq.write_table(_arrow_table(spec, f), path, row_group_size=f.row_group_size)


def _write_orc(spec: DatasetSpec, f: FileSpec, path: str) -> None:
    import pyarrow.orc as orc

    orc.write_table(_arrow_table(spec, f), path)


def _text(v: Any, fmt: str) -> Any:
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return ("Inf" if fmt == "csv" else "Infinity") if v > 0 else ("-Inf" if fmt == "csv" else "-Infinity")
        return v
    if isinstance(v, dt.datetime):
        # naive text: text formats parse it in the reader's (or session's) time zone
        return v.strftime("%Y-%m-%d %H:%M:%S.%f") if v.microsecond else v.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(v, dt.date):
        return v.isoformat()
    return v


class _Raw(str):
    """A JSON number written verbatim (decimals keep their scale, NaN/Infinity unquoted)."""


def _write_json(spec: DatasetSpec, f: FileSpec, path: str) -> None:
    lines = []
    for r in f.rows:
        obj: dict[str, Any] = {}
        for c in spec.columns:
            v = r[c.path]
            if v is None and zlib.crc32(repr((os.path.basename(path), c.path)).encode()) % 2:
                continue  # a missing key reads as NULL too
            t = _text(v, "json")
            if isinstance(v, D) or (isinstance(v, float) and not math.isfinite(v)):
                t = _Raw(str(v) if isinstance(v, D) else t)
            target = obj if len(c.path) == 1 else obj.setdefault(c.path[0], {})
            target[c.path[-1]] = t
        lines.append(_dump(obj))
    with open(path, "w", encoding="utf-8") as out:
        out.write("".join(line + "\n" for line in lines))


def _dump(v: Any) -> str:
    if isinstance(v, _Raw):
        return str(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_dump(x)}" for k, x in v.items()) + "}"
    return json.dumps(v)


def _write_csv(spec: DatasetSpec, f: FileSpec, path: str) -> None:
    sep = spec.options.get("sep", ",")
    null = spec.options.get("nullValue", "")
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=sep, lineterminator="\n")
    writer.writerow([c.path[0] for c in spec.columns])
    for r in f.rows:
        writer.writerow([null if r[c.path] is None else _text(r[c.path], "csv") for c in spec.columns])
    with open(path, "w", encoding="utf-8") as out:
        out.write(buffer.getvalue())


WRITERS = {"parquet": _write_parquet, "orc": _write_orc, "json": _write_json, "csv": _write_csv}
