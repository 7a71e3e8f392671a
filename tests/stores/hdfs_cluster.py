"""Hadoop's MiniDFSCluster in a JVM of its own, for the store suite on HDFS (docs/hdfs.md).

The cluster is `hadoop-client-minicluster` of exactly the Hadoop version pyspark ships (its
`hadoop-client-api-<version>.jar` names it), fetched once from Maven Central into
`.cache/hdfs-jars` (`make test-hdfs` does; so does this file run as a script). What else the
cluster needs at run time, by that jar's pom, is pyspark's own: `hadoop-client-api` and
`-runtime`, `snappy-java`, and slf4j with a logging backend. Spark reaches the cluster with the
HDFS client pyspark ships; no jar is added to the tests' session.

    python tests/stores/hdfs_cluster.py fetch [--cache DIR] [--maven-settings XML]
"""
from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType, TracebackType

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CACHE = ROOT / ".cache" / "hdfs-jars"
LAUNCHER = Path(__file__).with_name("MiniDfsLauncher.java")
# The jars of pyspark's jars/ folder the cluster runs with, by name prefix.
PYSPARK_JARS = ("hadoop-client-api-", "hadoop-client-runtime-", "snappy-java-", "slf4j-api-", "jcl-over-slf4j-",
                "log4j-api-", "log4j-core-", "log4j-slf4j2-impl-", "log4j-1.2-api-")
START_SECONDS = 180
STOP_SECONDS = 60


def cache_dir() -> Path:
    """Where the minicluster's jar is kept: $SKIPSTONE_HDFS_JARS, else .cache/hdfs-jars."""
    return Path(os.environ.get("SKIPSTONE_HDFS_JARS") or DEFAULT_CACHE)


def pyspark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def hadoop_version() -> str:
    """The Hadoop version of pyspark's client (3.5.0 for pyspark 4.3)."""
    found = sorted(glob.glob(str(pyspark_jars() / "hadoop-client-api-*.jar")))
    if not found:
        raise RuntimeError(f"pyspark ships no hadoop-client-api jar in {pyspark_jars()}")
    return Path(found[-1]).name[len("hadoop-client-api-"):-len(".jar")]


def minicluster_coordinate() -> str:
    return f"org.apache.hadoop:hadoop-client-minicluster:{hadoop_version()}"


def minicluster_jar(cache: Path) -> Path:
    return cache / f"hadoop-client-minicluster-{hadoop_version()}.jar"


def classpath(cache: Path) -> list[str] | None:
    """The cluster's class path, or None when the minicluster's jar has not been fetched."""
    jar = minicluster_jar(cache)
    if not jar.exists():
        return None
    ours = [p for p in sorted(pyspark_jars().glob("*.jar")) if p.name.startswith(PYSPARK_JARS)]
    return [str(jar), *map(str, ours)]


def fetch(cache: Path, maven_settings: str | None = None) -> Path:
    """The minicluster's jar, copied from Maven Central into ``cache`` the first time."""
    tests = _load("run_jvm_tests", ROOT / "jvm" / "run_jvm_tests.py")
    [jar] = tests.fetch_maven_jars([minicluster_coordinate()], str(cache), "The HDFS tests", maven_settings)
    return Path(jar)


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


class MiniDfs:
    """A running MiniDFSCluster: ``uri`` is its file system (``hdfs://127.0.0.1:PORT``).

    >>> with MiniDfs(workdir, classpath(cache_dir())) as cluster:   # doctest: +SKIP
    ...     spark.range(3).write.parquet(f"{cluster.uri}/t")
    """

    def __init__(self, workdir: Path, jars: list[str]) -> None:
        java = shutil.which("java")
        if java is None:
            raise RuntimeError("the HDFS tests need Java 17 ('java' is not on PATH)")
        workdir.mkdir(parents=True, exist_ok=True)
        self.log = workdir / "minidfs.log"
        uri_file = workdir / "uri"
        with open(self.log, "w") as log:
            # its stdin is ours: when this process ends, however it ends, the cluster stops
            self._process = subprocess.Popen(
                [java, "-Xmx768m", "-cp", os.pathsep.join(jars), str(LAUNCHER), str(workdir / "dfs"), str(uri_file)],
                stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_SECONDS
        while not uri_file.exists():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the MiniDFSCluster did not start in {START_SECONDS} s; the end of {self.log}:\n"
                                   + "\n".join(self.log.read_text().splitlines()[-30:]))
            time.sleep(0.2)
        self.uri = uri_file.read_text().strip()

    def stop(self) -> None:
        """Closes its stdin (the launcher shuts the cluster down) and waits for the JVM to end."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> MiniDfs:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    fetching = commands.add_parser("fetch", help="copy the minicluster's jar from Maven Central into the cache")
    fetching.add_argument("--cache", type=Path, default=cache_dir())
    fetching.add_argument("--maven-settings", help="a settings.xml for mvn (a mirror of Maven Central, a proxy)")
    args = parser.parse_args(argv)
    print(fetch(args.cache, args.maven_settings))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
