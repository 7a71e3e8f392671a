"""Rules and roles: how a user-defined index type says what it keeps and what it answers.

A **role** is one metadata column per data file: its SQL type and how it is computed, either
a Spark SQL aggregate over the file's rows (``"max(length({col}))"``) or a Python function of
the file's rows as a pandas DataFrame, for what SQL cannot express.

A **rule** maps a predicate pattern to clauses over the roles, all as SQL text:
``Rule("length({col}) = {v}", "{shortest} <= {v} AND {v} <= {longest}")``. ``{col}``
(``{col0}``, ``{col1}``, ...) is the index's column, other names in the pattern match
constants, and the clause uses the bound constants and the roles by name. Both are stored in
the index's definition, so every session, with or without Python, skips with them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    import pandas as pd

_RULE_KEY = re.compile(r"rule\.(\d+)\.(pattern|mayBeTrue|mayBeFalse)$")
_ROLE_KEY = re.compile(r"role\.([A-Za-z_][A-Za-z0-9_]*)\.(type|sql|python)$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Rule:
    """Predicate pattern -> clauses over metadata.

    ``may_be_true`` is FALSE for a file only if no row of it can make the pattern TRUE;
    ``may_be_false`` (optional, for ``NOT``) is FALSE only if no row can make it FALSE.
    NULL in either means "cannot tell": the file is read.

    >>> Rule("length({col}) = {v}", "{shortest} <= {v} AND {v} <= {longest}").pattern
    'length({col}) = {v}'
    """

    pattern: str
    may_be_true: str
    may_be_false: str | None = None

    @staticmethod
    def range(expression: str, lo: str, hi: str, wrap: Callable[[str], str] | None = None) -> tuple[Rule, ...]:
        """Rules for ``=``, ``<``, ``<=``, ``>``, ``>=`` and ``IN`` on ``expression``, given SQL
        for its smallest (``lo``) and largest (``hi``) value per file: a MinMax on anything.

        ``lo`` and ``hi`` must be NULL only for files with no non-NULL value of the
        expression (as Spark's ``min``/``max`` are): such files are skipped, since a
        comparison with NULL is never TRUE nor FALSE. ``wrap`` turns each range test into
        the clause (default: a NULL test result counts as FALSE); GeoBox, say, asks whether
        any of a file's boxes passes it.

        >>> [r.pattern for r in Rule.range("length({col})", "{shortest}", "{longest}")][:2]
        ['length({col}) = {v}', 'length({col}) < {v}']
        """
        def coalesced(clause: str) -> str:
            return f"coalesce({clause}, false)"

        known = wrap or coalesced

        e = expression
        return (
            Rule(f"{e} = {{v}}", known(f"{lo} <= {{v}} AND {{v}} <= {hi}"),
                 known(f"NOT ({lo} = {{v}} AND {hi} = {{v}})")),
            Rule(f"{e} < {{v}}", known(f"{lo} < {{v}}"), known(f"{hi} >= {{v}}")),
            Rule(f"{e} <= {{v}}", known(f"{lo} <= {{v}}"), known(f"{hi} > {{v}}")),
            Rule(f"{e} > {{v}}", known(f"{hi} > {{v}}"), known(f"{lo} <= {{v}}")),
            Rule(f"{e} >= {{v}}", known(f"{hi} >= {{v}}"), known(f"{lo} < {{v}}")),
            Rule(f"{e} IN ({{vs}})", known(f"exists({{vs}}, x -> {lo} <= x AND x <= {hi})")),
        )


@dataclass(frozen=True)
class Role:
    """One metadata column per file: a name, a SQL type, and SQL or Python to compute it.

    >>> Role("longest", "int", "max(length({col}))").type
    'int'
    """

    name: str
    type: str
    sql: str | None = None
    """A Spark SQL aggregate over the file's rows; ``{col}`` etc. are the index's columns."""
    per_file: Callable[[pd.DataFrame], Any] | None = None
    """Or: a function of the file's rows (a pandas DataFrame of the index's columns)."""

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise SkipstoneError(f"role name '{self.name}' must be a SQL identifier (letters, digits, _)")
        if (self.sql is None) == (self.per_file is None):
            raise SkipstoneError(f"role '{self.name}' needs exactly one of sql= or per_file=")


def rules_to_params(rules: tuple[Rule, ...]) -> dict[str, str]:
    params: dict[str, str] = {}
    for n, r in enumerate(rules):
        params[f"rule.{n}.pattern"] = r.pattern
        params[f"rule.{n}.mayBeTrue"] = r.may_be_true
        if r.may_be_false is not None:
            params[f"rule.{n}.mayBeFalse"] = r.may_be_false
    return params


def roles_to_params(roles: tuple[Role, ...]) -> dict[str, str]:
    params: dict[str, str] = {}
    for r in roles:
        params[f"role.{r.name}.type"] = r.type
        if r.sql is not None:
            params[f"role.{r.name}.sql"] = r.sql
        else:
            params[f"role.{r.name}.python"] = getattr(r.per_file, "__qualname__", "function")
    return params


def rules_from_params(params: Mapping[str, str]) -> tuple[Rule, ...]:
    parts: dict[int, dict[str, str]] = {}
    for key, value in params.items():
        m = _RULE_KEY.match(key)
        if m:
            parts.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return tuple(
        Rule(p["pattern"], p["mayBeTrue"], p.get("mayBeFalse"))
        for _, p in sorted(parts.items()) if "pattern" in p and "mayBeTrue" in p
    )


def stored_roles(params: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Role name -> {"type": ..., "sql": ...} or {"type": ..., "python": ...}, in stored order."""
    roles: dict[str, dict[str, str]] = {}
    for key, value in params.items():
        m = _ROLE_KEY.match(key)
        if m:
            roles.setdefault(m.group(1), {})[m.group(2)] = value
    return roles


def is_rule_based(params: Mapping[str, str]) -> bool:
    return any(_RULE_KEY.match(k) for k in params)
