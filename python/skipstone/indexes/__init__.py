"""Index types; each kind lives in its own module and registers itself by subclassing IndexType."""
from __future__ import annotations

from skipstone.indexes.base import IndexType
from skipstone.indexes.defined import RuleIndex
from skipstone.indexes.mapping import UdfMapping
from skipstone.indexes.minmax import MinMax
from skipstone.indexes.rules import Role, Rule

__all__ = ["IndexType", "MinMax", "Role", "Rule", "RuleIndex", "UdfMapping"]
