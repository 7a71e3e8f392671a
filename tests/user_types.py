"""The user-defined index types of the tests, as a user would write them, and their data."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pyarrow as pa

from skipstone import Role, Rule, RuleIndex


@dataclass(frozen=True)
class LengthRange(RuleIndex):
    """Per file the shortest and longest string length of a column."""

    column: str
    kind: ClassVar[str] = "length_range"
    metadata: ClassVar = (Role("shortest", "int", "min(length({col}))"),
                          Role("longest", "int", "max(length({col}))"))
    rules: ClassVar = Rule.range("length({col})", "{shortest}", "{longest}")


def first_letters(rows):
    return sorted({w[:1] for w in rows.iloc[:, 0].dropna()})


@dataclass(frozen=True)
class FirstLetters(RuleIndex):
    """Per file the set of first letters of a column, computed by a Python function."""

    column: str
    kind: ClassVar[str] = "first_letters"
    metadata: ClassVar = (Role("letters", "array<string>", per_file=first_letters),)
    rules: ClassVar = (
        Rule("substr({col}, 1, 1) = {v}", "array_contains({letters}, {v})"),
        Rule("startswith({col}, {p})", "{p} = '' OR exists({letters}, l -> startswith({p}, l))"),
    )


LETTERS = "abcdef"


def words_table(file: int) -> pa.Table:
    if file == 6:
        return pa.table({"word": pa.array([None] * 10, pa.string())})
    lengths = [5] * 10 if file == 2 else [2 * file + 1 + j % 2 for j in range(10)]
    return pa.table({"word": [LETTERS[file] * n for n in lengths], "n": list(range(10))})


def value_ranges(rows):
    """Two ranges covering a file's values, split at the widest gap between them."""
    v = sorted(int(x) for x in rows.iloc[:, 0].dropna())
    if len(v) < 2:
        return [{"lo": x, "hi": x} for x in v]
    cut = max(range(1, len(v)), key=lambda i: v[i] - v[i - 1])
    return [{"lo": v[0], "hi": v[cut - 1]}, {"lo": v[cut], "hi": v[-1]}]


@dataclass(frozen=True)
class Ranges(RuleIndex):
    """Per file two value ranges; each value lies in one of them, so they are a cover."""

    column: str
    kind: ClassVar[str] = "ranges"
    cover: ClassVar = "parts"
    metadata: ClassVar = (Role("parts", "array<struct<lo:int,hi:int>>", per_file=value_ranges),)
    rules: ClassVar = Rule.range("{col}", "p.lo", "p.hi", wrap=lambda c: f"exists({{parts}}, p -> {c})")


@dataclass(frozen=True)
class IntPartRange(RuleIndex):
    """Per file the range of int(col) of a decimal column: answers `int(col) op v` only."""

    column: str
    kind: ClassVar[str] = "int_part_range"
    metadata: ClassVar = (Role("lo", "int", "min(int({col}))"), Role("hi", "int", "max(int({col}))"))
    rules: ClassVar = Rule.range("int({col})", "{lo}", "{hi}")


@dataclass(frozen=True)
class HalfFlag(RuleIndex):
    """Per file whether some value is >= 0.5: a pattern with a literal, answers exactly `col >= 0.5`."""

    column: str
    kind: ClassVar[str] = "half_flag"
    metadata: ClassVar = (Role("any", "boolean", "bool_or({col} >= 0.5)"),)
    rules: ClassVar = (Rule("{col} >= 0.5", "coalesce({any}, false)"),)
