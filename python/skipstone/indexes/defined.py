"""Index types defined by roles and rules: the base users subclass, and its stored form.

``RuleIndex``'s docstring shows one defined in a few lines.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import ClassVar, Mapping

from skipstone.errors import SkipstoneError
from skipstone.indexes.base import IndexType
from skipstone.indexes.rules import Role, Rule, roles_to_params, rules_from_params, rules_to_params, stored_roles

_KIND = re.compile(r"[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class RuleIndex(IndexType):
    """Base of index types written as data: ``metadata`` (roles) and ``rules``.

    Subclasses are frozen dataclasses with a ``kind`` and a ``column`` field (or override
    ``columns``); types whose roles or rules depend on their fields override
    ``role_definitions()`` / ``rule_definitions()`` and ``from_stored``.

    ``cover`` names an array role holding one element for each row the rules speak about
    (each of GeoBox's points lies in one of its file's boxes). Clauses of the form
    ``U OR exists({cover}, e -> P)`` then also answer conjunctions whole: the clauses of
    ``a AND b`` are tested on one element at a time.

    The build (in the JVM) computes SQL roles, checks every rule's SQL and stores both with
    the index, so sessions without Python skip with them; roles given as Python functions are
    computed here and handed to it.

    >>> from dataclasses import dataclass
    >>> from typing import ClassVar
    >>> from skipstone import Role, Rule, RuleIndex
    >>> @dataclass(frozen=True)
    ... class LengthRange(RuleIndex):
    ...     column: str
    ...     kind: ClassVar[str] = "length_range"
    ...     metadata: ClassVar = (Role("shortest", "int", "min(length({col}))"),
    ...                           Role("longest", "int", "max(length({col}))"))
    ...     rules: ClassVar = Rule.range("length({col})", "{shortest}", "{longest}")
    >>> LengthRange("word").roles
    ('shortest', 'longest')
    >>> Skipstone.for_path(spark, "/data/words").build(LengthRange("word"))   # doctest: +SKIP
    """

    metadata: ClassVar[tuple[Role, ...]] = ()
    """The roles: what the index stores per file, each a SQL aggregate or a Python function."""
    rules: ClassVar[tuple[Rule, ...]] = ()
    """The rules: a predicate pattern and the clause over the roles that answers it."""
    cover: ClassVar[str | None] = None
    """The array role holding one element for each row the rules speak about, if any."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        if isinstance(cls.__dict__.get("kind"), str) and not _KIND.match(cls.kind):
            raise SkipstoneError(f"index kind '{cls.kind}' must be lower case letters, digits and _")
        super().__init_subclass__(**kwargs)

    def role_definitions(self) -> tuple[Role, ...]:
        """The metadata this index stores per file, one ``Role`` each (default: ``metadata``)."""
        return type(self).metadata

    def rule_definitions(self) -> tuple[Rule, ...]:
        """The rules (``Rule``) that turn predicates into clauses over the roles (default: ``rules``)."""
        return type(self).rules

    @property
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        """The names of ``role_definitions()``."""
        return tuple(r.name for r in self.role_definitions())

    @property
    def columns(self) -> tuple[str, ...]:
        """The ``column`` field, for types over one column; types over several override it."""
        if any(f.name == "column" for f in fields(self)):
            return (getattr(self, "column"),)
        raise NotImplementedError(f"{type(self).__name__} must define a 'column' field or 'columns'")

    def settings(self) -> dict[str, str]:
        """Type-specific settings to store besides roles and rules (read back by from_stored)."""
        return {}

    def params(self) -> dict[str, str]:
        cover = {} if self.cover is None else {"cover": self.cover}
        return {**self.settings(), **cover, **roles_to_params(self.role_definitions()),
                **rules_to_params(self.rule_definitions())}

    def per_file(self) -> dict[str, Role]:
        return {r.name: r for r in self.role_definitions() if r.per_file is not None}


@dataclass(frozen=True)
class StoredRuleIndex(RuleIndex):
    """A rule-based index read back from index.json in a session that lacks its Python class.

    Rules and SQL roles are all there, so ``refresh`` works; roles computed by Python
    functions need the defining class imported first.
    """

    stored_kind: str
    stored_columns: tuple[str, ...]
    stored_params: tuple[tuple[str, str], ...]

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.stored_kind

    @property
    def columns(self) -> tuple[str, ...]:
        return self.stored_columns

    def describe(self) -> str:
        return f"{self.stored_kind}({', '.join(self.stored_columns)})"

    def role_definitions(self) -> tuple[Role, ...]:
        roles = []
        for name, role in stored_roles(dict(self.stored_params)).items():
            if "sql" not in role:
                raise SkipstoneError(
                    f"{self.describe()} computes role '{name}' with Python function {role.get('python')}: "
                    f"import the module defining index kind '{self.stored_kind}' before refreshing")
            roles.append(Role(name, role["type"], role["sql"]))
        return tuple(roles)

    @property
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(stored_roles(dict(self.stored_params)))

    def rule_definitions(self) -> tuple[Rule, ...]:
        return rules_from_params(dict(self.stored_params))

    def params(self) -> dict[str, str]:
        return dict(self.stored_params)

    @staticmethod
    def of(kind: str, columns: list[str], params: Mapping[str, str]) -> StoredRuleIndex:
        return StoredRuleIndex(kind, tuple(columns), tuple(sorted(params.items())))
