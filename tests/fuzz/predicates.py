"""Random predicates over a dataset's columns, as small trees that render to SQL or a Column.

Leaves cover comparisons (column on either side), BETWEEN, IN / NOT IN (with NULL, and empty
lists, which only the DataFrame API can write), LIKE, `<=>`, IS [NOT] NULL, casts on either
side, built-in functions and the fuzzer's UDFs; inner nodes are AND / OR / NOT. Constants
come from the data itself and its neighbours, so predicates land on file boundaries.
"""
from __future__ import annotations

import datetime as dt
import decimal
import math
import random
from dataclasses import dataclass
from typing import Any, Union

from fuzz.columns import Leaf as Column_

D = decimal.Decimal


@dataclass(frozen=True)
class Leaf:
    sql: str
    deterministic: bool = True
    empty_in: str | None = None     # the column's SQL: `col IN ()`, written with Column.isin([])


@dataclass(frozen=True)
class And:
    parts: tuple[Pred, ...]


@dataclass(frozen=True)
class Or:
    parts: tuple[Pred, ...]


@dataclass(frozen=True)
class Not:
    part: Pred


Pred = Union[Leaf, And, Or, Not]


def render(p: Pred) -> str:
    """SQL text (an empty IN list shows as `IN ()`, which only the DataFrame API accepts)."""
    if isinstance(p, Leaf):
        return f"{p.empty_in} IN ()" if p.empty_in is not None else p.sql
    if isinstance(p, Not):
        return f"NOT ({render(p.part)})"
    op = " AND " if isinstance(p, And) else " OR "
    return "(" + op.join(render(c) for c in p.parts) + ")"


def to_column(p: Pred) -> Any:
    from pyspark.sql import functions as F

    if isinstance(p, Leaf):
        return F.expr(p.empty_in).isin([]) if p.empty_in is not None else F.expr(p.sql)
    if isinstance(p, Not):
        return ~to_column(p.part)
    cols = [to_column(c) for c in p.parts]
    out = cols[0]
    for c in cols[1:]:
        out = (out & c) if isinstance(p, And) else (out | c)
    return out


def sql_only(p: Pred) -> bool:
    """Whether SQL text can say it (an empty IN list needs the DataFrame API)."""
    if isinstance(p, Leaf):
        return p.empty_in is None
    if isinstance(p, Not):
        return sql_only(p.part)
    return all(sql_only(c) for c in p.parts)


def deterministic(p: Pred) -> bool:
    if isinstance(p, Leaf):
        return p.deterministic
    if isinstance(p, Not):
        return deterministic(p.part)
    return all(deterministic(c) for c in p.parts)


def conjuncts(p: Pred) -> list[Pred]:
    """Top-level AND split left to right, as Spark's splitConjunctivePredicates does."""
    if isinstance(p, And):
        return [c for part in p.parts for c in conjuncts(part)]
    return [p]


def prunable_part(p: Pred) -> Pred | None:
    """What skipping may use: the deterministic conjuncts before the first non-deterministic one
    (what Spark itself pushes below it). None means: no skipping allowed (keep every file)."""
    parts = conjuncts(p)
    prefix: list[Pred] = []
    for c in parts:
        if not deterministic(c):
            break
        prefix.append(c)
    if len(prefix) == len(parts):
        return p
    if not prefix:
        return None
    return prefix[0] if len(prefix) == 1 else And(tuple(prefix))


# -- constants ------------------------------------------------------------------------------------

