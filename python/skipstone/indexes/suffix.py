"""Suffix: per file the distinct last characters of a string column's values."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from skipstone.indexes.affix import AffixIndex


@dataclass(frozen=True)
class Suffix(AffixIndex):
    """Per file the distinct last ``length`` characters of a string column's values.

    Answers ``LIKE '%s'`` (and any pattern ending with literal characters), ``endswith``,
    ``=`` and ``IN``; values shorter than ``length`` are kept whole, which also answers
    ``<>``/``NOT IN`` for short constants. Smaller than a ValueList when values share suffixes
    (file extensions, e-mail domains).

    >>> from skipstone import Suffix
    >>> Suffix("email", 10).describe()
    'Suffix(email, 10)'
    """

    kind: ClassVar[str] = "suffix"

