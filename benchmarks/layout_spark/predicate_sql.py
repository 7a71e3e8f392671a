"""The predicate JSON of `skipstone.layout.predicates` as a Spark SQL condition.

>>> to_sql({"and": [{"column": "l_shipdate", "op": "<", "value": "1995-03-15"},
...                 {"column": "l_shipmode", "op": "IN", "value": ["AIR", "MAIL"]}]})
"(l_shipdate < DATE'1995-03-15' AND l_shipmode IN ('AIR', 'MAIL'))"
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Mapping


def to_sql(tree: Mapping[str, Any]) -> str:
    if "and" in tree:
        return "(" + " AND ".join(to_sql(c) for c in tree["and"]) + ")"
    if "or" in tree:
        return "(" + " OR ".join(to_sql(c) for c in tree["or"]) + ")"
    if "not" in tree:
        return f"(NOT {to_sql(tree['not'])})"
    column, op, value = tree["column"], tree["op"].upper(), tree["value"]
    if op == "IN":
        return f"{column} IN ({', '.join(literal(v) for v in value)})"
    if op == "BETWEEN":
        return f"{column} BETWEEN {literal(value[0])} AND {literal(value[1])}"
    return f"{column} {op} {literal(value)}"


def literal(value: Any) -> str:
    if isinstance(value, str):
        try:
            return f"DATE'{dt.date.fromisoformat(value).isoformat()}'"
        except ValueError:
            return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)
