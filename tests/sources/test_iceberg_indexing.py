"""Skipstone's indexes built over Iceberg tables: over a snapshot's live data files, pinned to it.

Tables keep no Iceberg column statistics (but where a test says so), and spread the key ``k``
over all files (file ``i`` holds the ``k`` with ``k % 4 == i``), so that what is skipped is
Skipstone's.
"""
from __future__ import annotations

import pytest

import skipstone
from conftest import run_both_ways, run_df_both_ways
from iceberg_tables import (current_snapshot, live_files, location, new_table, register_catalog, require_iceberg,
                            write)
from skipstone import BloomFilter, MinMax, Rule, Skipstone, SkipstoneError, UdfMapping, ValueList

SCHEMA = "k int, s string, v double"


@pytest.fixture(scope="module", autouse=True)
def catalog(spark, tmp_path_factory):
    require_iceberg(spark)
    register_catalog(spark, str(tmp_path_factory.mktemp("warehouse")))


def rows_of_file(i: int, keys: int = 400) -> list[tuple[int, str, float]]:
    return [(k, f"s{k % 4}", k / 10) for k in range(keys) if k % 4 == i]


def four_files(spark) -> str:
    table = new_table(spark, SCHEMA)
    for i in range(4):
        write(spark, table, rows_of_file(i), SCHEMA)
    return table


def stats_of(spark) -> skipstone.DatasetStats:
    (only,) = skipstone.last_query_stats(spark).per_dataset
    return only


def test_an_index_covers_the_live_files_of_the_current_snapshot_and_records_it(spark):
    table = four_files(spark)
    # a delete that removes every row of a file drops the file from the next snapshot (copy-on-write)
    spark.sql(f"DELETE FROM {table} WHERE k % 4 = 3")

    ds = Skipstone.for_table(spark, table).build(BloomFilter("k"))

    (row,) = ds.describe().collect()
    assert ds.format == "iceberg"
    assert row.files_indexed == len(live_files(spark, table)) == 3
    assert row.table_version == current_snapshot(spark, table)


def test_a_point_lookup_reads_only_the_file_that_may_hold_the_key(spark):
    table = four_files(spark)
    Skipstone.for_table(spark, table).build(BloomFilter("k"))

    rows, _ = run_both_ways(spark, f"SELECT k, s FROM {table} WHERE k = 41")

    assert rows == [(41, "s1")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (4, 3, 0)


def test_only_the_files_icebergs_own_planning_kept_are_counted_and_skipped(spark):
    table = new_table(spark, SCHEMA, column_stats=True)
    for i in range(4):
        write(spark, table, rows_of_file(i), SCHEMA)
    write(spark, table, [(1000 + k, "late", 0.0) for k in range(10)], SCHEMA)
    Skipstone.for_table(spark, table).build(MinMax("k"))

    assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE k >= 1000")[0] == [(10,)]

    # Iceberg's own statistics ruled out the four older files before Skipstone saw the scan
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped) == (1, 0)


def test_a_value_list_skips_files_whose_range_holds_the_value_and_explain_says_so(spark):
    table = new_table(spark, SCHEMA)
    for i in range(4):
        write(spark, table, [(i, s, 0.0) for s in ("a", f"m{i}", "z")], SCHEMA)
    Skipstone.for_table(spark, table).build(ValueList("s"))

    assert run_both_ways(spark, f"SELECT k FROM {table} WHERE s = 'm2'")[0] == [(2,)]
    assert stats_of(spark).files_skipped == 3

    plan = spark.sql(f"EXPLAIN SELECT * FROM {table} WHERE s = 'm2'").collect()[0][0]
    assert "Skipstone" in plan and "skipped 3 of 4 files" in plan


