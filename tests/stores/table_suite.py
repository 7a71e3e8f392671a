"""The promises of managed tables, written once for every store a table can live on.

A store's test module runs the whole suite with a star import and one fixture of its own::

    from stores.table_suite import *  # noqa: F401,F403 - the suite's tests and fixtures

    @pytest.fixture(scope="module")
    def store_root():
        return lambda name: f"hdfs://127.0.0.1:{port}/skipstone/{uuid.uuid4().hex}/{name}"

``store_root("name")`` is a fresh absolute URI under the store for each call; the module's
``spark`` session (tests/conftest.py) must reach it. The tests assume nothing else about the
store: they never touch a root with ``os.path`` and look at files through Hadoop's
``FileSystem`` of the session, so the suite reads the same on local disk, HDFS and S3.

Tests marked ``slow`` start Spark sessions in processes of their own (a race, a kill) or run
many jobs; a store module may leave them out where other tests prove the same on that store
(``without_slow_tests``: the local module does in ``make test``). Those processes are kept
for the next test that needs one, in this store's module or another's of the same pytest run
(``make test-stores`` runs HDFS and S3 in one), except the one a test kills.
"""
from __future__ import annotations

import inspect
import json
import threading
import time
import uuid
from typing import Any, Callable, Iterator

import pytest
from pyspark.sql import functions as F

from conftest import run_both_ways
from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import failpoints
from skipstone.table.failpoints import SimulatedCrash
from skipstone.table.optimize import apply, plan
from skipstone.table.relayout import relayout

from stores.child_processes import CHILD, CHILD_SECONDS, Children
from tests.table.split_policy import SplitLargestBlock
from tests.table.table_data import MIXED_PREDICATES, as_multiset, mixed_frame, unindexed


ROWS = 1200
LAYOUT = KdTree(block_rows=300, columns=["a"])
# How long a child process may take to start its Spark session and reach the point it reports.

slow = pytest.mark.slow


def suite_batch(spark: Any, start: int, n: int) -> Any:
    """Rows a = start .. start + n - 1, b = a % 7 and a string: every write of the suite."""
    return spark.range(start, start + n).select(
        F.col("id").alias("a"), (F.col("id") % 7).alias("b"),
        F.concat(F.lit("s"), (F.col("id") % 13).cast("string")).alias("s"))


# -- looking at a store through Hadoop's FileSystem (never os.path: the root may be remote) ------

def _file_system(spark: Any, uri: str) -> tuple[Any, Any]:
    path = spark._jvm.org.apache.hadoop.fs.Path(uri)
    return path.getFileSystem(spark._jsparkSession.sessionState().newHadoopConf()), path


def names_in(spark: Any, uri: str) -> set[str]:
    """The names of the entries of directory ``uri`` on its store; empty when it does not exist."""
    fs, path = _file_system(spark, uri)
    if not fs.exists(path):
        return set()
    return {str(s.getPath().getName()) for s in fs.listStatus(path)}


def qualified(spark: Any, uri: str) -> str:
    """``uri`` as the store's file system spells it (scheme, authority, no trailing slash)."""
    fs, path = _file_system(spark, uri)
    return str(fs.makeQualified(path).toString())


def data_files_on_store(spark: Any, root: str) -> set[str]:
    return {n for n in names_in(spark, root) if n.endswith(".parquet")}


def delete_on_store(spark: Any, uri: str) -> None:
    fs, path = _file_system(spark, uri)
    fs.delete(path, True)


def rows_of(spark: Any, root: str) -> list[tuple[Any, ...]]:
    """The newest version's rows, read as any Spark user reads the table's root."""
    return as_multiset(spark.read.parquet(root))


def expected_rows(spark: Any, *batches: tuple[int, int]) -> list[tuple[Any, ...]]:
    frame = None
    for start, n in batches:
        part = suite_batch(spark, start, n)
        frame = part if frame is None else frame.union(part)
    return as_multiset(frame)


def new_table(spark: Any, store_root: Callable[[str], str], name: str, rows: int = ROWS) -> Any:
    return Skipstone.create(spark, store_root(name), suite_batch(spark, 0, rows), layout=LAYOUT)


