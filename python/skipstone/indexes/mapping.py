"""UDF mappings: how a UDF's predicate is answered by metadata other indexes already keep.

>>> from skipstone import UdfMapping, Rule
>>> m = UdfMapping("st_contains on minmax", (
...     Rule("st_contains({wkt}, {lat}, {lon})",
...          "{lat:minmax.min} <= skipstone_wkt_bbox({wkt}).ymax AND "
...          "{lat:minmax.max} >= skipstone_wkt_bbox({wkt}).ymin AND "
...          "{lon:minmax.min} <= skipstone_wkt_bbox({wkt}).xmax AND "
...          "{lon:minmax.max} >= skipstone_wkt_bbox({wkt}).xmin"),))
>>> m.describe()
'UdfMapping(st_contains on minmax)'
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from skipstone.indexes.defined import RuleIndex
from skipstone.indexes.rules import Role, Rule, rules_from_params


@dataclass(frozen=True)
class UdfMapping(RuleIndex):
    """Rules with no metadata of their own: ``{x:kind.role}`` in a clause is the ``role``
    column of the dataset's ``kind`` index on the column ``{x}`` matched in the pattern.

    A mapping is stored with the dataset's index definition, like an index: pass it to
    ``build()`` next to the indexes it uses. A leaf whose columns lack those indexes is
    simply not answered by it.

    >>> from skipstone import MinMax, Rule, UdfMapping
    >>> in_box = UdfMapping("in_box on minmax", (
    ...     Rule("in_box({x}, {lo}, {hi})", "{x:minmax.max} >= {lo} AND {x:minmax.min} <= {hi}"),))
    >>> in_box.describe()
    'UdfMapping(in_box on minmax)'
    >>> Skipstone.for_path(spark, "/data/events").build(MinMax("a"), in_box)   # doctest: +SKIP
    """

    name: str
    mapping_rules: tuple[Rule, ...]
    kind: ClassVar[str] = "udf_mapping"

    @property
    def columns(self) -> tuple[str, ...]:
        return ()

    def role_definitions(self) -> tuple[Role, ...]:
        return ()

    def rule_definitions(self) -> tuple[Rule, ...]:
        return self.mapping_rules

    def settings(self) -> dict[str, str]:
        return {"name": self.name}

    def describe(self) -> str:
        return f"UdfMapping({self.name})"

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> UdfMapping:
        return cls(params.get("name", "mapping"), rules_from_params(params))
