"""Log analytics use case: `agent_name(user_agent) = 'X'` answered by a Formatted index.

User agents are real ones (the fake-useragent package's data); agent_name parses them with
ua-parser. File i of the log holds 30 requests from browser family FAMILIES[i] and 5 from
FAMILIES[i+1], so the files a family appears in are known by construction.
"""
from __future__ import annotations

import json
import os

import pyarrow as pa
import pytest

import udfs
from conftest import run_both_ways
from datasets import write_file
from skipstone import Formatted, Skipstone

FAMILIES = ["Mobile Safari", "Chrome", "Chrome Mobile", "Edge", "Firefox", "Safari", "Samsung Internet", "Opera"]


def agents_by_family() -> dict[str, list[str]]:
    import fake_useragent

    data = os.path.join(os.path.dirname(fake_useragent.__file__), "data", "browsers.jsonl")
    found: dict[str, list[str]] = {f: [] for f in FAMILIES}
    with open(data) as lines:
        for line in lines:
            ua = json.loads(line)["useragent"]
            family = udfs.agent_name(ua)
            if family in found and ua not in found[family]:
                found[family].append(ua)
    return found


def log_table(file: int, agents: dict[str, list[str]]) -> pa.Table:
    main, extra = FAMILIES[file], FAMILIES[(file + 1) % len(FAMILIES)]
    uas = [agents[main][k % len(agents[main])] for k in range(30)]
    uas += [agents[extra][k % len(agents[extra])] for k in range(5)]
    return pa.table({
        "user_agent": uas,
        "path": [f"/{['api', 'static', 'login'][k % 3]}/v{file}/item{k}" for k in range(len(uas))],
        "status": [200 if k % 7 else 404 for k in range(len(uas))],
    })


@pytest.fixture(scope="module")
def logs(spark, tmp_path_factory) -> str:
    udfs.register(spark)
    agents = agents_by_family()
    root = str(tmp_path_factory.mktemp("logs") / "requests")
    os.makedirs(root)
    for i in range(len(FAMILIES)):
        write_file(root, i, log_table(i, agents))
    Skipstone.for_path(spark, root).build(
        Formatted("user_agent", udfs.agent_name, "agent_name"),
        Formatted("path", "substring_index({col}, '/', 2)"),
    )
    return root


CASES = [
    # (predicate, files skipped of 8): family k is in files k and k-1
    ("agent_name(user_agent) = 'Edge'", 6),            # files 3 and 2
    ("'Edge' = agent_name(user_agent)", 6),
    ("agent_name(user_agent) = 'Mobile Safari'", 6),   # files 0 and 7
    ("agent_name(user_agent) = 'Hacker'", 8),
    ("agent_name(user_agent) IN ('Firefox', 'Opera')", 4),   # files 4, 3, 7, 6
    ("agent_name(user_agent) <> 'Chrome'", 0),         # every file has another family
    ("agent_name(user_agent) = 'Edge' AND status = 404", 6),
    ("agent_name(user_agent) = 'Edge' OR agent_name(user_agent) = 'Opera'", 4),
    ("lower(agent_name(user_agent)) = 'edge'", 0),     # another function of the column
    ("substring_index(path, '/', 2) = '/login'", 0),   # every file has every area
    ("substring_index(path, '/', 2) = '/admin'", 8),
    ("substring_index(path, '/', 3) = '/admin'", 0),   # a different literal: not the indexed function
]


@pytest.mark.parametrize("predicate,skipped", CASES, ids=[c[0] for c in CASES])
def test_formatted_skips_files_without_the_value(spark, logs, predicate, skipped):
    rows, stats = run_both_ways(spark, f"SELECT * FROM parquet.`{logs}` WHERE {predicate}")
    assert stats.files_total == 8
    assert stats.files_skipped == skipped


def test_malicious_agent_query_reads_only_files_with_that_agent(spark, logs):
    rows, stats = run_both_ways(
        spark, f"SELECT count(*) FROM parquet.`{logs}` WHERE agent_name(user_agent) = 'Samsung Internet'")
    assert rows == [(35,)]                      # 30 in file 6, 5 in file 5
    assert stats.files_skipped == 6


def test_refresh_collects_with_the_registered_udf(spark, logs):
    ds = Skipstone.for_path(spark, logs)
    ds.refresh()
    assert [r["index"] for r in ds.describe().collect()] == [
        "Formatted(user_agent, agent_name)", "Formatted(path, substring_index({col}, '/', 2))"]


def test_file_changed_after_indexing_is_read(spark, tmp_path):
    agents = agents_by_family()
    root = str(tmp_path / "requests")
    os.makedirs(root)
    for i in range(3):
        write_file(root, i, log_table(i, agents))
    Skipstone.for_path(spark, root).build(Formatted("user_agent", udfs.agent_name, "agent_name"))
    write_file(root, 0, log_table(5, agents))    # now Safari and Samsung Internet
    rows, stats = run_both_ways(
        spark, f"SELECT count(*) FROM parquet.`{root}` WHERE agent_name(user_agent) = 'Safari'")
    assert rows == [(30,)]
    assert stats.per_dataset[0].files_unindexed == 1
    assert stats.files_skipped == 2
