"""The one Spark that Skipstone, Delta Lake and Iceberg share in the layout benchmark (docs/peers.md).

Delta Lake 4.4.0 is built for Spark 4.0, 4.1 and 4.2, Iceberg 1.12.0 for Spark 4.1 only, and
neither for 4.3, the project's own pyspark. So the peers run on pyspark 4.1 in a venv of their
own, made the way `make test-spark-versions` makes one (`.ci/spark_versions.py`), with
Skipstone's jar compiled by that pyspark's Scala compiler into a copy of the Python package
(the checkout's jar, built for 4.3, is left alone). Everything lives in `.cache/` (git-ignored):

    .cache/peer-jars/    Delta's and Iceberg's jars, from Maven Central (`make peer-jars`)
    .cache/peer-spark/   the venv, and python/skipstone with the jar built for it

    python -m benchmarks.layout_spark.peer_runtime jars                 # `make peer-jars`
    python -m benchmarks.layout_spark.peer_runtime run -m MODULE ARGS   # MODULE on the peers' Spark
    python -m benchmarks.layout_spark.peer_runtime test-delta [ARGS]    # `make test-delta`
    python -m benchmarks.layout_spark.peer_runtime test-iceberg [ARGS]  # `make test-iceberg`

`test-delta` runs the tests of Skipstone's indexes over Delta tables (tests/sources/test_delta_*.py,
pytest ARGS after it) on that Spark, with Delta's jars, extension and catalog in each test
session (tests/conftest.py reads them from SKIPSTONE_TEST_CONF); `test-iceberg` those over
Iceberg tables (tests/sources/test_iceberg_*.py) with Iceberg's runtime jar and extension (each
test module registers a Hadoop catalog of its own, in a temporary warehouse).
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from types import ModuleType

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JARS_CACHE = os.path.join(ROOT, ".cache", "peer-jars")
SPARK_CACHE = os.path.join(ROOT, ".cache", "peer-spark")

# Delta 4.1.0 built for Spark 4.1.0 broke on Spark 4.1.2 (binary changes within a minor), so
# the patch release is pinned too: change the three together, and run `make bench-peers-smoke`.
SPARK = "4.1.4"
DELTA = "4.4.0"
ICEBERG = "1.12.0"
_MINOR = SPARK.rsplit(".", 1)[0]
# Each jar alone: the rest of what Delta's pom lists is Spark's own (provided) or the Delta
# kernel, which the Spark connector's SQL paths used here do not load.
DELTA_ARTIFACTS = [f"io.delta:delta-spark_{_MINOR}_2.13:{DELTA}", f"io.delta:delta-storage:{DELTA}"]
ARTIFACTS = [*DELTA_ARTIFACTS, f"org.apache.iceberg:iceberg-spark-runtime-{_MINOR}_2.13:{ICEBERG}"]
# What the peers' venv holds besides pyspark and what the skipping tests import (spark_versions.py):
# the layout benchmarks' TPC-H generator and plots
EXTRA_REQUIREMENTS = ("tpchgen-cli>=1", "matplotlib>=3.7")


def _load(name: str, path: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module  # dataclasses look their module up while the module runs
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def jar_paths(cache: str = JARS_CACHE, artifacts: list[str] = ARTIFACTS) -> list[str]:
    """The peers' jars (of ``artifacts``) in ``cache``; fails naming `make peer-jars` when one is missing."""
    paths = [os.path.join(cache, _jar_name(a)) for a in artifacts]
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise SystemExit(f"the peers' jars are missing ({', '.join(os.path.basename(p) for p in missing)}): "
                         "run `make peer-jars`")
    return paths


def fetch_jars(cache: str = JARS_CACHE, maven_settings: str | None = None,
               artifacts: list[str] = ARTIFACTS) -> list[str]:
    """Delta's and Iceberg's jars (of ``artifacts``), copied from Maven Central into ``cache`` the first time."""
    tests = _load("run_jvm_tests", os.path.join(ROOT, "jvm", "run_jvm_tests.py"))
    return tests.fetch_maven_jars(artifacts, cache, "The Delta and Iceberg peers", maven_settings)


