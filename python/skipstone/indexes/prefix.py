"""Prefix: per file the distinct first characters of a string column's values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from skipstone.indexes.affix import AffixIndex


@dataclass(frozen=True)
class Prefix(AffixIndex):
    """Per file the distinct first ``length`` characters of a string column's values.

    Answers ``LIKE 'p%'`` (and any pattern starting with literal characters), ``startswith``,
    ``=`` and ``IN``; values shorter than ``length`` are kept whole, which also answers
    ``<>``/``NOT IN`` for short constants. Smaller than a ValueList when values share prefixes
    (paths, URLs, hierarchical names).

    >>> from skipstone import Prefix
    >>> Prefix("url", 12).describe()
    'Prefix(url, 12)'
    """

    kind: ClassVar[str] = "prefix"

