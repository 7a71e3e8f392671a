"""Managed tables under the fuzzer (`make fuzz-tables`, docs/fuzzing.md).

Each generated dataset (the plain fuzzer's: odd types, names, formats and time zones) becomes a
table: ``Skipstone.create`` lays it out with a random layout over random columns and block
sizes and builds random indexes; then the table changes, each step in another session time
zone: an optimize that splits a random block at a random sample value, an append of the source
again, a plain Spark write of it into the table's root (read unindexed, then absorbed by the
next optimize), an Amoeba optimize and a PAW rebuild eager to rewrite, the other writer
replacing its file under the same name with other rows, and an optimize by the policy the table
names (``optimize.layoutPolicy``: Amoeba's, AutoColumns, bounded rewrites or the better of the two). Each version is queried under a random
read context (session settings, a reordered read schema; see fuzz/contexts.py). After every step:

- the table holds exactly the rows written into it (a multiset, read with skipping off);
- no file holding a row where a predicate is TRUE is skipped (the fuzzer's own oracle, run
  against the table's current version);
- a few predicates end to end: the table returns the same rows with skipping on and off.

A failure is printed as a reproducer (dataset, layout, step, predicate) and counted.
"""
from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from fuzz import columns as columns_
from fuzz import contexts, datagen, indexgen, oracle, predicates, runner, session
from fuzz.predicates import render

PREDICATES_PER_STEP = 200
END_TO_END_PER_STEP = 3
BLOCK_ROWS = (1, 2, 3, 5, 8, 13, 40, 1000)
# Settings a table version is queried under: none changes a value Spark's Parquet files hold.
TABLE_SETTINGS = ("spark.sql.ansi.enabled", "spark.sql.legacy.timeParserPolicy", "spark.sql.legacy.sizeOfNull",
                  "spark.sql.parquet.fieldId.read.enabled", "spark.sql.shuffle.partitions", "spark.sql.adaptive.enabled")


@dataclass
class TableSummary:
    tables: int = 0
    creates_refused: int = 0
    steps: int = 0
    step_errors: int = 0
    cases: int = 0
    skipped_something: int = 0
    end_to_end: int = 0
    wrong: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    refusals: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        return (f"fuzz-tables: {self.tables} tables, {self.steps} versions checked, {self.cases} predicate cases "
                f"({self.skipped_something} skipped >= 1 file), {self.end_to_end} end-to-end; "
                f"{self.wrong} wrong in {len(self.failures)} reports; {self.step_errors} steps failed; "
                f"{self.creates_refused} creates refused; "
                f"{self.seconds:.0f} s")


class SplitRandomBlock:
    """A layout policy that always rewrites: a random non-empty block cut on a random layout
    column at one of its sample values (NULL's and NaN's encodings included)."""

    name = "SplitRandomBlock"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def propose(self, tree: Any, workload: Any, sample: Any) -> Any:
        from skipstone.layout import LayoutChange, Leaf, Split

        if sample.rows == 0 or not hasattr(tree, "leaves"):
            return None  # a curve layout has no blocks to cut
        routed = tree.route(sample)
        leaves = tree.leaves
        position = self.rng.choice(sorted(set(routed.tolist())))
        leaf = leaves[position]
        column = self.rng.randrange(sample.values.shape[1])
        cut = float(self.rng.choice(sample.values[routed == position, column].tolist()))
        first = int(tree.block_ids.max()) + 1
        split = Split(column, cut, Leaf(first, leaf.rows / 2), Leaf(first + 1, leaf.rows / 2))
        return LayoutChange(tree.with_leaves(lambda b: split if b.block == leaf.block else b), (leaf.block,),
                            benefit=1.0, cost=1.0, description=f"split block {leaf.block} on column {column} at {cut}")