def assert_store_holds_exactly_the_live_files(spark: Any, table: Any) -> None:
    """After a vacuum: the root's data files are the newest version's, no staging is left."""
    assert data_files_on_store(spark, table.root) == {f.path for f in table.current().files}
    assert names_in(spark, f"{table.root}/_skipstone/staging") == set()


@pytest.fixture
def disarmed(spark: Any) -> Iterator[None]:
    """No failpoint stays armed after the test, whatever it raised."""
    yield
    failpoints.disarm_all(spark)


# -- creating -------------------------------------------------------------------------------

def test_a_table_created_in_python_holds_exactly_its_rows_and_its_container_on_the_store(spark, store_root):
    root = store_root("python_create")
    t = Skipstone.create(spark, root, suite_batch(spark, 0, ROWS), layout=LAYOUT)
    assert t.root == qualified(spark, root)  # where it was asked to be, on the store
    assert rows_of(spark, t.root) == expected_rows(spark, (0, ROWS))
    assert as_multiset(t.read()) == expected_rows(spark, (0, ROWS))
    # the log, the skipping metadata and the sample live in the table's container on the store
    assert names_in(spark, f"{t.root}/_skipstone/log") == {f"{1:020d}.json"}
    assert {"log", "sample"} <= names_in(spark, f"{t.root}/_skipstone")
    assert any(n.startswith("v") for n in names_in(spark, f"{t.root}/_skipstone"))
    assert data_files_on_store(spark, t.root) == {f.path for f in t.current().files}
    assert len(t.current().files) >= 4  # routed into blocks of about 300 rows


@slow
def test_create_table_as_select_in_sql_and_insert_into_it(spark, store_root):
    root = store_root("sql_create")
    name = f"suite_table_{uuid.uuid4().hex[:8]}"
    views = {start: f"suite_rows_{start}_{uuid.uuid4().hex[:8]}" for start in (0, 5000, 9000)}
    for start, view in views.items():
        suite_batch(spark, start, ROWS if start == 0 else 100).createOrReplaceTempView(view)
    spark.sql(f"CREATE TABLE {name} USING skipstone LAYOUT KD BY (a, b) OPTIONS (blockRows 300) "
              f"LOCATION '{root}' AS SELECT * FROM {views[0]}")
    try:
        assert as_multiset(spark.table(name)) == expected_rows(spark, (0, ROWS))
        spark.sql(f"INSERT INTO {name} SELECT * FROM {views[5000]}")
        spark.sql(f"INSERT INTO parquet.`{root}` SELECT * FROM {views[9000]}")
        history = spark.sql(f"DESCRIBE HISTORY parquet.`{root}`").orderBy("version").collect()
        assert [(h.version, h.operation) for h in history] == [(1, "CREATE"), (2, "APPEND"), (3, "APPEND")]
        expected = expected_rows(spark, (0, ROWS), (5000, 100), (9000, 100))
        assert as_multiset(spark.table(name)) == expected
        assert rows_of(spark, root) == expected
        assert as_multiset(spark.sql(f"SELECT * FROM {name} VERSION AS OF 1")) == expected_rows(spark, (0, ROWS))
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")  # an external table: its files stay
        for view in views.values():
            spark.catalog.dropTempView(view)


# -- appending and reading versions ------------------------------------------------------------

@pytest.fixture(scope="module")
def versions(spark, store_root):
    """A table with four versions (create, append, LAYOUT KD BY (b), append) and each one's rows."""
    t = new_table(spark, store_root, "versions")
    t.append(suite_batch(spark, 5000, 200))
    spark.sql(f"OPTIMIZE parquet.`{t.root}` LAYOUT KD BY (b)").collect()
    suite_batch(spark, -300, 300).write.format("skipstone").mode("append").save(t.root)
    expected = {1: [(0, ROWS)], 2: [(0, ROWS), (5000, 200)]}
    expected[3] = expected[2]
    expected[4] = expected[3] + [(-300, 300)]
    return t, {v: expected_rows(spark, *batches) for v, batches in expected.items()}


