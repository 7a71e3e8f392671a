"""A progress bar for long Spark jobs, fed by Spark's status tracker polled in a thread.

The tracker reports, for the stages running right now, how many tasks they have and how many
are done; the bar shows their sum. A job's stages come and go (a shuffle's map side, then its
reduce side), so the bar's total grows as stages start.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from skipstone.cli.output import plain_console

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

POLL_SECONDS = 0.25


@dataclass(frozen=True)
class StageProgress:
    """Tasks of the stages active at one moment, and which stages those are."""

    completed: int
    total: int
    stages: tuple[int, ...]


class TaskCounter:
    """Tasks completed and started over every stage seen since it was created.

    Stages that finished between two polls keep their last count, so the bar never moves back.
    """

    def __init__(self, spark: SparkSession) -> None:
        self._tracker = spark.sparkContext.statusTracker()
        self._seen: dict[int, tuple[int, int]] = {}

    def poll(self) -> StageProgress:
        active = tuple(self._tracker.getActiveStageIds())
        for stage in active:
            info = self._tracker.getStageInfo(stage)
            if info is not None:
                self._seen[stage] = (info.numCompletedTasks, info.numTasks)
        for stage in list(self._seen):
            if stage not in active:  # finished (or failed): all its tasks are done as far as the bar goes
                self._seen[stage] = (self._seen[stage][1], self._seen[stage][1])
        done = sum(c for c, _ in self._seen.values())
        total = sum(t for _, t in self._seen.values())
        return StageProgress(done, total, active)


@contextmanager
def spark_progress(spark: SparkSession, description: str, console: Console | None = None) -> Iterator[TaskCounter]:
    """Show a bar of Spark's tasks while the block runs; it disappears when the block ends.

    >>> with spark_progress(spark, "indexing /data/weather"):     # doctest: +SKIP
    ...     Skipstone.for_path(spark, "/data/weather").build(MinMax("ts"))
    """
    counter = TaskCounter(spark)
    shown_on = console or plain_console(stderr=True)
    if not shown_on.is_terminal:  # a pipe or a file gets the answer, not a bar's remains
        yield counter
        return
    stop = threading.Event()
    columns = (SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
               TextColumn("tasks"), TimeElapsedColumn())
    with Progress(*columns, console=shown_on, transient=True) as bar:
        task = bar.add_task(description, total=None)

        def follow() -> None:
            while not stop.wait(POLL_SECONDS):
                state = counter.poll()
                if state.total:
                    bar.update(task, total=state.total, completed=state.completed)

        poller = threading.Thread(target=follow, name="skipstone-progress", daemon=True)
        poller.start()
        try:
            yield counter
        finally:
            stop.set()
            poller.join()
