"""Skipstone.create on real Spark and real files: every column kind, one file per block, the
same rows as the input, answers equal to plain Spark, and files listed from the manifest."""
from __future__ import annotations

import json
import os
import shutil

import pytest

import skipstone
from skipstone import ManagedTable, MinMax, Skipstone
from skipstone.layout import Amoeba
from skipstone.layout.schema import ColumnKind
from tests.conftest import normalized
from tests.table.table_data import SCHEMA, as_multiset, encoded_rows_by_file, mixed_rows, unindexed

ROWS = 4000
BLOCK_ROWS = 400


@pytest.fixture(scope="module")
def source(spark):
    return spark.createDataFrame(mixed_rows(ROWS), SCHEMA)


@pytest.fixture(scope="module")
def plain(spark, source, tmp_path_factory):
    """The same rows as a plain Parquet directory: the reference every answer is checked against."""
    path = str(tmp_path_factory.mktemp("plain") / "data")
    source.write.parquet(path)
    return path


@pytest.fixture(scope="module")
def table(spark, source, tmp_path_factory) -> ManagedTable:
    path = str(tmp_path_factory.mktemp("managed") / "t")
    return Skipstone.create(spark, path, source, layout=Amoeba(block_rows=BLOCK_ROWS), indexes=[MinMax("l")])


def test_create_returns_a_handle_that_for_path_returns_again(spark, table):
    assert isinstance(table, ManagedTable)
    again = Skipstone.for_path(spark, table.root)
    assert isinstance(again, ManagedTable) and again.root == table.root and again.version == 1


def test_the_table_holds_exactly_the_input_rows(spark, table, source):
    assert as_multiset(spark.read.parquet(table.root)) == as_multiset(source)


def test_every_column_kind_is_a_layout_column_and_timestamps_keep_microseconds(table):
    kinds = {c.name: c.kind for c in table.tree().schema.columns}
    assert kinds == {"i": ColumnKind.INTEGER, "l": ColumnKind.INTEGER, "dec": ColumnKind.NUMERIC,
                     "x": ColumnKind.NUMERIC, "d": ColumnKind.DATE, "ts": ColumnKind.TIMESTAMP,
                     "s": ColumnKind.CATEGORICAL, "b": ColumnKind.CATEGORICAL}


def test_every_row_lies_in_the_region_of_its_files_block(spark, table):
    """Routing in the executors agrees with the layout's own encoding (NULL, NaN, -0.0, strings
    missing from the sample's dictionary included): each file's rows route to its block."""
    v = table.current()
    tree = v.tree
    position = {int(b): p for p, b in enumerate(tree.block_ids)}
    paths = [v.absolute(f) for f in v.files]
    by_file = encoded_rows_by_file(spark, paths, tree)
    for f, spelled in zip(v.files, by_file):
        rows = by_file[spelled]
        assert rows.rows == f.rows, f.path
        assert set(tree.route(rows).tolist()) == {position[f.block]}, f.path


def test_one_file_per_block_within_size_bounds(table):
    v = table.current()
    blocks = [f.block for f in v.files]
    assert len(blocks) == len(set(blocks)), "a block was split although it is under the file limit"
    assert all(f.rows <= 2 * BLOCK_ROWS for f in v.files)
    assert sum(f.rows for f in v.files) == ROWS
    # blocks hold [b, 2b) rows as estimated from the sample; allow the sample's noise
    assert min(f.rows for f in v.files) >= BLOCK_ROWS // 2
    assert v.tree.block_count == 8


QUERIES = [
    "i < -500",
    "i BETWEEN 10 AND 20 OR l > 3000000000",
    "dec >= 5000.00",
    "x > 150",
    "x = 0.0",
    "isnan(x)",
    "x IS NULL",
    "d < DATE'2020-03-01'",
    "ts < TIMESTAMP'2024-03-01 00:30:00.000001'",
    "s IN ('s001', 's299') OR s IS NULL",
    "s > 's290'",
    "b = false",
    "NOT (i > -900)",
]


@pytest.mark.parametrize("predicate", QUERIES)
def test_answers_equal_plain_spark_on_the_original_data(spark, table, plain, predicate):
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")  # footers omit NaN: the reference must not prune
    try:
        expected = normalized(spark.sql(f"SELECT * FROM parquet.`{plain}` WHERE {predicate}").collect())
        actual = normalized(spark.sql(f"SELECT * FROM parquet.`{table.root}` WHERE {predicate}").collect())
    finally:
        spark.conf.set("spark.sql.parquet.filterPushdown", "true")
    assert actual == expected


def test_a_query_on_the_first_cut_skips_half_the_files(spark, table):
    tree = table.tree()
    column = tree.schema.columns[tree.root.column]
    value = column.decode(tree.root.cut)
    literal = {ColumnKind.DATE: f"DATE'{value}'", ColumnKind.TIMESTAMP: f"TIMESTAMP'{value}'",
               ColumnKind.CATEGORICAL: f"'{value}'" if isinstance(value, str) else str(value).lower()}.get(column.kind, repr(value))
    spark.sql(f"SELECT * FROM parquet.`{table.root}` WHERE {column.name} <= {literal}").collect()
    stats = skipstone.last_query_stats(spark)
    assert stats.files_total == len(table.current().files)
    assert stats.files_skipped >= stats.files_total // 2


def test_queries_read_the_version_and_other_writers_files_never_uncommitted_ones(spark, table, source, tmp_path):
    """A file another writer drops into the directory is table data, read unindexed; a file named
    as Skipstone names its own but listed by no version is an uncommitted writer's: never read."""
    out = tmp_path / "seven"
    spark.read.parquet(table.root).limit(7).coalesce(1).write.parquet(str(out))
    part = str(next(out.glob("part-*.parquet")))
    root = table.root.replace("file:", "")
    dropped = [os.path.join(root, "other-writer.parquet"), os.path.join(root, "b0-part-00000-uncommitted.snappy.parquet")]
    for path in dropped:
        shutil.copy(part, path)
    try:
        assert spark.read.parquet(table.root).count() == ROWS + 7
        expected = source.where("i < 0").count() + spark.read.parquet(part).where("i < 0").count()
        assert spark.sql(f"SELECT count(*) FROM parquet.`{table.root}` WHERE i < 0").collect()[0][0] == expected
        assert unindexed(skipstone.last_query_stats(spark)) == 1
    finally:
        for path in dropped:
            os.remove(path)


def test_create_refuses_an_existing_table_or_a_non_empty_directory(spark, table, source, plain):
    with pytest.raises(skipstone.SkipstoneError, match="already a Skipstone table"):
        Skipstone.create(spark, table.root, source, layout=Amoeba(block_rows=BLOCK_ROWS))
    with pytest.raises(skipstone.SkipstoneError, match="not empty"):
        Skipstone.create(spark, plain, source, layout=Amoeba(block_rows=BLOCK_ROWS))


def test_the_log_entry_is_the_documented_json(table):
    log = os.path.join(table.root.replace("file:", ""), "_skipstone", "log", f"{1:020d}.json")
    entry = json.load(open(log))
    assert entry["format"] == "skipstone.table" and entry["formatVersion"] == 1 and entry["version"] == 1
    assert entry["operation"] == "CREATE" and entry["layout"]["format"] == "skipstone.layout"
    assert {"path", "size", "modificationTime", "block", "rows"} == set(entry["files"][0])
    assert entry["metadataVersion"] >= 1 and "schema" in entry["properties"]