DELTA_EXTENSION = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
ICEBERG_EXTENSION = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
# (the tests of each connector, the session settings it needs) by `test-<connector>`
SOURCE_TESTS = {"test-delta": "tests/sources/test_delta_*.py", "test-iceberg": "tests/sources/test_iceberg_*.py"}
# Delta replays its log into 50 partitions (`snapshotPartitions`) whenever it computes a
# snapshot: each commit, each time travel and each build lists one, and 50 tasks of a few rows
# on 2 cores took most of the Delta tests' time (their time-travel test: 71 s with 50, 27 s with 2).
DELTA_TEST_CONF = {"spark.databricks.delta.snapshotPartitions": "2"}


def delta_session_conf(cache: str = JARS_CACHE) -> dict[str, str]:
    """What a session needs for Delta Lake besides Skipstone (which ``skipstone.configure`` adds
    after Delta's extension: Skipstone's parser then sees statements first, the harder order
    for statements both know): Delta's jars, its extension, its catalog as the session catalog."""
    return {"spark.jars": ",".join(jar_paths(cache, DELTA_ARTIFACTS)), "spark.sql.extensions": DELTA_EXTENSION,
            "spark.sql.catalog.spark_catalog": DELTA_CATALOG}


def iceberg_session_conf(cache: str = JARS_CACHE) -> dict[str, str]:
    """What a session needs for Iceberg besides Skipstone: Iceberg's runtime jar and its extension
    (its procedures, such as rewrite_data_files). Catalogs are the tests' own (Hadoop catalogs
    in temporary warehouses, registered at run time)."""
    iceberg = [p for p in jar_paths(cache) if os.path.basename(p).startswith("iceberg-")]
    return {"spark.jars": ",".join(iceberg), "spark.sql.extensions": ICEBERG_EXTENSION}


def _jar_name(coordinate: str) -> str:
    _, artifact, version = coordinate.split(":")
    return f"{artifact}-{version}.jar"


@dataclass(frozen=True)
class Runtime:
    python: str      # the venv's interpreter, pyspark SPARK in it
    pythonpath: str  # the copy of python/ whose jar that pyspark compiled, then the checkout (benchmarks)
    bench_jar: str   # where benchmarks.harness builds the benchmarks' jar for this Spark

    def command(self, args: list[str]) -> tuple[list[str], dict[str, str]]:
        env = dict(os.environ, PYTHONPATH=self.pythonpath, PYSPARK_PYTHON=self.python,
                   SKIPSTONE_BENCH_JAR=self.bench_jar)
        return [self.python, *args], env


def prepared(cache: str = SPARK_CACHE) -> Runtime:
    """The venv with pyspark SPARK (made and filled the first time) and Skipstone for it:
    python/skipstone copied afresh, its jar rebuilt when the JVM sources differ from the ones
    it was built from."""
    versions = _load("spark_versions", os.path.join(ROOT, ".ci", "spark_versions.py"))
    python = versions.venv_python(os.path.join(cache, f"venv-{SPARK}"))
    # the marker holds what was installed (not where from: a checkout elsewhere sharing this
    # cache finds the venv current), so that a changed list installs again
    installed = os.path.join(cache, f"venv-{SPARK}", ".installed")
    command = versions.install_command(python, SPARK, EXTRA_REQUIREMENTS)
    wanted = "\n".join(command[1:])
    if not os.path.exists(installed) or open(installed).read() != wanted:
        print(f"installing pyspark {SPARK} into {os.path.dirname(installed)}", flush=True)
        subprocess.run(command, check=True)
        with open(installed, "w") as f:
            f.write(wanted)
    jar = os.path.join(cache, f"skipstone-spark-{SPARK}.jar")
    # by content, not modification time: a fresh checkout or a switch of branches touches every
    # source, and the build costs a minute or more
    built_from, sources = jar + ".sources", jvm_sources_digest()
    if not os.path.exists(jar) or not os.path.exists(built_from) or open(built_from).read() != sources:
        print(f"building {jar} with pyspark {SPARK}", flush=True)
        subprocess.run([python, os.path.join(ROOT, "jvm", "build_jar.py"), jar], check=True)
        with open(built_from, "w") as f:
            f.write(sources)
    package = os.path.join(cache, "python", "skipstone")
    shutil.rmtree(package, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "python", "skipstone"), package,
                    ignore=shutil.ignore_patterns("jars", "__pycache__"))
    # where the package looks for the jar of this Spark minor (skipstone/jar/ owns the layout)
    layout = _load("skipstone_jar_layout", os.path.join(package, "jar", "__init__.py"))
    packaged = layout.jar_for_minor(layout.spark_minor(SPARK), os.path.join(package, "jars"))
    os.makedirs(os.path.dirname(packaged))
    shutil.copy2(jar, packaged)
    return Runtime(python, os.pathsep.join([os.path.dirname(package), ROOT]),
                   os.path.join(cache, f"skipstone-bench-spark-{SPARK}.jar"))


