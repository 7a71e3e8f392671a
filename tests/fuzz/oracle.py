"""What is a wrong answer, decided cheaply for many predicates at once.

A wrong answer is exactly: a file holding a row where the predicate is TRUE was skipped.
So per predicate we need two things:

* the reference, from ONE Spark aggregate over all of a batch's predicates with Skipstone
  and Parquet pushdown off: per file, count_if(p_i) (Parquet footers omit NaN, so Spark's
  own pushdown is wrong for NaN and may not take part in the reference);
* the files Skipstone keeps, from ONE planned (never executed) query, the UNION ALL of
  `SELECT i FROM t WHERE p_i`: each branch gets its own SkippingFileIndex, whose
  listFiles() applies the metadata exactly as a real scan does. `df.inputFiles()` is no use:
  the wrapper delegates it unpruned.

Non-deterministic predicates: Spark may push only the deterministic conjuncts before the first
non-deterministic one, and so may Skipstone; skipping anything else changes which rows
rand()/monotonically_increasing_id() see. The oracle therefore requires every file holding a
row where that prefix is TRUE to be kept (all non-empty files when there is no such prefix).
That is exact: it flags every skip Spark's own rules forbid and nothing they allow. Files with
zero rows hold no row at all and may always be skipped.
"""
from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable

from fuzz.predicates import Pred, prunable_part, render, sql_only, to_column

BATCH = 64


def file_key(path: str, root: str) -> str:
    """A file's path relative to the dataset root, whatever URI spelling Spark used."""
    p = urllib.parse.unquote(re.sub(r"^file:/*", "/", path))
    r = re.sub(r"^file:/*", "/", root).rstrip("/")
    return p[len(r) + 1:] if p.startswith(r + "/") else p


def skipping(spark: Any, enabled: bool) -> None:
    spark.conf.set("spark.skipstone.enabled", "true" if enabled else "false")
    spark.conf.set("spark.sql.parquet.filterPushdown", "false")
    spark.conf.set("spark.sql.orc.filterPushdown", "false")


@dataclass
class Outcome:
    """One case's verdict: ``missing`` are files wrongly skipped; ``error`` if it could not run."""

    required: set[str]
    kept: set[str] | None      # None: the branch kept everything (no wrapper, no filter)
    missing: set[str]
    skipped_any: bool
    error: str | None = None


def _batched(items: list[Any], run: Callable[[list[Any]], list[Any]], error_of: Callable[[Any, Exception], Any]) -> list[Any]:
    """Run ``run`` on the whole batch; on failure split it, so one bad predicate costs only itself."""
    try:
        return run(items)
    except Exception as e:  # noqa: BLE001 - Spark raises many kinds; any failure means "split"
        if len(items) == 1:
            return [error_of(items[0], e)]
        mid = len(items) // 2
        return _batched(items[:mid], run, error_of) + _batched(items[mid:], run, error_of)


VIEW = "fz_t"


def reference(spark: Any, df: Any, root: str, preds: list[Pred | None]) -> list[dict[str, int] | str]:
    """Per predicate, per file, how many rows make it TRUE (with no skipping at all).

    A None predicate means TRUE (count every row). An error message replaces the counts of a
    predicate Spark cannot evaluate.
    """
    from pyspark.sql import functions as F

    skipping(spark, False)

    def run(batch: list[tuple[int, Pred | None]]) -> list[dict[str, int]]:
        # The datasets are tiny: one projection of every predicate per row, counted here, is
        # cheaper than a grouped aggregate (no shuffle, no aggregation code to generate), and
        # SQL text costs one call into the JVM where Column objects cost one per operator.
        if all(p is None or sql_only(p) for _, p in batch):
            rows = df.selectExpr("_metadata.file_path AS f", *(
                f"({'true' if p is None else render(p)}) AS c{n}" for n, (_, p) in enumerate(batch))).collect()
        else:
            rows = df.select(F.col("_metadata.file_path").alias("f"), *(
                (F.lit(True) if p is None else to_column(p)).alias(f"c{n}") for n, (_, p) in enumerate(batch))).collect()
        counts: list[dict[str, int]] = [{} for _ in batch]
        for r in rows:
            f = file_key(r[0], root)
            for n in range(len(batch)):
                if r[n + 1] is True:
                    counts[n][f] = counts[n].get(f, 0) + 1
        return counts

    out: list[Any] = []
    indexed = list(enumerate(preds))
    for start in range(0, len(indexed), BATCH):
        out += _batched(indexed[start:start + BATCH], run, lambda item, e: f"reference: {_short(e)}")
    return out


def filtered_files(spark: Any, df: Any, root: str, pred: Pred | None) -> set[str] | str:
    """The files holding a row that the predicate, as a real WHERE with no skipping, returns."""
    from pyspark.sql import functions as F

    skipping(spark, False)
    try:
        filtered = df if pred is None else df.filter(to_column(pred))
        rows = filtered.select(F.col("_metadata.file_path")).distinct().collect()
    except Exception as e:  # noqa: BLE001
        return f"reference: {_short(e)}"
    return {file_key(r[0], root) for r in rows}


