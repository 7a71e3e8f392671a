"""optimize on real Spark: the logged workload drives Amoeba's adaptive plans; only the replaced
blocks are rewritten; rows and answers never change; queries see one version; a losing
concurrent commit leaves no trace; every commit is a row of history()."""
from __future__ import annotations

import dataclasses
import json
import os
import threading

import pytest
from pyspark.sql import functions as F

import skipstone
from skipstone import Skipstone
from skipstone.layout import AmoebaAdaptive, BestOf, KdTree, PawRebuild, RowsRead
from tests.table.table_copies import copy_table
from tests.table.table_data import as_multiset

ROWS = 8000
QUERY = "SELECT count(*), sum(v) FROM parquet.`{root}` WHERE a < 1000"


@pytest.fixture(scope="module")
def source(spark):
    # laid out on b only, queried on a: the adaptive optimizer has something to win
    return spark.range(ROWS).select((F.col("id") * 7919 % ROWS).alias("a"), (F.col("id") % 97).alias("b"),
                                    F.col("id").alias("v"))


def run_workload(spark, root, times=6):
    for _ in range(times):
        spark.sql(QUERY.format(root=root)).collect()


# Creating a table costs seconds of Spark jobs: each is created once per module and every test
# that changes a table works on its own copy (tests/table/table_copies.py).

@pytest.fixture(scope="module")
def created(spark, source, tmp_path_factory):
    """A new table, laid out on b only, with no workload yet."""
    path = tmp_path_factory.mktemp("created") / "t"
    return Skipstone.create(spark, str(path), source, layout=KdTree(block_rows=1000, columns=["b"]))


@pytest.fixture(scope="module")
def queried(spark, created, tmp_path_factory):
    """The new table after six queries on a, which the layout on b cannot skip for."""
    t = copy_table(spark, created, tmp_path_factory.mktemp("queried") / "t")
    run_workload(spark, t.root)
    return t


@pytest.fixture
def new_table(spark, created, tmp_path):
    return copy_table(spark, created, tmp_path / "t")


@pytest.fixture
def queried_table(spark, queried, tmp_path):
    return copy_table(spark, queried, tmp_path / "t")


def data_files_on_disk(root):
    local = root.replace("file:", "")
    return {n for n in os.listdir(local) if n.endswith(".parquet")}


def test_the_workload_log_records_each_query_with_its_predicate(spark, source, new_table):
    t = new_table
    run_workload(spark, t.root, times=3)
    spark.sql(f"SELECT * FROM parquet.`{t.root}` WHERE b IN (1, 2) AND NOT (v >= 10)").collect()
    log = t.workload().collect()
    assert len(log) == 4 and {r.version for r in log} == {1}
    assert json.loads(log[0].predicate) == {"column": "a", "op": "<", "value": 1000}
    assert json.loads(log[3].predicate) == {"and": [{"column": "b", "op": "IN", "value": [1, 2]},
                                                    {"column": "v", "op": "<", "value": 10}]}
    assert all(r.files_total == len(t.current().files) and 0 <= r.files_read <= r.files_total for r in log)


def test_the_workload_log_skips_a_half_written_line_and_reads_as_spark_does(spark, source, new_table, monkeypatch):
    """The driver reads the log's small files itself (a Spark job per optimize call cost
    seconds); a line another process is still writing is skipped, and a Spark job over the same
    files (what a log of very many files is read by) gives the same rows."""
    t = new_table
    run_workload(spark, t.root, times=2)
    assert t.workload().count() == 2  # flushes the log writer, so the directory exists
    log_dir = t.root.replace("file:", "") + "/_skipstone/workload"
    with open(os.path.join(log_dir, "9999999999999-partial.json"), "w") as out:
        out.write('{"time": 9999999999999, "version": 1, "predicate": "{\\"column\\"')
    by_driver = t.workload().collect()
    assert len(by_driver) == 2 and all(r.version == 1 and r.predicate for r in by_driver)
    reader = spark._jvm.io.skipstone.table.WorkloadLogReader
    by_spark = spark.read.schema(reader.Schema().toDDL()).json(log_dir).where("predicate IS NOT NULL").collect()
    assert sorted((r.time, r.predicate, r.files_read) for r in by_spark) == \
        sorted((int(r.time.timestamp() * 1000), r.predicate, r.files_read) for r in by_driver)


