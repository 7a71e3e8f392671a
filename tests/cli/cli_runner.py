"""Running the ``skipstone`` command line in-process, in the test module's SparkSession.

A module imports the ``cli`` fixture from here (not a conftest.py: the suite's modules import
helpers from the top-level conftest by name, which a second conftest would shadow)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest


@dataclass(frozen=True)
class CliRun:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def cli(spark: Any) -> Callable[..., CliRun]:
    """``cli("describe", path, "--json")`` runs the real app (parsing, commands, error handling)
    the way the console script does, but in this module's session instead of starting one."""
    from typer.testing import CliRunner

    from skipstone.cli import app
    from skipstone.cli.state import CliState

    runner = CliRunner(env={"COLUMNS": "200"})  # rich tables as wide as a roomy terminal's

    def run(*args: str) -> CliRun:
        result = runner.invoke(app, list(args), obj=CliState(session=spark))
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return CliRun(result.exit_code, result.stdout, result.stderr)

    return run
