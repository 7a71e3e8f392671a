"""Errors Skipstone raises for things users can fix."""
from __future__ import annotations


class SkipstoneError(Exception):
    """A Skipstone call that cannot proceed; the message names the dataset, column or option.

    >>> from skipstone import BloomFilter, SkipstoneError
    >>> try:
    ...     BloomFilter("station", fpp=2)
    ... except SkipstoneError as e:
    ...     print(e)
    BloomFilter: fpp must be between 0 and 1, got 2
    """
