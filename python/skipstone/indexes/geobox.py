"""GeoBox: per file up to k boxes covering its (lat, lon) points, for geo UDFs and ranges."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.defined import RuleIndex
from skipstone.indexes.point_cover import cover
from skipstone.indexes.rules import Role

if TYPE_CHECKING:
    import pandas as pd

BOX_TYPE = "array<struct<lat_min:double,lat_max:double,lon_min:double,lon_max:double>>"


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

    def params(self) -> dict[str, str]:
        # The JVM writes the roles and rules (io.skipstone.indexing.GeoBoxKind).
        return self.settings()

    def per_file(self) -> dict[str, Role]:
        k = self.boxes

        def boxes(rows: pd.DataFrame) -> list[dict[str, Any]]:
            return cover(rows.iloc[:, 0].to_numpy(dtype="float64"), rows.iloc[:, 1].to_numpy(dtype="float64"), k)

        # Rows with one coordinate only, or NaN, are counted by the JVM in SQL (role "odd").
        return {"boxes": Role("boxes", BOX_TYPE, per_file=boxes)}

    def settings(self) -> dict[str, str]:
        return {"boxes": str(self.boxes), "contains": self.contains, "distance": self.distance}

    def describe(self) -> str:
        return f"GeoBox({self.lat}, {self.lon}, boxes={self.boxes})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> GeoBox:
        return cls(columns[0], columns[1], int(params.get("boxes", "4")),
                   params.get("contains", "st_contains"), params.get("distance", "st_distance"))

