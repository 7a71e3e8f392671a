"""A log's patterns kept as it grows (``TemplateRuns``, ``LoggedWorkload``) are the patterns found
from the whole log at once, and so are the decisions made from them: an optimizer that scans only
the queries logged since its last decision decides exactly as one that rescans the whole log."""
from __future__ import annotations

import numpy as np
import pytest

from skipstone.layout import AutoColumns, BoundedRewrite, Column, ColumnKind, LayoutData, Query, RowsRead, Schema
from skipstone.layout import build_kd_tree
from skipstone.layout.bounded.patterns import (HotPattern, LoggedWorkload, TemplateRuns, WorkloadPatterns,
                                               template_of, template_runs, workload_patterns)

SCHEMA = Schema(tuple(Column(name, ColumnKind.INTEGER) for name in "abcd"))


def from_whole_log(queries: list[Query], window: int, hot_share: float) -> WorkloadPatterns:
    """The patterns as defined over the whole log (``template_runs``), found in one pass."""
    templates = [template_of(q) for q in queries]
    window_start = max(0, len(templates) - window)
    recent = templates[window_start:]
    counts = {t: recent.count(t) for t in set(recent)}
    hot_templates = sorted((t for t, n in counts.items() if t and n >= hot_share * len(recent)), key=sorted)
    hot = tuple(window_start + i for i, t in enumerate(recent) if t in hot_templates)
    runs = [r for r in template_runs(templates, window) if r.template] if templates else []
    ongoing = {r.template: r for r in runs}
    alone = [HotPattern((t,), tuple(p for p in hot if templates[p] == t), ongoing[t].first) for t in hot_templates]
    together = [HotPattern(tuple(hot_templates), hot, min(p.start for p in alone))] if len(alone) > 1 else []
    phase_start = min((p.start for p in alone), default=len(templates))
    horizon = float(np.mean([r.length for r in runs])) if runs else 0.0
    return WorkloadPatterns(hot, window_start, phase_start, horizon, tuple(alone + together))


def shifting_log(rng: np.random.Generator, length: int, schema: Schema = SCHEMA) -> list[Query]:
    """Phases of random length, each on one or two columns, with strays and unbounded queries."""
    out: list[Query] = []
    while len(out) < length:
        columns = rng.choice(list("abcd"), size=rng.integers(1, 3), replace=False)
        for _ in range(int(rng.integers(1, 60))):
            kind = rng.random()
            if kind < 0.05:
                out.append(Query.from_ranges(schema, {}))  # constrains nothing: the empty template
            elif kind < 0.2:
                out.append(Query.from_ranges(schema, {str(rng.choice(list("abcd"))): (0, int(rng.integers(1, 50)))}))
            else:
                out.append(Query.from_ranges(schema, {str(c): (0, int(rng.integers(1, 50))) for c in columns}))
    return out[:length]


@pytest.mark.parametrize("seed", range(3))
def test_patterns_kept_as_the_log_grows_equal_those_of_the_whole_log(seed):
    rng = np.random.default_rng(seed)
    log = shifting_log(rng, 900)
    windows = (1, 7, 30, 100)
    logged, seen = LoggedWorkload(), 0
    for window in windows[:2]:
        logged.runs(window)  # runs kept from the empty log on
    while seen < len(log):
        step = int(rng.integers(0, 120))  # appends of 0 to 119 queries, as between two decisions
        logged, seen = logged.extended(log[seen:seen + step]), min(len(log), seen + step)
        assert list(logged) == log[:seen]
        for window in windows:  # 30 and 100 start from the whole log the first time they are asked
            for hot_share in (0.1, 0.5):
                assert workload_patterns(logged, window, hot_share) == from_whole_log(log[:seen], window, hot_share)


def test_runs_extended_in_pieces_equal_runs_found_at_once():
    rng = np.random.default_rng(11)
    templates = [template_of(q) for q in shifting_log(rng, 800)]
    at_once = TemplateRuns.start(25).extended(templates)
    pieces, cut = TemplateRuns.start(25), 0
    for end in sorted(rng.choice(800, 40, replace=False).tolist()) + [800]:
        pieces, cut = pieces.extended(templates[cut:end]), end
    assert pieces == at_once
    assert at_once.horizon == float(np.mean([r.length for r in template_runs(templates, 25) if r.template]))


def test_a_window_below_one_query_is_refused():
    with pytest.raises(ValueError, match="gap must be at least 1"):
        TemplateRuns.start(0)


@pytest.fixture(scope="module")
def data() -> LayoutData:
    rng = np.random.default_rng(3)
    return LayoutData.from_columns({c: rng.integers(0, 100, 4000).astype(float) for c in "abcd"})


@pytest.mark.parametrize("make_policy", [
    lambda: AutoColumns(window=40, block_rows=250, write_multiplier=0.5, cost_model=RowsRead()),
    lambda: BoundedRewrite(window=40, cost_model=RowsRead(), write_multiplier=0.5, bytes_per_row=32),
], ids=["AutoColumns", "BoundedRewrite"])
def test_a_policy_decides_the_same_from_a_kept_log_as_from_the_whole_log(data, make_policy):
    policy = make_policy()
    tree = build_kd_tree(data, block_rows=250, columns=["d"])
    rng = np.random.default_rng(5)
    log = shifting_log(rng, 600, data.schema)
    logged, seen, decided = LoggedWorkload(), 0, 0
    while seen < len(log):
        seen_before, seen = seen, seen + 50
        logged = logged.extended(log[seen_before:seen])
        kept, whole = policy.propose(tree, logged, data), policy.propose(tree, list(log[:seen]), data)
        assert (kept is None) == (whole is None)
        if kept is not None:
            decided += 1
            assert (kept.description, kept.benefit, kept.cost, kept.rewritten_blocks) == \
                (whole.description, whole.benefit, whole.cost, whole.rewritten_blocks)
    assert decided > 0  # the comparison covered changes, not only declines

