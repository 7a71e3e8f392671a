"""Metadata questions answered by the JVM without a Spark session.

The table log, the table detail and the skipping metadata are the JVM's formats (one reader
each, in the jar). ``describe``, ``history``, ``properties``, ``files`` and ``stats`` of a path
run the jar's ``io.skipstone.tools.MetadataCli`` in a JVM of its own, which prints one JSON
document: about a second, where a session takes ten or more. A catalog name needs the session
catalog, so it goes through the session instead, to the same JVM code.

>>> history = metadata_json("history", "/data/events", {})            # doctest: +SKIP
>>> [(h["version"], h["operation"]) for h in history]                 # doctest: +SKIP
[(1, 'CREATE'), (2, 'OPTIMIZE')]
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any, Mapping

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENTRY = "io.skipstone.tools.MetadataCli"

# A short-lived JVM: the client compiler and the serial collector start fastest, and log4j's
# simple logger (errors only) spares loading log4j-core and its plugins. The JVM's own log
# (class-data sharing warnings among it) would go to stdout, where the answer goes: errors only,
# on stderr.
JVM_OPTIONS = (
    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss4m", "-Xlog:disable", "-Xlog:all=error:stderr",
    "-Dlog4j2.loggerContextFactory=org.apache.logging.log4j.simple.SimpleLoggerContextFactory",
    "-Dorg.apache.logging.log4j.simplelog.level=ERROR",
    "-Dorg.apache.logging.log4j.simplelog.StatusLogger.level=OFF",
)

# The Spark settings the answers depend on: where metadata lives, and the file systems' settings.
_PASSED_ON = ("spark.skipstone.metadataRoot",)
_PASSED_ON_PREFIXES = ("spark.hadoop.",)


def java_executable() -> str:
    """``$JAVA_HOME/bin/java``, else ``java`` on the PATH: where pyspark's launcher looks."""
    home = os.environ.get("JAVA_HOME")
    if home:
        found = os.path.join(home, "bin", "java")
        if os.path.exists(found):
            return found
    found = shutil.which("java")
    if found is None:
        raise SkipstoneError("no Java found: set JAVA_HOME or put java (17 or newer) on the PATH, as Spark needs it too")
    return found


def spark_jars_dir() -> str:
    """Spark's jars: ``$SPARK_HOME/jars`` when set (as pyspark uses it), else pyspark's own,
    found without importing pyspark (which takes longer than the answer)."""
    home = os.environ.get("SPARK_HOME")
    if home and os.path.isdir(os.path.join(home, "jars")):
        return os.path.join(home, "jars")
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise SkipstoneError("pyspark is not installed: pip install pyspark")
    return os.path.join(list(spec.submodule_search_locations)[0], "jars")


def command_line(command: str, path: str, conf: Mapping[str, str], archive: list[str] | None = None) -> list[str]:
    """The ``java`` command that answers ``command`` for ``path`` (``archive``: class-data options)."""
    from skipstone.session import jar_path

    classpath = os.pathsep.join([jar_path(), os.path.join(spark_jars_dir(), "*")])
    settings = [f"{k}={v}" for k, v in conf.items() if k in _PASSED_ON or k.startswith(_PASSED_ON_PREFIXES)]
    return [java_executable(), *JVM_OPTIONS, *(archive or []), "-cp", classpath, ENTRY, command, path, *settings]


def class_archive() -> str:
    """Where the metadata JVM's class-data archive is kept: one per jar, Spark jars and Java.

    Loading and verifying the few thousand classes an answer needs is most of the JVM's time;
    a class-data sharing archive (Java's AppCDS) of them, written once in the background, takes
    about a third off every later answer. ``SKIPSTONE_CLI_CACHE`` overrides the directory
    (default ``~/.cache/skipstone``); an empty value turns the archive off.
    """
    from skipstone.session import jar_path

    key = "|".join(f"{p}:{os.stat(p).st_size}:{os.stat(p).st_mtime_ns}"
                   for p in (jar_path(), spark_jars_dir(), os.path.realpath(java_executable())))
    directory = os.environ.get("SKIPSTONE_CLI_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "skipstone"))
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    return os.path.join(directory, f"metadata-{digest}.jsa") if directory else ""


def archive_options(archive: str) -> list[str]:
    """``-XX:SharedArchiveFile`` when the archive exists (a stale or broken one is ignored by the JVM)."""
    return [f"-XX:SharedArchiveFile={archive}"] if archive and os.path.exists(archive) else []


def write_archive_later(archive: str, command: list[str]) -> None:
    """Start, detached, the same JVM command with ``-XX:ArchiveClassesAtExit``; the archive
    appears under its name only once whole. One attempt per ten minutes."""
    staged = f"{archive}.{os.getpid()}.tmp"
    attempt = f"{archive}.attempt"
    try:
        os.makedirs(os.path.dirname(archive), exist_ok=True)
        if os.path.exists(attempt) and time.time() - os.path.getmtime(attempt) < 600:
            return
        open(attempt, "w").close()
    except OSError:
        return
    dump = [command[0], f"-XX:ArchiveClassesAtExit={staged}", *command[1:]]
    script = ("import os, subprocess, sys; d = subprocess.run(sys.argv[3:], stdout=subprocess.DEVNULL, "
              "stderr=subprocess.DEVNULL)\nif d.returncode == 0 and os.path.exists(sys.argv[1]): "
              "os.replace(sys.argv[1], sys.argv[2])")
    subprocess.Popen([sys.executable, "-c", script, staged, archive, *dump], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def metadata_json(command: str, path: str, conf: Mapping[str, str]) -> Any:
    """The JVM's answer to ``command`` about the table or dataset at ``path``, parsed; a
    SkipstoneError with the JVM's one-line message when it has none (no table, no metadata)."""
    archive = class_archive()
    options = archive_options(archive)
    done = subprocess.run(command_line(command, path, conf, options), capture_output=True, text=True,
                          encoding="utf-8")
    if archive and not options and done.returncode == 0:
        write_archive_later(archive, command_line(command, path, conf))
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise SkipstoneError(lines[-1] if done.returncode == 1 and lines else
                             f"{ENTRY} {command} {path} failed (exit code {done.returncode}): "
                             + "\n".join(lines[-20:]))
    return json.loads(done.stdout)


def metadata_json_for_name(spark: SparkSession, command: str, name: str) -> Any:
    """``metadata_json`` for a catalog table, through the session that knows where it lives."""
    from skipstone.session import java_call, jvm_entry

    jvm_entry(spark)
    tools = spark._jvm.io.skipstone.tools.MetadataCli  # type: ignore[union-attr]
    return json.loads(java_call(tools.answerForName, spark._jsparkSession, command, name))


def catalog_location(spark: SparkSession, name: str) -> str:
    """The root directory of the catalog table ``name``."""
    from skipstone.session import java_call, jvm_entry

    jvm_entry(spark)
    return str(java_call(spark._jvm.io.skipstone.tools.MetadataCli.location,  # type: ignore[union-attr]
                         spark._jsparkSession, name))
