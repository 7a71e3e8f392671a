"""BestOf keeps the proposal that saves the most net of its cost, and passes a table's facts on."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from skipstone.layout import (AmoebaAdaptive, BestOf, LayoutChange, LayoutData, PawRebuild, Query, RowsRead,
                              SparkCost, build_kd_tree)


@dataclass(frozen=True)
class Fixed:
    """Proposes a fixed benefit and cost (the tree unchanged): only BestOf's choice is tested."""

    benefit: float
    cost: float
    name: str = "Fixed"

    def propose(self, tree, workload, sample):
        if self.benefit <= self.cost:
            return None
        return LayoutChange(tree, (), self.benefit, self.cost, f"{self.benefit}-{self.cost}")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    return LayoutData.from_columns({"x": rng.random(4000), "y": rng.random(4000)})


def test_the_largest_benefit_net_of_cost_wins_not_the_largest_benefit(data):
    tree = build_kd_tree(data, block_rows=500)
    change = BestOf((Fixed(100, 90, "big"), Fixed(50, 10, "net"), Fixed(1, 5, "never"))).propose(tree, [], data)
    assert change.description == "net: 50-10" and (change.benefit, change.cost) == (50, 10)


def test_nothing_when_no_policy_proposes(data):
    tree = build_kd_tree(data, block_rows=500)
    assert BestOf((Fixed(1, 5), Fixed(0, 0))).propose(tree, [], data) is None


def test_table_facts_reach_every_policy_that_takes_them():
    policy = BestOf((AmoebaAdaptive(cost_model=SparkCost()), PawRebuild(cost_model=SparkCost()), Fixed(1, 0)))
    adapted = policy.for_table(123.0).with_bytes_per_row(45.0)
    amoeba, paw, fixed = adapted.policies
    assert amoeba.cost_model.bytes_per_row == 45.0 and paw.cost_model.bytes_per_row == 45.0
    assert paw.block_rows == 123.0 and fixed == Fixed(1, 0)


def test_a_paw_rebuild_beats_amoeba_on_a_recurring_query_when_it_saves_more(data):
    tree = build_kd_tree(data, block_rows=500, columns=["y"])
    history = [Query.from_ranges(data.schema, {"x": (0.1, 0.15)})] * 40
    amoeba = AmoebaAdaptive(window=40, write_multiplier=4, cost_model=RowsRead())
    paw = PawRebuild(window=40, block_rows=500, write_multiplier=4, cost_model=RowsRead())
    nets = {p.name: p.propose(tree, history, data) for p in (amoeba, paw)}
    best = max((c.benefit - c.cost, name) for name, c in nets.items() if c is not None)
    change = BestOf((amoeba, paw)).propose(tree, history, data)
    assert change.description.startswith(best[1] + ":") and change.benefit - change.cost == best[0]


def test_bad_members_are_refused_by_name():
    with pytest.raises(TypeError, match="not a layout policy"):
        BestOf((AmoebaAdaptive(), "PAW"))
    with pytest.raises(ValueError, match="at least one"):
        BestOf(())
