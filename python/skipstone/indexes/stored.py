"""An index rebuilt from its stored definition (index.json's kind, columns and settings).

It lives above both ``base`` and ``defined``: a kind no class registered may still be a
rule-defined one, readable from its stored rules alone.
"""
from __future__ import annotations

from typing import Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.base import IndexType, registered_kind
from skipstone.indexes.defined import StoredRuleIndex
from skipstone.indexes.rules import is_rule_based


def index_from_spec(kind: str, columns: list[str], params: Mapping[str, str]) -> IndexType:
    """Rebuild an index from its stored definition (used by ``refresh`` and compaction)."""
    cls = registered_kind(kind)
    if cls is not None:
        return cls.from_stored(columns, params)
    if is_rule_based(params):
        return StoredRuleIndex.of(kind, columns, params)
    raise SkipstoneError(f"index kind '{kind}' is not known to this version of Skipstone")