def scans_anything(spark: Any, df: Any, pred: Pred) -> bool:
    """Whether Spark, with no skipping, still reads the relation for ``df.filter(pred)``."""
    skipping(spark, False)
    try:
        plan = df.filter(to_column(pred))._jdf.queryExecution().optimizedPlan().toString()
    except Exception:  # noqa: BLE001 - a predicate Spark rejects: let the caller's check decide
        return True
    return "Relation" in plan.replace("LocalRelation", "")


def kept_files(spark: Any, df: Any, root: str, preds: list[Pred]) -> list[set[str] | None | str]:
    """Per predicate, the files Skipstone keeps (None: no wrapper, every file is read).

    ``df`` must be registered as the temporary view ``fz_t``.
    """
    from pyspark.sql import functions as F

    skipping(spark, True)
    jvm = spark._jvm
    nothing = jvm.org.apache.spark.api.python.PythonUtils.toSeq(jvm.java.util.ArrayList())

    def run(batch: list[tuple[int, Pred]]) -> list[Any]:
        if all(sql_only(p) for _, p in batch):
            text = " UNION ALL ".join(f"SELECT {n} AS fz_q FROM {VIEW} WHERE {render(p)}" for n, (_, p) in enumerate(batch))
            plan = spark._jsparkSession.sql(text).queryExecution().optimizedPlan()
        else:
            # One Union node over all branches: chaining unionAll() would analyze the growing
            # plan once per branch, quadratic in the batch size.
            plans = jvm.java.util.ArrayList()
            for n, (_, p) in enumerate(batch):
                plans.add(df.filter(to_column(p)).select(F.lit(n).alias("fz_q"))._jdf.queryExecution().analyzed())
            logical = jvm.org.apache.spark.sql.catalyst.plans.logical
            union = logical.Union(jvm.org.apache.spark.api.python.PythonUtils.toSeq(plans), False, False)
            plan = jvm.org.apache.spark.sql.classic.Dataset.ofRows(spark._jsparkSession, union).queryExecution().optimizedPlan()
        found: dict[int, Any] = {}
        children = plan.children() if plan.nodeName() == "Union" else None
        for k in range(children.size() if children is not None else 1):
            child = children.apply(k) if children is not None else plan
            m = re.match(r"\W*Project \[(\d+) AS fz_q", child.simpleString(5))
            if m is None:
                continue   # a branch Spark folded to an empty relation: it reads no file at all
            found[int(m.group(1))] = _listing(child, nothing, root)
        # a branch missing from the plan was proved empty by Spark itself: it keeps no file
        return [found.get(n, set()) for n in range(len(batch))]

    out: list[Any] = [None] * len(preds)
    # SQL-only predicates batch together; the few with empty IN lists go the slower way
    groups = [[(n, p) for n, p in enumerate(preds) if sql_only(p)], [(n, p) for n, p in enumerate(preds) if not sql_only(p)]]
    for group in groups:
        for start in range(0, len(group), BATCH):
            chunk = group[start:start + BATCH]
            for (n, _), result in zip(chunk, _batched(chunk, run, lambda item, e: f"planning: {_short(e)}")):
                out[n] = result
    return out


def _listing(branch: Any, nothing: Any, root: str) -> set[str] | None:
    # Each branch is Project(Filter(LogicalRelation)) or less: its leaves are few.
    leaves = branch.collectLeaves()
    kept: set[str] = set()
    wrapped = False
    for k in range(leaves.size()):
        leaf = leaves.apply(k)
        if leaf.nodeName() != "LogicalRelation":
            continue
        location = leaf.relation().location()
        text = location.listFiles(nothing, nothing).toString()
        if not location.toString().startswith("Skipstone["):
            return None
        wrapped = True
        kept |= {file_key(p, root) for p in re.findall(r"path=([^;]+);", text)}
    return kept if wrapped else None


def judge(pred: Pred, counts: dict[str, int] | str, prefix_counts: dict[str, int] | str | None,
          kept: set[str] | None | str, all_files: set[str]) -> Outcome:
    """The verdict of one case from its reference counts and the files Skipstone kept."""
    if isinstance(kept, str) or isinstance(counts, str) or isinstance(prefix_counts, str):
        return Outcome(set(), None, set(), False,
                       error=next(x for x in (kept, counts, prefix_counts) if isinstance(x, str)))
    needed = counts if prefix_counts is None else prefix_counts
    required = {f for f, n in needed.items() if n > 0}
    if kept is None:
        return Outcome(required, None, set(), False)
    return Outcome(required, kept, required - kept, bool(all_files - kept))


def _short(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else type(e).__name__


def needs_prefix(p: Pred) -> Pred | None | bool:
    """For a non-deterministic predicate None: every non-empty file must be kept (Skipstone
    prunes nothing under rand() & co., whose values depend on the scan's partitions); False for a
    deterministic predicate (its own counts are the requirement)."""
    return False if prunable_part(p) is p else None
