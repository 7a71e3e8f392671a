"""The Python UDFs the fuzzer's predicates and indexes call.

They are registered by value (cloudpickle), so Spark's Python workers need not import this
module. Every one returns NULL for NULL input and never raises: an exception would fail the
whole batch of predicates it sits in.
"""
from __future__ import annotations

import decimal
import math
import re
from typing import Any

_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE]-?\d+)?"


def _f(v: Any) -> float | None:
    if v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError, decimal.InvalidOperation):
        return None


def fz_tag(s: str | None) -> str | None:
    """Formatted's string UDF: the first character, upper-cased ('' for '')."""
    return None if s is None else s[:1].upper()


def fz_len(s: str | None) -> int | None:
    """Formatted's non-string UDF (an int), for issue 8's "Formatted with a non-string result"."""
    return None if s is None else len(s)


def fz_str(v: Any) -> str | None:
    """Python's str() of any value: fz_str(CAST(i AS DOUBLE)) is '3.0' where fz_str(i) is '3'."""
    return None if v is None else str(v)


def fz_absdiff(a: Any, b: Any) -> float | None:
    """|a - b| in float64, MetricDist's numeric metric as queries call it."""
    x, y = _f(a), _f(b)
    if x is None or y is None:
        return None
    d = abs(x - y)
    return d


def st_contains(wkt: str | None, lat: Any, lon: Any) -> bool | None:
    """Whether (lat, lon) lies strictly inside the WKT polygon (x = lon, y = lat); ray casting."""
    y, x = _f(lat), _f(lon)
    if wkt is None or x is None or y is None or math.isnan(x) or math.isnan(y):
        return None
    numbers = [float(n) for n in re.findall(_NUMBER, wkt)]
    ring = list(zip(numbers[0::2], numbers[1::2]))
    inside = False
    for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1]):
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside


def st_distance(lat: Any, lon: Any, lat0: Any, lon0: Any) -> float | None:
    """Planar distance in degrees between (lat, lon) and (lat0, lon0)."""
    a, b, c, d = _f(lat), _f(lon), _f(lat0), _f(lon0)
    if a is None or b is None or c is None or d is None:
        return None
    return math.hypot(a - c, b - d)


UDFS: dict[str, tuple[Any, str]] = {
    "fz_tag": (fz_tag, "string"),
    "fz_len": (fz_len, "int"),
    "fz_str": (fz_str, "string"),
    "fz_absdiff": (fz_absdiff, "double"),
    "st_contains": (st_contains, "boolean"),
    "st_distance": (st_distance, "double"),
}


def register(spark: Any) -> None:
    """Register every UDF in ``spark``, pickled by value so workers need not import us."""
    import sys

    from pyspark import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    for name, (fn, return_type) in UDFS.items():
        spark.udf.register(name, fn, return_type)