def test_files_appended_after_the_build_are_read_and_the_stats_say_why(spark):
    table = four_files(spark)
    Skipstone.for_table(spark, table).build(BloomFilter("k"))
    built = current_snapshot(spark, table)
    write(spark, table, [(41, "new", 0.0)], SCHEMA)

    rows, _ = run_both_ways(spark, f"SELECT k, s FROM {table} WHERE k = 41")

    assert rows == [(41, "new"), (41, "s1")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (5, 3, 1)
    assert any(f"not in the index built from snapshot {built}" in why for why in stats.unanswered)


def test_refresh_indexes_the_files_added_since_the_indexed_snapshot_and_forgets_removed_ones(spark):
    table = four_files(spark)
    ds = Skipstone.for_table(spark, table).build(ValueList("k", max_size=1000))
    spark.sql(f"DELETE FROM {table} WHERE k % 4 = 2")
    # the keys the deleted file held, written anew: only the new file may hold k = 10
    write(spark, table, [(k, "new", 0.0) for k in range(2, 400, 8)], SCHEMA)

    ds.refresh()

    (row,) = ds.describe().collect()
    assert (row.files_indexed, row.table_version) == (4, current_snapshot(spark, table))
    run_both_ways(spark, f"SELECT k FROM {table} WHERE k = 10")
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped, stats.files_unindexed) == (4, 3, 0)


def test_sql_builds_describes_refreshes_and_drops_an_index_on_a_table_name(spark):
    table = four_files(spark)

    spark.sql(f"CREATE SKIPPING INDEX ON {table} (BLOOMFILTER(k))").collect()

    run_both_ways(spark, f"SELECT * FROM {table} WHERE k = 42")
    assert stats_of(spark).files_skipped == 3
    (described,) = spark.sql(f"DESCRIBE SKIPPING INDEX ON {table}").collect()
    assert described.table_version == current_snapshot(spark, table) and described.files_indexed == 4
    write(spark, table, [(42, "new", 0.0)], SCHEMA)
    spark.sql(f"REFRESH SKIPPING INDEX ON {table}").collect()
    (described,) = spark.sql(f"DESCRIBE SKIPPING INDEX ON {table}").collect()
    assert (described.files_indexed, described.table_version) == (5, current_snapshot(spark, table))
    assert spark.sql(f"DROP SKIPPING INDEX ON {table}").collect()[0].dropped


def test_a_udf_mapping_answers_a_function_of_an_indexed_column(spark):
    table = four_files(spark)
    write(spark, table, [(1000 + k, "late", 0.0) for k in range(10)], SCHEMA)
    # `k + 1 > c` holds only where max(k) + 1 > c
    plus_one = UdfMapping("k + 1 on minmax", (Rule("{x} + 1 > {c}", "{x:minmax.max} + 1 > {c}"),))
    Skipstone.for_table(spark, table).build(MinMax("k"), plus_one)

    assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE k + 1 > 1005")[0] == [(5,)]
    assert stats_of(spark).files_skipped == 4


def test_a_python_udf_predicate_is_answered_by_its_mapping(spark):
    # Spark evaluates a Python UDF above the scan, in an operator of its own: the filter the
    # Iceberg scan sits under holds only the rest of the condition
    table = four_files(spark)
    write(spark, table, [(1000 + k, "late", 0.0) for k in range(10)], SCHEMA)
    mapping = UdfMapping("plus_one on minmax", (Rule("plus_one({x}) > {c}", "{x:minmax.max} + 1 > {c}"),))
    Skipstone.for_table(spark, table).build(MinMax("k"), mapping)
    # a lambda travels to the Python workers by value (this module is not on their path)
    spark.udf.register("plus_one", lambda x: None if x is None else x + 1, "int")

    assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE plus_one(k) > 1005")[0] == [(5,)]
    assert stats_of(spark).files_skipped == 4
    rows, _ = run_both_ways(spark, f"SELECT k FROM {table} WHERE plus_one(k) > 1005 AND v >= 0")
    assert sorted(rows) == [(k,) for k in range(1005, 1010)]
    assert stats_of(spark).files_skipped == 4
    # in a disjunction, which stays above the evaluation whole (MinMax answers `k = 2000`, no file holds it)
    assert run_both_ways(spark, f"SELECT count(*) FROM {table} WHERE plus_one(k) > 1005 OR k = 2000")[0] == [(5,)]
    assert stats_of(spark).files_skipped == 4


