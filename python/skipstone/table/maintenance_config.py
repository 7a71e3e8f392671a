"""The maintenance settings a table stores with its properties: which file-selection strategies
continuous optimization runs, in which order, how much each iteration may rewrite, whether an
append triggers an iteration, and how long vacuum keeps what older versions need."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from skipstone.errors import SkipstoneError

STRATEGIES = ("unindexed", "compaction", "layout")

DEFAULTS: dict[str, str] = {
    "optimize.strategies": ",".join(STRATEGIES),
    "optimize.batchBytes": str(1 << 30),
    "optimize.unindexedFromMillis": "0",
    "optimize.auto": "false",
    "vacuum.retentionHours": "168",
    "vacuum.retentionCheck": "true",
}


@dataclass(frozen=True)
class MaintenanceConfig:
    strategies: tuple[str, ...]
    batch_bytes: int
    unindexed_from_millis: int
    auto: bool
    retention_hours: float

    @staticmethod
    def of(properties: Mapping[str, str], table: str) -> MaintenanceConfig:
        p = {**DEFAULTS, **properties}

        def number(key: str, kind: type, minimum: float) -> float:
            try:
                value = kind(p[key])
            except ValueError:
                raise SkipstoneError(f"table {table}: property {key} must be a number, got {p[key]!r}") from None
            if value < minimum:
                raise SkipstoneError(f"table {table}: property {key} must be >= {minimum}, got {p[key]!r}")
            return value

        strategies = tuple(s.strip() for s in p["optimize.strategies"].split(",") if s.strip())
        unknown = [s for s in strategies if s not in STRATEGIES]
        if unknown:
            raise SkipstoneError(f"table {table}: property optimize.strategies names unknown strategies {unknown}; "
                                 f"known: {', '.join(STRATEGIES)}")
        if p["optimize.auto"].lower() not in ("true", "false"):
            raise SkipstoneError(f"table {table}: property optimize.auto must be true or false, got {p['optimize.auto']!r}")
        return MaintenanceConfig(strategies, int(number("optimize.batchBytes", int, 1)),
                                 int(number("optimize.unindexedFromMillis", int, 0)),
                                 p["optimize.auto"].lower() == "true", float(number("vacuum.retentionHours", float, 0)))
