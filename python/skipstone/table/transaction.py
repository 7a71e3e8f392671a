"""Python's side of the JVM's table transaction (``io.skipstone.table.TableTransaction``): every
write of a managed table (append, absorbing other writers' files, a layout change, a rewrite
under a new layout, compaction) runs there. Python hands over rows and layout documents and,
when the table's indexes need one, a callback that computes their Python roles."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from skipstone.dataset import Skipstone, stored_indexes
from skipstone.error_hints import python_error
from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType
from skipstone.jvm_callbacks import start_callbacks
from skipstone.per_file import needs_python
from skipstone.session import jvm_entry
from skipstone.table.failpoints import InjectedError, SimulatedCrash

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def operations(spark: SparkSession) -> Any:
    """The JVM package of the table operations (``Append``, ``Absorb``, ``Rewrite``, ...)."""
    jvm_entry(spark)  # checks the extension is active
    return spark._jvm.io.skipstone.table  # type: ignore[union-attr]


def run(method: Any, *args: Any) -> Any:
    """Call a JVM table operation. A test's failpoint there raises SimulatedCrash (the JVM cleaned
    nothing up, as a killed process would not) or, armed as an error, InjectedError; any other
    failure a SkipstoneError with the JVM's message, which says what was (not) committed."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    try:
        return method(*args)
    except Py4JJavaError as e:
        failure = e.java_exception
        if failure.getClass().getName() == "io.skipstone.table.InjectedFailure":
            raise SimulatedCrash(str(failure.getMessage())) from None
        if _caused_by(failure, "io.skipstone.table.InjectedError"):  # a failpoint armed with error=True
            raise InjectedError(str(failure.getMessage())) from None
        raise python_error(failure, str(failure.getMessage())) from None
    except CapturedException as e:  # pyspark's own view of some Java exceptions (IllegalArgumentException...)
        raise python_error(getattr(e, "_origin", None), e.getMessage() or str(e)) from None


def _caused_by(failure: Any, class_name: str) -> bool:
    while failure is not None:
        if failure.getClass().getName() == class_name:
            return True
        failure = failure.getCause()
    return False


class PythonRoles:
    """The roles of the table's indexes that a Python function computes, for the files the JVM
    just wrote; the JVM calls ``compute`` over py4j's callback server."""

    def __init__(self, spark: SparkSession, root: str, indexes: Sequence[IndexType],
                 requests: list[dict[str, Any]]) -> None:
        self._spark, self._root, self._indexes, self._requests = spark, root, tuple(indexes), requests

    def compute(self, files: Any) -> Any:
        from pyspark.sql import DataFrame

        dataset = Skipstone(self._spark, self._root, "parquet")
        return dataset._python_roles(DataFrame(files, self._spark), self._indexes, self._requests)

    class Java:
        implements = ["io.skipstone.table.PythonRoles"]


def python_roles(spark: SparkSession, root: str) -> PythonRoles | None:
    """A callback when the table's indexes have roles only Python computes, else None (the JVM
    then needs no callback server)."""
    current = Skipstone(spark, root, "parquet")._current()
    if current is None:
        return None
    return roles_for(spark, root, *stored_indexes(current[2]))


def roles_for(spark: SparkSession, root: str, indexes: Sequence[IndexType],
              requests: list[dict[str, Any]]) -> PythonRoles | None:
    """A callback for ``indexes`` (as build ``requests``) when any has a role only Python computes."""
    if not needs_python(indexes):
        return None
    start_callbacks(spark)
    return PythonRoles(spark, root, indexes, requests)
