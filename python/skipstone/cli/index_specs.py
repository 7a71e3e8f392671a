"""Index specs on the command line: ``kind:column[,column...][:param=value...]``.

>>> parse_index_spec("minmax:ts")
MinMax(column='ts')
>>> parse_index_spec("bloomfilter:station:fpp=0.01")
BloomFilter(column='station', fpp=0.01, expected_items=10000)
>>> parse_index_spec("geobox:lat,lon:boxes=8")
GeoBox(lat='lat', lon='lon', boxes=8, contains='st_contains', distance='st_distance')
"""
from __future__ import annotations

import dataclasses
from typing import Any

from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType
from skipstone.indexes.base import _KINDS

#: Field types a command line can spell; kinds with other fields (Python objects) need the Python API.
_CONVERTERS = {"int": int, "float": float, "str": str, "str | None": str, "Callable[[Any], Any] | str": str}


def known_kinds() -> list[str]:
    """Kinds whose every field a command line can give."""
    return sorted(k for k, cls in _KINDS.items() if all(f.type in _CONVERTERS for f in dataclasses.fields(cls)))


def parse_index_spec(spec: str) -> IndexType:
    """One index from its spec; errors name the spec and what is wrong with it."""
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind not in known_kinds():
        raise SkipstoneError(f"index spec {spec!r}: unknown kind {kind!r}; the command line knows "
                             f"{', '.join(known_kinds())} (other kinds: use the Python API)")
    columns_text, *settings = rest.split(":") if rest else ("",)
    columns = [c.strip() for c in columns_text.split(",") if c.strip()]
    if not columns:
        raise SkipstoneError(f"index spec {spec!r} names no column: write {kind}:COLUMN")
    fields = [f for f in dataclasses.fields(_KINDS[kind]) if f.init]
    column_fields = fields[:len(columns)]
    if len(columns) > len(fields) or any(f.type != "str" for f in column_fields):
        raise SkipstoneError(f"index spec {spec!r}: {kind} takes "
                             f"{sum(f.type == 'str' for f in fields[:2])} column(s), got {len(columns)}")
    by_name = {f.name: f for f in fields[len(columns):]}
    params: dict[str, Any] = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        name = name.strip()
        if not sep or name not in by_name:
            raise SkipstoneError(f"index spec {spec!r}: {setting!r} is not one of "
                                 f"{', '.join(f'{n}=...' for n in by_name) or 'no settings'}")
        try:
            params[name] = _CONVERTERS[by_name[name].type](value)
        except ValueError:
            raise SkipstoneError(f"index spec {spec!r}: {name} must be {by_name[name].type}, got {value!r}") from None
    missing = [n for n, f in by_name.items()
               if n not in params and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if missing:
        raise SkipstoneError(f"index spec {spec!r}: {kind} needs {', '.join(f'{m}=...' for m in missing)}")
    return _KINDS[kind](*columns, **params)  # type: ignore[call-arg]
