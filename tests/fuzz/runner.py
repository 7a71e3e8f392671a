"""The fuzz loop: dataset -> indexes -> many predicates -> verdicts, with reproducers on failure."""
from __future__ import annotations

import math
import os
import re
import random
import shutil
import tempfile
import time
from typing import Any, Callable

from fuzz import columns as columns_
from fuzz import contexts, datagen, indexgen, oracle, predicates, session, shrink
from fuzz.predicates import Pred, render, to_column
from fuzz.report import Failure, Summary
from fuzz.timing import TIMER

PER_DATASET = 1500
END_TO_END_PER_DATASET = 3


def read(spark: Any, spec: datagen.DatasetSpec, root: str) -> Any:
    return spark.read.format(spec.format).options(**spec.options).load(root)


class Dataset:
    """One written and indexed dataset, and the checks run against it."""

    def __init__(self, spark: Any, spec: datagen.DatasetSpec, root: str, rng: random.Random) -> None:
        self.spark, self.spec, self.root = spark, spec, root
        datagen.write(spec, root)
        self.files = {oracle.file_key(p, root) for p in _data_files(root)}
        contexts.reset(spark)
        session.set_case_sensitive(spark, spec.case_sensitive)
        session.set_zone(spark, spec.build_tz)
        self.leaves = columns_.leaves(read(spark, spec, root), {"p"} if spec.partitioned else set())
        self.indexes = indexgen.choose(rng, self.leaves, spec.case_sensitive)
        self.context = contexts.choose(rng, spec.format, spec.options, spec.partitioned)
        spec.query_context = self.context.describe()

    def build(self, indexes: list[Any] | None = None) -> None:
        from skipstone import Skipstone

        contexts.reset(self.spark)
        session.set_case_sensitive(self.spark, self.spec.case_sensitive)
        session.set_zone(self.spark, self.spec.build_tz)
        with TIMER("build"):
            Skipstone.for_path(self.spark, self.root, format=self.spec.format, options=self.spec.options).build(
                *(indexes if indexes is not None else self.indexes))
        session.clear_metadata_cache(self.spark)
        # queries run in the query zone and context, reading the files as this DataFrame does
        session.set_zone(self.spark, self.spec.query_tz)
        built_read = read(self.spark, self.spec, self.root)
        contexts.apply(self.spark, self.context, self.spec.case_sensitive)
        self.df = contexts.read(self.spark, self.spec.format, self.root, self.context, built_read, self.root)
        self.df.createOrReplaceTempView(oracle.VIEW)

    def verdicts(self, preds: list[Pred]) -> list[oracle.Outcome]:
        # a non-deterministic predicate is judged by its prunable prefix (None: every row counts)
        prefixes = [oracle.needs_prefix(p) for p in preds]
        with TIMER("reference"):
            refs = oracle.reference(self.spark, self.df, self.root,
                                    [p if q is False else q for p, q in zip(preds, prefixes)])
        with TIMER("planning"):
            kept = oracle.kept_files(self.spark, self.df, self.root, preds)
        out = [oracle.judge(p, refs[n], None, kept[n], self.files) for n, p in enumerate(preds)]
        for n, o in enumerate(out):
            if o.missing:
                # Confirm with the filter itself: Spark can evaluate a predicate differently in a
                # Filter than in the reference's projection (UnwrapCastInBinaryComparison turns
                # CAST(ntz AS TIMESTAMP) BETWEEN .. into ntz >= .., which differs in a DST gap).
                with TIMER("confirm"):
                    required = oracle.filtered_files(self.spark, self.df, self.root,
                                                     preds[n] if prefixes[n] is False else prefixes[n])
                    if prefixes[n] is None and not isinstance(required, str) \
                            and not oracle.scans_anything(self.spark, self.df, preds[n]):
                        # Spark itself folded the filter to FALSE (`... AND NULL <= x`) and reads
                        # no file at all: nothing can have been skipped wrongly.
                        required = set()
                if isinstance(required, str):
                    o.error, o.missing = required, set()
                else:
                    o.required, o.missing = required, required - (o.kept or set())
        return out

    def end_to_end(self, pred: Pred) -> str | None:
        """Real result multisets with skipping off and on; a message if they differ."""
        import skipstone

        col = to_column(pred)
        try:
            oracle.skipping(self.spark, False)
            expected = normalized(self.df.filter(col).collect())
            oracle.skipping(self.spark, True)
            actual = normalized(self.df.filter(col).collect())
            skipped = skipstone.last_query_stats(self.spark).files_skipped
        except Exception:  # noqa: BLE001 - a predicate Spark rejects is not Skipstone's business
            return None
        if not predicates.deterministic(pred) and skipped:
            return None   # allowed pruning reshuffles rand(); the planned check covers these
        if actual != expected:
            return f"end to end: {len(expected)} rows with skipping off, {len(actual)} with it on"
        return None


