"""Prefix, Suffix and GapList skipping, with the files each can rule out worked out by hand.

Four files of 20 rows. Strings (``p`` indexed by Prefix(5), ``q`` by Suffix(4), same data):
file 0 http://a.com/{x,y}.html, file 1 https://b.org/{z.png,w.jpg}, file 2 ftp://c.net/q.txt
and NULL, file 3 only "ab" (shorter than both lengths). Numbers (``g`` by GapList(gaps=2)):
file 0 g = 0..9 and 90..99 (gap 9..90), file 1 g = 100..119 (no wide gap), file 2 g in
{200, 250, 300}, file 3 g in {0, 1000}. y = g/10 with NaN instead of 9.9 in file 0; gd is
2024-01-01 plus g days.
"""
from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from conftest import metadata_table_dir, run_both_ways
from datasets import write_tables
from skipstone import GapList, Prefix, Skipstone, SkipstoneError, Suffix

STRINGS = [
    ["http://a.com/x.html", "http://a.com/y.html"],
    ["https://b.org/z.png", "https://b.org/w.jpg"],
    ["ftp://c.net/q.txt", None],
    ["ab", "ab"],
]
NUMBERS = [
    [*range(10), *range(90, 100)],
    list(range(100, 120)),
    [200] * 7 + [250] * 7 + [300] * 6,
    [0] * 10 + [1000] * 10,
]


def table_of(file: int) -> pa.Table:
    strings = [STRINGS[file][j % 2] for j in range(20)]
    g = NUMBERS[file]
    y = [float("nan") if file == 0 and v == 99 else v / 10 for v in g]
    return pa.table({
        "p": pa.array(strings, pa.string()),
        "q": pa.array(strings, pa.string()),
        "g": pa.array(g, pa.int32()),
        "y": pa.array(y, pa.float64()),
        "gd": pa.array([dt.date(2024, 1, 1) + dt.timedelta(days=v) for v in g]),
    })


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory) -> str:
    root = write_tables(str(tmp_path_factory.mktemp("affix") / "urls"), [table_of(i) for i in range(4)])
    Skipstone.for_path(spark, root).build(
        Prefix("p", 5), Suffix("q", 4), GapList("g", gaps=2), GapList("y", gaps=2), GapList("gd", gaps=1))
    return root


CASES = [
    # (predicate, files skipped out of 4); prefixes: http: / https / ftp:/ / ab
    ("p LIKE 'https%'", 3),
    ("p LIKE 'http%'", 2),                       # http: and https both start with http
    ("p LIKE 'http://a.com/%'", 3),              # longer than 5: its first 5 characters
    ("startswith(p, 'ftp')", 3),
    ("p LIKE 'ht%html'", 2),                     # literal prefix ht
    ("p LIKE 'h_tp%'", 2),                       # literal prefix h
    ("p LIKE 'ab'", 3),                          # no wildcard: p = 'ab'
    ("p = 'ab'", 3),
    ("p = 'http://a.com/x.html'", 3),
    ("p <> 'ab'", 1),                            # ab is shorter than 5: file 3 holds only ab
    ("p NOT IN ('ab', 'zz')", 1),
    ("p <> 'https'", 0),                         # as long as the prefix: longer values hide behind it
    ("p = 'https'", 3),
    ("NOT p LIKE 'http%'", 2),                   # every value of files 0 and 1 starts with http
    ("p IN ('ab', 'ftp://c.net/q.txt')", 2),
    ("p IS NULL", 3),
    ("p LIKE '%html'", 0),                       # a prefix index knows nothing of the end
    # suffixes: html / .png .jpg / .txt / ab
    ("q LIKE '%.png'", 3),
    ("endswith(q, 'html')", 3),
    ("q LIKE '%ml'", 3),
    ("q LIKE '%b'", 3),
    ("q LIKE '%.p_g'", 3),                       # literal suffix g: .png and .jpg
    ("q = 'ab'", 3),
    ("q <> 'ab'", 1),
    ("NOT q LIKE '%html'", 1),
    ("q IN ('ab', 'zz.txt')", 2),
    ("q LIKE 'http%'", 0),
    # gaps of g: (9, 90) / none wide / (200, 250) (250, 300) / (0, 1000)
    ("g BETWEEN 20 AND 80", 4),                  # MinMax alone: 2
    ("g = 50", 4),
    ("g IN (50, 260)", 4),
    ("g IN (50, 105)", 3),
    ("g > 9 AND g < 90", 4),
    ("g >= 9 AND g < 90", 3),                    # 9 is in file 0
    ("g > 9 AND g <= 90", 3),
    ("NOT (g <= 10 OR g >= 80)", 4),             # g > 10 AND g < 80
    ("g BETWEEN 20 AND 80 OR g = 110", 3),
    ("g BETWEEN 20 AND 80 AND g <> 50", 4),
    ("g BETWEEN 20.5 AND 79.5", 4),              # g cast to decimal: gaps stay gaps
    ("g > 500", 3),                              # as MinMax: file 3
    ("NOT (g BETWEEN 20 AND 80)", 0),
    ("g IS NULL", 4),
    ("y > 5 AND y < 8", 4),                      # gaps (0.9, 9.0) and (0, 100)
    ("y = 5.0", 4),
    ("y > 9.85", 0),                             # NaN > 9.85 in file 0; 10.0.. in file 1
    ("y > 9.85 AND y < 9.95", 3),                # NaN bounds no gap, so file 0 is read
    ("gd BETWEEN DATE'2024-02-01' AND DATE'2024-02-28'", 4),
    ("gd = TIMESTAMP'2024-02-10 00:00:00'", 4),  # gd cast to timestamp
]


@pytest.mark.parametrize("predicate,skipped", CASES, ids=[c[0] for c in CASES])
def test_affixes_and_gaps_skip_files_without_qualifying_rows(spark, table, predicate, skipped):
    # Spark's own Parquet pushdown drops the NaN rows of `y > c`: keep it out of the way.
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{table}` WHERE {predicate}", parquet_pushdown=False)
    assert stats.files_total == 4
    assert stats.files_skipped == skipped


def test_gap_list_keeps_the_widest_gaps(spark, table):
    meta = spark.read.parquet(metadata_table_dir(spark, table)).orderBy("path")
    gaps = [[(g["lo"], g["hi"]) for g in r[0]] for r in meta.select("gaplist_2_gaps").collect()]
    assert gaps[0][0] == (9, 90)
    assert gaps[2] == [(200, 250), (250, 300)] or gaps[2] == [(250, 300), (200, 250)]
    assert gaps[3] == [(0, 1000)]


def test_affix_and_gap_settings_are_validated(spark, table):
    with pytest.raises(SkipstoneError, match="length"):
        Prefix("p", 0)
    with pytest.raises(SkipstoneError, match="gaps"):
        GapList("g", gaps=-1)
    with pytest.raises(SkipstoneError, match="'g'.*not a string"):
        Skipstone.for_path(spark, table).build(Suffix("g", 3))
    with pytest.raises(SkipstoneError, match="'p'.*not a number"):
        Skipstone.for_path(spark, table).build(GapList("p"))