def choose_layout(rng: random.Random, names: list[str]) -> Any:
    """A random layout spec over a random subset of ``names`` (None: the spec's own choice)."""
    from skipstone.layout import Amoeba, Hilbert, KdTree, Range, ZOrder

    rows = rng.choice(BLOCK_ROWS)
    kind = rng.choice(["kd", "amoeba", "amoeba-paper", "zorder", "hilbert", "range"])
    if kind == "range":
        return Range(block_rows=rows, columns=[rng.choice(names)])
    columns = None if rng.random() < 0.3 else rng.sample(names, k=rng.randint(1, min(4, len(names))))
    if kind == "kd":
        return KdTree(block_rows=rows, columns=columns)
    if kind == "amoeba":
        return Amoeba(block_rows=rows, columns=columns, seed=rng.randrange(100))
    if kind == "amoeba-paper":
        return Amoeba(block_rows=rows, columns=columns, seed=rng.randrange(100), correlations=False)
    bits = rng.choice([None, 1, 3, 8])
    return (ZOrder if kind == "zorder" else Hilbert)(block_rows=rows, columns=columns, bits=bits)


class TableCase(runner.Dataset):
    """One generated dataset written as a managed table, and the fuzzer's checks against each version."""

    def __init__(self, spark: Any, spec: datagen.DatasetSpec, workdir: str, rng: random.Random) -> None:
        from skipstone import Skipstone
        from skipstone.table.jvm_layout import layout_kinds

        self.spark, self.spec, self.rng = spark, spec, rng
        source_root = os.path.join(workdir, "source")
        datagen.write(spec, source_root)
        session.set_case_sensitive(spark, spec.case_sensitive)
        session.set_zone(spark, spec.build_tz)
        self.source = runner.read(spark, spec, source_root)
        leaves = columns_.leaves(self.source, {"p"} if spec.partitioned else set())
        self.indexes = indexgen.choose(rng, leaves, spec.case_sensitive)
        kinds = layout_kinds(spark, self.source.schema)
        orderable = [f.name for f in self.source.schema.fields if kinds[f.name] is not None]
        self.layout = choose_layout(rng, orderable)
        self.root = os.path.join(workdir, "table")
        self.written = runner.normalized(self.source.collect())
        # What appends add: the source as read now, frozen (a CSV or JSON source read again in
        # another session time zone would parse its timestamps into other instants).
        frozen = os.path.join(workdir, "frozen")
        self.source.write.parquet(frozen)
        self.frozen = spark.read.parquet(frozen)
        self.copies = 1  # the source's rows are in the table this many times (appends add one)
        self.exported, self.export_version = 0, -1  # copies in the other tool's export.parquet, and when written
        self.table = Skipstone.create(spark, self.root, self.source, layout=self.layout, indexes=self.indexes)
        self.step = "create"
        self.open()

    def open(self) -> None:
        """Read the table's newest version in the query zone and a random read context (what the checks run against)."""
        session.clear_metadata_cache(self.spark)
        session.set_zone(self.spark, self.spec.query_tz)
        contexts.reset(self.spark)
        self.read_context = {}
        self.df = self.spark.read.parquet(self.root)
        if self.rng.random() < 0.4:
            from pyspark.sql.types import StructType

            keys = [k for k in TABLE_SETTINGS if self.rng.random() < 0.3]
            self.read_context = {k: self.rng.choice(contexts.SETTINGS[k]) for k in keys}
            for k, v in self.read_context.items():
                self.spark.conf.set(k, v)
            if self.rng.random() < 0.5:
                fields = list(self.df.schema.fields)
                self.rng.shuffle(fields)
                self.read_context["schema"] = "reordered"
                self.df = self.spark.read.schema(StructType(fields)).parquet(self.root)
        self.df.createOrReplaceTempView(oracle.VIEW)
        version = self.table.current()
        self.files = {oracle.file_key(version.absolute(f), self.root) for f in version.files}
        self.leaves = columns_.leaves(self.df, set())

    def describe(self) -> str:
        return (f"layout={self.layout!r} indexes={[ix.describe() for ix in self.indexes]} step={self.step} "
                f"version={self.table.current().version} read_context={self.read_context}\n"
                f"  dataset: {self.spec.describe()}")