def sql_literal(v: Any, family: str, rng: random.Random) -> str:
    """A constant of ``v``'s value, sometimes in another type or spelling than the column's."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return rng.choice(["CAST('NaN' AS DOUBLE)", "double('NaN')", "float('NaN')"])
        if math.isinf(v):
            return ("CAST('Infinity' AS DOUBLE)" if v > 0 else "CAST('-Infinity' AS DOUBLE)")
        if v == 0 and math.copysign(1, v) < 0:
            return "-0.0D"
        if v == int(v) and abs(v) < 1e15 and rng.random() < 0.3:
            return str(int(v))
        return f"{v!r}D" if rng.random() < 0.7 else repr(v)
    if isinstance(v, int):
        if rng.random() < 0.15:
            return f"{v}L" if abs(v) < 2**63 else str(v)
        if rng.random() < 0.1 and abs(v) < 2**31:
            return f"{v}.0"
        if rng.random() < 0.05 and abs(v) < 2**53:
            return f"{float(v)!r}D"
        return str(v)
    if isinstance(v, D):
        if rng.random() < 0.3:  # another scale of the same value: 1.5 vs 1.50 vs 1.500
            v = v.quantize(D(1).scaleb(-rng.randint(0, 6)), rounding=decimal.ROUND_HALF_EVEN) \
                if rng.random() < 0.5 else v.normalize()
        text = format(v, "f")
        return text if "." in text else (f"{text}BD" if rng.random() < 0.5 else text)
    if isinstance(v, dt.datetime):
        text = v.strftime("%Y-%m-%d %H:%M:%S.%f")
        if family == "timestamp_ntz":
            return f"TIMESTAMP_NTZ'{text}'"
        if v.tzinfo is not None:
            v = v.replace(tzinfo=None)  # Spark hands timestamps to Python in the session's zone
            text = v.strftime("%Y-%m-%d %H:%M:%S.%f")
        return f"TIMESTAMP'{text}'" if rng.random() < 0.8 else f"'{text}'"
    if isinstance(v, dt.date):
        return f"DATE'{v.isoformat()}'" if rng.random() < 0.8 else f"'{v.isoformat()}'"
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(v)


def neighbours(v: Any, rng: random.Random) -> Any:
    """A value next to ``v``: the constants that straddle a file's min or max."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            return rng.choice([v, 0.0, 1e308])
        return rng.choice([v + 0.5, v - 0.5, math.nextafter(v, math.inf), math.nextafter(v, -math.inf), -v])
    if isinstance(v, int):
        return v + rng.choice([-1, 1, 0])
    if isinstance(v, D):
        return v + rng.choice([D("0.01"), D("-0.01"), D("0.5"), D("-0.00001"), D(1)])
    if isinstance(v, dt.datetime):
        return v + rng.choice([dt.timedelta(seconds=1), dt.timedelta(hours=-1), dt.timedelta(days=1),
                               dt.timedelta(microseconds=1), dt.timedelta(hours=8)])
    if isinstance(v, dt.date):
        return v + dt.timedelta(days=rng.choice([-1, 1, 30]))
    if isinstance(v, str):
        return rng.choice([v + "a", v[:-1], v.upper(), v.lower(), v + " ", "~"])
    return v


EXTRAS: dict[str, list[Any]] = {
    "integral": [0, -1, 2**31, 9_007_199_254_740_993],
    "decimal": [D("0"), D("0.5"), D("1.50"), D("-0.00001")],
    "floating": [0.0, -0.0, math.nan, math.inf, -math.inf, 0.5, 1e300],
    "date": [dt.date(2024, 1, 1), dt.date(2024, 3, 10)],
    "timestamp": [dt.datetime(2024, 3, 10, 10, 0), dt.datetime(2024, 3, 10, 2, 30)],
    "timestamp_ntz": [dt.datetime(2024, 3, 10, 2, 30)],
    "string": ["", "a", "A", "zz", "kitten"],
    "boolean": [True, False],
}


def constant(col: Column_, rng: random.Random) -> str:
    r = rng.random()
    if col.values and r < 0.55:
        v = rng.choice(col.values)
    elif col.values and r < 0.85:
        v = neighbours(rng.choice(col.values), rng)
    elif r < 0.95:
        v = rng.choice(EXTRAS.get(col.family, [0]))
    else:
        return "NULL"
    return sql_literal(v, col.family, rng)


# -- leaves -----------------------------------------------------------------------------------------