def jvm_sources_digest() -> str:
    """A digest of what the jar is built from: jvm/src/main and jvm/build_jar.py, names and contents."""
    digest = hashlib.sha256()
    files = glob.glob(os.path.join(ROOT, "jvm", "src", "main", "**", "*"), recursive=True)
    for path in sorted(files + [os.path.join(ROOT, "jvm", "build_jar.py")]):
        if os.path.isfile(path):
            digest.update(os.path.relpath(path, ROOT).encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read() + b"\0")
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--maven-settings", help="a settings.xml for mvn (a mirror of Maven Central, a proxy)")
    parser.add_argument("what", choices=["jars", "run", *SOURCE_TESTS],
                        help="jars: fetch Delta's and Iceberg's jars into .cache/peer-jars; "
                             "run: the peers' python with the arguments that follow; "
                             "test-delta, test-iceberg: the Delta or Iceberg source tests, pytest's arguments following")
    # everything after `run` or `test-*` is the peers' python's (or pytest's), options included
    ends = [argv.index(w) + 1 for w in ("run", *SOURCE_TESTS) if w in argv]
    head = argv[:min(ends)] if ends else argv
    args = parser.parse_args(head)
    # the Delta tests need Delta's jars only, not Iceberg's 48 MB runtime
    fetched = fetch_jars(maven_settings=args.maven_settings,
                         artifacts=DELTA_ARTIFACTS if args.what == "test-delta" else ARTIFACTS)
    if args.what == "jars":
        print("\n".join(fetched))
        return 0
    rest = argv[len(head):]
    tests = SOURCE_TESTS.get(args.what)
    if tests is not None:
        rest = ["-m", "pytest", "-q", "-p", "no:cacheprovider",
                *(rest or sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, tests))))]
    runtime = prepared()
    cmd, env = runtime.command(rest)
    if tests is not None:
        _install_jar_in_checkout(runtime)
        conf = {**delta_session_conf(), **DELTA_TEST_CONF} if args.what == "test-delta" else iceberg_session_conf()
        env["SKIPSTONE_TEST_CONF"] = json.dumps(conf)
    return subprocess.run(cmd, env=env, cwd=ROOT).returncode


def _install_jar_in_checkout(runtime: Runtime) -> None:
    """tests/conftest.py imports the checkout's python/skipstone, which looks for a jar per Spark
    minor in its (git-ignored) jars/: the one built for SPARK goes there beside the 4.3 one."""
    copy = os.path.join(runtime.pythonpath.split(os.pathsep)[0], "skipstone")
    layout = _load("skipstone_jar_layout", os.path.join(copy, "jar", "__init__.py"))
    built = layout.jar_for_minor(SPARK, os.path.join(copy, "jars"))
    target = layout.jar_for_minor(SPARK, os.path.join(ROOT, "python", "skipstone", "jars"))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy2(built, target)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
