"""Prefix, suffix and formatted (user agent) skipping indicators (the paper's Figures 11-12).

Workloads of LIKE 'p%' / LIKE '%s' queries whose patterns are random column values cut at a
random length, as in the paper; the indicators are geometric means over the workload.
"""
from __future__ import annotations

import random
from typing import Any

import skipstone
from benchmarks import factors as F
from benchmarks.data import weblog
from benchmarks.report import Section, table
from skipstone import Skipstone


def workload(values: list[str], kind: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        v = rng.choice(values)
        cut = rng.randint(max(3, len(v) // 3), len(v))
        pattern = v[:cut] if kind == "prefix" else v[-cut:]
        escaped = pattern.replace("'", "''").replace("%", "\\%").replace("_", "\\_")
        out.append(f"{escaped}%" if kind == "prefix" else f"%{escaped}")
    return out


def indicators(spark: Any, relation: str, column: str, patterns: list[str]) -> F.Factors | None:
    all_rows = F.rows_per_file(spark, relation)
    per_query = []
    for p in patterns:
        predicate = f"{column} LIKE '{p}'"
        spark.sql(f"SELECT count(*) FROM {relation} WHERE {predicate}").collect()
        stats = skipstone.last_query_stats(spark)
        per_query.append(F.factors(F.relevant_rows_per_file(spark, relation, predicate), all_rows,
                                   sum(d.rows_skipped for d in stats.per_dataset)))
    return F.workload(per_query)


def run(spark: Any, data_dir: str, quick: bool) -> list[Section]:
    if not (hasattr(skipstone, "Prefix") and hasattr(skipstone, "Suffix")):
        return [Section("patterns", "_Prefix/Suffix are not available in this build._", [])]
    root = weblog.write(data_dir, layout="kd")
    relation = f"parquet.`{root}`"
    ds = Skipstone.for_path(spark, root)
    n = 10 if quick else 50
    sample = {c: [r[0] for r in spark.sql(f"SELECT DISTINCT {c} FROM {relation} LIMIT 5000").collect()]
              for c in ("db_name", "http_request")}
    rows, data = [], []
    cases = [("Prefix(db_name, 15)", skipstone.Prefix("db_name", 15), "db_name", "prefix"),
             ("Suffix(db_name, 15)", skipstone.Suffix("db_name", 15), "db_name", "suffix"),
             ("Prefix(http_request, 20)", skipstone.Prefix("http_request", 20), "http_request", "prefix")]
    if not quick:
        cases += [(f"Prefix(db_name, {k})", skipstone.Prefix("db_name", k), "db_name", "prefix") for k in (5, 10, 20)]
    for label, index, column, kind in cases:
        ds.build(index)
        f = indicators(spark, relation, column, workload(sample[column], kind, n, seed=len(label)))
        if f:
            rows.append([label, n, f.selectivity, f.layout, f.metadata, f.scanning])
            data.append({"index": label, "queries": n, **f.__dict__})
    ds.drop()
    md = (f"Web-log dataset, geographic layout; workloads of {n} LIKE queries per index; geometric means "
          "(s = l * m * sf).\n\n") + table(["index", "queries", "selectivity s", "layout l", "metadata m",
                                             "scanning sf"], rows)
    return [Section("patterns", md, data)]
