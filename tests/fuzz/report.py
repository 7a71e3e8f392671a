"""Printing and saving reproducers, and the run's summary."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Failure:
    signature: str
    dataset: dict[str, Any]
    indexes: list[str]
    predicate: str
    skipped_files: list[str]
    note: str = ""
    count: int = 1

    def text(self) -> str:
        d = self.dataset
        lines = [
            f"WRONG ANSWER  [{self.signature}]",
            f"  predicate : {self.predicate}",
            f"  index     : {', '.join(self.indexes)}",
            f"  skipped   : {', '.join(self.skipped_files)} (holds rows where the predicate is TRUE)",
            f"  dataset   : format={d['format']} options={d['options']} partitioned={d['partitioned']} "
            f"build_tz={d['build_tz']} query_tz={d['query_tz']} case_sensitive={d['case_sensitive']}",
            f"  queried as: {d.get('query_context') or 'the build read'}",
            f"  columns   : {[('.'.join(c['path']) if len(c['path']) > 1 else c['path'][0], c['kind']) for c in d['columns']]}",
        ]
        for n, f in enumerate(d["files"]):
            lines.append(f"  file {n}    : partition={f['partition']} rows={f['rows']}")
        if self.note:
            lines.append(f"  note      : {self.note}")
        return "\n".join(lines)


@dataclass
class Summary:
    cases: int = 0
    datasets: int = 0
    builds_failed: int = 0
    errors: int = 0
    skipped_something: int = 0
    nondeterministic: int = 0
    end_to_end: int = 0
    wrong: int = 0
    shrunk: int = 0
    shrunk_predicates: int = 0
    seconds: float = 0.0
    failures: dict[str, Failure] = field(default_factory=dict)
    build_errors: dict[str, str] = field(default_factory=dict)
    by_format: dict[str, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.cases / self.seconds if self.seconds else 0.0

    def text(self) -> str:
        return (f"fuzz: {self.cases} cases over {self.datasets} datasets in {self.seconds:.0f} s "
                f"({self.rate:.0f} cases/s); {self.wrong} wrong answers in {len(self.failures)} classes; "
                f"{self.skipped_something} cases skipped >= 1 file; {self.nondeterministic} non-deterministic; "
                f"{self.end_to_end} end-to-end; {self.errors} predicates Spark rejected; "
                f"{self.builds_failed} builds failed; by format {self.by_format}")

    def save(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "summary.json"), "w", encoding="utf-8") as out:
            json.dump({"cases": self.cases, "datasets": self.datasets, "seconds": round(self.seconds, 1),
                       "cases_per_second": round(self.rate, 1), "wrong": self.wrong,
                       "classes": len(self.failures), "skipped_something": self.skipped_something,
                       "end_to_end": self.end_to_end, "errors": self.errors, "builds_failed": self.builds_failed,
                       "build_errors": self.build_errors,
                       "failures": [f.__dict__ for f in self.failures.values()]}, out, indent=1, default=str)
