"""A table tells BoundedRewrite from which logged query on each block existed: the blocks a
rewrite added are born after the queries logged before it, so those queries do not count
towards the new blocks' regret (the rent restarts when one buys); a create, an overwrite or a
relayout of the whole table renews every block."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from skipstone import Skipstone
from skipstone.layout import BoundedRewrite, KdTree, RowsRead
from skipstone.table.block_births import BirthVersions, birth_versions, log_positions
from skipstone.table.optimize import logged_queries, plan
from skipstone.table.container import read_sample

X_ZERO = "x = 0"


def test_a_layout_rewrite_gives_birth_to_the_blocks_it_added():
    log = [(1, "CREATE", {}), (2, "OPTIMIZE", {"strategy": "layout", "blocksAdded": [2, 3]}),
           (3, "APPEND", {}), (4, "OPTIMIZE", {"strategy": "compaction", "blocksRewritten": [2]})]
    assert birth_versions(log) == BirthVersions({2: 2, 3: 2}, renewed=1)


@pytest.mark.parametrize("renewal", [(3, "OVERWRITE", {}), (3, "OPTIMIZE", {"strategy": "layout", "policy": "LAYOUT KD"})])
def test_an_overwrite_or_a_whole_relayout_renews_every_block(renewal):
    log = [(1, "CREATE", {}), (2, "OPTIMIZE", {"strategy": "layout", "blocksAdded": [2, 3]}), renewal]
    assert birth_versions(log) == BirthVersions({}, renewed=3)


def test_without_the_creating_version_blocks_count_as_old_as_the_log():
    births = birth_versions([(7, "APPEND", {})])
    assert log_positions(births, [0, 1], [5, 6, 7]) == {0: 0, 1: 0}


def test_a_birth_is_the_first_query_that_read_a_version_with_the_block():
    births = BirthVersions({5: 3}, renewed=1)
    # the fourth query is pinned to version 2, which it started on before version 3 was committed
    assert log_positions(births, [0, 5], [1, 2, 3, 2, 3]) == {0: 0, 5: 2}
    assert log_positions(births, [5], [1, 2]) == {5: 2}  # no query since: born at the end of the log


@dataclass
class RecordsBirths:
    """A policy that proposes nothing and keeps the births the table gave it."""

    name: str = "RecordsBirths"
    seen: list = field(default_factory=list)

    def with_block_births(self, births):
        self.seen.append(dict(births))
        return self

    def propose(self, tree, workload, sample):
        return None


@pytest.fixture(scope="module")
def rewritten(spark, tmp_path_factory):
    """Two blocks of 400 rows cut on y, queried twice for x = 0, then rewritten by BoundedRewrite
    into two blocks cut on x (x <= 3 and x > 3), each queried once since: x = 0 reads 400 rows of
    the first for its 100."""
    df = spark.range(800).selectExpr("id DIV 100 AS x", "id % 100 AS y")
    t = Skipstone.create(spark, str(tmp_path_factory.mktemp("births") / "t"), df,
                         layout=KdTree(block_rows=400, columns=["y"]))
    for _ in range(2):
        t.read().where(X_ZERO).count()
    result = t.optimize(BoundedRewrite(write_multiplier=0.5, cost_model=RowsRead()))
    assert result is not None and result.strategy == "layout"
    t.read().where(X_ZERO).count()
    return t


def finer(write_multiplier: float = 1.0) -> BoundedRewrite:
    """Cuts blocks of 100 rows: it could re-cut the first new block so that x = 0 reads 100 rows, saving 300."""
    return BoundedRewrite(block_rows=100, write_multiplier=write_multiplier, cost_model=RowsRead())


def test_the_table_gives_the_new_blocks_the_queries_since_their_rewrite(spark, rewritten):
    recorder = RecordsBirths()
    assert plan(spark, rewritten.current(), rewritten.workload(), recorder) is None
    assert recorder.seen == [{2: 2, 3: 2}]  # the third logged query is the first that read them


def test_queries_before_a_rewrite_do_not_count_towards_its_blocks_regret(spark, rewritten):
    base = rewritten.current()
    sample = read_sample(spark, base.root, base.properties["layout.sample"], base.tree.schema)
    queries = [q for q, _ in logged_queries(rewritten.workload(), base)]
    recorder = RecordsBirths()
    plan(spark, base, rewritten.workload(), recorder)
    policy = finer().with_bytes_per_row(1.0)
    assert [c.regret for c in policy.candidates(base.tree, queries, sample)] == [900.0]  # as old as the log: 3 x 300
    assert [c.regret for c in policy.with_block_births(recorder.seen[0]).candidates(base.tree, queries, sample)] == [300.0]


def test_optimize_waits_for_queries_since_the_rewrite_to_pay_for_the_next(spark, rewritten):
    # 300 saved since the rewrite < its cost 1 x 400 rows: rent, though the 900 of the whole log would buy
    assert plan(spark, rewritten.current(), rewritten.workload(), finer()) is None
