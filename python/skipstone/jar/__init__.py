"""Skipstone's jar: one per supported Spark minor, inside the package, and the one that fits.

A jar is compiled against one Spark minor (Spark's parser interface changes between minors,
``jvm/src/main/spark-X.Y``), so the package holds ``jars/spark-X.Y/skipstone.jar`` for each
minor it supports and picks the one of the running pyspark. To pass it to ``spark-submit``::

    python -m skipstone.jar          # prints the jar's path for this pyspark

This module imports nothing but the standard library at import time: ``jvm/build_jar.py``
loads it on its own to learn where a jar for a minor goes (``__main__.py`` is the command).
"""
from __future__ import annotations

import os
import re

__all__ = ["jar_path", "packaged_spark_minors"]

JARS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "jars")
JAR_NAME = "skipstone.jar"


def spark_minor(version: str) -> str:
    """``"4.1"`` for ``"4.1.4"``, ``"4.3.0.dev0"`` or ``"spark-4.1"``.

    >>> spark_minor("4.1.4")
    '4.1'
    """
    found = re.search(r"(\d+)\.(\d+)", version)
    if not found:
        raise ValueError(f"no Spark version in {version!r}")
    return f"{found.group(1)}.{found.group(2)}"


def jar_for_minor(minor: str, jars_dir: str = JARS_DIR) -> str:
    """Where the jar compiled for Spark ``minor`` lives in the package (present or not).

    >>> os.path.relpath(jar_for_minor("4.3"), JARS_DIR)
    'spark-4.3/skipstone.jar'
    """
    return os.path.join(jars_dir, f"spark-{spark_minor(minor)}", JAR_NAME)


def packaged_spark_minors(jars_dir: str = JARS_DIR) -> list[str]:
    """The Spark minors this installation holds a jar for, oldest first.

    >>> import skipstone.jar
    >>> skipstone.jar.packaged_spark_minors()  # doctest: +SKIP
    ['4.1', '4.3']
    """
    if not os.path.isdir(jars_dir):
        return []
    minors = [name[len("spark-"):] for name in os.listdir(jars_dir)
              if re.fullmatch(r"spark-\d+\.\d+", name) and os.path.exists(os.path.join(jars_dir, name, JAR_NAME))]
    return sorted(minors, key=lambda m: tuple(int(p) for p in m.split(".")))


def _running_spark_version() -> str:
    from pyspark.version import __version__

    return __version__


def jar_path(spark_version: str | None = None) -> str:
    """Path of Skipstone's jar for ``spark_version`` (default: the running pyspark's), for
    ``--jars`` or ``spark.jars``; ``skipstone.configure`` adds it for you.

    >>> import os, skipstone
    >>> os.path.basename(skipstone.jar_path())
    'skipstone.jar'

    Raises ``SkipstoneError`` naming the minors this installation supports when it holds no
    jar for that Spark's minor.
    """
    version = spark_version if spark_version is not None else _running_spark_version()
    path = jar_for_minor(spark_minor(version))
    if os.path.exists(path):
        return path
    from skipstone.errors import SkipstoneError

    supported = packaged_spark_minors()
    if not supported:
        raise SkipstoneError(
            f"Skipstone's jar is missing at {path}: reinstall the package (pip install .) "
            "or build it with `python jvm/build_jar.py`"
        )
    raise SkipstoneError(
        f"Skipstone has no jar for Spark {version}: this installation supports Spark "
        f"{', '.join(supported)} (install a pyspark of one of them, or build Skipstone from "
        f"source with pyspark {spark_minor(version)}: docs/install.md)"
    )

