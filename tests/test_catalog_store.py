"""The catalog-table metadata store (docs/metadata.md, "Metadata stores"): a dataset's metadata
versions as tables of the session catalog, chosen per dataset, used by the same query path.

`make test-catalog-store` runs the whole skipping suite with this store as the session default;
these tests choose it explicitly, so they hold whichever default the run has."""
from __future__ import annotations

import json
import os
import threading

import pyarrow as pa
import pytest

from conftest import run_both_ways
from datasets import clustered_table, write_clustered, write_file
from skipstone import MinMax, Skipstone, SkipstoneError, ValueList
from skipstone.session import jvm_entry


def query(root: str, predicate: str) -> str:
    return f"SELECT k FROM parquet.`{root}` WHERE {predicate}"


def version_tables(spark, name: str) -> list[str]:
    return sorted(t.name for t in spark.catalog.listTables("default") if t.name.startswith(f"{name}__v"))


@pytest.fixture()
def events(spark, tmp_path) -> str:
    """Ten files, k clustered (file i holds 100i..100i+99), indexed by MinMax(k) in catalog table default.<name>."""
    root = write_clustered(str(tmp_path / "events"))
    Skipstone.for_path(spark, root).build(MinMax("k"), metadata_store=f"catalog:default.{tmp_path.name.lower()}")
    yield root
    Skipstone.for_path(spark, root).drop()


def name_of(tmp_path) -> str:
    return tmp_path.name.lower()


def test_a_build_publishes_a_catalog_table_of_one_row_per_file(spark, events, tmp_path):
    name = name_of(tmp_path)
    assert version_tables(spark, name) == [f"{name}__v1"]
    rows = spark.table(f"default.{name}__v1").select("path", "minmax_0_min", "minmax_0_max").collect()
    assert sorted((r.minmax_0_min, r.minmax_0_max) for r in rows) == [(100 * i, 100 * i + 99) for i in range(10)]
    # beside the data only the pointer the query path follows: no version directory
    assert [f for f in os.listdir(os.path.join(events, "_skipstone")) if not f.startswith(".")] == ["store.json"]


def test_describe_names_the_catalog_table(spark, events, tmp_path):
    (row,) = Skipstone.for_path(spark, events).describe().collect()
    assert (row["index"], row.version, row.files_indexed) == ("MinMax(k)", 1, 10)
    assert row.metadata_dir == f"catalog:default.{name_of(tmp_path)}"
    (sql,) = spark.sql(f"DESCRIBE SKIPPING INDEX ON parquet.`{events}`").collect()
    assert sql.asDict() == row.asDict()


def test_queries_skip_with_it_and_answer_as_without_skipping(spark, events):
    rows, stats = run_both_ways(spark, query(events, "k BETWEEN 250 AND 349"))
    assert rows == [(k,) for k in range(250, 350)]
    assert (stats.files_total, stats.files_skipped) == (10, 8)


def test_refresh_publishes_the_next_version_in_the_same_table(spark, events, tmp_path):
    write_file(events, 10, clustered_table(0).set_column(0, "k", pa.array(range(7000, 7100), pa.int32())))
    Skipstone.for_path(spark, events).refresh()
    name = name_of(tmp_path)
    assert version_tables(spark, name) == [f"{name}__v1", f"{name}__v2"]
    rows, stats = run_both_ways(spark, query(events, "k = 7005"))
    assert rows == [(7005,)]
    assert (stats.files_total, stats.files_skipped, stats.per_dataset[0].files_unindexed) == (11, 10, 0)


def test_drop_removes_the_tables_their_files_and_the_pointer(spark, events, tmp_path):
    name = name_of(tmp_path)
    (location,) = [r.data_type for r in spark.sql(f"DESCRIBE TABLE EXTENDED default.{name}__v1").collect()
                   if r.col_name == "Location"]
    assert Skipstone.for_path(spark, events).drop()
    assert version_tables(spark, name) == []
    assert not os.path.exists(location.removeprefix("file:"))
    assert not os.path.exists(os.path.join(events, "_skipstone", "store.json"))
    rows, stats = run_both_ways(spark, query(events, "k = 5"))
    assert rows == [(5,)] and stats.files_skipped == 0


