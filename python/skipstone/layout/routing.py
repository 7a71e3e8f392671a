"""Vectorized routing of rows to leaves.

The tree is compiled into flat arrays of binary tests (column, cut, child-if-<=, child-if->),
a decision DAG: a group split becomes a chain of "inside the box?" tests whose failures all lead
to the next group's chain, which is why nodes may share children. Leaves loop to themselves, so
every row can take the same number of steps without branching; rows are processed in chunks
that stay in cache, one NumPy pass per level.

>>> import numpy as np
>>> from skipstone.layout.nodes import Leaf, Split
>>> compile_router(Split(0, 0.5, Leaf(0), Leaf(1))).route(np.array([[0.1], [0.9]])).tolist()
[0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skipstone.layout.nodes import GroupSplit, Leaf, Node, Split

CHUNK_ROWS = 1 << 15


@dataclass(frozen=True, eq=False)
class Router:
    column: np.ndarray  # per node: the column tested (leaves: 0)
    cut: np.ndarray  # per node: the cut (leaves: +inf, so they always "go left" to themselves)
    child: np.ndarray  # per node, two entries: [2n] if x <= cut, [2n + 1] otherwise
    position: np.ndarray  # per node: the leaf position, -1 for tests
    start: int  # the root's node
    steps: int  # the longest path from the root to a leaf

    def route(self, values: np.ndarray) -> np.ndarray:
        """The leaf position of each row of `values` (shape (rows, columns))."""
        rows = values.shape[0]
        out = np.empty(rows, dtype=np.int64)
        if rows == 0:
            return out
        used = np.unique(self.column)
        remap = np.zeros(max(int(self.column.max()) + 1, 1), dtype=np.int64)
        remap[used] = np.arange(len(used))
        column = remap[self.column].astype(np.intp)
        width = len(used)
        for start in range(0, rows, CHUNK_ROWS):
            chunk = np.ascontiguousarray(values[start : start + CHUNK_ROWS, used])
            flat = chunk.reshape(-1)
            base = np.arange(chunk.shape[0], dtype=np.intp) * width
            node = np.full(chunk.shape[0], self.start, dtype=np.intp)
            for _ in range(self.steps):
                above = flat[base + column[node]] > self.cut[node]
                node = self.child[2 * node + above]
            out[start : start + chunk.shape[0]] = self.position[node]
        return out


def compile_router(root: Node) -> Router:
    builder = _Compiler()
    start = builder.emit(root)
    column = np.array(builder.column, dtype=np.int64)
    position = np.array(builder.position, dtype=np.int64)
    return Router(
        column=column,
        cut=np.array(builder.cut, dtype=np.float64),
        child=np.array(builder.child, dtype=np.intp),
        position=position,
        start=start,
        steps=_longest_path(builder.child, position, start),
    )


class _Compiler:
    def __init__(self) -> None:
        self.column: list[int] = []
        self.cut: list[float] = []
        self.child: list[int] = []
        self.position: list[int] = []
        self.leaves = 0

    def _new(self) -> int:
        self.column.append(0)
        self.cut.append(np.inf)
        self.child.extend([-1, -1])
        self.position.append(-1)
        return len(self.column) - 1

    def _test(self, column: int, cut: float) -> int:
        n = self._new()
        self.column[n], self.cut[n] = column, cut
        return n

    def emit(self, node: Node) -> int:
        return node.accept(self)

    def leaf(self, node: Leaf) -> int:
        n = self._new()
        self.child[2 * n] = self.child[2 * n + 1] = n
        self.position[n] = self.leaves
        self.leaves += 1
        return n

    def split(self, node: Split) -> int:
        n = self._test(node.column, node.cut)
        self.child[2 * n] = self.emit(node.left)
        self.child[2 * n + 1] = self.emit(node.right)
        return n

    def group_split(self, node: GroupSplit) -> int:
        # Leaves must be numbered depth first (groups, then rest), so emit children first and
        # wire the membership tests afterwards.
        targets = [self.emit(g.child) for g in node.groups]
        fail = self.emit(node.rest)
        for g, target in reversed(list(zip(node.groups, targets))):
            fail = self._box_test(g.low, g.high, target, fail)
        return fail

    def _box_test(self, low: tuple[float, ...], high: tuple[float, ...], inside: int, outside: int) -> int:
        entry = inside
        for d in reversed(range(len(low))):
            if high[d] < np.inf:
                n = self._test(d, high[d])
                self.child[2 * n], self.child[2 * n + 1] = entry, outside
                entry = n
            if low[d] > -np.inf:
                n = self._test(d, low[d])
                self.child[2 * n], self.child[2 * n + 1] = outside, entry
                entry = n
        if entry == inside:  # an unbounded box holds every row; keep a node so the DAG is uniform
            n = self._test(0, np.inf)
            self.child[2 * n] = self.child[2 * n + 1] = inside
            entry = n
        return entry


def _longest_path(child: list[int], position: np.ndarray, start: int) -> int:
    count = len(position)
    memo = np.full(count, -1, dtype=np.int64)
    # iterative post-order: the DAG can be deep (long group chains)
    stack = [(start, False)]
    while stack:
        n, done = stack.pop()
        if memo[n] >= 0:
            continue
        if position[n] >= 0:
            memo[n] = 0
            continue
        if done:
            memo[n] = 1 + max(memo[child[2 * n]], memo[child[2 * n + 1]])
            continue
        stack.append((n, True))
        stack.extend((c, False) for c in (child[2 * n], child[2 * n + 1]) if memo[c] < 0)
    return int(memo[start])
