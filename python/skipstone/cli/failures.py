"""Errors a user can fix are printed as one line naming what is at fault, with exit code 1;
anything else is a bug and keeps its traceback."""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from skipstone.errors import SkipstoneError

F = TypeVar("F", bound=Callable[..., Any])

errors = Console(stderr=True)


def user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that describe bad input: ours, Spark's analysis and parse errors (they name
    the column or table), and the layout package's ValueErrors (they name the column)."""
    from pyspark.errors import PySparkException

    return (SkipstoneError, PySparkException, ValueError, FileNotFoundError)


def reported(command: F) -> F:
    """Wrap a command so that a user error ends it with a clear message and exit code 1."""
    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except user_errors() as e:
            message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            errors.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
    return run  # type: ignore[return-value]
