"""Self-organizing layout algorithms: predicates as boxes, partitioning trees, builders, Amoeba's
adaptive optimizer and PAW, independent of Spark.

>>> import numpy as np
>>> from skipstone.layout import LayoutData, Query, build_amoeba_tree
>>> rng = np.random.default_rng(0)
>>> data = LayoutData.from_columns({"a": rng.random(10_000), "b": rng.integers(0, 100, 10_000)})
>>> tree = build_amoeba_tree(data, block_rows=1_000)
>>> query = Query.from_json({"column": "a", "op": "<", "value": 0.1}, tree.schema)
>>> tree.cost(query) < tree.total_rows
True
"""

from __future__ import annotations

from skipstone.layout.adaptive.optimizer import OptimizerOptions, RepartitionPlan, best_plan
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.boxes import BoxSet
from skipstone.layout.builders.amoeba_upfront import build_amoeba_tree
from skipstone.layout.builders.data_aware import build_kd_tree, build_range_tree
from skipstone.layout.builders.paw import PawOptions, build_paw_tree
from skipstone.layout.builders.paw_delta import estimate_delta
from skipstone.layout.builders.paw_plugins import RedundantPartitions, tune_storage, with_precise_descriptors
from skipstone.layout.builders.qdtree import build_qd_tree
from skipstone.layout.cost_model import CostModel, RowsRead, SparkCost, TablePrices
from skipstone.layout.curves import CurveLayout, build_curve_layout
from skipstone.layout.layout import Descriptors, Layout
from skipstone.layout.policies import AmoebaAdaptive, LayoutChange, LayoutPolicy
from skipstone.layout.protocols import Builder, LayoutSpec, Transform
from skipstone.layout.spec_registry import layout_spec, layout_spec_from_json
from skipstone.layout.specs import Amoeba, BlockSized, KdTree, Range, SizedSpec
from skipstone.layout.curve_specs import Hilbert, ZOrder
from skipstone.layout.workload_specs import Paw, QdTree
from skipstone.layout.paw_rebuild import PawRebuild
from skipstone.layout.best_of import BestOf
from skipstone.layout.bounded.policy import BoundedRewrite
from skipstone.layout.auto.columns import ColumnChoice, choose_columns
from skipstone.layout.auto.policy import AutoColumns
from skipstone.layout.predicates import And, Between, Comparison, In, Not, Or, Predicate, parse_predicate
from skipstone.layout.queries import Query
from skipstone.layout.schema import Column, ColumnKind, LayoutData, Schema
from skipstone.layout.serialization import layout_from_json, layout_to_json
from skipstone.layout.tree import Group, GroupSplit, Leaf, PartitionTree, Split

__all__ = [
    "Amoeba",
    "AmoebaAdaptive",
    "AutoColumns",
    "BestOf",
    "BlockSized",
    "BoundedRewrite",
    "Hilbert",
    "KdTree",
    "Paw",
    "PawRebuild",
    "QdTree",
    "ZOrder",
    "LayoutChange",
    "LayoutPolicy",
    "LayoutSpec",
    "Range",
    "SizedSpec",
    "Builder",
    "Transform",
    "layout_spec",
    "layout_spec_from_json",
    "ColumnChoice",
    "CostModel",
    "CurveLayout",
    "RowsRead",
    "SparkCost",
    "TablePrices",
    "OptimizerOptions",
    "PawOptions",
    "QueryWindow",
    "RedundantPartitions",
    "RepartitionPlan",
    "best_plan",
    "build_curve_layout",
    "build_paw_tree",
    "build_qd_tree",
    "estimate_delta",
    "tune_storage",
    "with_precise_descriptors",
    "And",
    "Between",
    "BoxSet",
    "Column",
    "ColumnKind",
    "Comparison",
    "Descriptors",
    "Group",
    "GroupSplit",
    "In",
    "Layout",
    "LayoutData",
    "Leaf",
    "Not",
    "Or",
    "PartitionTree",
    "Predicate",
    "Query",
    "Schema",
    "Split",
    "build_amoeba_tree",
    "choose_columns",
    "build_kd_tree",
    "build_range_tree",
    "layout_from_json",
    "layout_to_json",
    "parse_predicate",
]