def test_the_log_read_again_sees_new_files_and_a_file_finished_since(spark, source, new_table):
    """The driver keeps the rows of log files it read (an optimizer asks every few dozen
    queries); a file added since, or one that grew since (a writer finishing it), is read anew."""
    from skipstone.table.optimize import logged_predicates

    t = new_table
    run_workload(spark, t.root, times=2)
    assert t.workload().count() == 2
    log_dir = t.root.replace("file:", "") + "/_skipstone/workload"
    path = os.path.join(log_dir, "9999999999999-late.json")
    line = json.dumps({"time": 9999999999999, "version": 1, "predicate": json.dumps({"column": "a", "op": ">", "value": 7})})
    with open(path, "w") as out:
        out.write(line[:40])
    assert len(logged_predicates(spark, t.root)) == 2  # the half-written line is no record
    with open(path, "w") as out:
        out.write(line + "\n")
    assert logged_predicates(spark, t.root)[-1] == ('{"column": "a", "op": ">", "value": 7}', 1)
    run_workload(spark, t.root, times=1)
    assert t.workload().count() == 4
    assert len(logged_predicates(spark, t.root)) == 4


def test_optimize_rewrites_only_the_blocks_it_replaces_and_keeps_every_row(spark, source, queried_table):
    t = queried_table
    before = t.current()
    spark.sql(QUERY.format(root=t.root)).collect()
    read_before = skipstone.last_query_stats(spark)
    result = t.optimize(AmoebaAdaptive(window=100, write_multiplier=4, cost_model=RowsRead()))
    assert result is not None and result.version == 2 and result.benefit > result.cost
    after = t.current()
    removed = {f.path for f in before.files} - {f.path for f in after.files}
    rewritten = set(json.loads(t.history().collect()[-1].commit_info)["blocksRewritten"])
    assert {f.block for f in before.files if f.path in removed} == rewritten
    assert all(f in after.files for f in before.files if f.block not in rewritten)
    assert result.rows_rewritten == sum(f.rows for f in before.files if f.path in removed)
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)
    expected = source.where("a < 1000").agg(F.count("*"), F.sum("v")).collect()
    assert spark.sql(QUERY.format(root=t.root)).collect() == expected
    read_after = skipstone.last_query_stats(spark)
    assert read_after.bytes_total - read_after.bytes_skipped < read_before.bytes_total - read_before.bytes_skipped
    history = t.history().collect()
    assert [(h.version, h.operation) for h in history] == [(1, "CREATE"), (2, "OPTIMIZE")]
    assert history[1].rows_rewritten == result.rows_rewritten and history[1].policy == "AmoebaAdaptive"
    assert history[1].files_removed == len(removed) and history[1].files_added == result.files_added


def test_optimize_without_a_workload_changes_nothing(created):
    t = created  # an optimize that proposes nothing changes nothing: sharing is safe
    assert t.optimize(AmoebaAdaptive()) is None
    assert t.version == 1


def test_a_query_during_optimize_sees_exactly_one_version(spark, source, queried_table):
    t = queried_table
    expected = source.where("a < 1000").agg(F.count("*"), F.sum("v")).collect()
    total = source.agg(F.count("*"), F.sum("v")).collect()
    answers, stop = [], threading.Event()

    def reader():
        session = spark.newSession()
        session.conf.set("spark.skipstone.metadataCacheTtlSeconds", "0")
        while not stop.is_set():
            answers.append((session.sql(QUERY.format(root=t.root)).collect(),
                            session.sql(f"SELECT count(*), sum(v) FROM parquet.`{t.root}`").collect()))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        result = t.optimize(AmoebaAdaptive(window=100, write_multiplier=4, cost_model=RowsRead()))
    finally:
        stop.set()
        thread.join()
    assert result is not None and answers
    # a mix of versions would count the rewritten rows twice or not at all
    assert all(a == (expected, total) for a in answers)
    assert {r.version for r in t.workload().collect()} <= {1, 2}


