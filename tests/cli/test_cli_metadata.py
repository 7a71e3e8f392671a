"""The command line's metadata commands (describe, history, properties, files, stats of a table)
answered without a Spark session, and what the table commands print: text as given (no markup,
no emoji codes), tables that fit 80 columns, JSON with stable keys, errors in CLI terms."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from cli_runner import cli  # noqa: F401  (the fixture)

from skipstone.sample_data import write_weather

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HISTORY_KEYS = {"version", "timestamp", "operation", "benefit", "cost", "rows_rewritten", "files_added",
                "files_removed", "files", "rows", "policy", "commit_info", "strategy", "reason", "bytes_read",
                "duration_ms"}


@pytest.fixture(scope="module")
def weather(tmp_path_factory: Any) -> str:
    return write_weather(str(tmp_path_factory.mktemp("cli-meta") / "weather"), rows=4_000, files=4)


@pytest.fixture(scope="module")
def created(cli: Any, weather: str) -> tuple[str, Any]:
    """A managed table made by the command line under the layout's old spelling, and what it printed."""
    table = os.path.join(os.path.dirname(weather), "events")
    run = cli("create", table, "--from", weather, "--layout", "kdtree", "--columns", "temp,humidity",
              "--block-rows", "1000", "--index", "valuelist:city", "--json")
    assert run.exit_code == 0, run.stderr
    return table, run


@pytest.fixture(scope="module")
def indexed(cli: Any, weather: str) -> str:
    assert cli("index", weather, "minmax:ts", "bloomfilter:station:fpp=0.01").exit_code == 0
    return weather


@pytest.fixture(scope="module")
def table(created: tuple[str, Any]) -> str:
    return created[0]


def session_free(*args: str, columns: int = 200) -> tuple[Any, Any]:
    """Runs the real app with no session given, as the console script does; the result and the
    state, whose session stays None unless a command started Spark."""
    from typer.testing import CliRunner

    from skipstone.cli import app
    from skipstone.cli.state import CliState

    state = CliState()
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(app, list(args), obj=state)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result, state


def test_the_old_layout_spelling_still_creates_with_a_note(created: tuple[str, Any]) -> None:
    _, run = created
    assert "--layout kdtree is deprecated; use --layout kd" in run.stderr
    made = json.loads(run.stdout)
    assert made["version"] == 1 and made["rows"] == 4_000 and set(made) == {"root", "version", "files", "blocks", "rows"}


@pytest.mark.parametrize("command", [["history"], ["properties"], ["files"], ["describe"], ["stats"]])
def test_metadata_commands_of_a_path_start_no_spark_session(table: str, command: list[str]) -> None:
    result, state = session_free(*command, table, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)
    assert state.session is None


