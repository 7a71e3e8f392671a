"""Delta Lake and Iceberg as peers on Skipstone's own Spark: their layouts, their skipping.

Each peer lays out a copy of a Parquet source with its own engine, and queries on it read
what that engine's skipping leaves (docs/peers.md):

- ``delta-zorder``: a Delta table, ``OPTIMIZE ... ZORDER BY (cols)``;
- ``delta-liquid``: ``CREATE TABLE ... USING delta CLUSTER BY (cols)``, then ``OPTIMIZE``;
- ``iceberg-sort``: an Iceberg table, ``rewrite_data_files`` with ``strategy => 'sort'``;
- ``iceberg-zorder``: the same with ``sort_order => 'zorder(cols)'``.

It needs the session of :func:`peer_session`, or any session with :func:`session_configs` (the
peers' jars, on the Spark they share: run it through ``benchmarks.layout_spark.peer_runtime``)::

    spark = peer_session(work)
    table = create_peer(spark, "delta-zorder", source, work, columns=["a", "b"], target_bytes=8 << 20)
    answer, seconds, files, size = run_query(spark, table, "a < 10", "count(*)")

    python -m benchmarks.layout_spark.peer_runtime run -m benchmarks.layout_spark.spark_peers --smoke
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from skipstone.session import EXTENSION_CLASS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ICEBERG_CATALOG = "iceberg"
ICEBERG_NAMESPACE = "peers"
SKIPSTONE_EXTENSION = EXTENSION_CLASS  # the product's own name for it
DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
MAX_CLUSTERING_COLUMNS = 8


def session_configs(work: str | None = None, jars: Sequence[str] | None = None) -> dict[str, str]:
    """The Spark settings the peers need beside Skipstone's: their ``jars`` (default: those of
    ``.cache/peer-jars``), the three extensions, Delta's catalog as the session catalog, and an
    Iceberg Hadoop catalog named ``iceberg`` whose warehouse is ``work/iceberg`` (default: a
    new temporary directory)."""
    from benchmarks.layout_spark.peer_runtime import jar_paths

    work = work if work is not None else tempfile.mkdtemp(prefix="skipstone-peers-")
    return {
        "spark.jars": ",".join(jars if jars is not None else jar_paths()),
        # Each extension's parser wraps the ones before it, so the last sees a statement first:
        # Delta's, so that `OPTIMIZE ... ZORDER BY` and `DESCRIBE DETAIL` on a Delta table are
        # Delta's (Skipstone's parser would claim them). Anything else falls through to Iceberg's,
        # then Skipstone's, then Spark's.
        "spark.sql.extensions": ",".join([SKIPSTONE_EXTENSION, ICEBERG_EXTENSION, DELTA_EXTENSION]),
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        f"spark.sql.catalog.{ICEBERG_CATALOG}": "org.apache.iceberg.spark.SparkCatalog",
        f"spark.sql.catalog.{ICEBERG_CATALOG}.type": "hadoop",
        f"spark.sql.catalog.{ICEBERG_CATALOG}.warehouse": os.path.join(work, "iceberg"),
        # Delta skips files on the min/max statistics it writes (on by default; said so to be sure)
        "spark.databricks.delta.stats.skipping": "true",
        # Liquid clustering takes at most 4 columns by default (a static setting): the peers
        # get as many as Skipstone's layouts do
        "spark.databricks.delta.clusteredTable.numClusteringColumnsLimit": str(MAX_CLUSTERING_COLUMNS),
    }


def peer_session(work: str, app: str = "skipstone-peers", jars: Sequence[str] | None = None) -> Any:
    """A local session with Skipstone and both peers (``jars``: the peers', from ``.cache/peer-jars``)."""
    from benchmarks.harness import session

    return session(app, session_configs(work, jars))


@dataclass(frozen=True)
class PeerTable:
    """A peer's copy of the source: the SQL relation to query it by, and what making it cost."""
    method: str
    relation: str       # e.g. delta.`/tmp/x/delta-zorder` or iceberg.peers.iceberg_sort
    columns: tuple[str, ...]  # what the layout orders on: those asked, less any the peer cannot take
    write_s: float      # writing the rows into the peer's format
    optimize_s: float   # laying them out (OPTIMIZE, rewrite_data_files)
    files: int
    bytes: int

    @property
    def create_s(self) -> float:
        return self.write_s + self.optimize_s


@contextlib.contextmanager
def _conf(spark: Any, settings: dict[str, str]) -> Iterator[None]:
    before = {k: spark.conf.get(k, None) for k in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def _timed(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def _delta(spark: Any, method: str, source: str, work: str, target_bytes: int, columns: Sequence[str],
           liquid: bool) -> PeerTable:
    path = os.path.join(work, method)
    relation = f"delta.`{path}`"
    cols = ", ".join(columns)
    # Delta's OPTIMIZE writes about (bytes of its input) / maxFileSize files, for Z-order and
    # for liquid clustering alike (OptimizeExecutor.runOptimizeBinJob)
    with _conf(spark, {"spark.databricks.delta.optimize.maxFileSize": str(target_bytes)}):
        if liquid:
            write_s = _timed(lambda: spark.sql(f"CREATE TABLE {relation} USING delta CLUSTER BY ({cols}) "
                                               f"AS SELECT * FROM parquet.`{source}`").collect())
            # No file is clustered yet, so this clusters them all, in one ZCube below 150 GB
            optimize_s = _timed(lambda: spark.sql(f"OPTIMIZE {relation}").collect())
        else:
            write_s = _timed(lambda: spark.read.parquet(source).write.format("delta").save(path))
            optimize_s = _timed(lambda: spark.sql(f"OPTIMIZE {relation} ZORDER BY ({cols})").collect())
    detail = spark.sql(f"DESCRIBE DETAIL {relation}").select("numFiles", "sizeInBytes").first()
    return PeerTable(method, relation, tuple(columns), write_s, optimize_s, int(detail[0]), int(detail[1]))


# The types Iceberg's Z-order can interleave (Spark's typeName; ZOrderByteUtils): not decimals,
# which it refuses ("the type is unsupported"), so a Z-order on TPC-H's l_quantity leaves it out.
ICEBERG_ZORDER_TYPES = frozenset({"boolean", "byte", "short", "integer", "long", "float", "double", "string",
                                  "binary", "date", "timestamp"})


def _iceberg(spark: Any, method: str, source: str, work: str, target_bytes: int, columns: Sequence[str],
             zorder: bool) -> PeerTable:
    name = f"{ICEBERG_NAMESPACE}.{method.replace('-', '_')}"
    relation = f"{ICEBERG_CATALOG}.{name}"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ICEBERG_CATALOG}.{ICEBERG_NAMESPACE}")
    spark.sql(f"DROP TABLE IF EXISTS {relation}")
    # Snappy, as Spark's Parquet writer (Delta's and Skipstone's) uses, not Iceberg's zstd:
    # bytes read compare layouts, not codecs
    write_s = _timed(lambda: spark.sql(f"CREATE TABLE {relation} USING iceberg "
                                       "TBLPROPERTIES ('write.parquet.compression-codec' = 'snappy') "
                                       f"AS SELECT * FROM parquet.`{source}`").collect())
    if zorder:
        types = {f.name: f.dataType.typeName() for f in spark.read.parquet(source).schema.fields}
        columns = [c for c in columns if types[c] in ICEBERG_ZORDER_TYPES]
        if not columns:
            raise ValueError(f"{method}: Iceberg's Z-order takes none of the columns ({types})")
    order = f"zorder({', '.join(columns)})" if zorder else ", ".join(columns)
    optimize_s = _timed(lambda: spark.sql(
        f"CALL {ICEBERG_CATALOG}.system.rewrite_data_files(table => '{name}', strategy => 'sort', "
        f"sort_order => '{order}', options => map('target-file-size-bytes', '{target_bytes}', "
        "'rewrite-all', 'true'))").collect())
    files = spark.sql(f"SELECT count(*), sum(file_size_in_bytes) FROM {relation}.data_files").first()
    return PeerTable(method, relation, tuple(columns), write_s, optimize_s, int(files[0]), int(files[1] or 0))


# name -> builder(spark, method, source, work, target_bytes, columns)
PEERS: dict[str, Callable[..., PeerTable]] = {
    "delta-zorder": functools.partial(_delta, liquid=False),
    "delta-liquid": functools.partial(_delta, liquid=True),
    "iceberg-sort": functools.partial(_iceberg, zorder=False),
    "iceberg-zorder": functools.partial(_iceberg, zorder=True),
}


def create_peer(spark: Any, method: str, source: str, work: str, columns: Sequence[str],
                target_bytes: int) -> PeerTable:
    """``method``'s copy of the Parquet files at ``source``, laid out on ``columns`` in files
    of about ``target_bytes`` (Delta's tables go under ``work``, Iceberg's into its catalog)."""
    if method not in PEERS:
        raise ValueError(f"no peer {method!r}: one of {', '.join(PEERS)}")
    return PEERS[method](spark, method, source, work, target_bytes, columns)


# ----------------------------------------------------------------------------- querying


@dataclass(frozen=True)
class ScanRead:
    """What a query's table scans read: files and bytes, summed over its scan nodes."""
    files: int
    bytes: int


# The scan metrics that say what was read, per scan node: Spark's file scan (Parquet, Delta,
# Skipstone's tables) counts the files its index listed after skipping; Iceberg's BatchScanExec
# reports its scan planning (the data files it kept, and their bytes).
_SCAN_METRICS = {
    "FileSourceScanExec": ("numFiles", "filesSize"),
    "BatchScanExec": ("resultDataFiles", "totalDataFileSize"),
}


def scan_read(plan: Any) -> ScanRead:
    """Files and bytes read by the scans of an executed physical plan (a py4j ``SparkPlan``)."""
    files = size = scans = 0
    seen = []
    for node in _nodes(plan):
        kind = node.getClass().getSimpleName()  # nodeName() is "Scan parquet ...", "BatchScan ..."
        seen.append(kind)
        names = _SCAN_METRICS.get(kind)
        if names is None:
            continue
        metrics = node.metrics()
        missing = [n for n in names if not metrics.contains(n)]
        if missing:
            raise KeyError(f"{kind} has no metric {', '.join(missing)} on this Spark "
                           f"(it has {', '.join(sorted(_scala_keys(metrics)))})")
        files += int(metrics.apply(names[0]).value())
        size += int(metrics.apply(names[1]).value())
        scans += 1
    if not scans:
        raise ValueError(f"no table scan this module knows in the plan ({', '.join(seen)})")
    return ScanRead(files, size)


def _nodes(plan: Any) -> Iterator[Any]:
    """Every node of the plan, inside adaptive execution's final plan and its query stages too."""
    name = plan.getClass().getSimpleName()
    if name == "AdaptiveSparkPlanExec":
        yield from _nodes(plan.executedPlan())
        return
    if name.endswith("QueryStageExec"):
        yield from _nodes(plan.plan())
        return
    yield plan
    children = plan.children()
    for i in range(children.size()):
        yield from _nodes(children.apply(i))


def _scala_keys(scala_map: Any) -> list[str]:
    keys, out = scala_map.keysIterator(), []
    while keys.hasNext():
        out.append(keys.next())
    return out


def run_query(spark: Any, peer: PeerTable | str, where_sql: str, select_sql: str) -> tuple[list[tuple], float, int, int]:
    """``SELECT select_sql FROM <peer's relation> WHERE where_sql``: its answer, the seconds
    ``collect()`` took, and the files and bytes its scans read (after the engine's skipping).
    ``peer`` is a :class:`PeerTable` or any SQL relation (``parquet.`path``` too)."""
    relation = peer.relation if isinstance(peer, PeerTable) else peer
    df = spark.sql(f"SELECT {select_sql} FROM {relation} WHERE {where_sql}")
    started = time.perf_counter()
    rows = df.collect()
    seconds = time.perf_counter() - started
    read = scan_read(df._jdf.queryExecution().executedPlan())
    return [tuple(r) for r in rows], seconds, read.files, read.bytes


# ----------------------------------------------------------------------------- smoke


@dataclass(frozen=True)
class SmokeCase:
    """What the smoke lays out and asks: the layout columns, the conditions, the aggregates
    (exact ones, so that every layout's answer must equal plain Parquet's to the last digit)."""
    columns: tuple[str, ...]
    conditions: tuple[str, ...]
    select: str


GENERATED = SmokeCase(
    columns=("a", "d"),
    conditions=("a BETWEEN 100 AND 149", "d < DATE'1993-01-01'", "a < 50 AND d > DATE'1997-06-30'",
                "b >= 9000"),  # on no layout column: every layout reads about everything
    select="count(*), sum(id), min(b), max(c)")
# The denormalized TPC-H table of the layout benchmark, on the columns a Z-order user would pick there
TPCH = SmokeCase(
    columns=("l_shipdate", "o_orderdate", "l_quantity", "r_name"),
    conditions=("l_shipdate BETWEEN DATE'1994-01-01' AND DATE'1994-03-31'",
                "l_quantity < 5 AND r_name = 'ASIA'",
                "o_orderdate < DATE'1992-07-01' AND l_shipdate > DATE'1992-06-15'",
                "p_size = 10"),
    select="count(*), sum(l_extendedprice * (1 - l_discount))")


def generated_source(spark: Any, path: str, rows: int, files: int) -> str:
    """``rows`` rows in ``files`` Parquet files of random order: ints, a date, a decimal, a string."""
    from pyspark.sql import functions as F

    (spark.range(rows)
     .select("id",
             ((F.col("id") * 7919) % 1000).cast("int").alias("a"),
             ((F.col("id") * 104729) % 10000).cast("int").alias("b"),
             (((F.col("id") * 13) % 100000) / 100).cast("decimal(10,2)").alias("c"),
             F.date_add(F.lit("1992-01-01").cast("date"), ((F.col("id") * 31) % 2500).cast("int")).alias("d"),
             F.concat(F.lit("k"), (F.col("id") % 37).cast("string")).alias("e"))
     .orderBy(F.rand(0)).repartition(files)
     .write.mode("overwrite").parquet(path))
    return path


def smoke(case: SmokeCase, make_source: Callable[[Any, str], str], target_files: int) -> int:
    """Every peer, and Skipstone's own Z-order as a managed table, on the Parquet files
    ``make_source(spark, work)`` writes; ``case``'s queries on each, answers checked against
    plain Parquet's; prints what each read. Returns the number of wrong answers."""
    from skipstone import Skipstone
    from skipstone.layout import ZOrder

    work = tempfile.mkdtemp(prefix="skipstone-peers-smoke-")
    spark = peer_session(work)
    wrong = checked = 0
    try:
        source = make_source(spark, work)
        sizes = [os.path.getsize(os.path.join(source, n)) for n in os.listdir(source) if n.endswith(".parquet")]
        rows = spark.read.parquet(source).count()
        target = max(1, sum(sizes) // target_files)
        print(f"source: {rows:,} rows, {len(sizes)} files, {sum(sizes):,} bytes; target file {target:,} bytes; "
              f"columns {', '.join(case.columns)}", flush=True)
        tables = {"parquet": PeerTable("parquet", f"parquet.`{source}`", (), 0.0, 0.0, len(sizes), sum(sizes))}
        for method in PEERS:
            tables[method] = create_peer(spark, method, source, work, case.columns, target)
        started = time.perf_counter()
        managed = Skipstone.create(spark, os.path.join(work, "skipstone-zorder"), spark.read.parquet(source),
                                   layout=ZOrder(columns=list(case.columns), block_rows=max(1, rows // target_files)))
        live = managed.files().selectExpr("count(*)", "sum(size)").first()
        tables["skipstone-zorder"] = PeerTable("skipstone-zorder", f"parquet.`{managed.root}`", case.columns, 0.0,
                                               time.perf_counter() - started, int(live[0]), int(live[1]))
        for t in tables.values():
            left_out = [c for c in case.columns if c not in t.columns] if t.columns else []
            print(f"  {t.method:17s} {t.files:4d} files {t.bytes:>12,} bytes  write {t.write_s:5.1f} s  "
                  f"layout {t.optimize_s:5.1f} s" + (f"  (without {', '.join(left_out)})" if left_out else ""),
                  flush=True)
        for where in case.conditions:
            reference = None
            print(f"WHERE {where}", flush=True)
            for t in tables.values():
                answer, seconds, files_read, bytes_read = run_query(spark, t, where, case.select)
                if reference is None:
                    reference = answer
                else:
                    checked += 1
                same = answer == reference
                wrong += int(not same)
                print(f"  {t.method:17s} {files_read:4d}/{t.files:<4d} files {bytes_read:>12,} bytes "
                      f"{seconds:6.2f} s  {'ok' if same else f'WRONG: {answer} != {reference}'}", flush=True)
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{checked} answers checked against plain Parquet's: {wrong} wrong", flush=True)
    return wrong


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="every peer on a small table, answers checked")
    parser.add_argument("--rows", type=int, default=300_000, help="rows of the generated table")
    parser.add_argument("--files", type=int, default=8, help="files of the source")
    parser.add_argument("--tpch", type=float, metavar="SF",
                        help="the benchmark's denormalized TPC-H at this scale factor instead (e.g. 0.01)")
    parser.add_argument("--cache", default=os.path.join(ROOT, "benchmarks", ".data"), help="where TPC-H is kept")
    parser.add_argument("--target-files", type=int, default=16, help="the layouts' files: source bytes / this")
    args = parser.parse_args(argv)
    if not args.smoke:
        parser.error("nothing to do: --smoke")
    if args.tpch:
        from benchmarks.layout_spark.tpch_data import denormalized

        case, make_source = TPCH, lambda spark, work: denormalized(spark, args.tpch, args.cache, args.files)
    else:
        case, make_source = GENERATED, lambda spark, work: generated_source(
            spark, os.path.join(work, "source"), args.rows, args.files)
    return 1 if smoke(case, make_source, args.target_files) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