def _rows_of(ds: TableCase) -> list[Any]:
    """The table's rows, columns in the source's order (a query context may read them reordered)."""
    from skipstone.per_file import column_of

    oracle.skipping(ds.spark, False)
    try:
        return runner.normalized(ds.df.select(*[column_of([f.name]) for f in ds.source.schema.fields]).collect())
    finally:
        oracle.skipping(ds.spark, True)


def _difference(a: list[Any], b: list[Any]) -> list[str]:
    """The multiset a - b, rows shown as their repr."""
    return list((Counter(map(repr, a)) - Counter(map(repr, b))).elements())


def check(ds: TableCase, summary: TableSummary, log: Callable[[str], None],
          predicates_per_step: int = PREDICATES_PER_STEP) -> None:
    """Every check against the table's current version."""
    summary.steps += 1
    ds.open()

    def fail(what: str) -> None:
        summary.wrong += 1
        report = f"TABLE WRONG ANSWER [{ds.step}] {what}\n  {ds.describe()}"
        summary.failures.append(report)
        log(report)

    rows, expected = _rows_of(ds), sorted(ds.written * ds.copies, key=repr)
    if rows != expected:
        extra, missing = _difference(rows, expected), _difference(expected, rows)
        fail(f"the table holds {len(rows)} rows, {len(expected)} were written; "
             f"not written: {extra[:2]}; written, not held: {missing[:2]}")
    preds = [predicates.predicate(ds.leaves, ds.rng) for _ in range(predicates_per_step)]
    for p, outcome in zip(preds, ds.verdicts(preds)):
        if outcome.error:
            continue
        summary.cases += 1
        summary.skipped_something += outcome.skipped_any
        if outcome.missing:
            fail(f"skipped {sorted(outcome.missing)} holding rows where {render(p)} is TRUE")
    for p in ds.rng.sample(preds, k=min(END_TO_END_PER_STEP, len(preds))):
        summary.end_to_end += 1
        problem = ds.end_to_end(p)  # skipping off and on; the multiset check ties the table to the source
        if problem:
            fail(f"{problem}; predicate {render(p)}")


def _absorbed_since(root: str, name: str, version: int) -> bool:
    """Whether a version after ``version`` records ``name`` as absorbed (docs/table-format.md)."""
    import json

    log = os.path.join(root, "_skipstone", "log")
    for entry in sorted(os.listdir(log)):
        if not entry.endswith(".json") or int(entry[:-5]) <= version:
            continue
        with open(os.path.join(log, entry)) as f:
            absorbed = json.load(f).get("absorbed") or []
        if any((a if isinstance(a, str) else a.get("path", a.get("name", ""))).endswith(name) for a in absorbed):
            return True
    return False


def _is_tree(ds: TableCase) -> bool:
    """Amoeba adapts trees; on a curve layout it refuses by design (PAW rebuilds those)."""
    return hasattr(ds.table.tree(), "leaves")


