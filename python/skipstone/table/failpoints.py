"""Named points between the steps of create, append, optimize and vacuum where a test makes the
operation die as a killed process would (no cleanup runs), to prove that the table survives it.

One registry for both languages: the JVM's ``io.skipstone.table.Failpoints``; the names are
listed in docs/maintenance.md. Nothing fires unless a test arms a point.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from skipstone.errors import SkipstoneError
from skipstone.jvm_callbacks import start_callbacks

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class SimulatedCrash(BaseException):
    """Raised at an armed failpoint. A BaseException, as KeyboardInterrupt: the operations' cleanup
    handlers catch ``Exception`` only, so after it the disk is as a killed process leaves it."""


class InjectedError(SkipstoneError):
    """Raised at a failpoint armed with ``error=True``: an ordinary failure (a full disk, a lost
    executor), which the operation's cleanup handles as any other error."""


def _registry(spark: SparkSession) -> Any:
    return spark._jvm.io.skipstone.table.Failpoints  # type: ignore[union-attr]


def arm(spark: SparkSession, name: str, skip: int = 0, error: bool = False,
        action: Callable[[], None] | None = None) -> None:
    """Make the operation die the next time it reaches ``name`` (after ``skip`` passes); with
    ``error``, fail there with an ordinary error instead (its cleanup runs); with ``action``,
    run it there and carry on, as beside another process that acts at that moment."""
    if action is not None:
        start_callbacks(spark)
        _registry(spark).armAction(name, int(skip), _Action(action))
    elif error:
        _registry(spark).armError(name, int(skip))
    else:
        _registry(spark).arm(name, int(skip))


class _Action:
    """A test's action at a failpoint, run by the JVM over py4j's callback server."""

    def __init__(self, action: Callable[[], None]) -> None:
        self._action = action

    def run(self) -> None:
        self._action()

    class Java:
        implements = ["java.lang.Runnable"]


def disarm_all(spark: SparkSession) -> None:
    _registry(spark).disarmAll()