def _data_files(root: str) -> list[str]:
    out = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        out += [os.path.join(folder, n) for n in names if not n.startswith(("_", "."))]
    return out


def normalized(rows: list[Any]) -> list[Any]:
    def cell(v: Any) -> Any:
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, (list, tuple)):
            return tuple(cell(x) for x in v)
        return v
    return sorted((cell(tuple(r)) for r in rows), key=repr)


def run(cases: int, seed: int, spark: Any | None = None, workdir: str | None = None,
        per_dataset: int = PER_DATASET, log: Callable[[str], None] = print, shrink_failures: bool = True,
        progress: Callable[[Summary], None] | None = None) -> Summary:
    spark = session.prepare(spark) if spark is not None else session.new_session()
    own_dir = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="skipstone-fuzz-")
    summary = Summary()
    start = time.time()
    last_log = start
    number = 0
    try:
        while summary.cases < cases:
            rng = random.Random(f"{seed}/{number}")
            root = os.path.join(workdir, f"ds{number:05d}")
            number += 1
            spec = datagen.generate(rng)
            try:
                with TIMER("write"):
                    ds = Dataset(spark, spec, root, rng)
                ds.build()
            except Exception as e:  # noqa: BLE001 - a failed build is reported, not a wrong answer
                summary.builds_failed += 1
                summary.build_errors.setdefault(spec.format + ": " + oracle._short(e)[:120], root)
                shutil.rmtree(root, ignore_errors=True)
                continue
            summary.datasets += 1
            summary.by_format[spec.format] = summary.by_format.get(spec.format, 0) + 1
            n = min(per_dataset, cases - summary.cases)
            preds = [predicates.predicate(ds.leaves, rng) for _ in range(n)]
            for p, outcome in zip(preds, ds.verdicts(preds)):
                if outcome.error:
                    summary.errors += 1
                    continue
                summary.cases += 1
                summary.skipped_something += outcome.skipped_any
                summary.nondeterministic += not predicates.deterministic(p)
                if outcome.missing:
                    _record(summary, ds, p, outcome, log, shrink_failures)
            for p in rng.sample(preds, k=min(END_TO_END_PER_DATASET, len(preds))):
                summary.end_to_end += 1
                with TIMER("end to end"):
                    problem = ds.end_to_end(p)
                if problem:
                    summary.wrong += 1
                    _add(summary, Failure(shrink.signature("end-to-end", p, spec.format), spec.describe(),
                                          [ix.describe() for ix in ds.indexes], render(p), [], problem), log)
            shutil.rmtree(root, ignore_errors=True)
            if time.time() - last_log > 30:
                last_log = time.time()
                summary.seconds = last_log - start
                log(f"... {summary.text()}\n    time: {TIMER.text()}")
                if progress is not None:
                    progress(summary)
    finally:
        summary.seconds = time.time() - start
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)
    return summary


