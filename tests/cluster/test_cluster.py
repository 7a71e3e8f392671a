"""Skipstone on a real multi-executor cluster, submitted as the README says.

``spark-submit`` runs from a clean environment (only PATH and JAVA_HOME) on
``local-cluster[2,1,1024]``: a standalone master and two workers, each executor its own JVM
with its own Python workers. The jar reaches them through ``--jars`` (``spark.jars``), the
package through ``--py-files``. One submission (the cluster start dominates the cost) runs
cluster_app.py; the tests check the report it writes.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from typing import Any

import pytest

import skipstone

# over 15 s: make test-long runs it (CI after make test), not make test
pytestmark = pytest.mark.long

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(os.path.abspath(skipstone.__file__))


def package_zip(path: str) -> str:
    """The Python package as --py-files takes it (its sources; the jar travels by --jars)."""
    with zipfile.ZipFile(path, "w") as z:
        for folder, _, files in os.walk(PACKAGE):
            for name in files:
                if name.endswith(".py"):
                    full = os.path.join(folder, name)
                    z.write(full, os.path.relpath(full, os.path.dirname(PACKAGE)))
    return path


def clean_environment() -> dict[str, str]:
    """What a fresh login shell has: PATH (with the venv's python3 and spark-submit) and JAVA_HOME."""
    java = shutil.which("java")
    assert java, "java must be on PATH"
    java_home = os.environ.get("JAVA_HOME") or os.path.dirname(os.path.dirname(os.path.realpath(java)))
    return {"PATH": os.pathsep.join([os.path.dirname(sys.executable), os.path.dirname(java), "/usr/bin", "/bin"]),
            "JAVA_HOME": java_home, "HOME": os.environ.get("HOME", "/tmp")}


@pytest.fixture(scope="module")
def report(tmp_path_factory: Any) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("cluster")
    submit = shutil.which("spark-submit", path=os.path.dirname(sys.executable))
    assert submit, "spark-submit must be installed next to python (pip install pyspark)"
    command = ["env", "-i", *[f"{k}={v}" for k, v in clean_environment().items()], submit,
               "--master", "local-cluster[2,1,1024]",
               "--jars", skipstone.jar_path(),
               "--conf", f"spark.sql.extensions={skipstone.EXTENSION_CLASS}",
               "--py-files", package_zip(str(work / "skipstone.zip")),
               "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4",
               os.path.join(HERE, "cluster_app.py"), str(work)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    with open(work / "report.json") as f:
        return json.load(f)


def test_runs_on_separate_executor_jvms_with_the_jar_shipped(report: dict[str, Any]) -> None:
    assert report["master"] == "local-cluster[2,1,1024]"
    assert report["executors"] == 3  # two executors and the driver
    assert len(report["python_worker_pids"]) == 2  # one Python daemon per executor JVM
    assert report["jars"].endswith("skipstone.jar")
    assert report["extensions"] == skipstone.EXTENSION_CLASS
    assert report["skipstone_module"].endswith(os.path.join("skipstone.zip", "skipstone", "__init__.py"))


def test_indexes_built_with_python_roles_skip_without_changing_results(report: dict[str, Any]) -> None:
    for query in report["queries"]:
        assert query["skipping"] == query["plain"], query["sql"]
        assert query["skipping"], query["sql"]
    # each of the 6 files holds 1,000 consecutive ids, one agent and one initial (cluster_app.py):
    # one file can hold Safari, one an initial 'c', two the ids 1500..2400
    assert [q["files_skipped"] for q in report["queries"]] == [5, 5, 4]
    assert {q["files_total"] for q in report["queries"]} == {6}


def test_indexes_built_with_sql_skip_without_changing_results(report: dict[str, Any]) -> None:
    assert report["sql_indexes"] == ["MinMax(id)", "ValueList(word, max_size=1000)"]
    for query in report["sql_queries"]:
        assert query["skipping"] == query["plain"] and query["skipping"], query["sql"]
    # as for the Python build: 'c-5' lives in one of the 6 files, ids 1500..2400 in two
    assert [(q["files_skipped"], q["files_total"]) for q in report["sql_queries"]] == [(5, 6), (4, 6)]


def test_a_managed_table_is_created_and_optimized_without_losing_a_row(report: dict[str, Any]) -> None:
    assert report["created_files"] >= 8
    assert report["optimized_version"] == 2
    assert report["table_rows"] == report["source_rows"]
    assert len(report["table_rows"]) == 6_000
    query = report["table_query"]
    assert query["skipping"] == query["plain"] and query["files_skipped"] > 0
