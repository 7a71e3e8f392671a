"""ValueList skipping: any predicate on the column, answered exactly from each file's values.

Six files of four rows each (see ``fruit_files``); the files a value list can rule out are
worked out by hand in each case's comment. ``n`` is indexed with ``max_size=3``, which file 5
(four distinct values) exceeds: its list is NULL and it is always read.
"""
from __future__ import annotations

import pyarrow as pa
import pytest

from conftest import metadata_table_dir, run_both_ways
from datasets import write_tables
from skipstone import Skipstone, ValueList

NAN, INF = float("nan"), float("inf")

FILES = [
    # cat, n, x
    (["apple", "apple", "apricot", "apricot"], [0, 1, 0, 1], [1.5, 2.5, 1.5, 2.5]),
    (["banana", "blueberry", "banana", "blueberry"], [10, 11, 10, 11], [NAN] * 4),
    (["cherry"] * 4, [20] * 4, [-0.0] * 4),
    (["apple", None, "apple", None], [30, None, 31, None], [0.0, 3.0, None, 3.0]),
    ([None] * 4, [None] * 4, [None] * 4),
    (["date_fruit", "elder%berry", "date_fruit", "elder%berry"], [50, 51, 52, 53], [INF, -INF, INF, -INF]),
]


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    root = write_tables(str(tmp_path_factory.mktemp("valuelist") / "fruit"), [
        pa.table({"cat": pa.array(cat, pa.string()), "n": pa.array(n, pa.int32()), "x": pa.array(x, pa.float64())})
        for cat, n, x in FILES
    ])
    Skipstone.for_path(spark, root).build(ValueList("cat"), ValueList("n", max_size=3), ValueList("x"))
    return root


LONG_LIST = ", ".join(f"'z{i}'" for i in range(15))

CASES = [
    # (predicate, files skipped out of 6)
    ("cat = 'apple'", 4),                               # 0 and 3 hold apple
    ("'apple' = cat", 4),
    ("cat IN ('banana', 'cherry')", 4),                 # 1, 2
    (f"cat IN ({LONG_LIST}, 'cherry')", 5),             # InSet: 2
    ("cat <> 'cherry'", 2),                             # 2 is all cherry, 4 all NULL
    ("NOT (cat = 'cherry')", 2),
    ("cat NOT IN ('apple', 'apricot')", 3),             # 0 all listed, 3 apple or NULL, 4 NULL
    ("cat IN ('apple', NULL)", 4),
    ("cat LIKE 'ap%'", 4),
    ("cat LIKE '%berry'", 4),                           # 1, 5
    ("cat LIKE '%!%%' ESCAPE '!'", 5),                  # a literal %: 5
    ("cat LIKE 'date_fruit'", 5),
    ("cat NOT LIKE 'ap%'", 3),                          # 0 all ap..., 3 apple or NULL, 4 NULL
    ("startswith(cat, 'bl')", 5),
    ("endswith(cat, 'cot')", 5),
    ("contains(cat, 'err')", 3),                        # cherry, blueberry, elder%berry
    ("cat IS NULL", 4),
    ("cat IS NOT NULL", 1),
    ("cat <=> NULL", 4),
    ("cat <=> 'cherry'", 5),
    ("NOT (cat <=> 'cherry')", 1),                      # NULL rows make it TRUE in 3 and 4
    ("upper(cat) = 'BANANA'", 5),
    ("coalesce(cat, 'none') = 'none'", 4),              # NULL rows: 3, 4
    ("cat > 'c'", 4),                                   # cherry, date_fruit, elder%berry
    ("cat = 'apple' AND n = 30", 5),
    ("cat = 'cherry' OR n = 51", 4),                    # 2, and 5 (list too long: read)
    ("NOT (cat = 'apple' OR cat IS NULL)", 2),          # needs a non-NULL non-apple value
    ("n = 20", 4),                                      # 2; 5 unknown
    ("n = 52", 5),                                      # only 5 could
    ("n <> 20", 2),                                     # 2 all 20, 4 all NULL
    ("n IN (0, 52)", 4),
    ("n BETWEEN 5 AND 25", 3),                          # 1, 2, 5
    ("n > 20L", 4),                                     # 3, 5
    ("n + 1 = 32", 4),                                  # 3, 5
    ("x = 0.0", 4),                                     # -0.0 = 0.0: 2 and 3
    ("x = -0.0", 4),
    ("x > 2.0", 2),                                     # 0, NaN in 1, 3, +inf in 5
    ("isnan(x)", 5),
    ("x = CAST('NaN' AS DOUBLE)", 5),
    ("x < 0", 5),                                       # -0.0 < 0 is false: only -inf in 5
    ("CAST(x AS STRING) = '-0.0'", 4),                  # stored 0.0 may stand for -0.0: 2 and 3 read
]


@pytest.mark.parametrize("predicate,skipped", CASES, ids=[c[0] for c in CASES])
def test_value_list_skips_files_without_qualifying_values(spark, table, predicate, skipped):
    # Spark's own Parquet pushdown drops -0.0 row groups for `x = 0.0`: keep it out of the way.
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table}` WHERE {predicate}", parquet_pushdown=False)
    assert stats.files_total == 6
    assert stats.files_skipped == skipped
    if skipped == 6:
        assert rows == []


def test_value_list_over_max_size_is_stored_as_unknown(spark, table):
    lists = spark.read.parquet(metadata_table_dir(spark, table)).orderBy("path").select("valuelist_1_values")
    assert [r[0] for r in lists.collect()] == [[0, 1], [10, 11], [20], [30, 31], [], None]


def test_value_list_rejects_non_positive_max_size():
    from skipstone import SkipstoneError

    with pytest.raises(SkipstoneError, match="max_size"):
        ValueList("cat", max_size=0)
