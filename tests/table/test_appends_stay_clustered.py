"""Appends stay clustered (issue 23, requirement 5): new rows are routed by the tree into small
files of their blocks, compaction merges those files within their block, and a fixed set of range
queries reads, after ten appends and a compaction, what it read right after the layout was built.

The scenario runs once per module, on a real Spark managed table: a k-d tree on (a, b), 16
blocks of ~2,500 rows; twenty range queries are run right after the table is created (its
layout freshly built: the state an optimize from scratch leaves) and recorded; then ten appends
of 2,000 new rows each (5 % of the table as created), drawn from the same distribution; the
queries again (no compaction yet); one `t.optimize()` with the strategies `unindexed,compaction`;
the queries again.

**The fair comparison.** The table grows by 50 %, so a query that reads the same blocks reads
50 % more bytes and rows: absolute reads are not comparable. What clustering promises is that a
query reads the same *part* of the table: the fraction of the table's rows (and bytes) in the
files it reads, and, for files, the files read relative to the files of the table (right after a
build and after a compaction, about one file per block: the fraction of the blocks read). The
blocks' regions do not change with appends, and new rows come from the same distribution, so
each block keeps its share of the rows up to sampling noise; a routing that mixed blocks (or a
compaction that merged across them) would make files span several regions, and a query would
read more of the table. Each bound below is summed over the twenty queries: the total fraction
read after may exceed the total fraction read before by at most 10 % (reading less is no harm:
the appended files' own min/max may let a query skip some of them).

Without compaction the same fractions hold for rows and bytes (the appended files lie inside
their blocks, so they are skipped with them), but a query opens about eleven files per block it
reads instead of one: that is what compaction adds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from pyspark.sql import DataFrame, functions as F

import skipstone
from skipstone import ManagedTable, OptimizeResult, Skipstone
from skipstone.layout import KdTree
from skipstone.table.manifest import TableVersion
from tests.table.table_data import as_multiset

# its table takes about 30 s to build: make test-long runs it (CI after make test), not make test
pytestmark = pytest.mark.long

CREATED_ROWS = 40_000
BLOCK_ROWS = 2_000
APPENDS = 10
APPEND_ROWS = CREATED_ROWS // 20  # 5 % of the table as created
TOLERANCE = 0.10


def rows(spark, start: int, n: int) -> DataFrame:
    """Rows with ids start .. start + n - 1: a uniform on [0, 100000), b skewed towards 0 (the
    square of a uniform), v the id. Disjoint id ranges are independent draws of one distribution."""
    u = lambda seed: F.pmod(F.xxhash64(F.col("id"), F.lit(seed)), F.lit(1_000_000)) / 1_000_000.0  # noqa: E731
    return spark.range(start, start + n).select(
        F.floor(u(1) * 100_000).cast("bigint").alias("a"),
        F.floor(u(2) * u(2) * 10_000).cast("bigint").alias("b"),
        F.col("id").alias("v"))


def batches() -> list[tuple[int, int]]:
    """(start, rows) of the create and of each append."""
    return [(0, CREATED_ROWS)] + [(CREATED_ROWS + k * APPEND_ROWS, APPEND_ROWS) for k in range(APPENDS)]


def queries() -> list[str]:
    """Twenty range predicates: on a, on b, and on both, of several widths."""
    rng = np.random.default_rng(23)
    out = []
    for k in range(20):
        wa, wb = [2_000, 5_000, 10_000, 25_000][k % 4], [100, 400, 1_500, 4_000][(k // 4) % 4]
        a0, b0 = int(rng.integers(0, 100_000 - wa)), int(rng.integers(0, 10_000 - wb))
        on_a, on_b = f"a >= {a0} AND a < {a0 + wa}", f"b >= {b0} AND b < {b0 + wb}"
        out.append([on_a, on_b, f"{on_a} AND {on_b}"][k % 3])
    return out


@dataclass(frozen=True)
class Read:
    """What one query read of a version, and its answer."""

    files: int
    files_total: int
    bytes: int
    bytes_total: int
    rows: int
    rows_total: int
    answer: tuple


@dataclass(frozen=True)
class Phase:
    """The table at one moment and what each query read of it."""

    version: TableVersion
    reads: list[Read]
    expected: list[tuple]  # plain Spark's answers over the rows written so far

    def fraction(self, read: str, total: str) -> float:
        """The queries' summed fraction of the table they read (files, bytes or rows)."""
        return sum(getattr(r, read) / getattr(r, total) for r in self.reads)


@dataclass(frozen=True)
class Scenario:
    table: ManagedTable
    built: Phase
    appends: list[TableVersion]  # the version before the first append, then after each
    appended: Phase
    compaction: OptimizeResult | None
    compacted: Phase
    written: DataFrame  # every row written, as plain Spark computes it


def run_queries(spark, table: ManagedTable, written: DataFrame) -> Phase:
    version = table.current()
    rows_total = sum(f.rows for f in version.files)
    reads = []
    for where in queries():
        answer = spark.sql(f"SELECT count(*), sum(v) FROM parquet.`{table.root}` WHERE {where}").first()
        s = skipstone.last_query_stats(spark)
        assert len(s.per_dataset) == 1 and s.files_total == len(version.files)
        reads.append(Read(s.files_total - s.files_skipped, s.files_total, s.bytes_total - s.bytes_skipped,
                          s.bytes_total, rows_total - s.per_dataset[0].rows_skipped, rows_total, tuple(answer)))
    # plain Spark, no table and no skipping: the rows as written, every query in one job
    expected = written.agg(*[F.struct(F.count_if(F.expr(w)), F.sum(F.when(F.expr(w), F.col("v"))))
                             for w in queries()]).first()
    return Phase(version, reads, [tuple(e) for e in expected])


