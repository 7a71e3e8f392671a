"""A managed table's settings, as the JVM parses them from the table's properties.

The JVM owns the schema of settings (``io.skipstone.table.TableSettings``: each key's type,
default, allowed values and meaning) and the one validator every change of properties passes;
this module only asks it, so there is no second copy of the rules to drift."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from skipstone.layout.cost_model import TablePrices
from skipstone.session import java_call, jvm_entry

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class SettingSpec:
    """One settable key of the JVM's schema."""

    key: str
    type: str
    default: str
    allowed: str
    doc: str


@dataclass(frozen=True)
class TableSettings:
    """The parsed settings of one version's properties (defaults for those unset)."""

    strategies: tuple[str, ...]
    batch_bytes: int
    unindexed_from_millis: int
    auto: bool
    retention_hours: float
    retention_check: bool
    workload_log_enabled: bool
    prices: TablePrices = TablePrices()  # the ``cost.*`` settings: what t.calibrate() measured
    calibrated_at: str | None = None
    layout_policy: str = "adaptive"  # optimize.layoutPolicy: the layout strategy's policy when none is given
    layout_budget_bytes: int = 256_000_000  # optimize.layoutBudgetBytes: what one bounded step rewrites
    learn_prices: bool = False  # cost.learn: optimize learns the prices from the log first (learned_prices)


def _jvm_settings(spark: SparkSession) -> Any:
    jvm_entry(spark)  # checks the extension is active
    return spark._jvm.io.skipstone.table.TableSettings  # type: ignore[union-attr]


def schema(spark: SparkSession) -> list[SettingSpec]:
    """Every settable key, in the order the docs list them.

    >>> [s.key for s in schema(spark)][:2]   # doctest: +SKIP
    ['optimize.strategies', 'optimize.batchBytes']
    """
    return [SettingSpec(**s) for s in json.loads(java_call(_jvm_settings(spark).schemaJson))]


def defaults(spark: SparkSession) -> dict[str, str]:
    """Each setting's default value, as ``t.properties()`` shows the unset ones."""
    return {s.key: s.default for s in schema(spark)}


def read(spark: SparkSession, properties: Mapping[str, str], table: str) -> TableSettings:
    """The settings ``properties`` hold; a SkipstoneError naming ``table`` and the key if one is invalid."""
    d = json.loads(java_call(_jvm_settings(spark).readJson, json.dumps(dict(properties)), table))
    p = d["prices"]
    return TableSettings(tuple(d["strategies"]), d["batchBytes"], d["unindexedFromMillis"], d["auto"],
                         d["retentionHours"], d["retentionCheck"], d["workloadLogEnabled"],
                         TablePrices(p.get("fileBytes"), p.get("jobBytes"), p.get("writeMultiplier"), p.get("queryBytes")),
                         p.get("calibratedAt"), d["layoutPolicy"], d["layoutBudgetBytes"], bool(d.get("learnPrices", False)))
