"""Geo UDFs answered by two MinMax indexes (on latitude and longitude), as a UDF mapping."""
from __future__ import annotations

from skipstone.indexes.mapping import UdfMapping
from skipstone.indexes.rules import Rule

BBOX = "skipstone_wkt_bbox({wkt})"
# MinMax keeps NaN as the largest value: as a bound, NaN means "unbounded".
LAT_MIN, LAT_MAX = "nanvl({lat:minmax.min}, CAST('-Infinity' AS DOUBLE))", "nanvl({lat:minmax.max}, CAST('Infinity' AS DOUBLE))"
LON_MIN, LON_MAX = "nanvl({lon:minmax.min}, CAST('-Infinity' AS DOUBLE))", "nanvl({lon:minmax.max}, CAST('Infinity' AS DOUBLE))"
# The UDF and the clause compute a distance in float64 in different ways; their rounding errors
# scale with the coordinates and the distance (a few ulps of each), so the slack does too.
DISTANCE_SLACK = "1e-9 * (abs({lat0}) + abs({lon0}) + abs({d}))"


def geo_minmax_mapping(contains: str = "st_contains", distance: str = "st_distance") -> UdfMapping:
    """``contains(wkt, lat, lon)`` and ``distance(lat, lon, lat0, lon0) < d`` (planar) answered
    by MinMax on the two columns: the polygon's bounding box, or the disc around the query
    point, must meet the file's latitude and longitude ranges.

    >>> from skipstone import geo_minmax_mapping
    >>> geo_minmax_mapping().rule_definitions()[0].pattern
    'st_contains({wkt}, {lat}, {lon})'
    """
    meets = (f"{LAT_MIN} <= {BBOX}.ymax AND {LAT_MAX} >= {BBOX}.ymin AND "
             f"{LON_MIN} <= {BBOX}.xmax AND {LON_MAX} >= {BBOX}.xmin")
    near = (f"sqrt(pow(greatest({LAT_MIN} - {{lat0}}, {{lat0}} - {LAT_MAX}, 0D), 2) + "
            f"pow(greatest({LON_MIN} - {{lon0}}, {{lon0}} - {LON_MAX}, 0D), 2)) <= {{d}} + {DISTANCE_SLACK}")
    calls = (f"{distance}({{lat}}, {{lon}}, {{lat0}}, {{lon0}})", f"{distance}({{lat0}}, {{lon0}}, {{lat}}, {{lon}})")
    return UdfMapping(f"{contains}, {distance} on minmax", (
        Rule(f"{contains}({{wkt}}, {{lat}}, {{lon}})", meets),
        *(Rule(f"{call} {op} {{d}}", near) for call in calls for op in ("<", "<=")),
    ))
