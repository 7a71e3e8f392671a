"""Writers in processes of their own for the managed-table suite (table_suite.py): a Python
process with a Spark session, given appends and optimizes to run, that a test can race or kill.
Kept in a pool (``Children``) because each takes 20 to 40 s to start on 2 busy cores."""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]
CHILD_SECONDS = 240

CHILD = textwrap.dedent("""
    import json, os, sys
    sys.path[:0] = sys.argv[1].split(os.pathsep)
    import skipstone
    from pyspark.sql import SparkSession
    from skipstone import Skipstone
    from skipstone.errors import SkipstoneError

    builder = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2"))
    # the store's settings, as the tests' own session has them (tests/conftest.py)
    for key, value in json.loads(os.environ.get("SKIPSTONE_TEST_CONF", "{}")).items():
        builder = builder.config(key, value)
    spark = skipstone.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")

    # one task per line of stdin, until it closes: its session serves test after test
    for line in sys.stdin:
        task = json.loads(line)
        t = Skipstone.for_path(spark, task["root"])
        if task["mode"] == "rewrite":
            # plans on the version given, tells the parent, and commits when it says so
            from skipstone.table import manifest
            from skipstone.table.optimize import apply, plan
            from tests.table.split_policy import SplitLargestBlock
            p = plan(spark, manifest.at(spark, t.root, task["version"]), None, SplitLargestBlock())
            print("@@ ready", flush=True)
            sys.stdin.readline()
            try:
                print("@@", json.dumps({"won": apply(spark, p).version}), flush=True)
            except SkipstoneError as e:
                print("@@", json.dumps({"lost": str(e)}), flush=True)
        elif task["mode"] == "append":
            from pyspark.sql import functions as F
            start = task["start"]
            rows = spark.range(start, start + 200).select(
                F.col("id").alias("a"), (F.col("id") % 7).alias("b"),
                F.concat(F.lit("s"), (F.col("id") % 13).cast("string")).alias("s"))
            print("@@ appending", flush=True)
            t.append(rows)
            print("@@ appended", flush=True)
""")


class Child:
    """A Python process with a Spark session of its own, running CHILD: given tasks by ``run``;
    what it says (its lines starting with "@@ ") read by a thread."""

    def __init__(self, script: Path) -> None:
        path = os.pathsep.join([str(REPOSITORY / "python"), str(REPOSITORY)])
        self.process = subprocess.Popen([sys.executable, str(script), path], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        start_new_session=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("@@ "):  # what CHILD says; anything else a library printed
                self.lines.put(line[3:].strip())
        self.lines.put(None)

    def run(self, mode: str, root: str, **arguments: Any) -> None:
        """Gives the child a task (CHILD's modes), which it starts once its session is up."""
        self.say(json.dumps({"mode": mode, "root": root, **arguments}))

    def line(self, seconds: float = CHILD_SECONDS) -> str:
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            raise AssertionError(f"the child said nothing for {seconds} s") from None
        assert line is not None, f"the child ended (exit status {self.process.wait()})"
        return line

    def say(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


class Children:
    """Child processes kept between tests, and between the stores' modules of one pytest run:
    each costs a JVM and a Spark session to start (20 to 40 s on 2 busy cores). A test takes the
    children it needs and gives back those it leaves idle; one it kills is gone."""

    def __init__(self, script: Path) -> None:
        self.script = script
        self.idle: list[Child] = []

    def start(self, n: int) -> None:
        """At least ``n`` idle children, the missing ones started now: they boot in the background."""
        self.idle = [c for c in self.idle if c.alive()]
        self.idle += [Child(self.script) for _ in range(n - len(self.idle))]

    def take(self, n: int) -> list[Child]:
        kept = [c for c in self.idle if c.alive()][:n]
        self.idle = [c for c in self.idle if c not in kept and c.alive()]
        return kept + [Child(self.script) for _ in range(n - len(kept))]

    def give_back(self, children: list[Child]) -> None:
        self.idle += [c for c in children if c.alive()]

    def close(self) -> None:
        for c in self.idle:
            c.kill()
        self.idle = []
