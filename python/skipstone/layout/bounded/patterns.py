"""The workload's patterns: which queries are hot, since when regret counts, how long patterns last.

A query's template is the set of columns it bounds (a 10 % range on ``x`` and a 1 % range on
``x`` share a template). A run is a stretch of the log in which a template keeps recurring, each
time within ``window`` queries of the time before: interleaved templates run side by side, and a
template that went quiet for a whole window and came back starts a new run. The hot queries are
the recent (the last ``window``) and frequent (their template makes up at least ``hot_share`` of
the window) ones.

A hot pattern is one hot template's queries, or (when several are hot) all hot queries together;
its regret counts from where the ongoing runs of its templates began: a re-layout is proposed
for those templates, so the queries before them never paid rent for lacking it (a ski-rental's
rent runs from the moment the choice arose).

>>> from skipstone.layout import Query, Schema, Column, ColumnKind
>>> schema = Schema((Column("x", ColumnKind.INTEGER), Column("y", ColumnKind.INTEGER)))
>>> on_x, on_y = Query.from_ranges(schema, {"x": (0, 5)}), Query.from_ranges(schema, {"y": (0, 5)})
>>> p = workload_patterns([on_x] * 6 + [on_y] * 4, window=4, hot_share=0.5)
>>> p.hot, p.phase_start, p.window_start, p.horizon, [x.start for x in p.patterns]
((6, 7, 8, 9), 6, 6, 5.0, [6])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from skipstone.layout.queries import Query

Template = frozenset[int]


def template_of(query: Query) -> Template:
    """The columns a query bounds (a finite low or high on some box)."""
    bounded = np.isfinite(query.boxes.low) | np.isfinite(query.boxes.high)
    return frozenset(np.flatnonzero(bounded.any(axis=0)).tolist())


@dataclass(frozen=True)
class Run:
    """A template recurring from position ``first`` to ``last`` of the log (both included)."""

    template: Template
    first: int
    last: int

    @property
    def length(self) -> int:
        return self.last - self.first + 1


def template_runs(templates: Sequence[Template], gap: int) -> list[Run]:
    """Every run of every template, ordered by where it starts: a template's occurrences
    belong to one run while each follows the one before within ``gap`` positions.

    >>> a, b = frozenset({0}), frozenset({1})
    >>> [(sorted(r.template), r.first, r.last) for r in template_runs([a, b, a, b, b, b, a], gap=2)]
    [([0], 0, 2), ([1], 1, 5), ([0], 6, 6)]
    """
    if gap < 1:
        raise ValueError(f"a run's gap must be at least 1 query, got {gap}")
    open_runs: dict[Template, Run] = {}
    closed: list[Run] = []
    for position, template in enumerate(templates):
        run = open_runs.get(template)
        if run is not None and position - run.last <= gap:
            open_runs[template] = Run(template, run.first, position)
        else:
            if run is not None:
                closed.append(run)
            open_runs[template] = Run(template, position, position)
    return sorted(closed + list(open_runs.values()), key=lambda r: (r.first, sorted(r.template)))


@dataclass(frozen=True)
class HotPattern:
    """Hot queries a re-layout is cut for: one hot template's, or every hot query together.
    ``start`` is where the ongoing runs of their templates began: regret counts from there."""

    templates: tuple[Template, ...]
    positions: tuple[int, ...]  # the hot queries' positions in the log
    start: int


@dataclass(frozen=True)
class WorkloadPatterns:
    """Positions in the log (oldest query at 0) that the policy's accounting needs."""

    hot: tuple[int, ...]  # the hot queries: recent and of a frequent template
    window_start: int  # the first of the last ``window`` queries, over which the rate of saving is measured
    phase_start: int  # where the ongoing runs of the hot templates began
    horizon: float  # how long a run lasts, in queries: the mean over the log's runs
    patterns: tuple[HotPattern, ...] = ()  # each hot template alone, then (if several) all of them

    @property
    def first_accounted(self) -> int:
        """The oldest query any measure looks at."""
        return min(self.window_start, self.phase_start)


def workload_patterns(workload: Sequence[Query], window: int, hot_share: float) -> WorkloadPatterns:
    """The hot queries, the current phase and the horizon of a logged workload (oldest first).
    A ``LoggedWorkload`` brings its template runs along, extended as its log grew; any other
    sequence has them found anew (the same runs: ``TemplateRuns``)."""
    if window < 1:
        raise ValueError(f"window must be at least 1 query, got {window}")
    if not 0 < hot_share <= 1:
        raise ValueError(f"hot_share must be in (0, 1], got {hot_share}")
    runs = workload.runs(window) if isinstance(workload, LoggedWorkload) else \
        TemplateRuns.start(window).extended([template_of(q) for q in workload])
    return runs.patterns(hot_share)


