"""GeoBox: per file up to k boxes covering its (lat, lon) points, for geo UDFs and ranges."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.defined import RuleIndex
from skipstone.indexes.geo_mappings import DISTANCE_SLACK
from skipstone.indexes.point_cover import cover
from skipstone.indexes.rules import Role, Rule

if TYPE_CHECKING:
    import pandas as pd

BOX_TYPE = "array<struct<lat_min:double,lat_max:double,lon_min:double,lon_max:double>>"
BBOX = "skipstone_wkt_bbox({wkt})"


@dataclass(frozen=True)
class GeoBox(RuleIndex):
    """Per file at most ``boxes`` boxes covering its points (lat, lon), found by splitting
    at the widest empty gaps, so a file holding two distant clusters is not one huge box.

    Answers ``contains(wkt, lat, lon)`` (the point lies in a WKT polygon),
    ``distance(lat, lon, lat0, lon0) < d`` (planar, in degrees, as shapely measures;
    also ``<=`` and the reversed argument order), and ``=``, ``<``, ``<=``, ``>``, ``>=``,
    ``IN`` on ``lat`` or ``lon`` alone. ``contains`` and ``distance`` are the UDF names
    queries use (see docs/use-cases.md for shapely implementations).

    >>> from skipstone import GeoBox
    >>> GeoBox("lat", "lon", boxes=4).describe()
    'GeoBox(lat, lon, boxes=4)'
    """

    lat: str
    lon: str
    boxes: int = 4
    contains: str = "st_contains"
    distance: str = "st_distance"
    kind: ClassVar[str] = "geobox"
    cover: ClassVar[str | None] = "boxes"   # a point is in one box: `lat > 1 AND lon < 2` is tested per box

    def __post_init__(self) -> None:
        if self.boxes < 1:
            raise SkipstoneError(f"GeoBox({self.lat}, {self.lon}) needs boxes >= 1, not {self.boxes}")

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.lat, self.lon)

    def role_definitions(self) -> tuple[Role, ...]:
        k = self.boxes

        def boxes(rows: pd.DataFrame) -> list[dict[str, Any]]:
            return cover(rows.iloc[:, 0].to_numpy(dtype="float64"), rows.iloc[:, 1].to_numpy(dtype="float64"), k)

        both = "({col0} IS NULL AND {col1} IS NULL)"
        present = "({col0} IS NOT NULL AND {col1} IS NOT NULL AND NOT isnan({col0}) AND NOT isnan({col1}))"
        return (
            Role("boxes", BOX_TYPE, per_file=boxes),
            # rows the boxes leave out though a predicate could hold: one coordinate only, or NaN
            Role("odd", "long", f"count_if(NOT {both} AND NOT {present})"),
        )

    def rule_definitions(self) -> tuple[Rule, ...]:
        return (*self._contains_rules(), *self._distance_rules(),
                *self._range_rules("{col0}", "lat"), *self._range_rules("{col1}", "lon"))

    def _contains_rules(self) -> tuple[Rule, ...]:
        meets = (f"b.lat_min <= {BBOX}.ymax AND b.lat_max >= {BBOX}.ymin AND "
                 f"b.lon_min <= {BBOX}.xmax AND b.lon_max >= {BBOX}.xmin")
        return (Rule(f"{self.contains}({{wkt}}, {{col0}}, {{col1}})", _any_box(meets)),)

    def _distance_rules(self) -> tuple[Rule, ...]:
        near = (f"sqrt(pow(greatest(b.lat_min - {{lat0}}, {{lat0}} - b.lat_max, 0D), 2) + "
                f"pow(greatest(b.lon_min - {{lon0}}, {{lon0}} - b.lon_max, 0D), 2)) <= {{d}} + {DISTANCE_SLACK}")
        calls = (f"{self.distance}({{col0}}, {{col1}}, {{lat0}}, {{lon0}})",
                 f"{self.distance}({{lat0}}, {{lon0}}, {{col0}}, {{col1}})")
        return tuple(Rule(f"{call} {op} {{d}}", _any_box(near)) for call in calls for op in ("<", "<="))

    def _range_rules(self, column: str, axis: str) -> tuple[Rule, ...]:
        return Rule.range(column, f"b.{axis}_min", f"b.{axis}_max", wrap=_any_box)

    def settings(self) -> dict[str, str]:
        return {"boxes": str(self.boxes), "contains": self.contains, "distance": self.distance}

    def describe(self) -> str:
        return f"GeoBox({self.lat}, {self.lon}, boxes={self.boxes})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> GeoBox:
        return cls(columns[0], columns[1], int(params.get("boxes", "4")),
                   params.get("contains", "st_contains"), params.get("distance", "st_distance"))


def _any_box(condition: str) -> str:
    return f"{{odd}} > 0 OR exists({{boxes}}, b -> {condition})"
