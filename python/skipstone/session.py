"""Enabling Skipstone in a SparkSession and reaching its JVM side."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from skipstone.error_hints import python_error
from skipstone.errors import SkipstoneError
from skipstone.jar import jar_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# documented where the package exports it (skipstone/__init__.py)
EXTENSION_CLASS = "io.skipstone.SkipstoneExtension"


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Return ``builder`` with Skipstone's jar and SQL extension added.

    Other extensions and jars already set on the builder are kept.

    >>> import skipstone
    >>> from pyspark.sql import SparkSession
    >>> spark = skipstone.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    """
    options: dict[str, Any] = getattr(builder, "_options", {})
    extensions = [e for e in str(options.get("spark.sql.extensions", "")).split(",") if e.strip()]
    if EXTENSION_CLASS not in extensions:
        extensions.append(EXTENSION_CLASS)
    jars = [j for j in str(options.get("spark.jars", "")).split(",") if j.strip()]
    if jar_path() not in jars:
        jars.append(jar_path())
    configured = builder.config("spark.sql.extensions", ",".join(extensions)).config("spark.jars", ",".join(jars))
    _register_sql_handler_on_create(configured)
    return configured


def _register_sql_handler_on_create(builder: SparkSession.Builder) -> None:
    """SQL's ``OPTIMIZE`` runs Python's implementation once the session's driver registered it
    (``skipstone.table.sql_optimize``); pyspark has no hook after a session is created, so the
    builder's ``getOrCreate`` registers it. Any Skipstone Python call registers it too."""
    create = builder.getOrCreate
    if getattr(create, "_registers_skipstone", False):
        return

    def get_or_create() -> SparkSession:
        spark = create()
        if getattr(spark, "_jvm", None) is not None:  # a classic session (Spark Connect has no driver JVM here)
            try:
                jvm_entry(spark)
            except SkipstoneError:
                pass  # the extension is not active: the first Skipstone call says so, as before
        return spark

    get_or_create._registers_skipstone = True  # type: ignore[attr-defined]
    builder.getOrCreate = get_or_create  # type: ignore[method-assign]


def jvm_entry(spark: SparkSession) -> Any:
    """Skipstone's JVM object for ``spark``, after checking that the extension is active."""
    from py4j.protocol import Py4JError, Py4JJavaError

    try:
        entry = spark._jvm.io.skipstone.Skipstone  # type: ignore[union-attr]
        entry.ensureActive(spark._jsparkSession)
    except Py4JJavaError as e:
        raise SkipstoneError(str(e.java_exception.getMessage())) from None
    except (Py4JError, TypeError):
        raise SkipstoneError(
            "Skipstone's jar is not on this SparkSession's class path: create the session with "
            "skipstone.configure(SparkSession.builder), or start Spark with "
            f"--jars {jar_path()} --conf spark.sql.extensions={EXTENSION_CLASS}"
        ) from None
    for hook in _ENTRY_HOOKS:
        hook(spark)
    return entry


# Run on every session a Skipstone call reaches (see on_jvm_entry); each hook is idempotent.
_ENTRY_HOOKS: list[Callable[[SparkSession], None]] = []


def on_jvm_entry(hook: Callable[[SparkSession], None]) -> None:
    """Run ``hook(spark)`` whenever ``jvm_entry`` hands out the JVM object for ``spark``.

    The table package uses it to register SQL's ``OPTIMIZE`` handler: the table package builds
    on this module, so this module must not import it back."""
    if hook not in _ENTRY_HOOKS:
        _ENTRY_HOOKS.append(hook)


def java_call(method: Any, *args: Any) -> Any:
    """Call a JVM method, turning a Java exception into a SkipstoneError with its message, its
    remedy in Python's words (``skipstone.error_hints``; pyspark turns some Java exceptions,
    IllegalArgumentException among them, into its own exceptions first)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import CapturedException

    try:
        return method(*args)
    except Py4JJavaError as e:
        raise python_error(e.java_exception, str(e.java_exception.getMessage())) from None
    except CapturedException as e:
        raise python_error(getattr(e, "_origin", None), e.getMessage() or str(e)) from None
