"""What each layout rewrite of a table predicted and what it realized (``t.rewrite_report()``).

A policy's layout change logs what it predicted in its commit info: its cost, the benefit it
predicts and after how many queries it breaks even (``LayoutChange.history_fields``). What it
realized is measured on the queries logged after it (those that read its version or a later
one): for each, what the layout it replaced would have cost minus what its own layout costs,
both read from the versions' manifests (each block's rows), each block read unless its min/max
(estimated from the table's sample, ``StatsPricing``) rules the query out, as Spark skips its
files, and priced by one cost model (by default the one the policy priced its prediction with,
which the commit info records). The rewrite has broken even once that sum reaches its cost.
"""
from __future__ import annotations

import json
from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING, Any, Sequence

from skipstone.layout.cost_model import CostModel, SparkCost, model_from_json, with_table_bytes, with_table_prices
from skipstone.layout.layout import Layout
from skipstone.layout.queries import Query
from skipstone.layout.schema import LayoutData
from skipstone.layout.stats_pricing import StatsPricing
from skipstone.table import manifest, settings
from skipstone.table.container import read_sample
from skipstone.table.optimize import commit_log, logged_predicates

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SCHEMA = ("version LONG, policy STRING, unit STRING, cost DOUBLE, predicted_benefit DOUBLE, "
          "break_even_queries DOUBLE, queries_since LONG, realized_benefit DOUBLE, broken_even BOOLEAN")


@dataclass(frozen=True)
class RewriteOutcome:
    """One layout rewrite, as a row of ``t.rewrite_report()``."""

    version: int
    policy: str | None
    unit: str | None
    cost: float | None
    predicted_benefit: float | None
    break_even_queries: float | None
    queries_since: int
    realized_benefit: float
    broken_even: bool | None


def realized_benefit(before: Layout, after: Layout, predicates: Sequence[dict[str, Any]], model: CostModel,
                     before_sample: LayoutData | None = None, after_sample: LayoutData | None = None) -> float:
    """What ``predicates`` (the logged JSON) would have cost on ``before`` minus what they cost on
    ``after``, priced by ``model``; each predicate is read in each layout's own columns. With a
    layout's sample, its blocks are skipped by their min/max as the sample shows them
    (``StatsPricing``), else by the layout's descriptors."""
    priced_before = StatsPricing.of(before, before_sample) if before_sample is not None else before
    priced_after = StatsPricing.of(after, after_sample) if after_sample is not None else after
    return float(sum(priced_before.cost(Query.from_json(p, before.schema), model)
                     - priced_after.cost(Query.from_json(p, after.schema), model) for p in predicates))


def outcomes(spark: SparkSession, root: str, cost_model: CostModel | None = None) -> list[RewriteOutcome]:
    """The outcome of every layout rewrite in the table's log whose replaced version is still in
    it, over the queries logged since; priced by ``cost_model``, by default the model the policy
    priced the rewrite with (its commit info's ``cost_model``), else the table's ``SparkCost``
    (its bytes per row at the rewrite, its calibrated prices when it has them). The log and the
    commits are read by the driver (``logged_predicates``, ``commit_log``), without a Spark job."""
    logged = [(version, json.loads(text)) for text, version in logged_predicates(spark, root)]
    commits = commit_log(spark, root)
    retained = {version for version, _, _ in commits}
    out = []
    for version, _, info in commits:
        if info.get("strategy") != "layout":
            continue
        if version - 1 not in retained:
            continue  # the layout it replaced is gone from the log (vacuumed): nothing to compare
        before, after = (manifest.at(spark, root, v) for v in (version - 1, version))
        model = cost_model if cost_model is not None else _logged_model(info) or _table_model(spark, after)
        since = [p for v, p in logged if v >= version]
        realized = realized_benefit(before.tree, after.tree, since, model, _sample(spark, before), _sample(spark, after))
        cost = _number(info.get("cost"))
        out.append(RewriteOutcome(version, info.get("policy"), info.get("unit"), cost,
                                  _number(info.get("predicted_benefit")), _number(info.get("break_even_queries")),
                                  len(since), realized, None if cost is None else realized >= cost))
    return out


def frame(spark: SparkSession, rows: Sequence[RewriteOutcome]) -> DataFrame:
    return spark.createDataFrame([astuple(r) for r in rows], SCHEMA)


def _sample(spark: SparkSession, version: manifest.TableVersion) -> LayoutData | None:
    """The version's sample of its layout columns (None for a table that stores none)."""
    relative = version.properties.get("layout.sample")
    return None if relative is None else read_sample(spark, version.root, relative, version.tree.schema)


def _logged_model(info: dict[str, Any]) -> CostModel | None:
    logged = info.get("cost_model")
    return model_from_json(logged) if isinstance(logged, dict) else None


def _table_model(spark: SparkSession, version: manifest.TableVersion) -> CostModel:
    bytes_per_row = sum(f.size for f in version.files) / max(1, sum(f.rows for f in version.files))
    prices = settings.read(spark, version.properties, version.root).prices
    return with_table_prices(with_table_bytes(SparkCost(), bytes_per_row), prices)


def _number(value: Any) -> float | None:
    return None if value is None else float(value)
