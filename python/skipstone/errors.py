"""Errors Skipstone raises for things users can fix."""
from __future__ import annotations


class SkipstoneError(Exception):
    """A Skipstone call that cannot proceed; the message names the dataset, column or option."""
