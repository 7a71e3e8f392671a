"""The Spark session a CLI invocation works in: started on first use, stopped if the CLI started it."""
from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass
class CliState:
    """Options shared by every command, and the session they lead to.

    Pass ``session`` to run commands in an existing session (tests, notebooks); otherwise the
    first command that needs Spark starts one with ``master`` and ``conf``.
    """

    master: str = "local[2]"
    conf: dict[str, str] = field(default_factory=dict)
    session: SparkSession | None = None
    started_here: bool = False

    @property
    def spark(self) -> SparkSession:
        if self.session is None:
            self.session = start_session(self.master, self.conf)
            self.started_here = True
        return self.session

    def close(self) -> None:
        if self.started_here and self.session is not None:
            self.session.stop()
            self.session, self.started_here = None, False


def parse_conf(pairs: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` from repeated ``--conf`` options into a dict, naming a malformed one."""
    return parse_assignments(pairs, "--conf", "spark.driver.memory=4g")


def parse_assignments(pairs: list[str], option: str = "--set", example: str = "optimize.auto=true") -> dict[str, str]:
    """``["k=v", ...]`` from a repeated ``option`` (``--set``, ``--option``, ``--conf``) into a
    dict, naming a malformed one."""
    found = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SkipstoneError(f"{option} {pair!r} is not key=value (e.g. {option} {example})")
        found[key.strip()] = value
    return found


# The driver's log4j settings: errors only (Skipstone's own warnings too), so that a command
# prints its answer, not Spark's start-up lines. `--conf spark.log.level=INFO` brings them back
# once the session runs.
QUIET_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.skipstone.name = io.skipstone
logger.skipstone.level = warn
# pyspark's driver counts as a shell: without a level of its own, Spark prints "Setting default log level"
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""


def quiet_log_config() -> str:
    """A file holding ``QUIET_LOG4J2`` (written once per content, in the temporary directory)."""
    import hashlib
    import os
    import tempfile

    digest = hashlib.sha1(QUIET_LOG4J2.encode()).hexdigest()[:12]
    path = os.path.join(tempfile.gettempdir(), f"skipstone-cli-log4j2-{digest}.properties")
    if not os.path.exists(path):
        staged = f"{path}.{os.getpid()}"
        with open(staged, "w", encoding="utf-8") as f:
            f.write(QUIET_LOG4J2)
        os.replace(staged, path)
    return path


def driver_java_options(conf: dict[str, str]) -> str:
    """``spark.driver.extraJavaOptions`` with the quiet log settings first (the user's own
    options come after them, so a ``-Dlog4j2.configurationFile`` of theirs wins)."""
    ours = f"-Dlog4j2.configurationFile=file:{quiet_log_config()}"
    theirs = conf.get("spark.driver.extraJavaOptions", "").strip()
    return f"{ours} {theirs}".strip()


def start_session(master: str, conf: dict[str, str]) -> SparkSession:
    """A session with Skipstone enabled, logging errors only from its start; Spark's own console
    progress is off (ours replaces it)."""
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    import skipstone

    builder = (SparkSession.builder.master(master).appName("skipstone-cli")
               .config("spark.ui.showConsoleProgress", "false"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    builder = skipstone.configure(builder.config("spark.driver.extraJavaOptions", driver_java_options(conf)))
    if SparkContext._active_spark_context is None:
        settings = SparkConf()
        for key, value in getattr(builder, "_options", {}).items():
            settings.set(key, str(value))
        SparkContext(conf=settings, gateway=quiet_gateway(settings))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(conf.get("spark.log.level", "ERROR"))
    return spark


# What the JVM itself prints at start whatever the log settings (Spark's launcher adds the module).
_JVM_NOISE = re.compile(r"^WARNING: Using incubator modules: ")


def quiet_gateway(settings: Any) -> Any:
    """pyspark's gateway to a new driver JVM whose stderr passes through a filter that drops the
    JVM's own start-up warning (everything else, errors included, is passed on)."""
    from subprocess import PIPE

    from pyspark.java_gateway import launch_gateway

    gateway = launch_gateway(settings, popen_kwargs={"stderr": PIPE})

    def forward(stream: IO[bytes]) -> None:
        for line in iter(stream.readline, b""):
            text = line.decode("utf-8", "replace")
            if not _JVM_NOISE.match(text):
                sys.stderr.write(text)
                sys.stderr.flush()

    stderr = getattr(getattr(gateway, "proc", None), "stderr", None)  # None: pyspark joined a running JVM
    if stderr is not None:
        threading.Thread(target=forward, args=(stderr,), name="skipstone-jvm-stderr", daemon=True).start()
    return gateway
