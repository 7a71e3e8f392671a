"""The remedies of the JVM's hinted errors in Python's words.

A JVM table operation that fails for a reason the user can fix says what went wrong and names
the remedy by a key (``io.skipstone.table.Hint``); each interface words it. SQL commands say
``ALTER TABLE ... SET TBLPROPERTIES`` (``io.skipstone.sql.SqlHints``); a Python call says
``force=True`` or ``t.set_properties(...)`` (here). One owner per wording: the JVM's message
never tells a SQL user to pass ``force=True``, nor a Python user to run a statement.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from skipstone.errors import SkipstoneError

# key -> the remedy, from the hint's facts (strings, as the JVM recorded them)
_PYTHON: dict[str, Callable[[dict[str, str]], str]] = {
    "vacuum.underTableRetention": lambda f: (
        "Pass force=True to vacuum with it anyway, or lower the table's retention first: "
        f"t.set_properties({{'vacuum.retentionHours': '{f.get('hours', '<hours>')}'}})."),
    "vacuum.underDefaultRetention": lambda f: (
        "Pass force=True to vacuum with it anyway, or opt the table in first: t.set_properties("
        f"{{'vacuum.retentionCheck': 'false', 'vacuum.retentionHours': '{f.get('hours', '<hours>')}'}})."),
    "table.create": lambda f: (
        f"Create one with Skipstone.create(spark, {f.get('root', 'path')!r}, df) (docs/tables.md)."),
}

KEYS = frozenset(_PYTHON)


def remedy(key: str, facts: dict[str, str]) -> str:
    """The Python remedy of hint ``key`` ("" for a key this version does not know).

    >>> remedy("vacuum.underTableRetention", {"hours": "1.0"})[:40]
    'Pass force=True to vacuum with it anyway'
    """
    wording = _PYTHON.get(key)
    return wording(facts) if wording else ""


def python_error(java_exception: Any, fallback: str) -> SkipstoneError:
    """The SkipstoneError for a Java exception a Python call raised: the hinted error's own
    message with its remedy in Python's words (and the hint as data, for other interfaces), or
    ``fallback`` as the message when no hint is attached."""
    from pyspark import SparkContext

    try:
        found = SparkContext._jvm.io.skipstone.table.Hinted.json(java_exception)  # type: ignore[union-attr]
    except Exception:  # an older jar or no JVM: the message as it came
        return SkipstoneError(fallback)
    if not found:
        return SkipstoneError(fallback)
    hinted = json.loads(found)
    facts = hinted.get("facts", {})
    message = f"{hinted['message']} {remedy(hinted['key'], facts)}".strip()
    return SkipstoneError(message, hint=hinted["key"], facts=facts, problem=hinted["message"])
