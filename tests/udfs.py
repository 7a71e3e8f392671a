"""The real UDFs of the use cases (geo over shapely, user agents over ua-parser), for tests.

Importing this module (before the SparkContext starts) also points Spark's Python workers
at this interpreter and at the tests' and Skipstone's sources: UDFs and per-file roles run
there and need the same packages (shapely, pandas, ua-parser) and modules.
"""
from __future__ import annotations

import os
import sys
from typing import Any

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
_TESTS = os.path.dirname(os.path.abspath(__file__))
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_TESTS, os.path.join(os.path.dirname(_TESTS), "python"), os.environ.get("PYTHONPATH")) if p
)


def st_contains(wkt: str | None, lat: float | None, lon: float | None) -> bool | None:
    """Whether the point (lat, lon) lies inside the WKT polygon (x = lon, y = lat)."""
    if wkt is None or lat is None or lon is None:
        return None
    from shapely import wkt as shapely_wkt
    from shapely.geometry import Point

    return bool(_geometry(wkt, shapely_wkt).contains(Point(lon, lat)))


def st_distance(lat: float | None, lon: float | None, lat0: float | None, lon0: float | None) -> float | None:
    """Planar distance in degrees between (lat, lon) and (lat0, lon0), as shapely measures it."""
    if None in (lat, lon, lat0, lon0):
        return None
    from shapely.geometry import Point

    return float(Point(lon, lat).distance(Point(lon0, lat0)))


def agent_name(user_agent: str | None) -> str | None:
    """The browser family of a User-Agent header, e.g. 'Chrome' or 'Mobile Safari'."""
    if user_agent is None:
        return None
    from ua_parser import parse_user_agent

    parsed = parse_user_agent(user_agent)
    return parsed.family if parsed is not None else "Other"


_GEOMETRIES: dict[str, Any] = {}


def _geometry(wkt: str, reader: Any) -> Any:
    # one parse per polygon per worker: the polygon is the same literal for every row
    if wkt not in _GEOMETRIES:
        _GEOMETRIES[wkt] = reader.loads(wkt)
    return _GEOMETRIES[wkt]


def register(spark: Any) -> None:
    spark.udf.register("st_contains", st_contains, "boolean")
    spark.udf.register("st_distance", st_distance, "double")
    spark.udf.register("agent_name", agent_name, "string")
