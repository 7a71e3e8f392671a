"""Candidate trees built once per (spec, sample, size), kept between ``choose_columns`` calls.

``AutoColumns`` prices the same candidates at every step of a phase: the workload's columns do
not change between two calls, nor the table's sample, so the same specs are built again on the
same rows (on Spark at SF 1, two Amoeba and k-d builds were 0.3 s of a 0.47 s decision). The
builders are deterministic (``builders/noise.py`` hashes instead of drawing), so a tree built
before is the tree that would be built now, and keeping it changes no decision, only its time.

Keys hold the spec's JSON, the sample's schema (compared whole, not printed and hashed: a
categorical column's dictionary can hold millions of strings), a digest of its encoded values, the block size and the table's rows; the newest ``MAX_TREES`` are kept (a few candidates a step, a few steps a phase).

>>> import numpy as np
>>> from skipstone.layout import KdTree, LayoutData
>>> data = LayoutData.from_columns({"a": np.arange(1000.0)})
>>> first = built(KdTree(block_rows=100, columns=["a"]), data, 100, 1000)
>>> built(KdTree(block_rows=100, columns=["a"]), data, 100, 1000) is first
True
>>> other = LayoutData.from_columns({"a": np.arange(1000.0)[::-1].copy()})
>>> built(KdTree(block_rows=100, columns=["a"]), other, 100, 1000) is first   # other rows, built anew
False
"""
from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections import OrderedDict

from skipstone.layout.schema import LayoutData, Schema
from skipstone.layout.specs import SizedSpec
from skipstone.layout.stats_pricing import StatsPricing
from skipstone.layout.tree import PartitionTree

MAX_TREES = 32

_trees: OrderedDict[tuple[str, Schema, str, float, float], PartitionTree] = OrderedDict()
_priced: weakref.WeakKeyDictionary[PartitionTree, StatsPricing] = weakref.WeakKeyDictionary()
_lock = threading.Lock()  # tables optimized from several threads share the cache


def sample_digest(sample: LayoutData) -> str:
    """A digest of the sample's encoded values (``built`` keys its schema apart)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(str(sample.values.shape).encode())
    digest.update(sample.values.tobytes())
    return digest.hexdigest()


def built(spec: SizedSpec, sample: LayoutData, block_rows: float, total_rows: float, digest: str | None = None) -> PartitionTree:
    """``spec.build(sample, block_rows, total_rows)``, or the tree an earlier call built for the
    same arguments (``digest``: ``sample_digest(sample)``, when the caller has it)."""
    key = (json.dumps(spec.to_json(), sort_keys=True), sample.schema, digest or sample_digest(sample),
           float(block_rows), float(total_rows))
    with _lock:
        tree = _trees.get(key)
        if tree is not None:
            _trees.move_to_end(key)
            return tree
    tree = spec.build(sample, block_rows, total_rows)
    with _lock:
        _trees[key] = tree
        while len(_trees) > MAX_TREES:
            _trees.popitem(last=False)
    return tree


def priced(tree: PartitionTree, sample: LayoutData) -> StatsPricing:
    """``StatsPricing.of(tree, sample)`` for a tree ``built`` returned from ``sample``, kept as
    long as the tree is (routing the sample is most of a candidate's price)."""
    with _lock:
        kept = _priced.get(tree)
    if kept is None:
        kept = StatsPricing.of(tree, sample)
        with _lock:
            _priced[tree] = kept
    return kept
