"""Covering a file's points with a few boxes, for GeoBox.

Points of a file often form clusters (cities of two regions, a route's stops); one bounding
box would cover the empty space between them too. Repeatedly splitting the box set at its
widest empty gap (along either axis) until there are ``k`` boxes leaves that space out.
The splitting works on float64 values; only the boxes' bounds must be exact, and are rounded
outward.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def cover(lat: np.ndarray, lon: np.ndarray, k: int) -> list[dict[str, float]]:
    """At most ``k`` boxes covering every point whose coordinates are both present (not NULL,
    not NaN: pandas shows both as NaN, so GeoBox counts such rows separately in SQL).
    """
    import numpy as np

    lat = np.asarray(lat, dtype="float64")
    lon = np.asarray(lon, dtype="float64")
    present = ~np.isnan(lat) & ~np.isnan(lon)
    groups = [np.flatnonzero(present)] if present.any() else []
    while 0 < len(groups) < k:
        gap, i, axis, cut = max(((gap, i, axis, cut) for i, g in enumerate(groups)
                                 for axis in (lat, lon) for gap, cut in [_widest_gap(axis[g])]),
                                key=lambda t: t[0])
        if not gap > 0:
            break
        g = groups.pop(i)
        groups += [g[axis[g] <= cut], g[axis[g] > cut]]
    boxes = [{"lat_min": _below(lat[g].min()), "lat_max": _above(lat[g].max()),
              "lon_min": _below(lon[g].min()), "lon_max": _above(lon[g].max())} for g in groups]
    return sorted(boxes, key=lambda b: (b["lat_min"], b["lon_min"]))


# Bounds are float64 two ulps outside the points, whatever the coordinates' type. A DECIMAL or
# BIGINT value reaches Python rounded to the nearest float64, which may lie inside the box it
# should bound: one ulp outward bounds the value itself. Queries compare such a column with a
# constant exactly while the clause compares the bound with the constant rounded to float64,
# which may round onto the bound: the second ulp keeps `max > c` TRUE whenever some value is
# above c. Doubles lose only boundary-exact skips (`lat > 10` on a file whose largest lat is 10).
def _below(v: float) -> float:
    import numpy as np

    return float(np.nextafter(np.nextafter(v, -np.inf), -np.inf))


def _above(v: float) -> float:
    import numpy as np

    return float(np.nextafter(np.nextafter(v, np.inf), np.inf))


def _widest_gap(values: np.ndarray) -> tuple[float, float]:
    """(width, cut) of the widest gap between consecutive sorted values; cut is its lower end."""
    import numpy as np

    if len(values) < 2:
        return 0.0, 0.0
    v = np.sort(values)
    gaps = np.diff(v)
    j = int(np.argmax(gaps))
    return float(gaps[j]), float(v[j])