def test_a_partitioned_table_is_pruned_by_iceberg_then_skipped_within_the_partition(spark):
    schema = "k int, p string, v double"
    table = new_table(spark, schema, partitioned_by="p")
    for i in range(4):
        write(spark, table, [(k, "a" if i < 2 else "b", 0.0) for k in range(400) if k % 4 == i], schema)
    Skipstone.for_table(spark, table).build(BloomFilter("k"))

    rows, _ = run_both_ways(spark, f"SELECT k, p FROM {table} WHERE p = 'a' AND k = 41")

    assert rows == [(41, "a")]
    stats = stats_of(spark)
    assert (stats.files_total, stats.files_skipped) == (2, 1)


def test_a_join_whose_dynamic_partition_pruning_filters_the_narrowed_scan_returns_icebergs_rows(spark):
    schema = "k int, p string, v double"
    table = new_table(spark, schema, partitioned_by="p")
    for i in range(4):
        write(spark, table, [(k, "a" if i < 2 else "b", 0.0) for k in range(400) if k % 4 == i], schema)
    Skipstone.for_table(spark, table).build(BloomFilter("k"))
    spark.createDataFrame([("a", "wanted"), ("b", "other")], "p string, tag string").createOrReplaceTempView("dims")
    query = f"SELECT f.k, d.p FROM {table} f JOIN dims d ON f.p = d.p WHERE d.tag = 'wanted' AND f.k IN (41, 42)"

    rows, _ = run_both_ways(spark, query)

    assert rows == [(41, "a")]
    assert "dynamicpruning" in spark.sql(f"EXPLAIN {query}").collect()[0][0].lower()
    assert stats_of(spark).files_skipped > 0


def test_a_filter_with_a_subquery_over_the_same_table_skips_with_its_other_conjuncts(spark):
    table = four_files(spark)
    Skipstone.for_table(spark, table).build(BloomFilter("k"))

    rows, _ = run_both_ways(spark, f"SELECT k FROM {table} WHERE k = 41 AND v <= (SELECT max(v) FROM {table})")

    assert rows == [(41,)]
    assert [d.files_skipped for d in skipstone.last_query_stats(spark).per_dataset] == [3]


def test_a_table_of_orc_files_is_refused_naming_it(spark):
    table = new_table(spark, SCHEMA, **{"write.format.default": "orc"})
    write(spark, table, rows_of_file(0), SCHEMA)

    with pytest.raises(SkipstoneError, match=f"the Iceberg table {table} has ORC data files"):
        Skipstone.for_table(spark, table).build(MinMax("k"))


def test_a_table_opened_by_its_dataframe_or_by_its_path_is_the_same_dataset(spark):
    table = four_files(spark)
    path = location(spark, table)

    by_frame = Skipstone.for_dataframe(spark.table(table))
    by_path = Skipstone.for_path(spark, path, format="iceberg").build(BloomFilter("k"))

    assert (by_frame.table, by_frame.root, by_frame.format) == (table, by_path.root, "iceberg")
    assert by_frame.describe().collect()[0].table_version == current_snapshot(spark, table)
    rows, _ = run_df_both_ways(spark, lambda: spark.read.format("iceberg").load(path).where("k = 41"))
    assert [r[0] for r in rows] == [41]
    assert stats_of(spark).files_skipped == 3
    write(spark, table, [(41, "new", 0.0)], SCHEMA)
    by_path.refresh()
    assert by_frame.describe().collect()[0].files_indexed == 5


def test_an_iceberg_tables_location_opened_as_parquet_is_refused(spark):
    table = four_files(spark)

    with pytest.raises(SkipstoneError, match="is an Iceberg table"):
        Skipstone.for_path(spark, location(spark, table))


def test_an_index_on_a_column_that_is_not_there_names_it_and_the_table(spark):
    table = four_files(spark)

    with pytest.raises(SkipstoneError, match=f"(?s)nope.*{table}"):
        Skipstone.for_table(spark, table).build(MinMax("nope"))