def test_the_sql_build_chooses_the_store_with_stored_in(spark, tmp_path):
    root = write_clustered(str(tmp_path / "sql_events"))
    name = f"{name_of(tmp_path)}_sql"
    spark.sql(f"CREATE SKIPPING INDEX ON parquet.`{root}` (MINMAX(k)) STORED IN CATALOG TABLE default.{name}")
    try:
        assert version_tables(spark, name) == [f"{name}__v1"]
        spark.sql(f"REFRESH SKIPPING INDEX ON parquet.`{root}`")
        assert version_tables(spark, name) == [f"{name}__v1", f"{name}__v2"]
        _, stats = run_both_ways(spark, query(root, "k < 100"))
        assert stats.files_skipped == 9
    finally:
        spark.sql(f"DROP SKIPPING INDEX ON parquet.`{root}`")
    assert version_tables(spark, name) == []


def test_a_dataset_moves_between_stores_and_queries_follow_it(spark, tmp_path):
    root = write_clustered(str(tmp_path / "moving"))
    name = f"{name_of(tmp_path)}_moving"
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"), metadata_store="files")
    ds.build(ValueList("cat"), metadata_store=f"catalog:default.{name}")
    assert [r["index"] for r in ds.describe().collect()] == ["ValueList(cat, max_size=1000)"]
    _, stats = run_both_ways(spark, query(root, "k < 100"))
    assert stats.files_skipped == 0  # the catalog's version indexes cat only
    ds.build(MinMax("k"), metadata_store="files")
    assert ds.describe().collect()[0].metadata_dir.endswith("_skipstone")
    _, stats = run_both_ways(spark, query(root, "k < 100"))
    assert stats.files_skipped == 9
    ds.drop()


def test_a_table_name_of_another_dataset_is_refused(spark, events, tmp_path):
    other = write_clustered(str(tmp_path / "other"))
    with pytest.raises(SkipstoneError, match=f"is not the Skipstone metadata of .*other"):
        Skipstone.for_path(spark, other).build(MinMax("k"), metadata_store=f"catalog:default.{name_of(tmp_path)}")


def test_a_missing_database_and_a_bad_store_name_are_clear_errors(spark, tmp_path):
    root = write_clustered(str(tmp_path / "errors"), files=2)
    ds = Skipstone.for_path(spark, root)
    with pytest.raises(SkipstoneError, match="database no_such_db does not exist"):
        ds.build(MinMax("k"), metadata_store="catalog:no_such_db.t")
    with pytest.raises(SkipstoneError, match="metadata store 'catalog:a.b.c' names more than a database and a table"):
        ds.build(MinMax("k"), metadata_store="catalog:a.b.c")
    with pytest.raises(SkipstoneError, match="metadata store 'hive' is not a store"):
        ds.build(MinMax("k"), metadata_store="hive")


def test_concurrent_publishers_each_get_a_version_of_their_own_and_readers_never_see_half(spark, events, tmp_path):
    """Publishers race for version numbers; each version's table holds what its publisher wrote
    (its own row count), and a reader polling meanwhile only ever sees whole versions."""
    entry = jvm_entry(spark)
    jsession = spark._jsparkSession
    ds = Skipstone.for_path(spark, events)
    root = ds.root  # qualified, as the API hands roots to the JVM
    _, _, definition = ds._current()
    published: dict[int, int] = {}  # version -> rows its publisher wrote
    errors: list[BaseException] = []
    seen: list[tuple[int, int]] = []
    done = threading.Event()

    def publisher(worker: int) -> None:
        try:
            for i in range(3):
                rows = 20 + 3 * worker + i  # unique per publish
                staging = entry.newStagingDir(jsession, root)
                spark.table(f"default.{name_of(tmp_path)}__v1").limit(1).crossJoin(spark.range(rows)).drop("id") \
                    .coalesce(1).write.parquet(staging + "/table")
                version = entry.publish(jsession, root, staging, json.dumps(definition))
                published[int(version)] = rows
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    def reader() -> None:
        try:
            while not done.is_set():
                found = list(entry.currentVersion(jsession, root))
                if found:
                    seen.append((int(found[0]), int(entry.filesIndexed(jsession, found[1]))))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=publisher, args=(w,)) for w in range(3)]
    watcher = threading.Thread(target=reader)
    watcher.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    watcher.join()
    assert not errors, "\n".join(str(e)[:700] for e in errors)
    assert sorted(published) == list(range(2, 11))  # nine publishes, nine versions, none shared
    name = name_of(tmp_path)
    for version, rows in published.items():
        assert spark.table(f"default.{name}__v{version}").count() == rows
    whole = {1: 10, **published}
    assert seen and all(files == whole[version] for version, files in seen)
    assert Skipstone.for_path(spark, events).describe().collect()[0].version == 10


