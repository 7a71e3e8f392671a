"""What the JVM's table operations ask of Python, over py4j's callback server: a layout policy's
proposal (``io.skipstone.table.PythonPolicy``) and the roles of indexes that a Python function
computes (``io.skipstone.table.PythonDriver``). The strategy loop, the rewrite and the commit are
the JVM's (``io.skipstone.table.OptimizeIteration``); Python only answers the planner's question:
which change, with what benefit and cost."""
from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from skipstone.errors import SkipstoneError
from skipstone.layout import AutoColumns, BestOf, BoundedRewrite
from skipstone.layout.policies import AmoebaAdaptive, LayoutPolicy
from skipstone.layout.tree import PartitionTree
from skipstone.table import manifest, settings
from skipstone.table.settings import TableSettings
from skipstone.table.optimize import change_document, plan
from skipstone.table.transaction import PythonRoles, python_roles

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)


def default_policy(settings: TableSettings | None = None) -> LayoutPolicy:
    """The policy of ``t.optimize()``, of the automatic optimize after an append and of SQL's
    ``OPTIMIZE``: the one the table's ``optimize.layoutPolicy`` names (``adaptive`` when unset),
    a bounded step rewriting at most its ``optimize.layoutBudgetBytes``.

    >>> default_policy().name
    'AmoebaAdaptive'
    >>> default_policy(TableSettings(("layout",), 1, 0, False, 168.0, True, True,
    ...                              layout_policy="bounded-auto", layout_budget_bytes=10**8)).name
    'BestOf'
    """
    chosen = settings.layout_policy if settings is not None else "adaptive"
    budget = float(settings.layout_budget_bytes) if settings is not None else None
    bounded = BoundedRewrite() if budget is None else BoundedRewrite(budget_bytes=budget)
    policies: dict[str, LayoutPolicy] = {"adaptive": AmoebaAdaptive(), "auto": AutoColumns(), "bounded": bounded,
                                         "bounded-auto": BestOf((bounded, AutoColumns()))}
    if chosen not in policies:  # the JVM refuses other values before they are committed
        raise SkipstoneError(f"optimize.layoutPolicy = {chosen!r}: not one of {', '.join(policies)}")
    return policies[chosen]


def propose(spark: SparkSession, policy: LayoutPolicy | None, root: str, base_version: int) -> str | None:
    """The change ``policy`` (None: the table's, ``default_policy``) proposes for version
    ``base_version`` of the table at ``root``, as the JVM reads it (``ProposedChange.fromJson``);
    None when it proposes none.

    The table's policy, not the user's choice, leaves a curve layout (Z-order, Hilbert) alone: it
    has no cuts to adapt, so a plain ``OPTIMIZE`` after ``OPTIMIZE t ZORDER BY`` compacts and
    indexes only, as Delta Lake's does; a policy the user named still says it cannot adapt a curve."""
    base = manifest.at(spark, root, base_version)
    if policy is None and not isinstance(base.tree, PartitionTree):
        log.info("%s: the default layout policy leaves a %s layout as it is (OPTIMIZE ... LAYOUT AUTO or "
                 "PawRebuild lay it out again)", root, type(base.tree).__name__)
        return None
    if policy is None:
        policy = default_policy(settings.read(spark, base.properties, root))
    planned = plan(spark, base, None, policy)  # None: the table's log, read without a Spark job
    if planned is None:
        return None
    return json.dumps(change_document(planned), allow_nan=False)


def failure(e: BaseException) -> str:
    """A policy's failure as the JVM's ``PolicyFailed`` carries it (and ``AppendResult.optimize_error``)."""
    return json.dumps({"error": str(e) if isinstance(e, SkipstoneError) else f"{type(e).__name__}: {e}"})


class PolicyCallback:
    """One call's layout policy as the JVM's ``io.skipstone.table.PythonPolicy``. What the policy
    raised is kept, so that the caller raises it again as it was once the JVM gave up."""

    def __init__(self, spark: SparkSession, policy: LayoutPolicy | None) -> None:
        self._spark, self._policy = spark, policy
        self.raised: BaseException | None = None

    def propose(self, jsession: object, root: str, base_version: int) -> str | None:
        try:
            return propose(self._spark, self._policy, root, base_version)
        except BaseException as e:  # noqa: BLE001 - handed to the JVM as the policy's failure, raised again by the caller
            self.raised = e
            return failure(e)

    class Java:
        implements = ["io.skipstone.table.PythonPolicy"]


class PythonDriver:
    """A session's Python side of its table handles (``io.skipstone.table.PythonDriver``): the
    default policy's proposals and the Python roles of a table's indexes."""

    def __init__(self, spark: SparkSession) -> None:
        self._spark = spark

    def propose(self, jsession: object, root: str, base_version: int) -> str | None:
        try:
            return propose(self._spark, None, root, base_version)
        except Exception as e:  # noqa: BLE001 - the JVM reports it (an automatic optimize's optimize_error)
            return failure(e)

    def roles(self, jsession: object, root: str) -> PythonRoles | None:
        return python_roles(self._spark, root)

    class Java:
        implements = ["io.skipstone.table.PythonDriver"]