@dataclass(frozen=True)
class TemplateRuns:
    """The template runs of a log so far (``template_runs`` with ``gap``), kept so that a longer
    log extends them with its new queries only: each template's latest run (the ongoing one),
    the count and total length of the runs closed before, and the templates of the last ``gap``
    queries (all a run can still reach back to, and the window ``patterns`` reads). An optimizer
    deciding every few dozen queries then pays for those, not for the whole log.

    >>> a, b = frozenset({0}), frozenset({1})
    >>> runs = TemplateRuns.start(gap=2).extended([a, b, a]).extended([b, b, b, a])
    >>> runs.length, runs.horizon, sorted((sorted(t), r.first, r.last) for t, r in runs.latest.items())
    (7, 3.0, [([0], 6, 6), ([1], 1, 5)])
    """

    gap: int
    length: int = 0  # queries seen
    latest: dict[Template, Run] = field(default_factory=dict)  # each template's latest run (never mutated)
    closed_runs: int = 0  # runs of a non-empty template that ended, and their total length
    closed_length: int = 0
    recent: tuple[Template, ...] = ()  # the templates of the last ``gap`` queries

    @staticmethod
    def start(gap: int) -> TemplateRuns:
        """The runs of an empty log."""
        if gap < 1:
            raise ValueError(f"a run's gap must be at least 1 query, got {gap}")
        return TemplateRuns(gap)

    def extended(self, templates: Sequence[Template]) -> TemplateRuns:
        """The runs once ``templates`` (the next queries', in log order) joined the log."""
        latest, closed_runs, closed_length = dict(self.latest), self.closed_runs, self.closed_length
        for position, template in enumerate(templates, start=self.length):
            run = latest.get(template)
            if run is not None and position - run.last <= self.gap:
                latest[template] = Run(template, run.first, position)
            else:
                if run is not None and template:  # the empty template is no pattern
                    closed_runs, closed_length = closed_runs + 1, closed_length + run.length
                latest[template] = Run(template, position, position)
        recent = (self.recent + tuple(templates))[-self.gap:]
        return TemplateRuns(self.gap, self.length + len(templates), latest, closed_runs, closed_length, recent)

    @property
    def horizon(self) -> float:
        """How long a run lasts, in queries: the mean over the log's runs (0 without any)."""
        ongoing = [r.length for t, r in self.latest.items() if t]
        runs = self.closed_runs + len(ongoing)
        return (self.closed_length + sum(ongoing)) / runs if runs else 0.0

    def patterns(self, hot_share: float) -> WorkloadPatterns:
        """The log's patterns with a window of ``gap`` queries (``workload_patterns``)."""
        recent, window_start = self.recent, self.length - len(self.recent)
        counts: dict[Template, int] = {}
        for t in recent:
            counts[t] = counts.get(t, 0) + 1
        hot_templates = sorted((t for t, n in counts.items() if t and n >= hot_share * len(recent)), key=sorted)
        hot = tuple(window_start + i for i, t in enumerate(recent) if t in hot_templates)
        alone = [HotPattern((t,), tuple(p for p in hot if recent[p - window_start] == t), self.latest[t].first)
                 for t in hot_templates]
        together = [HotPattern(tuple(hot_templates), hot, min(p.start for p in alone))] if len(alone) > 1 else []
        phase_start = min((p.start for p in alone), default=self.length)
        return WorkloadPatterns(hot, window_start, phase_start, self.horizon, tuple(alone + together))


class LoggedWorkload(Sequence[Query]):
    """A log's queries, oldest first, that keep their template runs (per gap asked) and extend
    them as the log grows (``extended``), so that ``workload_patterns`` over a long log costs the
    new queries only. Immutable: ``extended`` returns a new one.

    >>> from skipstone.layout import Query, Schema, Column, ColumnKind
    >>> schema = Schema((Column("x", ColumnKind.INTEGER), Column("y", ColumnKind.INTEGER)))
    >>> on_x, on_y = Query.from_ranges(schema, {"x": (0, 5)}), Query.from_ranges(schema, {"y": (0, 5)})
    >>> logged = LoggedWorkload([on_x] * 6)
    >>> workload_patterns(logged, 4, 0.5).horizon
    6.0
    >>> longer = logged.extended([on_y] * 4)
    >>> workload_patterns(longer, 4, 0.5) == workload_patterns(list(longer), 4, 0.5)
    True
    """

    def __init__(self, queries: Sequence[Query] = (), runs: dict[int, TemplateRuns] | None = None) -> None:
        self._queries = tuple(queries)
        self._runs = dict(runs or {})  # gap -> runs of exactly these queries

    def __len__(self) -> int:
        return len(self._queries)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._queries[index]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._queries)

    def runs(self, gap: int) -> TemplateRuns:
        """The runs of these queries with ``gap``: kept from the shorter log, or found now (and kept)."""
        runs = self._runs.get(gap)
        if runs is None:
            runs = self._runs[gap] = TemplateRuns.start(gap).extended([template_of(q) for q in self._queries])
        return runs

    def extended(self, queries: Sequence[Query]) -> LoggedWorkload:
        """These queries followed by ``queries``, with every kept run extended by theirs alone."""
        templates = [template_of(q) for q in queries]
        return LoggedWorkload(self._queries + tuple(queries), {gap: r.extended(templates) for gap, r in self._runs.items()})
