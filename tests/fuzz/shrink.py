"""Shrinking a failing case: a smaller predicate, fewer indexes, fewer files, same wrong answer."""
from __future__ import annotations

import re
from typing import Callable

from fuzz.predicates import And, Leaf, Not, Or, Pred, render


def smaller(p: Pred) -> list[Pred]:
    """Candidates one step smaller than ``p``: its children, and ``p`` with one part removed or shrunk."""
    if isinstance(p, Leaf):
        return []
    if isinstance(p, Not):
        return [p.part] + [Not(c) for c in smaller(p.part)]
    out: list[Pred] = list(p.parts)
    kind = type(p)
    for n in range(len(p.parts)):
        rest = p.parts[:n] + p.parts[n + 1:]
        out.append(rest[0] if len(rest) == 1 else kind(rest))
        out += [kind(p.parts[:n] + (c,) + p.parts[n + 1:]) for c in smaller(p.parts[n])]
    return out


def shrink_predicate(p: Pred, fails: Callable[[list[Pred]], list[bool]], rounds: int = 12) -> Pred:
    """Greedy: move to the smallest failing candidate until none fails. ``fails`` checks a batch."""
    for _ in range(rounds):
        candidates = sorted(set(smaller(p)), key=lambda c: len(render(c)))[:64]
        if not candidates:
            break
        verdicts = fails(candidates)
        failing = [c for c, bad in zip(candidates, verdicts) if bad]
        if not failing:
            break
        p = failing[0]
    return p


def signature(index_desc: str, pred: Pred, fmt: str) -> str:
    """What makes two failures the same class: index kind, predicate shape, text or binary format."""
    shape = render(pred)
    shape = re.sub(r"'[^']*'", "'?'", shape)
    shape = re.sub(r"(?<![\w`])-?\d+(\.\d+)?(E-?\d+)?[DLB]?D?", "?", shape)
    kind = index_desc.split("(")[0]
    return f"{kind} | {shape} | {'text' if fmt in ('csv', 'json') else 'binary'}"


__all__ = ["And", "Or", "shrink_predicate", "signature", "smaller"]
