"""Time travel on managed tables: `versionAsOf` / `timestampAsOf` read options, SQL `VERSION AS OF`
and `TIMESTAMP AS OF` on the root, and `t.read(version=...)` read exactly one version's files;
a version that a vacuum removed or that never existed is refused by name; read options a managed
table read would not honour are refused, never dropped."""
from __future__ import annotations

import datetime as dt

import pytest

from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from tests.conftest import run_both_ways
from tests.table.split_policy import SplitLargestBlock
from tests.table.table_data import as_multiset, batch

ROWS = 2000


@pytest.fixture(scope="module")
def versions(spark, tmp_path_factory):
    """A table with four versions: create, two appends, an optimize; and each version's rows."""
    root = str(tmp_path_factory.mktemp("time_travel") / "t")
    t = Skipstone.create(spark, root, batch(spark, 0, ROWS), layout=KdTree(block_rows=250, columns=["a"]))
    t.append(batch(spark, ROWS, 300))
    t.append(batch(spark, -500, 200))
    assert t.optimize(SplitLargestBlock()) is not None
    expected = {1: batch(spark, 0, ROWS), 2: batch(spark, 0, ROWS + 300)}
    expected[3] = expected[2].union(batch(spark, -500, 200))
    expected[4] = expected[3]
    assert t.version == 4
    return t, {v: as_multiset(df) for v, df in expected.items()}


def log_time(t, version: int) -> dt.datetime:
    """When `version` was committed, as the log records it (UTC, the test session's zone)."""
    spark = t._spark
    ms = spark._jvm.io.skipstone.table.TableLog.read(
        spark._jsparkSession.sessionState().newHadoopConf(), t.root, version).timestampMillis()
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc).replace(tzinfo=None)


def sql_time(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def test_version_as_of_reads_exactly_each_versions_rows(spark, versions):
    t, rows = versions
    for version, expected in rows.items():
        assert as_multiset(spark.read.option("versionAsOf", version).parquet(t.root)) == expected, version


def test_an_optimized_version_and_the_one_before_read_different_files_with_the_same_rows(spark, versions):
    t, rows = versions
    before = set(spark.read.option("versionAsOf", 3).parquet(t.root).inputFiles())
    after = set(spark.read.option("versionAsOf", 4).parquet(t.root).inputFiles())
    assert before != after and len(before & after) > 0  # the optimize replaced some files, kept the others


def test_sql_version_as_of_on_the_root(spark, versions):
    t, rows = versions
    for version in (1, 2, 4):
        got = spark.sql(f"SELECT * FROM parquet.`{t.root}` VERSION AS OF {version}")
        assert as_multiset(got) == rows[version], version


def test_timestamp_as_of_reads_the_newest_version_committed_at_or_before_it(spark, versions):
    t, rows = versions
    at_two = log_time(t, 2)
    just_before_three = log_time(t, 3) - dt.timedelta(milliseconds=1)
    assert as_multiset(spark.read.option("timestampAsOf", sql_time(at_two)).parquet(t.root)) == rows[2]
    assert as_multiset(t.read(timestamp=sql_time(max(at_two, just_before_three)))) == rows[2]
    got = spark.sql(f"SELECT * FROM parquet.`{t.root}` TIMESTAMP AS OF '{sql_time(log_time(t, 3))}'")
    assert as_multiset(got) == rows[3]


def test_a_time_before_the_first_version_is_refused_naming_the_table_and_the_versions(spark, versions):
    t, _ = versions
    before = sql_time(log_time(t, 1) - dt.timedelta(days=1))
    with pytest.raises(Exception, match=f"{t.root} has no version committed at or before '{before}'.*"
                                        "versions available: 1-4"):
        spark.read.option("timestampAsOf", before).parquet(t.root).count()


def test_a_version_that_never_existed_is_refused_with_the_versions_available(spark, versions):
    t, _ = versions
    with pytest.raises(Exception, match=f"{t.root} has no version 9 .*versions available: 1-4"):
        spark.read.option("versionAsOf", 9).parquet(t.root).collect()
    with pytest.raises(Exception, match="has no version 9"):
        spark.sql(f"SELECT * FROM parquet.`{t.root}` VERSION AS OF 9").collect()


def test_a_filtered_time_travel_read_skips_with_its_versions_metadata_and_agrees_with_no_skipping(spark, versions):
    t, _ = versions
    got, stats = run_both_ways(spark, f"SELECT a, b FROM parquet.`{t.root}` VERSION AS OF 2 WHERE a >= 2100")
    assert sorted(r[0] for r in got) == list(range(2100, ROWS + 300))
    assert stats.files_skipped > 0  # version 2's MinMax skips the files below 2100


def test_read_with_a_version_is_the_option(spark, versions):
    t, rows = versions
    assert as_multiset(t.read(version=1)) == rows[1]
    assert as_multiset(t.read()) == rows[4]
    with pytest.raises(SkipstoneError, match="takes one of them"):
        t.read(version=1, timestamp="2026-01-01")


def test_a_vacuumed_version_is_refused_naming_the_table_and_the_versions_left(spark, tmp_path):
    t = Skipstone.create(spark, str(tmp_path / "t"), batch(spark, 0, ROWS), layout=KdTree(block_rows=250, columns=["a"]))
    assert t.optimize(SplitLargestBlock()) is not None  # version 2 replaces one of version 1's files
    assert as_multiset(t.read(version=1)) == as_multiset(batch(spark, 0, ROWS))  # readable until vacuumed
    t.vacuum(retention_hours=0, force=True)
    with pytest.raises(Exception, match=f"{t.root} cannot read version 1: a vacuum removed it "
                                        r"\(1 of its \d+ files are gone.*versions available: 2$"):
        t.read(version=1).collect()
    assert as_multiset(t.read(version=2)) == as_multiset(batch(spark, 0, ROWS))


def test_an_unknown_read_option_is_refused_by_name(spark, versions):
    t, _ = versions
    with pytest.raises(Exception, match="read option 'asOfVersion' is not honoured.*accepts: versionAsOf"):
        spark.read.option("asOfVersion", 1).parquet(t.root).count()


def test_an_option_that_selects_files_is_refused_not_dropped(spark, versions):
    t, _ = versions
    with pytest.raises(Exception, match="read option 'pathGlobFilter' is not honoured: it selects files by name"):
        spark.read.option("pathGlobFilter", "b1-*").parquet(t.root).count()
    with pytest.raises(Exception, match="'modifiedAfter' is not honoured"):
        spark.read.option("modifiedAfter", "2020-01-01T00:00:00").parquet(t.root).count()


def test_options_plain_parquet_honours_the_same_way_are_accepted(spark, versions):
    t, rows = versions
    df = (spark.read.option("mergeSchema", "true").option("datetimeRebaseMode", "CORRECTED")
          .option("recursiveFileLookup", "false").parquet(t.root))
    assert as_multiset(df) == rows[4]


def test_version_and_timestamp_together_are_refused(spark, versions):
    t, _ = versions
    with pytest.raises(Exception, match="both versionAsOf and timestampAsOf"):
        spark.read.option("versionAsOf", 1).option("timestampAsOf", "2026-01-01").parquet(t.root).count()


def test_a_version_option_on_a_directory_that_is_no_table_is_refused(spark, tmp_path):
    batch(spark, 0, 10).write.parquet(str(tmp_path / "plain"))
    with pytest.raises(Exception, match="read option 'versionAsOf' reads a version of a Skipstone managed table"):
        spark.read.option("versionAsOf", 1).parquet(str(tmp_path / "plain")).count()
