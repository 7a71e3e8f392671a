"""The command line's dataset and table commands, on real Parquet files in a real session."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from cli_runner import cli  # noqa: F401  (the fixture)

from skipstone.sample_data import write_weather

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def weather(tmp_path_factory: Any) -> str:
    return write_weather(str(tmp_path_factory.mktemp("cli") / "weather"), rows=6_000, files=6)


@pytest.fixture(scope="module")
def indexed(cli: Any, weather: str) -> str:
    run = cli("index", weather, "minmax:ts", "valuelist:city", "bloomfilter:station:fpp=0.01")
    assert run.exit_code == 0, run.stderr
    return weather


def test_index_then_describe_lists_each_spec_with_its_files(cli: Any, indexed: str) -> None:
    described = json.loads(cli("describe", indexed, "--json").stdout)
    assert [(d["kind"], d["columns"]) for d in described] == [
        ("minmax", ["ts"]), ("valuelist", ["city"]), ("bloomfilter", ["station"])]
    assert "fpp=0.01" in described[2]["index"]
    assert {d["files_indexed"] for d in described} == {6}


def test_stats_reports_the_files_minmax_rules_out(cli: Any, spark: Any, indexed: str) -> None:
    from pyspark.sql import functions as F

    cutoff = "2024-03-01"
    per_file = spark.read.parquet(indexed).groupBy(F.input_file_name()).agg(F.min("ts").alias("low"))
    cannot_match = per_file.where(F.col("low") >= F.to_timestamp(F.lit(cutoff))).count()  # MinMax rules these out
    assert per_file.count() == 6
    sql = f"SELECT count(*) FROM parquet.`{indexed}` WHERE ts < '{cutoff}'"
    report = json.loads(cli("stats", sql, "--json").stdout)
    assert report["files_total"] == 6
    assert report["files_skipped"] == cannot_match > 0
    assert report["datasets"][0]["skipped_by_index"]["MinMax(ts)"] == cannot_match
    table = cli("stats", sql).stdout
    assert f"skipped {cannot_match} of 6 files" in table


def test_refresh_indexes_a_new_file(cli: Any, spark: Any, tmp_path: Any) -> None:
    root = write_weather(str(tmp_path / "growing"), rows=1_000, files=2)
    assert cli("index", root, "minmax:temp").exit_code == 0
    write_weather(str(tmp_path / "more"), rows=500, files=1, seed=3)
    os.rename(str(tmp_path / "more" / "part-00000.parquet"), os.path.join(root, "part-00009.parquet"))
    assert cli("refresh", root).exit_code == 0
    assert json.loads(cli("describe", root, "--json").stdout)[0]["files_indexed"] == 3


def test_drop_removes_the_indexes_and_says_so(cli: Any, tmp_path: Any) -> None:
    root = write_weather(str(tmp_path / "dropped"), rows=500, files=1)
    cli("index", root, "minmax:temp")
    assert "dropped the indexes" in cli("drop", root).stdout
    assert json.loads(cli("describe", root, "--json").stdout) == []
    assert "had no Skipstone index" in cli("drop", root).stdout


@pytest.mark.parametrize("args, named", [
    (["index", "{root}", "minmax:nope"], "'nope'"),
    (["index", "{root}", "minmaxx:ts"], "'minmaxx'"),
    (["index", "{root}", "bloomfilter:station:fpp=lots"], "fpp"),
    (["index", "{root}", "prefix:city"], "length=..."),
    (["history", "{root}"], "is not a Skipstone managed table"),
    (["stats", "SELECT nope FROM parquet.`{root}`"], "`nope`"),
])
def test_bad_input_fails_with_a_message_naming_the_culprit(cli: Any, weather: str, args: list[str], named: str) -> None:
    run = cli(*[a.replace("{root}", weather) for a in args])
    assert run.exit_code == 1
    assert "error:" in run.stderr and named in run.stderr
    assert "Traceback" not in run.stderr


def test_a_malformed_conf_is_named_before_spark_starts() -> None:
    from typer.testing import CliRunner

    from skipstone.cli import app

    run = CliRunner().invoke(app, ["--conf", "spark.driver.memory", "describe", "/nowhere"])
    assert run.exit_code == 1 and "--conf 'spark.driver.memory' is not key=value" in run.stderr


def test_an_unknown_policy_is_named(cli: Any, weather: str) -> None:
    run = cli("optimize", weather, "--policy", "fastest")
    assert run.exit_code == 2 and "--policy" in run.stderr


@pytest.mark.parametrize("command", [
    [], ["index"], ["refresh"], ["describe"], ["drop"], ["stats"], ["create"], ["optimize"], ["vacuum"], ["calibrate"],
    ["history"], ["sample"], ["plot"], ["plot", "blocks"], ["plot", "workload"]])
def test_every_command_has_help(cli: Any, command: list[str]) -> None:
    run = cli(*command, "--help")
    assert run.exit_code == 0 and "Usage: skipstone" in run.stdout


def test_progress_counts_the_tasks_of_a_running_job(spark: Any) -> None:
    from skipstone.cli.progress import TaskCounter

    counter = TaskCounter(spark)
    job = threading.Thread(target=lambda: spark.sparkContext.parallelize(range(8), 8)
                           .map(lambda x: time.sleep(0.4) or x).count())
    job.start()
    seen = []
    while job.is_alive():
        seen.append(counter.poll())
        time.sleep(0.05)
    job.join()
    final = counter.poll()
    assert any(s.total == 8 and s.stages for s in seen), "the tracker never showed the job's stage"
    assert final.completed == final.total == 8
    assert [s.completed for s in seen] == sorted(s.completed for s in seen)


@pytest.mark.long  # over 9 s: make test-long runs it (CI after make test)
def test_the_module_entry_point_starts_its_own_session_and_prints_no_spark_log(indexed: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
    sql = f"SELECT count(*) FROM parquet.`{indexed}` WHERE ts < '2024-03-01'"
    done = subprocess.run([sys.executable, "-m", "skipstone", "--master", "local[1]", "--conf",
                           "spark.ui.enabled=false", "stats", sql, "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["files_total"] == 6
    assert done.stderr == ""  # no start-up lines: log4j's, the JVM's, "Setting default log level"