def test_each_append_commits_one_version_with_exactly_its_rows(spark, versions):
    t, rows = versions
    assert [(h.version, h.operation) for h in t.history().collect()] == \
        [(1, "CREATE"), (2, "APPEND"), (3, "OPTIMIZE"), (4, "APPEND")]
    assert rows_of(spark, t.root) == rows[4]
    assert sum(f.rows for f in t.current().files) == len(rows[4])


def test_every_version_reads_exactly_the_rows_it_committed_three_ways(spark, versions):
    t, rows = versions
    for version, expected in rows.items():
        assert as_multiset(t.read(version=version)) == expected, version
        assert as_multiset(spark.read.option("versionAsOf", version).parquet(t.root)) == expected, version
        assert as_multiset(spark.sql(f"SELECT * FROM parquet.`{t.root}` VERSION AS OF {version}")) == expected, version


def test_skipping_on_and_off_agree_on_every_version(spark, versions):
    t, _ = versions
    for version in (1, 3, 4):
        for predicate in ("a < 100", "b = 3", "a BETWEEN 5000 AND 5010 OR b = 6", "s = 's7' AND a > 1000"):
            run_both_ways(spark, f"SELECT * FROM parquet.`{t.root}` VERSION AS OF {version} WHERE {predicate}")
    # the layout on b (version 3 on) lets an equality on b skip: the metadata on the store is used
    _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{t.root}` WHERE b = 3")
    assert stats.files_skipped > 0 and unindexed(stats) == 0


@pytest.fixture(scope="module")
def mixed_table(spark, store_root):
    """A table of every column kind (NaN, -0.0, NULLs, sub-second timestamps), laid out on two."""
    return Skipstone.create(spark, store_root("mixed"), mixed_frame(spark, 2000),
                            layout=KdTree(block_rows=250, columns=["i", "d"]))


@pytest.mark.parametrize("predicate", MIXED_PREDICATES)
def test_skipping_on_and_off_agree_on_every_column_kind(spark, mixed_table, predicate):
    run_both_ways(spark, f"SELECT * FROM parquet.`{mixed_table.root}` WHERE {predicate}")


def test_a_selective_query_skips_files_on_the_store(spark, mixed_table):
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{mixed_table.root}` WHERE i < -900")
    assert rows and stats.files_skipped > 0 and unindexed(stats) == 0


# -- optimizing ----------------------------------------------------------------------------------

@slow
def test_compaction_rewrites_fragmented_blocks_into_fewer_files_with_the_same_rows(spark, store_root):
    t = new_table(spark, store_root, "compaction")
    t.set_properties({"optimize.strategies": "compaction"})
    for start in (0, 100, 200):  # each append adds a file to the blocks of a < 300: more files than they need
        t.append(suite_batch(spark, start, 100))
    fragmented = t.current()
    expected = expected_rows(spark, (0, ROWS), (0, 100), (100, 100), (200, 100))
    result = t.optimize()
    assert result is not None and result.strategy == "compaction"
    assert len(t.current().files) < len(fragmented.files)
    assert rows_of(spark, t.root) == expected
    assert as_multiset(t.read(version=fragmented.version)) == expected  # the version before, as it was
    assert t.optimize() is None  # nothing fragmented is left
    run_both_ways(spark, f"SELECT * FROM parquet.`{t.root}` WHERE a BETWEEN 100 AND 300")


def test_layout_kd_by_another_column_rewrites_every_file_and_queries_on_it_skip(spark, store_root):
    t = new_table(spark, store_root, "relayout")
    old = {f.path for f in t.current().files}
    _, before = run_both_ways(spark, f"SELECT * FROM parquet.`{t.root}` WHERE b = 6")
    [row] = spark.sql(f"OPTIMIZE parquet.`{t.root}` LAYOUT KD BY (b)").collect()
    assert (row.metrics.strategy, row.metrics.rowsRewritten) == ("layout", ROWS)
    assert not old & {f.path for f in t.current().files}
    assert t.detail().first().layoutColumns == ["b"]
    rows, after = run_both_ways(spark, f"SELECT * FROM parquet.`{t.root}` WHERE b = 6")
    assert len(rows) == ROWS // 7 and before.files_skipped == 0 < after.files_skipped
    assert rows_of(spark, t.root) == expected_rows(spark, (0, ROWS))


