"""The optimizer chooses the plans it chose when the greedy walked the tree once per predicate.

`optimizer_plans.json` was recorded with that walk (before one walk priced all of a query's
predicates at once) on seeded windows: uniform and skewed ranges and q19-like queries with 30
bounds, ranked by net benefit and by the paper's ratio. To record again, on purpose:

    PYTHONPATH=python python tests/layout/test_optimizer_plans.py tests/layout/optimizer_plans.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from skipstone.layout import LayoutData, Query, build_amoeba_tree
from skipstone.layout.adaptive.optimizer import OptimizerOptions, RepartitionPlan, best_plan
from skipstone.layout.adaptive.window import QueryWindow
from skipstone.layout.tree import Leaf, Node, Split
from benchmarks.layout_sim.workloads import skewed_ranges, uniform_ranges

RECORDED = Path(__file__).with_name("optimizer_plans.json")
NAMES = [f"c{i}" for i in range(6)]


def q19_like(data: LayoutData, count: int, seed: int) -> list[Query]:
    """Three OR-ed branches, each a range on 5 of the columns: 30 bounds."""
    rng = np.random.default_rng(seed)

    def branch() -> dict:
        ranges = []
        for name in rng.choice(NAMES, 5, replace=False):
            low = float(rng.uniform(0, 0.7))
            ranges.append({"column": str(name), "op": "BETWEEN", "value": [low, low + float(rng.uniform(0.1, 0.3))]})
        return {"and": ranges}

    return [Query.from_json({"or": [branch(), branch(), branch()]}, data.schema) for _ in range(count)]


def shape(node: Node) -> str:
    if isinstance(node, Leaf):
        return f"{node.block}:{node.rows!r}"
    assert isinstance(node, Split)
    return f"({node.column} <= {node.cut!r} {shape(node.left)} {shape(node.right)})"


def summary(plan: RepartitionPlan | None) -> dict | None:
    if plan is None:
        return None
    return {"steps": list(plan.steps), "rewritten": list(plan.rewritten_blocks), "new": list(plan.new_blocks),
            "benefit": plan.benefit, "cost": plan.cost,
            "tree": hashlib.sha256(shape(plan.tree.root).encode()).hexdigest()[:16]}


def plans_on_seeded_windows() -> dict[str, list[dict | None]]:
    rng = np.random.default_rng(0)
    data = LayoutData.from_columns({n: rng.random(60_000) for n in NAMES})
    tree = build_amoeba_tree(data, 100 * data.rows / 512, 100 * data.rows, correlations=False).with_counts(data, 100.0)
    sample = data.sample(8_000, 0)
    out = {}
    for label, queries in (("uniform", uniform_ranges(data, 30, NAMES[:3], max_range=0.3, seed=3)),
                           ("skewed", skewed_ranges(data, 30, NAMES[:4], seed=2)),
                           ("q19-like", q19_like(data, 30, 4))):
        window = QueryWindow(1000)
        for t, q in enumerate(queries):
            window = window.add(t, q)
        for options in (OptimizerOptions(4.0, "net"), OptimizerOptions(1.0, "net"), OptimizerOptions(4.0, "ratio")):
            key = f"{label} {options.objective} c={options.write_multiplier}"
            out[key] = [summary(best_plan(tree, window, q, sample, options)) for q in queries[:5]]
    return out


@pytest.fixture(scope="module")
def plans() -> dict[str, list[dict | None]]:
    return plans_on_seeded_windows()


@pytest.mark.parametrize("case", sorted(json.loads(RECORDED.read_text())))
def test_plans_are_the_ones_the_per_predicate_walk_chose(plans, case):
    assert plans[case] == json.loads(RECORDED.read_text())[case]


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(plans_on_seeded_windows(), indent=1) + "\n")