CMP = ["=", "<>", "<", "<=", ">", ">=", "<=>", "!="]
FLIP = {"=": "=", "<>": "<>", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<=", "<=>": "<=>"}


def view(col: Column_, rng: random.Random) -> tuple[str, str]:
    """The column as a predicate uses it, and the family of that expression's constants."""
    c, fam = col.sql, col.family
    r = rng.random()
    if r < 0.65:
        return c, fam
    if fam == "integral":
        return rng.choice([(f"CAST({c} AS BIGINT)", fam), (f"CAST({c} AS DOUBLE)", "floating"),
                           (f"CAST({c} AS DECIMAL(20,2))", "decimal"), (f"{c} + 1", fam),
                           (f"CAST({c} AS STRING)", "string"), (f"abs({c})", fam)])
    if fam == "decimal":
        return rng.choice([(f"CAST({c} AS DOUBLE)", "floating"), (f"int({c})", "integral"),
                           (f"CAST({c} AS INT)", "integral"), (f"CAST({c} AS BIGINT)", "integral"),
                           (f"CAST({c} AS DECIMAL(30,8))", "decimal"), (f"floor({c})", "decimal")])
    if fam == "floating":
        return rng.choice([(f"CAST({c} AS FLOAT)", fam), (f"try_cast({c} AS INT)", "integral"),
                           (f"{c} * 2", fam), (f"nanvl({c}, 0D)", fam)])
    if fam == "date":
        return rng.choice([(f"CAST({c} AS TIMESTAMP)", "timestamp"), (f"date_add({c}, 1)", fam),
                           (f"CAST({c} AS STRING)", "string")])
    if fam in ("timestamp", "timestamp_ntz"):
        return rng.choice([(f"CAST({c} AS DATE)", "date"), (f"{c} + INTERVAL 1 HOUR", fam),
                           (f"CAST({c} AS TIMESTAMP_NTZ)" if fam == "timestamp" else f"CAST({c} AS TIMESTAMP)",
                            "timestamp_ntz" if fam == "timestamp" else "timestamp")])
    if fam == "string":
        return rng.choice([(f"upper({c})", fam), (f"lower({c})", fam), (f"substr({c}, 1, 1)", fam),
                           (f"trim({c})", fam), (f"fz_tag({c})", fam), (f"concat({c}, 'x')", fam)])
    return c, fam


def _like_pattern(col: Column_, rng: random.Random) -> str:
    base = rng.choice(col.values) if col.values and rng.random() < 0.8 else rng.choice(["a", "ab", "", "x"])
    if not isinstance(base, str):
        base = str(base)
    shapes = [lambda s: s[:2] + "%", lambda s: "%" + s[-1:], lambda s: "%" + s[1:2] + "%", lambda s: s,
              lambda s: s[:1] + "_" + "%", lambda s: "%", lambda s: s.upper() + "%", lambda s: s[:1] + "%" + s[-1:]]
    pat = rng.choice(shapes)(base)
    return "'" + pat.replace("'", "\\'") + "'"


def leaf(col: Column_, rng: random.Random) -> Leaf:
    expr, fam = view(col, rng)
    typed: Any = col if fam == col.family else _Other(fam)
    form = rng.random()
    if form < 0.32:
        op = rng.choice(CMP)
        k = constant(typed, rng)
        return Leaf(f"{expr} {op} {k}" if rng.random() < 0.7 else f"{k} {FLIP[op]} {expr}")
    if form < 0.42:
        lo, hi = constant(typed, rng), constant(typed, rng)
        return Leaf(f"{expr} {'NOT ' if rng.random() < 0.2 else ''}BETWEEN {lo} AND {hi}")
    if form < 0.56:
        if rng.random() < 0.06:
            return Leaf("", empty_in=expr)
        n = rng.randint(1, 6)
        values = ", ".join(constant(typed, rng) for _ in range(n))
        return Leaf(f"{expr} {'NOT ' if rng.random() < 0.35 else ''}IN ({values})")
    if form < 0.64:
        return Leaf(f"{expr} IS {'NOT ' if rng.random() < 0.5 else ''}NULL")
    if form < 0.68 and fam == "floating":
        return Leaf(f"isnan({expr})")
    if form < 0.80 and col.family == "string":
        kind = rng.random()
        if kind < 0.6:
            return Leaf(f"{col.sql} {'NOT ' if rng.random() < 0.25 else ''}LIKE {_like_pattern(col, rng)}")
        fn = rng.choice(["startswith", "endswith", "contains"])
        return Leaf(f"{fn}({col.sql}, {constant(col, rng)})")
    if form < 0.92:
        return udf_leaf(col, rng) or Leaf(f"{col.sql} <=> {constant(col, rng)}")
    return Leaf(f"{col.sql} = {constant(col, rng)}")


class _Other:
    """A column stand-in of another family (after a cast): constants of that family only."""

    def __init__(self, family: str) -> None:
        self.family, self.values, self.path, self.type_name = family, [], (), family


def udf_leaf(col: Column_, rng: random.Random) -> Leaf | None:
    """Predicates on UDFs and functions that Formatted, MetricDist and rule indexes answer."""
    c, fam = col.sql, col.family
    if fam == "string":
        r = rng.random()
        if r < 0.25:
            v = rng.choice(col.values) if col.values else "a"
            k = sql_literal(str(v)[:1].upper() if rng.random() < 0.7 else "Z", "string", rng)
            return Leaf(f"fz_tag({c}) {rng.choice(['=', '<>'])} {k}" if rng.random() < 0.7
                        else f"fz_tag({c}) IN ({k}, 'K')")
        if r < 0.45:
            v = rng.choice(col.values) if col.values else "A"
            return Leaf(f"lower({c}) {rng.choice(['=', '<>'])} {sql_literal(str(v).lower(), 'string', rng)}")
        if r < 0.6:
            return Leaf(f"fz_len({c}) {rng.choice(CMP[:6])} {rng.randint(0, 7)}")
        if r < 0.8:
            q = rng.choice(["kitten", "sitting", "ab", "", "zz"] + [str(v) for v in col.values])
            args = (c, sql_literal(q, "string", rng)) if rng.random() < 0.7 else (sql_literal(q, "string", rng), c)
            return Leaf(f"levenshtein({args[0]}, {args[1]}) {rng.choice(CMP[:6])} {rng.randint(0, 6)}")
        return Leaf(f"{rng.choice(['length', 'char_length'])}({c}) {rng.choice(CMP[:6])} {rng.randint(0, 7)}")
    if fam in ("integral", "floating", "decimal"):
        r = rng.random()
        if r < 0.3 and col.path[0] not in ("lat", "lon"):
            q = constant(col, rng) if rng.random() < 0.8 else rng.choice(["0D", "1e15D", "-3.5D"])
            radius = rng.choice(["0", "0.5", "1", "2.5", "1e15", "1e-9", "3"])
            call = f"fz_absdiff({c}, {q})" if rng.random() < 0.7 else f"fz_absdiff({q}, {c})"
            return Leaf(f"{call} {rng.choice(CMP[:6])} {radius}")
        if r < 0.55:
            return Leaf(f"{c} >= {rng.choice(['0.5', '0', '0.50', '0.4', '1'])}")
        if r < 0.8 and fam == "integral":
            v = rng.choice(col.values) if col.values else 3
            k = sql_literal(rng.choice([str(v), f"{float(v)!r}", "3.0"]), "string", rng)
            view_ = rng.choice([c, f"CAST({c} AS DOUBLE)", f"CAST({c} AS BIGINT)", f"CAST({c} AS STRING)"])
            return Leaf(f"fz_str({view_}) = {k}")
        if fam == "decimal":
            form = rng.choice(["int({c})", "CAST({c} AS INT)", "CAST({c} AS DOUBLE)", "CAST({c} AS BIGINT)"])
            k = rng.choice([str(rng.randint(-2, 13)), "3.5", "0.5", "12.0"])
            return Leaf(f"{form.format(c=c)} {rng.choice(CMP[:6])} {k}")
    return None


def geo_leaf(lat: Column_, lon: Column_, rng: random.Random) -> Leaf:
    def around(col: Column_) -> float:
        v = float(rng.choice(col.values)) if col.values and rng.random() < 0.8 else rng.uniform(-30, 120)
        return v if math.isfinite(v) else 0.0

    y, x = around(lat), around(lon)
    if rng.random() < 0.55:
        h, w = rng.choice([0.0001, 0.05, 0.5, 3.0]), rng.choice([0.0001, 0.05, 0.5, 3.0])
        cx, cy = x + rng.uniform(-w, w), y + rng.uniform(-h, h)
        poly = (f"POLYGON(({cx - w!r} {cy - h!r}, {cx + w!r} {cy - h!r}, {cx + w!r} {cy + h!r}, "
                f"{cx - w!r} {cy + h!r}, {cx - w!r} {cy - h!r}))")
        return Leaf(f"st_contains('{poly}', {lat.sql}, {lon.sql})")
    d = rng.choice(["0", "0.000001", "0.1", "1", "5"])
    op = rng.choice(["<", "<="])
    if rng.random() < 0.7:
        return Leaf(f"st_distance({lat.sql}, {lon.sql}, {y!r}, {x!r}) {op} {d}")
    return Leaf(f"st_distance({y!r}, {x!r}, {lat.sql}, {lon.sql}) {op} {d}")


NONDETERMINISTIC = ["rand({seed}) < 0.5", "rand({seed}) < 0.9", "monotonically_increasing_id() < {k}",
                    "randn({seed}) > -0.5", "uuid() <> ''"]


def tree(columns: list[Column_], rng: random.Random, depth: int = 0) -> Pred:
    # Small trees: Catalyst's cost per case grows with the predicate's size, and most wrong
    # answers need one or two leaves; deeper nesting is still reached now and then.
    r = rng.random()
    if depth >= 3 or r < 0.5 + 0.15 * depth:
        names = {c.path: c for c in columns}
        if ("lat",) in names and ("lon",) in names and rng.random() < 0.12:
            return geo_leaf(names[("lat",)], names[("lon",)], rng)
        return leaf(rng.choice(columns), rng)
    if r < 0.72:
        return And(tuple(tree(columns, rng, depth + 1) for _ in range(rng.choice([2, 2, 3]))))
    if r < 0.9:
        return Or(tuple(tree(columns, rng, depth + 1) for _ in range(rng.choice([2, 2, 3]))))
    return Not(tree(columns, rng, depth + 1))


def predicate(columns: list[Column_], rng: random.Random) -> Pred:
    p = tree(columns, rng)
    if rng.random() < 0.08:
        # a non-deterministic conjunct at a random position (or inside an OR)
        nd = Leaf(rng.choice(NONDETERMINISTIC).format(seed=rng.randint(0, 99), k=rng.randint(0, 30)),
                  deterministic=False)
        parts = conjuncts(p)
        if rng.random() < 0.2:
            return Or((nd, p))
        parts.insert(rng.randint(0, len(parts)), nd)
        return And(tuple(parts))
    return p