def _record(summary: Summary, ds: Dataset, p: Pred, outcome: oracle.Outcome, log: Callable[[str], None],
            shrink_failures: bool) -> None:
    summary.wrong += 1
    indexes = [ix.describe() for ix in ds.indexes]
    pred, missing = p, sorted(outcome.missing)
    dotted = _dotted_top_level(ds, p)
    if dotted:
        # a top-level column named like a struct field: one class (issue 8, column identity)
        known = [f for f in summary.failures.values() if "top-level dotted column" in f.note]
        if known:
            known[0].count += 1
            return
    if not predicates.deterministic(p) and any("non-deterministic conjunct first" in f.note for f in summary.failures.values()):
        next(f for f in summary.failures.values() if "non-deterministic conjunct first" in f.note).count += 1
        return   # the commonest class by far: counted, not shrunk again
    if shrink_failures and summary.shrunk_predicates < MAX_SHRUNK:
        summary.shrunk_predicates += 1
        # predicate shrinking reuses the built indexes: cheap, so every failure gets it
        def fails(cands: list[Pred]) -> list[bool]:
            return [bool(o.missing) for o in ds.verdicts(cands)]
        with TIMER("shrink"):
            pred = shrink.shrink_predicate(p, fails)
    shape = shrink.signature("", pred, ds.spec.format)
    if dotted and _dotted_top_level(ds, pred):
        shape = f"top-level dotted column {dotted} vs struct field"
    if not predicates.deterministic(pred):
        # one class whatever the rest of the predicate: skipping past a non-deterministic conjunct
        shape = f"non-deterministic conjunct first | {type(ds.indexes[0]).__name__ if len(ds.indexes) == 1 else ''}"
    for f in summary.failures.values():
        if shape in f.note:
            f.count += 1
            return
    blame = indexes
    if shrink_failures and summary.shrunk < MAX_BLAMED:
        summary.shrunk += 1
        with TIMER("shrink"):
            blame = _blame(ds, pred) or indexes
            ds.build()  # back to the full index set for the remaining cases
            missing = sorted(ds.verdicts([pred])[0].missing) or missing
    sig = shrink.signature(blame[0] if len(blame) == 1 else "several", pred, ds.spec.format)
    _add(summary, Failure(sig, ds.spec.describe(), blame, render(pred), missing,
                          note=f"unshrunk: {render(p)} || shape: {shape}"), log)


MAX_BLAMED = 25


def _dotted_top_level(ds: Dataset, p: Pred) -> str | None:
    """The top-level column literally named like a struct field (`a.b` next to struct a) that ``p`` uses."""
    structs = {leaf.path[0] for leaf in ds.leaves if len(leaf.path) > 1}
    text = render(p)
    for leaf in ds.leaves:
        name = leaf.path[0]
        if len(leaf.path) == 1 and "." in name and name.split(".")[0] in structs and f"`{name}`" in text:
            return name
    return None
MAX_SHRUNK = 60


def _blame(ds: Dataset, pred: Pred) -> list[str]:
    """The one index that alone still gives the wrong answer, if any (one rebuild per try)."""
    tokens = {part.lower() for ident in re.findall(r"`([^`]+)`", render(pred)) for part in ident.split(".")}
    related = [ix for ix in ds.indexes
               if not ix.columns or any(part.lower() in tokens for c in ix.columns for part in c.split("."))]
    for ix in related[:8]:
        try:
            ds.build([ix] if ix.columns else [i for i in ds.indexes if i in related])
            if ds.verdicts([pred])[0].missing:
                return [ix.describe()]
        except Exception:  # noqa: BLE001 - an index that cannot be built alone is not the culprit
            continue
    return []


def _add(summary: Summary, failure: Failure, log: Callable[[str], None]) -> None:
    if failure.signature in summary.failures:
        summary.failures[failure.signature].count += 1
        return
    summary.failures[failure.signature] = failure
    log(failure.text())