def _steps(ds: TableCase) -> list[tuple[str, Callable[[], Any]]]:
    from skipstone.layout import AmoebaAdaptive, PawRebuild
    from skipstone.layout.cost_model import RowsRead

    def append() -> None:
        ds.table.append(ds.frozen)
        ds.copies += 1

    def other_writer() -> None:
        # Spark without Skipstone's API writing into the root: the table reads such files
        # unindexed, and the next optimize absorbs them into its layout.
        ds.frozen.coalesce(1).write.mode("append").parquet(ds.root)
        ds.copies += 1

    def export(copies: int) -> None:
        # Another tool keeps one file of its own in the root, export.parquet, and replaces it
        # under the same name: each version of it is new data, absorbed or not.
        staging = os.path.join(os.path.dirname(ds.root), f"export-{copies}-{ds.rng.randrange(10**9)}")
        data = ds.frozen
        for _ in range(copies - 1):
            data = data.unionByName(ds.frozen)
        data.coalesce(1).write.parquet(staging)
        part = next(n for n in sorted(os.listdir(staging)) if n.startswith("part-") and n.endswith(".parquet"))
        target = os.path.join(ds.root, "export.parquet")
        # The rows of the file replaced stay in the table only if a version absorbed them.
        replaced = ds.exported if os.path.exists(target) and not _absorbed_since(ds.root, "export.parquet", ds.export_version) else 0
        os.replace(os.path.join(staging, part), target)
        shutil.rmtree(staging, ignore_errors=True)
        ds.copies += copies - replaced
        ds.exported, ds.export_version = copies, ds.table.current().version

    eager = dict(cost_model=RowsRead(), write_multiplier=1e-6)

    def own_policy() -> Any:
        # t.optimize() with no policy runs the one optimize.layoutPolicy names, priced by the
        # table's cost.* settings: nearly free rewrites, so that it rewrites
        ds.table.set_properties({"optimize.layoutPolicy": ds.rng.choice(["adaptive", "auto", "bounded", "bounded-auto"]),
                                 "optimize.layoutBudgetBytes": str(ds.rng.choice([1, 10**5, 10**9])),
                                 "cost.writeMultiplier": "0.000001", "cost.jobBytes": "0", "cost.fileBytes": "0"})
        return ds.table.optimize()
    return [
        ("optimize: split a random block", lambda: ds.table.optimize(SplitRandomBlock(ds.rng))),
        ("append the source again", append),
        ("another writer drops the source into the root", other_writer),
        ("another tool writes export.parquet into the root", lambda: export(1)),
        ("optimize: AmoebaAdaptive", lambda: _is_tree(ds) and ds.table.optimize(AmoebaAdaptive(window=50, **eager))),
        ("another tool replaces export.parquet with other rows", lambda: export(2)),
        ("optimize: PawRebuild", lambda: ds.table.optimize(PawRebuild(window=50, **eager))),
        ("optimize: the table's own layout policy", own_policy),
    ]


def run(tables: int, seed: int, spark: Any | None = None, workdir: str | None = None,
        log: Callable[[str], None] = print, predicates_per_step: int = PREDICATES_PER_STEP) -> TableSummary:
    spark = session.prepare(spark) if spark is not None else session.new_session()
    own_dir = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="skipstone-fuzz-tables-")
    summary = TableSummary()
    start = time.time()
    number = 0
    try:
        while summary.tables + summary.creates_refused < tables:
            rng = random.Random(f"tables/{seed}/{number}")
            case_dir = os.path.join(workdir, f"t{number:05d}")
            number += 1
            spec = datagen.generate(rng)
            try:
                ds = TableCase(spark, spec, case_dir, rng)
            except Exception as e:  # noqa: BLE001 - a refused create is counted; its message is kept
                summary.creates_refused += 1
                key = oracle._short(e)[:160]
                summary.refusals[key] = summary.refusals.get(key, 0) + 1
                shutil.rmtree(case_dir, ignore_errors=True)
                continue
            summary.tables += 1
            check(ds, summary, log, predicates_per_step)
            for name, step in _steps(ds):
                ds.step = name
                session.set_zone(spark, rng.choice(datagen.TIME_ZONES))
                try:
                    step()
                except Exception as e:  # noqa: BLE001 - reported; the table must still be intact
                    summary.step_errors += 1
                    where = "".join(traceback.format_exc(limit=-3).splitlines(keepends=True)[1:-1])
                    report = f"TABLE STEP FAILED [{name}] {oracle._short(e)}\n{where}  {ds.describe()}"
                    summary.failures.append(report)
                    log(report)
                check(ds, summary, log, predicates_per_step)
            shutil.rmtree(case_dir, ignore_errors=True)
            summary.seconds = time.time() - start
            log(f"... {summary.text()}")
    finally:
        summary.seconds = time.time() - start
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)
    return summary


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="fuzz.tables", description="Skipstone's managed-table fuzzer")
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--predicates", type=int, default=PREDICATES_PER_STEP, help="predicates checked per version")
    args = parser.parse_args()
    summary = run(args.tables, args.seed, log=lambda s: print(s, flush=True), predicates_per_step=args.predicates)
    print(summary.text())
    for message, count in sorted(summary.refusals.items(), key=lambda kv: -kv[1]):
        print(f"  create refused x{count}: {message}")
    return 1 if summary.wrong or summary.step_errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