# -- vacuum --------------------------------------------------------------------------------------

def test_vacuum_deletes_exactly_what_no_retained_version_lists(spark, store_root):
    t = new_table(spark, store_root, "vacuum")
    replaced = {f.path for f in t.current().files}
    spark.sql(f"OPTIMIZE parquet.`{t.root}` LAYOUT KD BY (b)").collect()
    assert t.vacuum().count() == 0  # within the table's retention every file stays
    assert data_files_on_store(spark, t.root) >= replaced
    gone = t.vacuum(retention_hours=0, force=True).collect()
    assert {r.path.rsplit("/", 1)[-1] for r in gone if r.kind == "data"} == replaced
    assert_store_holds_exactly_the_live_files(spark, t)
    assert rows_of(spark, t.root) == expected_rows(spark, (0, ROWS))
    with pytest.raises(Exception, match="cannot read version 1: a vacuum removed it"):
        t.read(version=1).collect()


def test_vacuum_keeps_what_readers_of_a_retained_version_need(spark, store_root):
    t = new_table(spark, store_root, "vacuum_retained")
    expected = expected_rows(spark, (0, ROWS))
    reader = t.read(version=1).where("a < 600")  # a reader that resolved version 1 before the rewrite
    spark.sql(f"OPTIMIZE parquet.`{t.root}` LAYOUT KD BY (b)").collect()
    t.append(suite_batch(spark, 7000, 100))
    # version 1 was the newest until a moment ago: within an hour's retention, it stays readable
    assert t.vacuum(retention_hours=1, force=True).count() == 0
    assert as_multiset(reader) == [r for r in expected if r[0] < 600]
    assert as_multiset(t.read(version=1)) == expected
    # ...with its skipping metadata: a filtered read of it skips and agrees with no skipping
    _, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{t.root}` VERSION AS OF 1 WHERE a < 100")
    assert stats.files_skipped > 0 and unindexed(stats) == 0
    assert rows_of(spark, t.root) == expected_rows(spark, (0, ROWS), (7000, 100))


# -- writers racing for one version --------------------------------------------------------------

def _race(actions: list[Callable[[], Any]]) -> list[tuple[str, Any]]:
    """Runs each action on a thread of its own, released together; ("ok", result) or ("error", e) each."""
    start = threading.Barrier(len(actions))
    outcomes: list[tuple[str, Any]] = [("error", None)] * len(actions)

    def run(k: int) -> None:
        start.wait()
        try:
            outcomes[k] = ("ok", actions[k]())
        except Exception as e:  # noqa: BLE001 - the outcome is the test's to judge
            outcomes[k] = ("error", e)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(actions))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return outcomes


def test_threads_racing_to_create_one_log_entry_have_exactly_one_winner(spark, store_root):
    """The store's put-if-absent, which every commit is: of writers racing for one name, one
    creates it, whole; the others learn it exists."""
    directory = store_root("put_if_absent")
    jvm = spark._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    for round_ in range(4):
        target = jvm.org.apache.hadoop.fs.Path(f"{directory}/{round_:020d}.json")
        contents = [json.dumps({"writer": k, "pad": "x" * 4096}) for k in range(6)]
        outcomes = _race([lambda c=c: bool(jvm.io.skipstone.table.PutIfAbsent.write(conf, target, c))
                          for c in contents])
        assert all(kind == "ok" for kind, _ in outcomes), outcomes
        winners = [k for k, (_, won) in enumerate(outcomes) if won]
        assert len(winners) == 1, f"round {round_}: writers {winners} all created {target}"
        fs, _ = _file_system(spark, directory)
        stream = fs.open(target)
        try:
            assert bytes(stream.readAllBytes()).decode() == contents[winners[0]]
        finally:
            stream.close()
    assert names_in(spark, directory) == {f"{r:020d}.json" for r in range(4)}  # no temporary file left


def test_threads_rewriting_the_same_blocks_one_commits_and_the_others_are_told(spark, store_root):
    t = new_table(spark, store_root, "racing_rewrites")
    base = t.current()
    plans = [plan(spark, base, None, SplitLargestBlock()) for _ in range(3)]  # all on version 1
    outcomes = _race([lambda p=p: apply(spark, p) for p in plans])
    won = [r for kind, r in outcomes if kind == "ok"]
    lost = [e for kind, e in outcomes if kind == "error"]
    assert len(won) == 1 and won[0].version == 2, outcomes
    assert len(lost) == 2 and all(isinstance(e, SkipstoneError) and "was not committed" in str(e) for e in lost)
    assert [(h.version, h.operation) for h in t.history().collect()] == [(1, "CREATE"), (2, "OPTIMIZE")]
    assert rows_of(spark, t.root) == expected_rows(spark, (0, ROWS))
    # the losers removed what they wrote: only the two versions' files are on the store
    assert data_files_on_store(spark, t.root) == {f.path for f in base.files} | {f.path for f in t.current().files}


def test_commits_racing_from_one_version_all_land_in_order(spark, store_root):
    """Writers that do not conflict (property changes) all read version 1: each loser of a
    version rebases onto the winner's and commits the next, none is lost or overwritten."""
    from skipstone.table import manifest

    t = new_table(spark, store_root, "racing_properties", rows=100)
    errors: list[BaseException] = []

    def set_property(k: int) -> None:
        try:
            manifest.commit(spark, t.root, 1, "SET PROPERTIES", [], properties={f"p{k}": str(k)})
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=set_property, args=(k,)) for k in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    v = t.current()
    assert v.version == 7 and all(v.properties[f"p{k}"] == str(k) for k in range(6))
    assert [h.version for h in t.history().collect()] == list(range(1, 8))
    assert rows_of(spark, t.root) == expected_rows(spark, (0, 100))


@slow
def test_threads_appending_at_once_each_commit_one_version_with_their_rows(spark, store_root):
    t = new_table(spark, store_root, "racing_appends", rows=600)
    starts = [10_000, 20_000, 30_000, 40_000]
    outcomes = _race([lambda s=s: t.append(suite_batch(spark, s, 150)) for s in starts])
    assert all(kind == "ok" for kind, _ in outcomes), outcomes
    assert sorted(r.version for _, r in outcomes) == [2, 3, 4, 5]  # one writer per version
    assert [h.operation for h in t.history().collect()] == ["CREATE"] + ["APPEND"] * 4
    assert rows_of(spark, t.root) == expected_rows(spark, (0, 600), *((s, 150) for s in starts))


# -- writers in processes of their own ------------------------------------------------------------

_CHILDREN: Children | None = None


@pytest.fixture(scope="session")
def children(tmp_path_factory) -> Iterator[Children]:
    """The run's one pool of children (the script is local; the tables they write are on the store).
    Each store module that imports the suite gets this fixture; all of them share the pool."""
    global _CHILDREN
    if _CHILDREN is None:
        script = tmp_path_factory.mktemp("children") / "child.py"
        script.write_text(CHILD)
        _CHILDREN = Children(script)
    yield _CHILDREN
    _CHILDREN.close()


@pytest.fixture(scope="module", autouse=True)
def children_started_early(request, spark, children) -> None:
    """When the module's selected tests include one that takes children, the two a race needs
    start with the module: they boot while its first tests run, not while the race waits."""
    if any(item.module is request.module and "children" in inspect.signature(item.function).parameters
           and not item.get_closest_marker("skip") for item in request.session.items):
        children.start(2)


@slow
def test_two_processes_racing_for_one_version_one_wins_and_the_other_is_told(spark, store_root, children):
    t = new_table(spark, store_root, "racing_processes")
    base = t.current()
    racers = children.take(2)
    finished = False
    try:
        for c in racers:
            c.run("rewrite", t.root, version=base.version)
        for c in racers:
            assert c.line() == "ready"
        for c in racers:  # both planned on version 1 and wrote nothing yet; now both commit
            c.say("go")
        outcomes = [json.loads(c.line()) for c in racers]
        finished = True
    finally:
        if finished:
            children.give_back(racers)
        else:
            for c in racers:
                c.kill()
    won = [o["won"] for o in outcomes if "won" in o]
    lost = [o["lost"] for o in outcomes if "lost" in o]
    assert won == [base.version + 1] and len(lost) == 1, outcomes
    assert "was not committed" in lost[0] and f"based on version {base.version}" in lost[0]
    assert [h.operation for h in t.history().collect()] == ["CREATE", "OPTIMIZE"]
    assert rows_of(spark, t.root) == expected_rows(spark, (0, ROWS))
    assert data_files_on_store(spark, t.root) == {f.path for f in base.files} | {f.path for f in t.current().files}


# -- writers that die half way ---------------------------------------------------------------------

@slow
@pytest.mark.parametrize("step", ["optimize.relayout.afterWrite", "optimize.relayout.afterMetadata",
                                  "optimize.relayout.afterCommit"])
def test_a_layout_rewrite_killed_after_each_step_leaves_exact_rows_and_vacuums_clean(spark, store_root, step,
                                                                                     disarmed):
    t = new_table(spark, store_root, "killed_relayout")
    expected = expected_rows(spark, (0, ROWS))
    failpoints.arm(spark, step)
    with pytest.raises(SimulatedCrash):
        relayout(spark, t.current(), "kd", ["b"])  # dies as a killed process would: nothing cleaned up
    committed = step.endswith("afterCommit")
    assert t.version == (2 if committed else 1)
    assert rows_of(spark, t.root) == expected
    if not committed:
        spark.sql(f"OPTIMIZE parquet.`{t.root}` LAYOUT KD BY (b)").collect()  # rerun completes
    leftovers = {r.kind for r in t.vacuum(retention_hours=0, force=True).collect()}
    assert "data" in leftovers and (committed or "orphan" in leftovers)
    assert rows_of(spark, t.root) == expected
    assert_store_holds_exactly_the_live_files(spark, t)


@slow
def test_a_process_killed_during_an_append_leaves_exact_rows_and_vacuums_clean(spark, store_root, children):
    t = new_table(spark, store_root, "killed_append")
    [child] = children.take(1)
    try:
        child.run("append", t.root, start=50000)
        assert child.line() == "appending"
        deadline = time.monotonic() + CHILD_SECONDS
        while time.monotonic() < deadline and not names_in(spark, f"{t.root}/_skipstone/staging"):
            time.sleep(0.05)
        time.sleep(0.5)  # into the append's Spark job
    finally:
        child.kill()
    before, after = expected_rows(spark, (0, ROWS)), expected_rows(spark, (0, ROWS), (50000, 200))
    current = rows_of(spark, t.root)
    assert current in (before, after)
    if current == before:
        t.append(suite_batch(spark, 50000, 200))  # rerun completes
    assert rows_of(spark, t.root) == after
    # The killed writer's lease lapses ten minutes after its last refresh, and keeps its files from
    # a vacuum until then; end it now, as the clock would, and vacuum what it left.
    for name in names_in(spark, f"{t.root}/_skipstone/leases"):
        delete_on_store(spark, f"{t.root}/_skipstone/leases/{name}")
    t.vacuum(retention_hours=0, force=True)
    assert rows_of(spark, t.root) == after
    assert_store_holds_exactly_the_live_files(spark, t)


def without_slow_tests(namespace: dict[str, Any], reason: str) -> None:
    """Replaces the suite's slow tests in a store module's ``namespace`` (its ``globals()``) by
    skipped ones that say ``reason``; the suite's own functions stay as they are for other modules."""
    for name, value in list(namespace.items()):
        if name.startswith("test_") and any(m.name == "slow" for m in getattr(value, "pytestmark", [])):
            namespace[name] = _skipped(name, reason)


def _skipped(name: str, reason: str) -> Callable[[], None]:
    @pytest.mark.skip(reason=reason)
    def skipped() -> None:
        pass
    skipped.__name__ = skipped.__qualname__ = name
    return skipped
