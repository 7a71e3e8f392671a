"""Rendering results: markdown tables into docs/benchmarks.md sections, JSON beside them."""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, is_dataclass
from typing import Any, Sequence

from benchmarks.harness import Measurement

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "benchmarks.md")
RESULTS = os.path.join(ROOT, "benchmarks", "results")
IMAGES = os.path.join(ROOT, "docs", "img")


@dataclass
class Section:
    key: str
    markdown: str
    data: Any


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
        return str(v)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def measurement_table(ms: Sequence[Measurement], baseline: str, settings: Sequence[str]) -> str:
    header = ["query", "files skipped", "bytes skipped"] + [f"{s} (ms)" for s in settings] + \
             [f"{baseline} / {s}" for s in settings if s != baseline] + ["identical"]
    rows = []
    for m in ms:
        share = m.bytes_skipped / m.bytes_total if m.bytes_total else 0.0
        rows.append([m.query, f"{m.files_skipped} / {m.files_total}", f"{share:.1%}"] +
                    [m.seconds[s] * 1000 for s in settings] +
                    [f"{m.ratio(baseline, s):.2f}x" for s in settings if s != baseline] +
                    ["yes" if m.identical else "**NO**"])
    return table(header, rows)


def _plain(data: Any) -> Any:
    if is_dataclass(data):
        return asdict(data)
    if isinstance(data, (list, tuple)):
        return [_plain(d) for d in data]
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    return data


def write(sections: Sequence[Section]) -> None:
    os.makedirs(RESULTS, exist_ok=True)
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    for s in sections:
        with open(os.path.join(RESULTS, f"{s.key}.json"), "w") as f:
            json.dump(_plain(s.data), f, indent=2, default=str)
        begin, end = f"<!-- BEGIN {s.key} -->", f"<!-- END {s.key} -->"
        block = f"{begin}\n{s.markdown.strip()}\n{end}"
        if begin in doc:
            doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, doc, flags=re.S)
        else:
            doc += f"\n{block}\n"
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(doc)
