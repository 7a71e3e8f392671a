"""Random rows and random predicates over them, for the on-vs-off properties of table-format sources
(test_delta_random_predicates.py, test_iceberg_random_predicates.py): ints, strings and doubles with
NULL, NaN and -0.0, and AND/OR/NOT trees of comparisons, IN and IS NULL over constants that hit
and miss them."""
from __future__ import annotations

import random

SCHEMA = "a int, s string, d double"
INTS = [None, -3, 0, 1, 2, 5, 8, 12, 40, 41]
STRINGS = [None, "", "a", "ab", "b", "ba", "c%", "zz"]
DOUBLES = [None, -1.5, -0.0, 0.0, 0.5, 7.25, float("nan"), float("inf")]
CONSTANTS = {
    "a": ["-4", "0", "1", "5", "12", "13", "41", "NULL"],
    "s": ["''", "'a'", "'ab'", "'b'", "'c%'", "'q'", "NULL"],
    "d": ["-1.5", "-0.0D", "0.0D", "0.5", "7.25", "CAST('NaN' AS DOUBLE)", "NULL"],
}


def random_rows(rng: random.Random, n: int) -> list[tuple]:
    """Rows whose values come from a few of each pool, so that commits differ and indexes can tell them apart."""
    ints, strings, doubles = rng.sample(INTS, 3), rng.sample(STRINGS, 3), rng.sample(DOUBLES, 3)
    return [(rng.choice(ints), rng.choice(strings), rng.choice(doubles)) for _ in range(n)]


def leaf(rng: random.Random) -> str:
    column = rng.choice(list(CONSTANTS))
    constants = CONSTANTS[column]
    kind = rng.randrange(4)
    if kind == 0:
        return f"{column} {rng.choice(['=', '<', '<=', '>', '>=', '<=>', '!='])} {rng.choice(constants)}"
    if kind == 1:
        return f"{column} IN ({', '.join(rng.sample(constants, 3))})"
    if kind == 2:
        return f"{column} IS {rng.choice(['', 'NOT '])}NULL"
    return f"NOT ({column} = {rng.choice(constants)})"


def predicate(rng: random.Random, depth: int = 2) -> str:
    """A random AND/OR tree of ``leaf`` conditions, at most ``depth`` deep."""
    if depth == 0 or rng.random() < 0.3:
        return leaf(rng)
    op = rng.choice(["AND", "OR"])
    return f"({predicate(rng, depth - 1)} {op} {predicate(rng, depth - 1)})"
