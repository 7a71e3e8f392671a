"""The Spark session a CLI invocation works in: started on first use, stopped if the CLI started it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
    conf = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SkipstoneError(f"--conf {pair!r} is not key=value (e.g. --conf spark.driver.memory=4g)")
        conf[key.strip()] = value
    return conf


def start_session(master: str, conf: dict[str, str]) -> SparkSession:
    """A session with Skipstone enabled; Spark's own console progress is off (ours replaces it)."""
    from pyspark.sql import SparkSession

    import skipstone

    builder = (SparkSession.builder.master(master).appName("skipstone-cli")
               .config("spark.ui.showConsoleProgress", "false"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel(conf.get("spark.log.level", "ERROR"))
    return spark