def test_a_losing_concurrent_optimize_leaves_no_trace(spark, source, queried_table):
    t = queried_table
    from skipstone.table.optimize import apply, plan

    policy = AmoebaAdaptive(window=100, write_multiplier=4, cost_model=RowsRead())
    first, second = (plan(spark, t.current(), t.workload(), policy) for _ in range(2))  # both on version 1
    files_before = data_files_on_disk(t.root)
    apply(spark, first)
    winner_files = data_files_on_disk(t.root)
    with pytest.raises(skipstone.SkipstoneError, match="was not committed"):
        apply(spark, second)
    assert t.version == 2 and len(t.history().collect()) == 2
    assert data_files_on_disk(t.root) == winner_files  # the loser's files are gone
    assert files_before < winner_files
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)
    staging = os.path.join(t.root.replace("file:", ""), "_skipstone", "staging")
    assert not os.path.exists(staging) or not os.listdir(staging)


def test_a_user_written_policy_from_the_docs_works(spark, source, queried_table):
    from tests.table.hot_block_policy import SplitHotBlock

    t = queried_table
    before = t.current()
    result = t.optimize(SplitHotBlock())
    assert result is not None and result.files_removed == 1 and t.tree().block_count == before.tree.block_count + 1
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)
    assert t.history().collect()[-1].policy == "SplitHotBlock"


def test_paw_rebuild_lays_the_whole_table_out_for_the_logged_workload(spark, source, queried_table):
    t = queried_table
    before = t.current()
    spark.sql(QUERY.format(root=t.root)).collect()
    read_before = skipstone.last_query_stats(spark)
    result = t.optimize(PawRebuild(write_multiplier=2, cost_model=RowsRead()))
    assert result is not None and result.files_removed == len(before.files) and result.rows_rewritten == ROWS
    after = t.current()
    assert not {f.path for f in after.files} & {f.path for f in before.files}
    assert all(f.rows < 2 * 1000 for f in after.files) and sum(f.rows for f in after.files) == ROWS
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)
    expected = source.where("a < 1000").agg(F.count("*"), F.sum("v")).collect()
    assert spark.sql(QUERY.format(root=t.root)).collect() == expected
    read_after = skipstone.last_query_stats(spark)
    assert read_after.bytes_total - read_after.bytes_skipped < read_before.bytes_total - read_before.bytes_skipped
    last = t.history().collect()[-1]
    assert last.policy == "PawRebuild" and "delta=" in json.loads(last.commit_info)["description"]


def test_best_of_rewrites_with_the_proposal_that_pays_most_and_says_which(spark, source, queried_table):
    t = queried_table
    members = (AmoebaAdaptive(write_multiplier=2, cost_model=RowsRead()), PawRebuild(write_multiplier=2, cost_model=RowsRead()))
    result = t.optimize(BestOf(members))
    assert result is not None and result.benefit > result.cost
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)
    expected = source.where("a < 1000").agg(F.count("*"), F.sum("v")).collect()
    assert spark.sql(QUERY.format(root=t.root)).collect() == expected
    last = t.history().collect()[-1]
    assert last.policy == "BestOf"
    assert json.loads(last.commit_info)["description"].split(":")[0] in {"AmoebaAdaptive", "PawRebuild"}


def test_workload_logging_can_be_turned_off_for_a_session_or_a_table(spark, new_table):
    t = new_table
    spark.conf.set("spark.skipstone.workloadLog.enabled", "false")
    try:
        run_workload(spark, t.root, times=2)
    finally:
        spark.conf.unset("spark.skipstone.workloadLog.enabled")
    assert t.workload().count() == 0
    t.set_properties({"workloadLog.enabled": "false"})
    assert t.properties()["workloadLog.enabled"] == "false"
    run_workload(spark, t.root, times=2)
    assert t.workload().count() == 0
    t.set_properties({"workloadLog.enabled": "true"})
    run_workload(spark, t.root, times=1)
    assert t.workload().count() == 1