def test_history_from_the_console_script_prints_versions_and_no_spark_log(table: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python"), "COLUMNS": "80"}
    done = subprocess.run([sys.executable, "-m", "skipstone", "history", table], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["version", "time", "operation", "by", "+files", "-files", "rows"]
    assert lines[2].split()[0] == "1" and "CREATE" in lines[2]
    assert max(len(line) for line in lines) <= 80


def test_history_json_has_every_field_for_every_version(table: str) -> None:
    history = json.loads(session_free("history", table, "--json")[0].stdout)
    assert [h["version"] for h in history] == list(range(1, len(history) + 1))
    assert all(set(h) == HISTORY_KEYS for h in history)
    assert history[0]["operation"] == "CREATE" and history[0]["timestamp"].endswith("Z")
    assert isinstance(history[0]["commit_info"], dict)


def test_files_list_the_live_files_with_their_rows(table: str) -> None:
    files = json.loads(session_free("files", table, "--json")[0].stdout)
    assert sum(f["rows"] for f in files) == 4_000
    assert {tuple(sorted(f)) for f in files} == {("block", "path", "rows", "size")}


def test_stats_of_a_table_counts_its_files_blocks_and_indexes(table: str) -> None:
    stats = json.loads(session_free("stats", table, "--json")[0].stdout)
    files = json.loads(session_free("files", table, "--json")[0].stdout)
    assert stats["managed"] and stats["rows"] == 4_000 and stats["files"] == len(files)
    assert stats["blocks"] == len({f["block"] for f in files})
    assert stats["layout"] == "KdTree" and stats["layout_columns"] == ["temp", "humidity"]
    assert {"MinMax(temp)", "MinMax(humidity)", "ValueList(city, max_size=1000)"} <= {i["index"] for i in stats["indexes"]}
    assert stats["files_indexed"] == len(files)


def test_describe_of_an_indexed_dataset_lists_its_indexes_without_a_session(indexed: str) -> None:
    result, state = session_free("describe", indexed, "--json")
    described = json.loads(result.stdout)
    assert [(d["index"], d["files_indexed"]) for d in described] == [
        ("MinMax(ts)", 4), ("BloomFilter(station, fpp=0.01, expected_items=10000)", 4)]
    assert state.session is None


def test_properties_set_and_unset_commit_through_the_validated_settings(cli: Any, table: str) -> None:
    run = cli("properties", table, "--set", "owner=sales", "--set", "optimize.batchBytes=268435456")
    assert run.exit_code == 0, run.stderr
    shown = json.loads(session_free("properties", table, "--json")[0].stdout)
    assert shown["owner"] == "sales" and shown["optimize.batchBytes"] == "268435456"
    assert cli("properties", table, "--unset", "optimize.batchBytes").exit_code == 0
    assert json.loads(session_free("properties", table, "--json")[0].stdout)["optimize.batchBytes"] == "1073741824"
    refused = cli("properties", table, "--set", "optimise.auto=true")
    assert refused.exit_code == 1 and "did you mean 'optimize.auto'" in refused.stderr


def test_append_adds_the_rows_of_a_csv_file(cli: Any, spark: Any, table: str, tmp_path: Any) -> None:
    before = json.loads(session_free("stats", table, "--json")[0].stdout)["rows"]
    csv = tmp_path / "more"
    spark.read.parquet(table).limit(25).write.option("header", "true").csv(str(csv))
    run = cli("append", table, "--from", str(csv), "--json")
    assert run.exit_code == 0, run.stderr
    assert json.loads(run.stdout)["rows"] == 25
    assert json.loads(session_free("stats", table, "--json")[0].stdout)["rows"] == before + 25


def test_a_catalog_name_is_resolved_through_the_session_catalog(cli: Any, spark: Any) -> None:
    spark.sql("CREATE TABLE cli_sales USING skipstone LAYOUT KD BY (a) AS SELECT id AS a, id % 7 AS b FROM range(100)")
    history = json.loads(cli("history", "cli_sales", "--json").stdout)
    assert [h["operation"] for h in history] == ["CREATE"]
    run = cli("history", "no_such_table")
    assert run.exit_code == 1 and "no_such_table" in run.stderr


def test_user_text_is_printed_as_given_never_as_markup_or_emoji(cli: Any, table: str, tmp_path: Any) -> None:
    assert cli("properties", table, "--set", "owner=[bold]team:car:").exit_code == 0
    shown, _ = session_free("properties", table)
    assert "owner" in shown.stdout and "[bold]team:car:" in shown.stdout and "🚗" not in shown.stdout
    odd = tmp_path / "[bold]weather:car:"
    odd.mkdir()
    failed, _ = session_free("describe", str(odd))
    assert failed.exit_code == 1 and "[bold]weather:car:" in failed.stderr and "🚗" not in failed.stderr
    spec, _ = session_free("index", str(odd), "bloomfilter:station:fpp=abc")
    assert spec.exit_code == 1 and "'bloomfilter:station:fpp=abc'" in spec.stderr and "🚉" not in spec.stderr


def test_query_stats_put_each_index_on_a_row_within_80_columns(spark: Any, indexed: str) -> None:
    from typer.testing import CliRunner

    from skipstone.cli import app
    from skipstone.cli.state import CliState

    sql = f"SELECT count(*) FROM parquet.`{indexed}` WHERE ts < '2024-01-02' AND station = 3"
    out = CliRunner(env={"COLUMNS": "80"}).invoke(app, ["stats", sql], obj=CliState(session=spark)).stdout
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "{" not in out
    by_index = out[out.index("files each index ruled out on its own"):].splitlines()
    assert any(line.split()[1] == "MinMax(ts)" for line in by_index[2:])


def test_an_empty_dry_run_vacuum_says_so(cli: Any, table: str) -> None:
    run = cli("vacuum", table, "--dry-run")
    assert run.exit_code == 0 and "nothing to delete" in run.stdout


def test_errors_speak_in_options_not_python_arguments(cli: Any, table: str) -> None:
    run = cli("vacuum", table, "--retention-hours", "0", "--dry-run")
    assert run.exit_code == 1 and "--force" in run.stderr and "force=True" not in run.stderr
    # the remedy is worded by the error's hint: the command that lowers the retention, not Python's
    assert "skipstone properties" in run.stderr and "--set vacuum.retentionHours=" in run.stderr
    assert "set_properties" not in run.stderr and "ALTER TABLE" not in run.stderr


def test_version_is_printed_without_spark() -> None:
    import skipstone

    result, state = session_free("--version")
    assert result.exit_code == 0 and result.stdout.startswith(f"skipstone {skipstone.__version__}")
    assert state.session is None
