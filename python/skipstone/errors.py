"""Errors Skipstone raises for things users can fix."""
from __future__ import annotations

from typing import Mapping


class SkipstoneError(Exception):
    """A Skipstone call that cannot proceed; the message names the dataset, column or option.

    An error from a JVM table operation may name its remedy: ``hint`` is the key
    (``io.skipstone.table.Hint``, e.g. ``"vacuum.underTableRetention"``), ``facts`` the values
    its wording needs, and ``problem`` the message without the remedy, so that an interface
    other than Python (the command line) can word the remedy its own way. The message itself
    words it for Python.

    >>> from skipstone import BloomFilter, SkipstoneError
    >>> try:
    ...     BloomFilter("station", fpp=2)
    ... except SkipstoneError as e:
    ...     print(e)
    BloomFilter: fpp must be between 0 and 1, got 2
    """

    def __init__(self, message: str = "", hint: str | None = None, facts: Mapping[str, str] | None = None,
                 problem: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint
        """The remedy's key (e.g. ``"vacuum.underTableRetention"``), or None when there is none."""
        self.facts: dict[str, str] = dict(facts or {})
        """The values the remedy's wording needs (e.g. the table's root and retention)."""
        self.problem = message if problem is None else problem
        """What went wrong, without Python's remedy: for an interface that words its own."""