def test_the_fields_a_policy_sets_for_the_history_are_in_the_commit_info(spark, source, new_table):
    from tests.table.split_policy import SplitLargestBlock

    class Reporting(SplitLargestBlock):
        name = "Reporting"

        def propose(self, tree, workload, sample):
            change = super().propose(tree, workload, sample)
            return dataclasses.replace(change, unit="the largest block", regret=float("inf"), break_even_queries=3.0)

    t = new_table
    result = t.optimize(Reporting())
    last = t.history().collect()[-1]
    info = json.loads(last.commit_info)
    assert (result.strategy, last.policy, last.reason) == ("layout", "Reporting", f"policy Reporting: {info['description']}")
    assert (info["unit"], info["regret"], info["break_even_queries"]) == ("the largest block", "inf", 3.0)
    assert as_multiset(spark.read.parquet(t.root)) == as_multiset(source)


def test_a_plain_optimize_keeps_a_curve_layout_and_a_named_tree_policy_says_it_cannot(spark, source, tmp_path):
    """After a Z-order, `t.optimize()` and SQL's OPTIMIZE compact and index, as Delta's does: the
    default layout policy leaves a curve alone. AmoebaAdaptive named by the user still says it
    adapts trees only."""
    from skipstone.layout import ZOrder

    t = Skipstone.create(spark, str(tmp_path / "z"), source, layout=ZOrder(columns=["a", "b"], block_rows=1000))
    run_workload(spark, t.root, times=3)
    before = sorted(map(tuple, spark.read.parquet(t.root).collect()))
    version = t.current().version
    t.append(source.limit(10))
    t.optimize()  # no error; the append's small files may be compacted
    spark.sql(f"OPTIMIZE parquet.`{t.root}`").collect()
    assert t.current().tree.__class__.__name__ == "CurveLayout"
    assert sorted(map(tuple, spark.read.parquet(t.root).collect())) == \
        sorted(before + list(map(tuple, source.limit(10).collect())))
    assert t.current().version > version
    with pytest.raises(ValueError, match="adapts partitioning trees"):
        t.optimize(AmoebaAdaptive())


@dataclasses.dataclass(frozen=True)
class ReadShareProbe:
    """A policy that proposes nothing and keeps the read share the table gave it."""

    read_share: float | None = None
    name: str = "ReadShareProbe"

    def with_read_share(self, read_share):
        seen.append(read_share)
        return dataclasses.replace(self, read_share=read_share)

    def propose(self, tree, workload, sample):
        return None


seen: list = []


def test_the_log_keeps_the_share_of_bytes_a_query_read_and_policies_price_with_it(spark, tmp_path):
    """Parquet reads only the columns a query projects: the log records the share of the
    table's bytes in them (from a file's column chunks), and a policy prices a query's bytes at
    the recent queries' mean share, while a rewrite still pays for whole rows."""
    from skipstone.table.optimize import logged_records, plan

    rows = spark.range(4000).select((F.col("id") % 1000).alias("a"),
                                    F.sha2(F.col("id").cast("string"), 512).alias("wide"))
    t = Skipstone.create(spark, str(tmp_path / "t"), rows, layout=KdTree(block_rows=1000, columns=["a"]))
    spark.sql(f"SELECT count(*) FROM parquet.`{t.root}` WHERE a < 100").collect()
    spark.sql(f"SELECT * FROM parquet.`{t.root}` WHERE a < 100").collect()
    narrow, whole = [r.read_share for r in logged_records(spark, t.root)]
    assert 0 < narrow < 0.2 and whole == pytest.approx(1.0)
    assert [r.read_share for r in t.workload().orderBy("time").collect()] == [narrow, whole]

    seen.clear()
    assert plan(spark, t.current(), None, ReadShareProbe()) is None
    assert seen == [pytest.approx((narrow + whole) / 2)]
