"""Deterministic noise for the builders' tie-breaks and subsamples, the same in Python and the JVM.

A builder that draws from a random generator cannot be repeated by another language: numpy's
generators have no twin on the JVM. The builders instead hash what they decide about (a seed,
a stream naming the decision, a tree node, a column or a sample row) with splitmix64's mixing
function, which ``io.skipstone.layout.builders.Noise`` computes bit for bit the same, so a
layout built by the JVM equals the one built here.

>>> [hex(h) for h in hashed(0, PREFERENCE, 1, np.array([0, 1, 2])).tolist()]
['0xfaa6282a95da9f89', '0x27c9219db08517f0', '0xc1ae2036d5caa152']
>>> unit(hashed(0, PREFERENCE, 1, np.array([1]))).tolist()
[0.15541277026979494]
>>> choose(np.arange(10), 3, 0, GAIN_ROWS, 1).tolist()
[3, 8, 5]
"""

from __future__ import annotations

import numpy as np

# What a hash decides; a decision's stream keeps its noise independent of the others'.
PREFERENCE = 1  # Amoeba's tie-break among columns with equal allocation
GAIN_ROWS = 2  # the rows of a node on which a cut's skipping gain is estimated
RANKED_ROWS = 3  # the rows of the sample whose ranks the skipping gain keeps
SAMPLE_TRIM = 4  # the rows a table's sample keeps of Spark's Bernoulli sample (drawn by the JVM only)

_MASK = (1 << 64) - 1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer (uint64 arithmetic wraps, as the JVM's Long does)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def hashed(seed: int, stream: int, node: int, items: np.ndarray) -> np.ndarray:
    """Per item, a 64-bit hash of (seed, stream, node, item): h = mix(seed + golden), then
    h = mix((h ^ key) + golden) for each key. Negative numbers are taken modulo 2**64."""
    h = _mix(np.array([seed & _MASK], dtype=np.uint64) + _GOLDEN)
    for key in (stream, node):
        h = _mix((h ^ np.uint64(key & _MASK)) + _GOLDEN)
    keys = np.asarray(items, dtype=np.int64).astype(np.uint64)
    return _mix((h ^ keys) + _GOLDEN)


def unit(hashes: np.ndarray) -> np.ndarray:
    """Hashes as numbers in [0, 1): their top 53 bits."""
    return (hashes >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def choose(rows: np.ndarray, count: int, seed: int, stream: int, node: int) -> np.ndarray:
    """``count`` of ``rows`` (distinct sample rows), a uniform choice without replacement: the
    rows of the smallest hashes, in that order (equal hashes keep the order of ``rows``)."""
    order = np.argsort(hashed(seed, stream, node, rows), kind="stable")
    return np.asarray(rows)[order[:count]]
