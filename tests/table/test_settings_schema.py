"""Table settings have one schema, in the JVM, and one validator that SQL's SET TBLPROPERTIES,
Python's set_properties and every commit pass: bad values, typos and the keys Skipstone writes
itself are refused by name without committing anything; accepted values round-trip; optimize,
vacuum and the CLI read the settings through the same parser."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skipstone import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.layout import KdTree
from skipstone.table import settings
from tests.cli.cli_runner import cli  # noqa: F401  (the fixture)
from tests.table.table_copies import copy_table, local_path
from tests.table.table_data import batch

DOCS = Path(__file__).resolve().parents[2] / "docs" / "maintenance.md"

BAD_VALUES = [
    ("vacuum.retentionHours", "-5", "a number >= 0"),
    ("vacuum.retentionHours", "NaN", "a number >= 0"),
    ("optimize.strategies", "bogus", "unknown 'bogus'"),
    ("optimize.strategies", "compaction,compaction", "named twice 'compaction'"),
    ("optimize.batchBytes", "0", "a whole number >= 1"),
    ("optimize.batchBytes", "lots", "a whole number >= 1"),
    ("optimize.unindexedFromMillis", "-1", "a whole number >= 0"),
    ("optimize.auto", "yes", "`true` or `false`"),
    ("vacuum.retentionCheck", "off", "`true` or `false`"),
    ("workloadLog.enabled", "maybe", "`true` or `false`"),
    ("cost.writeMultiplier", "0", "a number > 0, or empty (unset)"),
    ("cost.fileBytes", "-1", "a number >= 0, or empty (unset)"),
    ("cost.calibratedAt", "yesterday", "an ISO-8601 instant"),
]

TYPOS = [
    ("optimise.auto", "optimize.auto"),
    ("vacuum.retentionHour", "vacuum.retentionHours"),
    ("optimize.batchbytes", "optimize.batchBytes"),
    ("workload.enabled", "workloadLog.enabled"),
]


@pytest.fixture(scope="module")
def created(spark, tmp_path_factory):
    return Skipstone.create(spark, str(tmp_path_factory.mktemp("settings") / "t"), batch(spark, 0, 600),
                            layout=KdTree(block_rows=300, columns=["a"]))


@pytest.fixture
def table(spark, created, tmp_path):
    return copy_table(spark, created, tmp_path / "t")


def sql_set(spark, table, key: str, value: str) -> None:
    spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('{key}' = '{value}')")


def test_the_docs_settings_table_is_the_jvm_schema(spark):
    expected = spark._jvm.io.skipstone.table.TableSettings.docsTable()
    assert expected in DOCS.read_text(), f"regenerate docs/maintenance.md's settings table:\n{expected}"
    assert [s.key for s in settings.schema(spark)] == [line.split("`")[1] for line in expected.splitlines()[2:]]


def test_properties_show_the_schema_defaults_for_unset_settings(spark, created):
    shown = created.properties()
    assert {s.key: shown[s.key] for s in settings.schema(spark)} == settings.defaults(spark)


@pytest.mark.parametrize("key,value,allowed", BAD_VALUES)
def test_sql_refuses_a_bad_value_naming_table_key_and_what_is_allowed(spark, created, key, value, allowed):
    before = created.version
    with pytest.raises(Exception, match="SET TBLPROPERTIES") as raised:
        sql_set(spark, created, key, value)
    message = str(raised.value)
    assert f"parquet.`{created.root}`" in message and f"property {key} must be" in message and allowed in message
    assert created.version == before


@pytest.mark.parametrize("key,value,allowed", BAD_VALUES)
def test_python_refuses_a_bad_value_naming_table_key_and_what_is_allowed(created, key, value, allowed):
    before = created.version
    with pytest.raises(SkipstoneError) as raised:
        created.set_properties({key: value})
    message = str(raised.value)
    assert created.root in message and f"property {key} must be" in message and allowed in message
    assert created.version == before


@pytest.mark.parametrize("typo,meant", TYPOS)
def test_a_typo_of_a_setting_is_refused_with_the_setting_it_resembles(spark, created, typo, meant):
    before = created.version
    with pytest.raises(SkipstoneError, match=f"'{typo}' is no table setting; did you mean '{meant}'"):
        created.set_properties({typo: "true"})
    with pytest.raises(Exception, match=f"'{typo}' is no table setting; did you mean '{meant}'"):
        sql_set(spark, created, typo, "true")
    assert created.version == before


def test_an_unknown_key_under_a_settings_prefix_is_refused(created):
    before = created.version
    with pytest.raises(SkipstoneError, match="'optimize.maxFiles' is no table setting.*Settable: .*optimize.batchBytes"):
        created.set_properties({"optimize.maxFiles": "10"})
    assert created.version == before


@pytest.mark.parametrize("key", ["format", "schema", "layout.blockRows", "layout.sample", "LAYOUT.spec"])
def test_keys_skipstone_writes_itself_are_refused(spark, created, key):
    before = created.version
    with pytest.raises(SkipstoneError, match=f"'{key}' is written by Skipstone itself"):
        created.set_properties({key: "1"})
    with pytest.raises(Exception, match=f"'{key}' is written by Skipstone itself"):
        sql_set(spark, created, key, "1")
    assert created.version == before


def test_one_bad_key_refuses_the_whole_change(created):
    before = dict(created.properties())
    with pytest.raises(SkipstoneError, match="optimize.batchBytes"):
        created.set_properties({"optimize.auto": "true", "owner": "search", "optimize.batchBytes": "-1"})
    assert created.properties() == before


def test_accepted_values_round_trip_through_python_and_sql(spark, table):
    values = {"optimize.strategies": "compaction, unindexed", "optimize.batchBytes": "4096",
              "optimize.unindexedFromMillis": "1700000000000", "optimize.auto": "TRUE",
              "vacuum.retentionHours": "24.5", "vacuum.retentionCheck": "false", "owner": "search"}
    table.set_properties(values)
    spark.sql(f"ALTER TABLE parquet.`{table.root}` SET TBLPROPERTIES ('workloadLog.enabled' = 'false', 'team' = 'x')")
    shown = table.properties()
    assert {k: shown[k] for k in values} == values
    assert (shown["workloadLog.enabled"], shown["team"]) == ("false", "x")
    assert settings.read(spark, table.current().properties, table.root) == settings.TableSettings(
        ("compaction", "unindexed"), 4096, 1_700_000_000_000, True, 24.5, False, False)


def test_lowering_the_retention_needs_the_opt_in_in_sql_and_python(spark, table):
    before = table.version
    with pytest.raises(SkipstoneError, match="vacuum.retentionCheck = false"):
        table.set_properties({"vacuum.retentionHours": "1"})
    with pytest.raises(Exception, match="vacuum.retentionCheck = false"):
        sql_set(spark, table, "vacuum.retentionHours", "1")
    assert table.version == before


def test_the_cli_vacuum_uses_the_tables_own_retention(cli, spark, table):
    table.set_properties({"vacuum.retentionHours": "336"})
    run = cli("vacuum", table.root, "--dry-run", "--json")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout) == []
    shorter = cli("vacuum", table.root, "--retention-hours", "168", "--dry-run")
    assert shorter.exit_code != 0 and "336.0 hours" in shorter.stderr


def test_optimize_and_vacuum_read_settings_through_the_same_parser(spark, table):
    # a value committed before the validator existed: the log entry edited by hand
    log = Path(local_path(table.root)) / "_skipstone" / "log"
    newest = sorted(log.glob("*.json"))[-1]
    entry = json.loads(newest.read_text())
    entry["properties"]["optimize.batchBytes"] = "lots"
    entry["properties"]["vacuum.retentionHours"] = "-1"
    newest.write_text(json.dumps(entry))
    os.utime(newest)
    with pytest.raises(SkipstoneError, match="property optimize.batchBytes must be a whole number >= 1, got 'lots'"):
        table.optimize()
    with pytest.raises(Exception, match="property optimize.batchBytes must be a whole number >= 1"):
        spark.sql(f"OPTIMIZE parquet.`{table.root}`").collect()
    with pytest.raises(Exception, match="property vacuum.retentionHours must be a number >= 0, got '-1'"):
        spark.sql(f"VACUUM parquet.`{table.root}` DRY RUN").collect()
    table.set_properties({"optimize.batchBytes": "1000", "vacuum.retentionHours": "200"})  # a change repairs it
    assert table.vacuum(dry_run=True).count() == 0