@pytest.fixture()
def catalog_by_default(spark):
    """The session's default store is the catalog (what `make test-catalog-store` sets for the whole suite)."""
    before = spark.conf.get("spark.skipstone.metadataStore", None)
    spark.conf.set("spark.skipstone.metadataStore", "catalog")
    yield
    if before is None:
        spark.conf.unset("spark.skipstone.metadataStore")
    else:
        spark.conf.set("spark.skipstone.metadataStore", before)


def test_the_session_default_puts_a_new_dataset_in_a_table_named_after_it(spark, tmp_path, catalog_by_default):
    root = write_clustered(str(tmp_path / "Daily-Events"), files=3)
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"))
    try:
        store = ds.describe().collect()[0].metadata_dir
        assert store.startswith("catalog:default.skipstone_daily_events_")
        assert version_tables(spark, store.split(".")[-1]) == [store.split(".")[-1] + "__v1"]
        _, stats = run_both_ways(spark, query(root, "k < 100"))
        assert stats.files_skipped == 2
    finally:
        ds.drop()


def test_a_managed_table_keeps_its_metadata_in_files_whatever_the_default(spark, tmp_path, catalog_by_default):
    from skipstone.layout import Amoeba

    df = spark.createDataFrame([(i, f"s{i % 7}") for i in range(400)], "i INT, s STRING")
    table = Skipstone.create(spark, str(tmp_path / "managed"), df, layout=Amoeba(block_rows=100), indexes=[MinMax("i")])
    assert table.describe().collect()[0].metadata_dir.endswith("managed/_skipstone")
    assert any(v.startswith("v") for v in os.listdir(tmp_path / "managed" / "_skipstone"))


def test_the_metadata_tools_read_it_through_a_session_and_name_it_without_one(spark, events, tmp_path):
    from py4j.protocol import Py4JJavaError

    root = Skipstone.for_path(spark, events).root
    tools = spark._jvm.io.skipstone.tools.MetadataCli
    described = json.loads(tools.answer(spark._jsparkSession, "describe", root))["metadata"]
    assert (described["version"], described["files_indexed"]) == (1, 10)
    assert described["dir"] == f"catalog:default.{name_of(tmp_path)}"
    conf = spark._jsc.hadoopConfiguration()
    with pytest.raises(Py4JJavaError, match=f"is the catalog table default.{name_of(tmp_path)}__v<N>"):
        tools.answer(conf, spark._jvm.scala.Option.empty(), "describe", root)


def test_a_dropped_database_means_every_file_is_read_and_drop_still_cleans_up(spark, tmp_path):
    root = write_clustered(str(tmp_path / "gone"), files=3)
    spark.sql("CREATE DATABASE IF NOT EXISTS store_gone")
    ds = Skipstone.for_path(spark, root)
    ds.build(MinMax("k"), metadata_store="catalog:store_gone.events")
    _, stats = run_both_ways(spark, query(root, "k < 100"))
    assert stats.files_skipped == 2
    spark.sql("DROP DATABASE store_gone CASCADE")
    rows, stats = run_both_ways(spark, query(root, "k < 100"))
    assert len(rows) == 100 and stats.files_skipped == 0
    assert ds.describe().count() == 0
    ds.drop()
    assert not os.path.exists(os.path.join(root, "_skipstone"))