@pytest.fixture(scope="module")
def scenario(spark, tmp_path_factory) -> Scenario:
    (start, n), *appends = batches()
    table = Skipstone.create(spark, str(tmp_path_factory.mktemp("clustered") / "t"), rows(spark, start, n),
                             layout=KdTree(block_rows=BLOCK_ROWS, columns=["a", "b"]))
    table.set_properties({"optimize.strategies": "unindexed,compaction"})
    assert table.optimize() is None  # a freshly built layout leaves the optimize loop nothing to do
    written = rows(spark, start, n)
    built = run_queries(spark, table, written)
    versions = [table.current()]
    for start, n in appends:
        table.append(rows(spark, start, n))
        versions.append(table.current())
        written = written.union(rows(spark, start, n))
    appended = run_queries(spark, table, written)
    compaction = table.optimize()
    compacted = run_queries(spark, table, written)
    return Scenario(table, built, versions, appended, compaction, compacted, written)


# -- the checks ---------------------------------------------------------------------------------

def rows_by_file(spark, version: TableVersion, files, columns: list[str]) -> dict[str, np.ndarray]:
    """The values of `columns` in each file's rows, read from the file itself (one job)."""
    got = spark.read.parquet(*[version.absolute(f) for f in files]) \
        .select(F.element_at(F.split(F.col("_metadata.file_path"), "/"), -1).alias("name"), *columns).collect()
    out: dict[str, list] = {}
    for r in got:
        out.setdefault(r.name, []).append([float(x) for x in r[1:]])
    return {name: np.array(values) for name, values in out.items()}


def outside_their_block(spark, version: TableVersion, files) -> dict[str, int]:
    """Per file, how many of its rows lie outside the region of the block the manifest gives it
    (the tree's boxes over its columns, independently of the routing that wrote them)."""
    tree = version.tree
    boxes = tree.descriptors()
    position = {int(b): p for p, b in enumerate(tree.block_ids)}
    values = rows_by_file(spark, version, files, [c.name for c in tree.schema.columns])
    bad = {}
    for f in files:
        mine = boxes.owner == position[f.block]
        inside = np.zeros(len(values[f.path]), dtype=bool)
        for low, high in zip(boxes.low[mine], boxes.high[mine]):
            inside |= np.all((values[f.path] > low) & (values[f.path] <= high), axis=1)
        if not inside.all():
            bad[f.path] = int((~inside).sum())
    return bad


def test_every_append_writes_one_file_per_block_it_routes_rows_to(spark, scenario):
    blocks = set(scenario.built.version.tree.block_ids.tolist())
    assert len(blocks) >= 16
    for before, after in zip(scenario.appends, scenario.appends[1:]):
        assert set(before.files) <= set(after.files)  # no file rewritten
        new = [f for f in after.files if f not in set(before.files)]
        assert sum(f.rows for f in new) == APPEND_ROWS
        assert sorted(f.block for f in new) == sorted({f.block for f in new}) and {f.block for f in new} <= blocks
        assert len(new) >= len(blocks) - 1  # 2,000 rows over 16 blocks: (nearly) every block gains a file


def test_every_appended_row_lies_in_the_region_of_its_files_block(spark, scenario):
    first, last = scenario.appends[0], scenario.appends[-1]
    appended = [f for f in last.files if f not in set(first.files)]
    assert len(appended) >= APPENDS * 15
    assert outside_their_block(spark, last, appended) == {}


def test_compaction_merges_each_blocks_files_within_the_block(spark, scenario):
    before, after = scenario.appended.version, scenario.compacted.version
    assert scenario.compaction is not None and scenario.compaction.strategy == "compaction"
    assert scenario.compaction.rows_rewritten == sum(f.rows for f in before.files)  # every block was fragmented
    rows_of = lambda v: {b: sum(f.rows for f in v.files if f.block == b) for b in {f.block for f in v.files}}  # noqa: E731
    assert rows_of(after) == rows_of(before)  # each block keeps exactly its rows
    for block, n in rows_of(after).items():
        # as few files as the rows need: a file holds at most twice the target block rows
        assert len(after.files_of([block])) == -(-n // (2 * BLOCK_ROWS))
    assert outside_their_block(spark, after, after.files) == {}  # no file holds rows of two blocks
    assert scenario.table.optimize() is None  # nothing left to compact


def test_after_ten_appends_and_compaction_queries_read_the_same_part_of_the_table(scenario):
    built, compacted = scenario.built, scenario.compacted
    for read, total in [("rows", "rows_total"), ("bytes", "bytes_total"), ("files", "files_total")]:
        before, after = built.fraction(read, total), compacted.fraction(read, total)
        assert after <= before * (1 + TOLERANCE), f"{read}: {after:.3f} of the table read, {before:.3f} after the build"


def test_without_compaction_the_same_part_is_read_from_more_files(scenario):
    built, appended = scenario.built, scenario.appended
    for read, total in [("rows", "rows_total"), ("bytes", "bytes_total"), ("files", "files_total")]:
        before, after = built.fraction(read, total), appended.fraction(read, total)
        assert after <= before * (1 + TOLERANCE), f"{read}: {after:.3f} of the table read, {before:.3f} after the build"
    files = lambda phase: sum(r.files for r in phase.reads)  # noqa: E731
    # each block read is opened as its original file plus one per append
    assert files(appended) >= (1 + APPENDS) * 0.9 * files(built)


@pytest.mark.parametrize("phase", ["built", "appended", "compacted"])
def test_every_answer_is_plain_sparks(scenario, phase):
    p = getattr(scenario, phase)
    assert [r.answer for r in p.reads] == p.expected


def test_the_table_holds_exactly_the_rows_written(spark, scenario):
    assert as_multiset(scenario.table.read()) == as_multiset(scenario.written)

