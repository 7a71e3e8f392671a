"""The base of index types: the typed Python API over what index.json stores of an index.

An index type names the metadata it keeps per file ("roles", e.g. ``min`` and ``max``). The
JVM owns how each role is computed, the type checks and the definition written
(``io.skipstone.indexing``, spec in docs/index-format.md): Python sends each index as a
request (``kind``, ``columns``, ``params``) and computes only roles that need a Python function.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

from skipstone.errors import SkipstoneError

if TYPE_CHECKING:
    from pyspark.sql import Column

    from skipstone.indexes.rules import Role

_KINDS: dict[str, type[IndexType]] = {}


def registered_kind(kind: str) -> type[IndexType] | None:
    """The built-in or user class registered for ``kind``, if any."""
    return _KINDS.get(kind)


@dataclass(frozen=True)
class IndexType:
    """Base of all index types; subclasses are frozen dataclasses registered by ``kind``.

    >>> from skipstone import IndexType, MinMax
    >>> isinstance(MinMax("temp"), IndexType), MinMax.kind, MinMax("temp").describe()
    (True, 'minmax', 'MinMax(temp)')
    """

    kind: ClassVar[str] = ""
    """The name index.json and SQL's ``USING`` call the type by (``minmax``, ``bloomfilter``, ...)."""
    roles: ClassVar[tuple[str, ...]] = ()
    """The metadata columns the index stores per file (``min``, ``max``, ...)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if isinstance(cls.__dict__.get("kind"), str) and cls.kind:
            _KINDS[cls.kind] = cls

    @property
    def columns(self) -> tuple[str, ...]:
        """The dataset columns this index summarizes, in the order it stores them."""
        raise NotImplementedError

    def params(self) -> dict[str, str]:
        """Kind-specific settings, stored as strings so every session can read them."""
        return {}

    def per_file(self) -> dict[str, Role]:
        """Roles computed by a Python function over each file's rows (what SQL cannot express)."""
        return {}

    def python_roles(self, columns: Mapping[str, Column], params: Mapping[str, str]) -> dict[str, Column]:
        """Aggregates over a file's rows that call a Python function, per role; the JVM computes
        every other role. ``columns`` are the resolved columns by name, ``params`` the settings
        as the JVM settled them."""
        return {}

    def needs_python(self) -> bool:
        """Whether building this index needs Python (a role ``per_file`` or ``python_roles`` computes)."""
        return bool(self.per_file())

    def describe(self) -> str:
        """How the index is shown in ``skipstone.Skipstone.describe()``, EXPLAIN and errors: kind and columns."""
        return f"{type(self).__name__}({', '.join(self.columns)})"

    def encrypted_with(self, key: str) -> IndexType:
        """This index with its metadata encrypted with the key ``key``, an id the session's KMS
        knows (docs/encryption.md); the dataset's metadata also needs a footer key
        (``build(..., footer_key=...)``).

        >>> from skipstone import MinMax
        >>> MinMax("temp").encrypted_with("k_temp").key
        'k_temp'
        """
        return EncryptedIndex(self, key)

    @classmethod
    def from_stored(cls, columns: list[str], params: Mapping[str, str]) -> IndexType:
        """The index back from what index.json stores of it: its ``columns`` and ``params``."""
        return cls(*columns)  # type: ignore[call-arg]


@dataclass(frozen=True)
class EncryptedIndex(IndexType):
    """``index`` with its metadata columns encrypted with the key ``key`` (an id the session's
    KMS knows): sessions that cannot use the key read the files as if the index did not exist,
    and say so in their statistics. Made by ``IndexType.encrypted_with``.

    >>> from skipstone import MinMax
    >>> ix = MinMax("temp").encrypted_with("k_temp")
    >>> ix.describe(), ix.kind, ix.key
    ('MinMax(temp)', 'minmax', 'k_temp')
    """

    index: IndexType
    key: str

    def __post_init__(self) -> None:
        if isinstance(self.index, EncryptedIndex):
            raise SkipstoneError(f"{self.index.describe()} is already encrypted with key {self.index.key!r}")
        if not isinstance(self.key, str) or not self.key.strip():
            raise SkipstoneError(f"the key of {self.index.describe()} must be a key id (a non-empty string)")

    @property  # type: ignore[override]
    def kind(self) -> str:  # type: ignore[override]
        return self.index.kind

    @property  # type: ignore[override]
    def roles(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.index.roles

    @property
    def columns(self) -> tuple[str, ...]:
        return self.index.columns

    def params(self) -> dict[str, str]:
        return self.index.params()

    def per_file(self) -> dict[str, Role]:
        return self.index.per_file()

    def python_roles(self, columns: Mapping[str, Column], params: Mapping[str, str]) -> dict[str, Column]:
        return self.index.python_roles(columns, params)

    def needs_python(self) -> bool:
        return self.index.needs_python()

    def describe(self) -> str:
        return self.index.describe()


def encryption_key(index: IndexType) -> str | None:
    """The id of the key ``index``'s metadata is encrypted with, None if it has none of its own."""
    return index.key if isinstance(index, EncryptedIndex) else None
