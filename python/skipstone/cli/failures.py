"""Errors a user can fix are printed as one line naming what is at fault, with exit code 1;
anything else is a bug and keeps its traceback.

The library's messages speak Python (``Pass force=True``) or SQL; the command line says the same
in its own terms (``use --force``): ``in_cli_terms`` translates them here, where they are
printed, and leaves the library's own wording to the library.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, TypeVar

import typer
from rich.text import Text

from skipstone.cli.output import plain_console
from skipstone.errors import SkipstoneError

F = TypeVar("F", bound=Callable[..., Any])

errors = plain_console(stderr=True)

# (pattern in a library message, what the command line says instead)
_CLI_TERMS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"Pass force=True to (\w+) with it anyway\.", r"Use --force to \1 with it anyway."),
    (r"Pass force=True", "Use --force"),
    (r"create (?:it|one) with (?:Python's )?Skipstone\.create(?:\([^)]*\))?", "create one with `skipstone create`"),
    (r"open it with Skipstone\.for_path(?:\([^)]*\))?", "name its directory"),
    (r"Skipstone\.for_path\(spark, '?([^)']*)'?\)\.advise\(\) in a pyspark session",
     r"ManagedTable.advise() from Python"),
    (r"add their rows with t\.append\(df\)", "add their rows with `skipstone append`"),
    (r"run it from Python \(t\.optimize\(\)\) or the CLI", "run `skipstone optimize`"),
    (r"\bset_properties\b", "`skipstone properties --set`"),
    (r"retention_hours=", "--retention-hours "),
))


# the remedies of the JVM's hinted errors (``SkipstoneError.hint``) in the command line's words;
# Python's are in skipstone/error_hints.py, SQL's in io.skipstone.sql.SqlHints
_CLI_REMEDIES: dict[str, Callable[[dict[str, str]], str]] = {
    "vacuum.underTableRetention": lambda f: (
        "Use --force to vacuum with it anyway, or lower the table's retention first: skipstone properties "
        f"{f.get('root', 'TABLE')} --set vacuum.retentionHours={f.get('hours', '<hours>')}"),
    "vacuum.underDefaultRetention": lambda f: (
        "Use --force to vacuum with it anyway, or opt the table in first: skipstone properties "
        f"{f.get('root', 'TABLE')} --set vacuum.retentionCheck=false "
        f"--set vacuum.retentionHours={f.get('hours', '<hours>')}"),
    "table.create": lambda f: "Create one with `skipstone create`.",
}


def cli_message(error: BaseException) -> str:
    """What the command line prints for a user error: a hinted error's problem with the
    command line's remedy; otherwise its first line, translated (``in_cli_terms``)."""
    if isinstance(error, SkipstoneError) and error.hint in _CLI_REMEDIES:
        return f"{error.problem} {_CLI_REMEDIES[error.hint](error.facts)}"
    text = str(error).strip()
    return in_cli_terms(text.splitlines()[0] if text else type(error).__name__)


def in_cli_terms(message: str) -> str:
    """A library message as the command line says it (``Pass force=True`` becomes ``Use --force``)."""
    for pattern, replacement in _CLI_TERMS:
        message = pattern.sub(replacement, message)
    return message


def user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that describe bad input: ours, Spark's analysis and parse errors (they name
    the column or table), and the layout package's ValueErrors (they name the column)."""
    try:
        from pyspark.errors import PySparkException
    except ImportError:  # pragma: no cover - pyspark is a dependency; metadata commands do not import it
        return (SkipstoneError, ValueError, FileNotFoundError)
    return (SkipstoneError, PySparkException, ValueError, FileNotFoundError)


def report(message: str) -> None:
    """``error: message`` on stderr, the message as it is (no markup, no emoji codes)."""
    errors.print(Text.assemble(("error:", "bold red"), " ", message))


def reported(command: F) -> F:
    """Wrap a command so that a user error ends it with a clear message and exit code 1."""
    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except user_errors() as e:
            report(cli_message(e))
            raise typer.Exit(1) from None
    return run  # type: ignore[return-value]
